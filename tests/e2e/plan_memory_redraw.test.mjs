// Browser end-to-end test of issue 41's target "the memory view redraws within one frame of a
// slider move on a 126-layer model": Llama 3.1 405B imported from its Hugging Face config on
// 16 x 8 H100 in BF16 with Meta's t8/p16 layout. Once the worker is idle, the view has computed
// the plans one knob step away (result().plan_memory.ahead); then one step of each knob, made as
// its control makes it (tp, pp and cp refill dp, dp refills pp), is drawn in the first frame
// after setState (result().plan_memory.shown: the plan drawn, not stale, and the frame) with
// per-stage totals equal to `autopar memory --plan`'s, and the knob moved back is drawn in the
// next frame too. Prints frames and ms per step. Screenshots: build-wasm/screenshots/
// plan-memory-step-before.png and plan-memory-step-tp.png (tp 8 -> 4).
// Run: node tests/e2e/plan_memory_redraw.test.mjs   (exit status 0 when every check passes)
import { readFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { root, shotDir, CLI, check, runTest, withBrowser, openApp, waitForResult, nextFrames, scrollTo } from './harness.mjs';

const FILE = path.join(root, 'examples', 'models', 'hf', 'llama-3.1-405b.json');
const PLAN = { tp: 8, pp: 16, dp: 1, cp: 1, ep: 1, v: 1, mbs: 0, first: 6, last: 8, sp: true, recompute: 'selective', zero: 1, reshard: true, optimizer: 'adam' };
// One step of each knob from PLAN on 128 GPUs, as the controls make it (web/state/plan_knobs.h).
const STEPS = [['tp', { tp: 4, dp: 2 }], ['tp', { tp: 16, dp: 1 }], ['pp', { pp: 8, dp: 2 }], ['pp', { pp: 32, dp: 1 }], ['cp', { cp: 2, dp: 1 }],
               ['ep', { ep: 2 }], ['v', { v: 2 }], ['mbs', { mbs: 1 }], ['first', { first: 5 }], ['first', { first: 7 }], ['last', { last: 7 }],
               ['last', { last: 9 }], ['sp', { sp: false }], ['recompute', { recompute: 'none' }], ['recompute', { recompute: 'full' }],
               ['zero', { zero: 0 }], ['zero', { zero: 2 }], ['zero', { zero: 3 }], ['optimizer', { optimizer: 'sgd' }]];

// `autopar memory --plan` for the page's plan (the page's 16 micro-batches unless the plan's mbs sets them).
function cliMemory(planText, optimizer) {
  const args = ['memory', '--model', `${FILE}:batch=16`, '--cluster', 'h100:16x8', '--precision', 'bf16', '--plan', planText, '--optimizer', optimizer];
  if (!planText.includes('mbs=')) args.push('--microbatches', '16');
  try {
    return JSON.parse(execFileSync(CLI, [...args, '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {
    return { refused: true };   // the CLI refuses the plan (the page shows the worker's error)
  }
}

// setState({plan: step}) and the frames until the panel draws that plan's own numbers.
const move = (page, step) => page.evaluate((step) => new Promise((resolve) => {
  const before = window.autopar.result();
  const f0 = before.frame_ms.frames;
  const t0 = performance.now();
  window.autopar.setState({ plan: step });
  const want = window.autopar.result().plan_memory;
  const tick = () => {
    const r = window.autopar.result();
    const s = r.plan_memory.shown;
    if (s.plan === want.plan && !s.stale && s.frame >= f0)
      return resolve({ frames: s.frame - f0 + 1, ms: performance.now() - t0, plan: want.plan, cachedAtOnce: want.ready,
                       work_ms: r.frame_ms.work_last[r.frame_ms.work_last.length - 1], pm: r.plan_memory });
    if (performance.now() - t0 > 60000) return resolve({ frames: -1, ms: performance.now() - t0, plan: want.plan, pm: r.plan_memory });
    requestAnimationFrame(tick);
  };
  tick();
}), step);

async function redrawChecks(browser, base) {
  const app = await openApp(browser, base + 'index.html', { viewport: { width: 1400, height: 860 } });
  if (!app) return;
  const { page, consoleErrors } = app;
  const text = await readFile(FILE, 'utf8');
  const set = await page.evaluate((x) => window.autopar.setState(x), { model: 'llama-3.1-405b.json:batch=16', model_json: text, cluster: 'h100:16x8', mesh: '16x8',
                                                                     precision: 'bf16', microbatches: 16, plan: PLAN, panel: 'cluster' });
  check('the 405B config on H100 16 x 8 with Meta\'s layout is accepted', set.ok === true, JSON.stringify(set.error));
  // The worker idle: the pipeline plan result() asks for (INTERFACES.md) done, then the plans around computed.
  const t0 = Date.now();
  let r = await waitForResult(page, (r) => r.plan_memory?.ready === true && r.total_latency != null && r.plan_memory.ahead.left === 0 && !r.plan_memory.ahead.computing, 150_000);
  const ahead = r.plan_memory.ahead;
  check('with the worker idle, the view computes every plan one knob step away', ahead.left === 0 && !ahead.computing && ahead.started >= STEPS.length - 2,
        JSON.stringify(ahead));
  console.log(`     (worker idle and ${ahead.started} plans around computed ${((Date.now() - t0) / 1000).toFixed(1)} s after the model was set; the worker's last plan took ${r.plan_memory.last_ms?.toFixed?.(0)} ms)`);

  await scrollTo(page, 'plan_memory_stages', 1400, 860);
  await page.mouse.move(1390, 70);   // off the bars: no tooltip in the screenshots
  await nextFrames(page);
  await page.screenshot({ path: path.join(shotDir, 'plan-memory-step-before.png') });
  const rows = [];
  for (const [knob, step] of STEPS) {
    const out = await move(page, step);
    const pm = out.pm;
    const ref = cliMemory(out.plan, step.optimizer || 'adam');
    const same = ref.refused ? !!pm.error : !!pm.stages && pm.stages.length === ref.stages.length && pm.stages.every((s, k) => s.total_bytes === ref.stages[k].total_bytes && s.fits === ref.stages[k].fits);
    check(`${knob} one step (${out.plan}): drawn in the first frame after it, totals equal autopar memory --plan`, out.frames === 1 && out.cachedAtOnce && same,
          `${out.frames} frame(s), ${out.ms.toFixed(0)} ms${same ? '' : `; page ${JSON.stringify(pm.stages?.map((s) => s.total_bytes) ?? pm.error)} cli ${JSON.stringify(ref.stages?.map((s) => s.total_bytes) ?? ref)}`}`);
    rows.push(`${knob.padEnd(10)} ${String(out.frames).padStart(2)} frame(s) ${out.ms.toFixed(0).padStart(4)} ms (the frame's own work ${out.work_ms?.toFixed?.(1)} ms)  ${out.plan}`);
    if (knob === 'tp' && step.tp === 4) {
      await nextFrames(page);
      await page.screenshot({ path: path.join(shotDir, 'plan-memory-step-tp.png') });
    }
    const back = await move(page, PLAN);
    check(`${knob} moved back: drawn in the first frame after it`, back.frames === 1, `${back.frames} frame(s), ${back.ms.toFixed(0)} ms`);
  }
  for (const row of rows) console.log(`     ${row}`);
  r = await page.evaluate(() => window.autopar.result());
  console.log(`     (frames: median ${r.frame_ms.median} ms, app work median ${r.frame_ms.work_median} ms; plans computed ahead ${r.plan_memory.ahead.started}, asked for ${r.plan_memory.ahead.hits})`);
  check('no console errors or page errors', consoleErrors.length === 0, consoleErrors.join(' | '));
}

await runTest('plan_memory_redraw.test.mjs', () => withBrowser(redrawChecks));
