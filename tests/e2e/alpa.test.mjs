// Browser end-to-end test of the page's Alpa half and its exports (index.html +
// build-wasm/web/autopar-web.*): window.autopar.run() runs CLI commands in the page's workers with
// the CLI's numbers; result().objective (intra-op plan of the current model on the current mesh)
// and result().total_latency (inter-op plan, which follows the inputs on its tab) equal `autopar intra` and
// `autopar inter`; --reduce-scatter / --remat (setState intra, the tab's checkboxes) give the
// CLI's objective, collective counts and memory; the per-op strategies show the Megatron split; exportPlan() gives the engine
// plans; no console errors. Screenshots of the Alpa tabs go to build-wasm/screenshots/.
// Run: node tests/e2e/alpa.test.mjs   (exit status 0 when every check passes)
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { shotDir, CLI, cli, check, nextFrames, settlePointer, runTest, withBrowser, openApp, waitForResult } from './harness.mjs';


// The native CLI's plain output (export prints text).
function cliText(args) {
  if (!existsSync(CLI)) return null;
  return execFileSync(CLI, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
}



async function alpaChecks(page) {
  const st = (o) => page.evaluate((x) => window.autopar.setState(x), o);
  // result() once the intra-op plan of the current inputs has come from the workers (the page
  // never solves it itself: until then it reads pending, intra_planning).
  const res = () => page.evaluate(() => window.autopar.planned());
  const haveCli = existsSync(CLI);

  // run(): any CLI command in the page, with the CLI's numbers.
  const simWords = ['simulate', '--model', 'alexnet', '--cluster', 'lecture:2x4', '--strategy', 'expert'];
  const sim = await page.evaluate((w) => window.autopar.run(w), simWords);
  const simRef = cli(simWords);
  check('run(["simulate", ... "expert"]).result.makespan_ms equals the native CLI',
        sim.ok === true && (!simRef || sim.result.makespan_ms === simRef.makespan_ms),
        `page ${sim.result?.makespan_ms}, CLI ${simRef?.makespan_ms}`);
  const bad = await page.evaluate(() => window.autopar.run(['simulate', '--model', 'nosuchmodel']));
  check('run() reports bad input as {ok:false, error}', bad.ok === false && typeof bad.error?.message === 'string',
        JSON.stringify(bad.error));
  const notArray = await page.evaluate(() => window.autopar.run('models'));
  check('run() refuses words that are not an array', notArray.ok === false, JSON.stringify(notArray.error));

  // Intra-op objective equals `autopar intra --json` for the same model, cluster and mesh.
  for (const [model, cluster, mesh] of [['transformer-chain', 'lecture:1x8', '1x8'], ['mlp', 'lecture:2x4', '2x4'],
                                        ['alexnet', 'lecture:2x4', '1x8']]) {
    const set = await st({ model, cluster, mesh, panel: 'intra' });
    const r = await res();
    const ref = cli(['intra', '--model', model, '--cluster', cluster, '--mesh', mesh]);
    check(`result().objective for ${model} on ${cluster} mesh ${mesh} equals the CLI's intra`,
          set.ok === true && typeof r.objective === 'number' && (!ref || r.objective === ref.objective),
          `page ${r.objective}, CLI ${ref?.objective}`);
    if (ref) {
      const same = r.intra_ops.length === ref.ops.length && r.intra_ops.every((o, i) =>
        o.name === ref.ops[i].name && o.strategy === ref.ops[i].strategy && o.output_spec === ref.ops[i].output_spec &&
        JSON.stringify(o.input_specs) === JSON.stringify(ref.ops[i].input_specs) && o.cost === ref.ops[i].cost);
      check(`result().intra_ops for ${model} mesh ${mesh} list the CLI's algorithms and specs`, same);
    }
  }

  // The options --reduce-scatter and --remat (setState's intra object, the tab's checkboxes):
  // objective, collective counts and memory equal `autopar intra` with the same flags.
  for (const [opts, flags] of [[{ reduce_scatter: false, remat: false }, []], [{ reduce_scatter: true, remat: false }, ['--reduce-scatter']],
                               [{ reduce_scatter: false, remat: true }, ['--remat']], [{ reduce_scatter: true, remat: true }, ['--reduce-scatter', '--remat']]]) {
    const set = await st({ model: 'transformer:layers=2', cluster: 'lecture:2x4', mesh: '2x4', panel: 'intra', intra: opts });
    const r = await res();
    const ref = cli(['intra', '--model', 'transformer:layers=2', '--cluster', 'lecture:2x4', '--mesh', '2x4', ...flags]);
    check(`intra ${flags.join(' ') || '(no options)'}: the page's objective, collectives and memory equal the CLI's`,
          set.ok === true && typeof r.objective === 'number' && r.intra_options?.reduce_scatter === opts.reduce_scatter &&
          r.intra_options?.remat === opts.remat &&
          (!ref || (r.objective === ref.objective && JSON.stringify(r.collectives) === JSON.stringify(ref.collectives) &&
                    r.memory_per_device_bytes === ref.memory_per_device_bytes)),
          `page ${r.objective} ${JSON.stringify(r.collectives)} ${r.memory_per_device_bytes}, CLI ${ref?.objective} ${JSON.stringify(ref?.collectives)} ${ref?.memory_per_device_bytes}`);
    if (flags.length === 2) {
      await nextFrames(page);
      await page.screenshot({ path: path.join(shotDir, 'tab-alpa-intra-rs-remat.png') });
    }
  }
  // Alpa's alpha-beta costs in the page: Alpa's test_mlp model-parallel case equals the CLI's
  // `--alpha 1,1 --beta 1,1` (objective 245805.05: 5 all-reduces of 49153.01 + penalties 40).
  for (const [mesh, alpha, beta, model] of [['4x1', [1, 1], [1, 1], 'mlp:layers=6,batch=32,in=256,hidden=256,out=256'],
                                            ['2x2', [1, 1], [1, 0.1], 'mlp:layers=6,batch=256,in=32,hidden=32,out=32']]) {
    const set = await st({ model, cluster: 'lecture:1x4', mesh, panel: 'intra', intra: { costs: 'alpa', alpha, beta, reduce_scatter: true, remat: false } });
    const r = await res();
    const ref = cli(['intra', '--model', model, '--mesh', mesh, '--alpha', alpha.join(','), '--beta', beta.join(','), '--reduce-scatter']);
    check(`Alpa's alpha-beta costs on ${mesh}: the page's objective and collectives equal intra --alpha ${alpha} --beta ${beta} --reduce-scatter`,
          set.ok === true && typeof r.objective === 'number' &&
          (!ref || (r.objective === ref.objective && JSON.stringify(r.collectives) === JSON.stringify(ref.collectives))),
          `page ${r.objective} ${JSON.stringify(r.collectives)}, CLI ${ref?.objective} ${JSON.stringify(ref?.collectives)}`);
    await nextFrames(page);
    await page.screenshot({ path: path.join(shotDir, `tab-alpa-intra-alpha-beta-${mesh}.png`) });
  }
  const badCosts = await st({ intra: { beta: [1] } });
  check('setState refuses an intra.beta that is not two numbers', badCosts.ok === false && badCosts.error?.path === 'intra.beta', JSON.stringify(badCosts.error));
  await st({ intra: { costs: 'cluster', reduce_scatter: false } });
  const badIntra = await st({ intra: { remat: 'yes' } });
  check('setState refuses a non-boolean intra.remat, naming it', badIntra.ok === false && badIntra.error?.path === 'intra.remat', JSON.stringify(badIntra.error));
  await st({ intra: { reduce_scatter: false, remat: false } });

  // The Megatron split of a transformer layer on 8 GPUs inside one node: QKV and FFN1 split their
  // weight's output columns (column parallel), the output projection and FFN2 their rows.
  await st({ model: 'transformer-chain', cluster: 'lecture:1x8', mesh: '1x8', panel: 'intra' });
  await nextFrames(page);
  const chain = await res();
  const specOf = (name) => chain.intra_ops.find((o) => o.name === name);
  const ops = chain.intra_ops.map((o) => `${o.name}:${o.strategy}:${o.input_specs.join(',')}->${o.output_spec}`).join(' | ');
  const colParallel = chain.intra_ops.filter((o) => /column/.test(o.strategy)).length;
  const rowParallel = chain.intra_ops.filter((o) => /row/.test(o.strategy)).length;
  check('the intra-op tab shows the Megatron split for transformer-chain on 1x8 (column- then row-parallel)',
        colParallel >= 2 && rowParallel >= 2 && chain.intra_ops.length === 5, ops);
  check('the Megatron plan keeps the layer\'s input and output replicated (all-reduce after the row-parallel ops)',
        specOf(chain.intra_ops[4].name)?.output_spec.replace(/R/g, '') === '', ops);
  await page.mouse.move(10, 850);
  await settlePointer(page);
  await page.screenshot({ path: path.join(shotDir, 'tab-alpa-intra.png') });

  // Drawing the intra-op tab (plan cached, grids, resharding table) stays within a frame, also
  // for a 73-op transformer.
  await st({ model: 'transformer:layers=8', cluster: 'lecture:2x4', mesh: '2x4', panel: 'intra' });
  await page.waitForTimeout(1500);
  const fm = (await res()).frame_ms;
  check('the intra-op tab draws a 73-op transformer within 16 ms of work per frame (median)',
        fm && fm.work_median < 16, JSON.stringify(fm));
  await page.screenshot({ path: path.join(shotDir, 'tab-alpa-intra-transformer.png') });

  await st({ model: 'mlp', cluster: 'lecture:2x4', mesh: '2x4', panel: 'intra' });
  await nextFrames(page);
  await page.screenshot({ path: path.join(shotDir, 'tab-alpa-intra-mlp-2x4.png') });

  // Inter-op: the tab plans its inputs by itself (the plan follows them); result() never shows a
  // stale plan meanwhile, and planInter() plans again to the same numbers.
  const interRef = cli(['inter', '--model', 'transformer:layers=8', '--cluster', 'lecture:2x4', '--microbatches', '16']);
  const interSet = await st({ model: 'transformer:layers=8', cluster: 'lecture:2x4', mesh: '2x4', microbatches: 16, panel: 'inter' });
  const before = await page.evaluate(() => window.autopar.result());
  check('right after the change the inter-op tab plans its new inputs (total_latency null or already the new plan)',
        interSet.ok === true && (before.total_latency === null ? before.inter_planning === true : (!interRef || before.total_latency === interRef.total_latency)),
        `${before.total_latency}, planning ${before.inter_planning}`);
  const byItself = await waitForResult(page, (r) => typeof r.total_latency === 'number', 30_000);
  check('the inter-op tab plans by itself (no planInter): the CLI\'s total latency',
        typeof byItself.total_latency === 'number' && (!interRef || byItself.total_latency === interRef.total_latency),
        `page ${byItself.total_latency}, CLI ${interRef?.total_latency}`);
  await nextFrames(page);
  await page.screenshot({ path: path.join(shotDir, 'tab-alpa-inter-unplanned.png') });
  const planned = await page.evaluate(() => window.autopar.planInter());
  check('after planning, result().total_latency equals the CLI\'s inter',
        typeof planned.total_latency === 'number' && (!interRef || planned.total_latency === interRef.total_latency),
        `page ${planned.total_latency}, CLI ${interRef?.total_latency}`);
  if (interRef)
    check('the planned stages equal the CLI\'s (layers, sub-mesh, latency)',
          JSON.stringify(planned.stages.map((s) => [s.layers, s.submesh, s.latency])) ===
          JSON.stringify(interRef.stages.map((s) => [s.layers, s.submesh, s.latency])));
  check('the GPipe and 1F1B bubble fractions are shown and lie in [0, 1)',
        planned.bubble_fraction && planned.bubble_fraction.gpipe >= 0 && planned.bubble_fraction.gpipe < 1 &&
        planned.bubble_fraction['1f1b'] >= 0 && planned.bubble_fraction['1f1b'] < 1, JSON.stringify(planned.bubble_fraction));
  await nextFrames(page);
  await page.screenshot({ path: path.join(shotDir, 'tab-alpa-inter.png') });
  // Alpa's simplification side by side: the paper's DP with boundaries free, as `inter --ignore-boundaries`.
  await st({ ignore_boundaries: true });
  const free = await page.evaluate(() => window.autopar.planInter());
  const freeRef = cli(['inter', '--model', 'transformer:layers=8', '--cluster', 'lecture:2x4', '--microbatches', '16', '--ignore-boundaries']);
  check('ignore_boundaries: the plan equals `inter --ignore-boundaries` and is kept in the state',
        (await page.evaluate(() => window.autopar.getState())).ignore_boundaries === true && (!freeRef || free.total_latency === freeRef.total_latency),
        `page ${free.total_latency}, CLI ${freeRef?.total_latency}`);
  await st({ ignore_boundaries: false });
  await page.evaluate(() => window.autopar.planInter());
  await st({ microbatches: 8 });
  const refMb8 = cli(['inter', '--model', 'transformer:layers=8', '--cluster', 'lecture:2x4', '--microbatches', '8']);
  const replanned = await waitForResult(page, (r) => typeof r.total_latency === 'number' && (!refMb8 || r.total_latency === refMb8.total_latency), 30_000);
  check('changing micro-batches re-plans by itself: the CLI\'s plan for 8 (never the stale one)',
        typeof replanned.total_latency === 'number' && (!refMb8 || replanned.total_latency === refMb8.total_latency),
        `page ${replanned.total_latency}, CLI ${refMb8?.total_latency}`);

  // The Plan button through the UI (real mouse click): "planning..." first, then the CLI's plan.
  await page.mouse.click(239, 119);
  // Queued input gives the hover, the press and the release frames of their own: wait for the click to land.
  let during = await res();
  for (let k = 0; k < 60 && !during.inter_planning && during.total_latency === null; ++k) {
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(r)));
    during = await res();
  }
  await page.screenshot({ path: path.join(shotDir, 'tab-alpa-inter-planning.png') });
  const t0 = Date.now();
  let after = await res();
  while (after.total_latency === null && Date.now() - t0 < 20_000) {
    await page.waitForTimeout(50);
    after = await res();
  }
  const ref8 = cli(['inter', '--model', 'transformer:layers=8', '--cluster', 'lecture:2x4', '--microbatches', '8']);
  check('clicking Plan shows "planning..." and then the CLI\'s total latency for 8 micro-batches',
        (during.inter_planning === true || during.total_latency !== null) && typeof after.total_latency === 'number' &&
        (!ref8 || after.total_latency === ref8.total_latency), `page ${after.total_latency}, CLI ${ref8?.total_latency}`);
  await st({ microbatches: 16 });
  await page.evaluate(() => window.autopar.planInter());
  const again = await res();
  check('re-planning with the same inputs gives the same total latency', again.total_latency === planned.total_latency);

  // Exports.
  // exportPlan is a Promise: the engine formats are planned in a worker, the frames go on meanwhile.
  check('exportPlan returns a Promise', await page.evaluate(() => window.autopar.exportPlan('megatron') instanceof Promise));
  // The About box's GLPK version comes from the workers (the page links no GLPK).
  const glpk = await page.evaluate(() => window.autopar.result().glpk);
  check('the workers reported their GLPK version (the About box shows it)', /^\d+\.\d+$/.test(String(glpk)), String(glpk));
  const meg = await page.evaluate(async () => await window.autopar.exportPlan('megatron'));
  check('exportPlan("megatron") contains --tensor-model-parallel-size', /--tensor-model-parallel-size/.test(meg), meg.slice(0, 200));
  const megRef = cliText(['export', '--format', 'megatron', '--model', 'transformer:layers=8', '--cluster', 'lecture:2x4']);
  if (megRef !== null) check('exportPlan("megatron") equals `autopar export --format megatron`', meg === megRef);
  for (const f of ['dtensor', 'jax', 'torchtitan']) {
    const text = await page.evaluate(async (x) => await window.autopar.exportPlan(x), f);
    const ref = cliText(['export', '--format', f, '--model', 'transformer:layers=8', '--cluster', 'lecture:2x4']);
    check(`exportPlan("${f}") equals the CLI's export`, text.length > 0 && (ref === null || text === ref), `${text.length} chars`);
  }
  // The Model & Cluster tab's plan, exported with every knob: the CLI's `export --plan` text.
  await st({ plan: { tp: 2, pp: 2, dp: 2, mbs: 1, sp: true, recompute: 'selective', zero: 1 } });
  const knobs = await page.evaluate(() => window.autopar.getState().plan);
  const planText = `t=${knobs.tp},p=${knobs.pp},d=${knobs.dp},mbs=${knobs.mbs},sp=1,recompute=${knobs.recompute},zero=${knobs.zero}`;
  for (const f of ['megatron', 'torchtitan']) {
    const text = await page.evaluate(async (x) => await window.autopar.exportPlan(x), f + '-plan');
    const ref = cliText(['export', '--format', f, '--model', 'transformer:layers=8', '--cluster', 'lecture:2x4', '--plan', planText]);
    check(`exportPlan("${f}-plan") equals \`autopar export --format ${f} --plan ${planText}\``,
          text.length > 0 && (ref === null || text === ref) && /sequence.parallel|tensor_parallel_degree = 2/.test(text), `${text.length} chars`);
  }
  const strategyText = await page.evaluate(async () => await window.autopar.exportPlan('strategy'));
  const stratOk = (() => { try { return typeof JSON.parse(strategyText) === 'object'; } catch { return false; } })();
  check('exportPlan("strategy") is the strategy JSON', stratOk && strategyText === JSON.stringify((JSON.parse(strategyText)), null, 2) + '\n');
  const trace = await page.evaluate(async () => await window.autopar.exportPlan('perfetto'));
  check('exportPlan("perfetto") is the timeline trace', trace === (await page.evaluate(() => window.autopar.exportTrace())));
  const unknown = await page.evaluate(async () => { try { await window.autopar.exportPlan('nope'); return 'no error'; } catch (e) { return String(e); } });
  check('exportPlan of an unknown format rejects with a readable error', /format/.test(unknown), unknown);
  void haveCli;

  // The Export menu through the UI: Export > Megatron-LM flags opens a read-only text window.
  await page.mouse.click(179, 11);
  await settlePointer(page);
  await page.mouse.move(240, 40);
  await settlePointer(page);
  await page.screenshot({ path: path.join(shotDir, 'menu-export.png') });
  await page.mouse.move(240, 130);
  await settlePointer(page);
  await page.mouse.click(240, 130);
  await settlePointer(page);
  const msg = await page.evaluate(() => window.autopar.message());
  check('Export > Megatron-LM flags opens the export window', /Exported Megatron-LM/.test(msg), msg);
  await page.mouse.move(10, 850);
  await settlePointer(page);
  await page.screenshot({ path: path.join(shotDir, 'window-export-megatron.png') });
  // Its Download button hands the text to the browser as a file.
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 10_000 }), page.mouse.click(313, 190)]);
  const body = await readFile(await download.path(), 'utf8');
  check('the export window\'s Download button downloads autopar_megatron.sh with the exported text',
        download.suggestedFilename() === 'autopar_megatron.sh' && body === meg, download.suggestedFilename());
}

async function main() {
  await withBrowser(async (browser, base) => {
    const app = await openApp(browser, base + 'index.html', { viewport: { width: 1400, height: 860 }, acceptDownloads: true });
    if (!app) return;
    await alpaChecks(app.page);
    check('no console errors or page errors', app.consoleErrors.length === 0, app.consoleErrors.join(' | '));
  });
}

await runTest('alpa.test.mjs', main);
