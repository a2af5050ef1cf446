// Browser end-to-end test of the inter-op tab's search space (issue 41): the 2021 space (Alpa's
// t, p, d) or today's (`autopar inter --space today`: per stage recomputation, ZeRO/FSDP and
// sequence parallelism, the micro-batch count, cp and ep). The choice is getState().space, kept
// in share links (a link without it keeps Alpa's space), and the tab's radio buttons set it; the
// plan the page shows in today's space equals the CLI's, stage by stage with the knobs each
// stage chose; the longer search shows progress naming the plan it is on and Cancel stops it.
// Screenshots of the tab in English and Chinese go to build-wasm/screenshots/.
// Run: NODE_PATH=/usr/share/nodejs node tests/e2e/inter_space.test.mjs
import path from 'node:path';
import { shotDir, cli, check, nextFrames, settlePointer, runTest, withBrowser, openApp, waitForResult } from './harness.mjs';

// A model whose plan on 16 GB P100s needs today's knobs (sequence parallelism and FSDP per stage).
const MODEL = 'transformer:layers=8,hidden=2048,heads=16,seq=2048,batch=16';
const CLUSTER = 'p100:2x4';

const resultNextFrame = (page) =>
  page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(window.autopar.result()))));

const stagesOf = (stages) => JSON.stringify((stages || []).map((s) => [s.layers, s.submesh, s.latency, s.logical_mesh, s.recompute,
                                                                        s.zero_stage, s.sequence_parallel]));

async function spaceChecks(page) {
  const st = (o) => page.evaluate((x) => window.autopar.setState(x), o);
  const state = () => page.evaluate(() => window.autopar.getState());

  check('getState().space is "alpa" (the 2021 space) by default', (await state()).space === 'alpa', (await state()).space);
  const bad = await st({ space: '2024' });
  check('setState({space: "2024"}) is refused naming space', bad.ok === false && bad.error?.path === 'space', JSON.stringify(bad.error));

  // The tab's radio button sets today's space.
  await st({ model: MODEL, cluster: CLUSTER, mesh: '2x4', microbatches: 8, panel: 'inter' });
  await nextFrames(page);
  await settlePointer(page);
  const place = (await page.evaluate(() => window.autopar.result())).ui?.places?.space_today;
  check('the inter-op tab draws the search-space choice', !!place, JSON.stringify(place));
  if (place) {
    await page.mouse.click(place.x + 8, place.y + place.h / 2);
    for (let k = 0; k < 30 && (await state()).space !== 'today'; ++k) await nextFrames(page);
  }
  check('clicking "Today" on the inter-op tab sets getState().space to "today"', (await state()).space === 'today');

  // The plan in today's space equals `autopar inter --space today` for the same inputs.
  await st({ space: 'today' });
  const t0 = Date.now();
  const progress = [];
  for (let x = await resultNextFrame(page); x.inter_planning && Date.now() - t0 < 120_000; x = await resultNextFrame(page))
    progress.push(x.inter_progress);
  const r = await waitForResult(page, (x) => x.inter_planning === false && typeof x.total_latency === 'number', 120_000);
  const pageMs = Date.now() - t0;
  check('today\'s search: inter_progress never goes back while it plans plan after plan',
        progress.every((p, i) => i === 0 || p >= progress[i - 1]), progress.map((p) => p.toFixed(3)).join(' '));
  const ref = cli(['inter', '--model', MODEL, '--cluster', CLUSTER, '--microbatches', '8', '--space', 'today']);
  check('today\'s space: the page\'s total latency equals the CLI\'s `inter --space today`',
        r.inter_space === 'today' && typeof r.total_latency === 'number' && (!ref || r.total_latency === ref.total_latency),
        `page ${r.total_latency} (${r.inter_space}), CLI ${ref?.total_latency}`);
  if (ref) {
    check('today\'s space: the stages equal the CLI\'s, with each stage\'s recomputation, ZeRO stage and SP',
          stagesOf(r.stages) === stagesOf(ref.stages), `page ${stagesOf(r.stages)}\n       CLI  ${stagesOf(ref.stages)}`);
    check('today\'s space: the micro-batch count, cp and ep chosen and the plans tried equal the CLI\'s',
          r.inter_microbatches === ref.microbatches && r.inter_context_parallel === ref.context_parallel &&
          r.inter_expert_parallel === ref.expert_parallel && JSON.stringify(r.inter_knob_search) === JSON.stringify(ref.knob_search),
          `page B ${r.inter_microbatches} cp ${r.inter_context_parallel} ep ${r.inter_expert_parallel}; CLI B ${ref.microbatches} cp ${ref.context_parallel} ep ${ref.expert_parallel}`);
    check('the plan uses today\'s knobs here (a stage with SP or ZeRO)', (r.stages || []).some((s) => s.sequence_parallel || s.zero_stage > 0),
          stagesOf(r.stages));
    check('the charts use the micro-batch count the search chose', r.inter_terms?.microbatches === ref.microbatches,
          `${r.inter_terms?.microbatches} vs ${ref.microbatches}`);
  }
  console.log(`     figures: today's space on ${MODEL} / ${CLUSTER}: ${pageMs} ms in the page (wall, with polling), ` +
              `CLI ${ref ? ref.elapsed_ms.toFixed(0) : '?'} ms`);

  // Screenshots of the tab in both languages (the pointer off the tab's tooltips).
  await page.mouse.move(5, 845);
  await settlePointer(page);
  await nextFrames(page);
  await page.screenshot({ path: path.join(shotDir, 'tab-inter-space-today-en.png') });
  await st({ lang: 'zh' });
  await nextFrames(page);
  await nextFrames(page);
  await page.screenshot({ path: path.join(shotDir, 'tab-inter-space-today-zh.png') });
  await st({ lang: 'en' });

  // The 2021 space on the same inputs: the CLI's plain `inter`.
  await st({ space: 'alpa' });
  const a = await waitForResult(page, (x) => x.inter_planning === false && typeof x.total_latency === 'number', 60_000);
  const refA = cli(['inter', '--model', MODEL, '--cluster', CLUSTER, '--microbatches', '8']);
  check('back to the 2021 space: the CLI\'s plain `inter` plan', a.inter_space === 'alpa' && (!refA || a.total_latency === refA.total_latency),
        `page ${a.total_latency}, CLI ${refA?.total_latency}`);

  // Today's space also interleaves: a plan of 2 stages on lecture:2x4 runs v chunks per GPU; the
  // page's plan, its v and the tab's by-hand total are the CLI's.
  await st({ cluster: 'lecture:2x4', microbatches: 8, space: 'today' });
  const il = await waitForResult(page, (x) => x.inter_planning === false && typeof x.total_latency === 'number', 60_000);
  const refIl = cli(['inter', '--model', MODEL, '--cluster', 'lecture:2x4', '--microbatches', '8', '--space', 'today']);
  check('an interleaved plan in today\'s space: the page\'s total, stages and v equal the CLI\'s',
        !!refIl && refIl.interleave > 1 && il.total_latency === refIl.total_latency && il.inter_interleave === refIl.interleave &&
        stagesOf(il.stages) === stagesOf(refIl.stages), `page ${il.total_latency} v=${il.inter_interleave}, CLI ${refIl?.total_latency} v=${refIl?.interleave}`);
  check('the interleaved plan\'s by-hand total adds up to the total shown', il.inter_terms && Math.abs(il.inter_terms.total_ms - il.total_latency) <= 1e-6 * il.total_latency,
        JSON.stringify(il.inter_terms));
  await page.mouse.move(5, 845);
  await settlePointer(page);
  await nextFrames(page);
  await page.screenshot({ path: path.join(shotDir, 'tab-inter-space-interleaved.png') });
  await st({ cluster: CLUSTER, microbatches: 8 });

  // Share links: today's space travels; a link without it keeps Alpa's space.
  await st({ space: 'today' });
  const link = await page.evaluate(() => window.autopar.shareLink());
  check('the share link carries space=today', link.includes('space=today'), link.slice(0, 200));
  const old = link.replace(/&space=today/, '');
  const restored = await page.evaluate((fragment) => new Promise((resolve) => {
    window.addEventListener('hashchange', () => setTimeout(() => resolve(window.autopar.getState().space), 0), { once: true });
    location.hash = fragment;
  }), old.slice(old.indexOf('#') + 1));
  check('a link made before the choice (no space) opens in Alpa\'s 2021 space', restored === 'alpa', restored);
  const back = await page.evaluate((fragment) => new Promise((resolve) => {
    window.addEventListener('hashchange', () => setTimeout(() => resolve(window.autopar.getState().space), 0), { once: true });
    location.hash = fragment;
  }), link.slice(link.indexOf('#') + 1));
  check('a link with space=today opens in today\'s space', back === 'today', back);

  // The longer search: progress names the plan it is on, and Cancel stops it.
  // Llama-2-70B on 128 H100s: about 11 s natively in today's space (two plans), 40 s in the page.
  await st({ model: 'llama2-70b', cluster: 'h100:16x8', mesh: '16x8', microbatches: 32, space: 'today', panel: 'inter' });
  const samples = [];
  for (let k = 0; k < 400; ++k) {
    const x = await resultNextFrame(page);
    samples.push(x);
    if (!x.inter_planning || /plan \d+ \(cp=/.test(x.inter_status || '')) break;
  }
  const during = samples.filter((x) => x.inter_planning);
  const statuses = [...new Set(during.map((x) => x.inter_status).filter(Boolean))];
  check('today\'s search shows progress in the page, naming the plan it is on (cp, ep, B)',
        during.length > 0 && statuses.some((s) => /plan \d+ \(cp=\d+ ep=\d+ B=\d+\)/.test(s)), statuses.slice(0, 3).join(' | '));
  await page.screenshot({ path: path.join(shotDir, 'tab-inter-space-progress.png') });
  const cancelAt = (await page.evaluate(() => window.autopar.result())).ui?.places?.inter_cancel;
  if (cancelAt) await page.mouse.click(cancelAt.x + cancelAt.w / 2, cancelAt.y + cancelAt.h / 2);
  let cancelled = await resultNextFrame(page);
  for (let k = 0; k < 60 && cancelled.inter_planning; ++k) cancelled = await resultNextFrame(page);
  const idle = await resultNextFrame(page);
  check('Cancel stops today\'s search and nothing resumes by itself', cancelled.inter_planning === false && idle.inter_planning === false &&
        idle.total_latency === null, `${cancelled.inter_planning} ${idle.inter_planning} ${idle.total_latency}`);
}

// A cluster too large for FlexFlow's simulator (2,048 GPUs under a 96-layer model): the page
// takes the inputs, the Strategy & Timeline tab says why it shows no timeline (it aborted the
// page before), and the inter-op tab still plans.
async function tooLargeChecks(page) {
  const set = await page.evaluate((x) => window.autopar.setState(x), { model: 'transformer:layers=96', cluster: 'h100:256x8', mesh: '256x8',
                                                                        space: 'alpa', microbatches: 8, panel: 'strategy' });
  check('96 layers on 2,048 GPUs are accepted', set.ok === true, JSON.stringify(set.error));
  await nextFrames(page);
  const r = await page.evaluate(() => window.autopar.result());
  check('the Strategy tab has no timeline and says the strategy is too large to simulate',
        r.makespan_ms === null && typeof r.flexflow_error === 'string' && r.flexflow_error.includes('parts'), String(r.flexflow_error).slice(0, 160));
  await page.screenshot({ path: path.join(shotDir, 'tab-strategy-too-large.png') });
  await page.evaluate((x) => window.autopar.setState(x), { panel: 'inter' });
  const p = await waitForResult(page, (x) => x.inter_planning === false && typeof x.total_latency === 'number', 120_000);
  check('the inter-op tab plans the same inputs', typeof p.total_latency === 'number', String(p.total_latency));
}

async function main() {
  await withBrowser(async (browser, base) => {
    const app = await openApp(browser, base + 'index.html');
    if (!app) return;
    await spaceChecks(app.page);
    await tooLargeChecks(app.page);
    check('no console errors or page errors', app.consoleErrors.length === 0, app.consoleErrors.join(' | '));
  });
}

await runTest('inter_space.test.mjs', main);
