// Browser test of the page's workers (web/jobs/worker_pool.js, build-wasm/wasm/autopar-worker.*), with
// the figures of issue #14 measured in one run against the native CLI:
//  - Plan for transformer:layers=24 on lecture:4x8 with 32 micro-batches in the page (its wall
//    time from start to the plan) vs `autopar inter` (the process's wall time), and the same
//    total_latency and stages as the CLI;
//  - the largest gap between animation frames while the worker plans (requestAnimationFrame
//    timestamps in the page), and the page staying usable (a tab switch while planning);
//  - a pool of 3 workers splitting the stage costs gives the same plan, bit for bit;
//  - run() (a CLI command) answers in a worker while the page keeps drawing;
//  - Cancel from the page ends the workers' job.
// Timings are printed, never asserted (2 shared cores); the plans are checked exactly.
// Run: node tests/e2e/worker.test.mjs   (exit status 0 when every check passes)
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { CLI, cli, check, nextFrames, runTest, withBrowser, openApp, startGaps, stopGaps } from './harness.mjs';

const MODEL = 'transformer:layers=24', CLUSTER = 'lecture:4x8', MICRO = 32;
const SHOT = '/tmp/autopar-worker-planning.png';

// Wall time of the native CLI for the same plan, in ms (the process, as a user would time it).
function nativeMs() {
  const t0 = process.hrtime.bigint();
  execFileSync(CLI, ['inter', '--model', MODEL, '--cluster', CLUSTER, '--microbatches', String(MICRO), '--json']);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}


// Plans in the page as the Plan button does (planInter) and returns {ms, result}: the wall time
// from the call to the plan being there, in the page's clock.
const planInPage = (page) => page.evaluate(async () => {
  const t0 = performance.now();
  const r = await window.autopar.planInter();
  return { ms: performance.now() - t0, result: r };
});

const stagesOf = (stages) => JSON.stringify((stages || []).map((s) => [s.layers, s.submesh, s.latency, s.logical_mesh]));

async function planChecks(page, label) {
  const st = (o) => page.evaluate((x) => window.autopar.setState(x), o);
  await st({ model: MODEL, cluster: CLUSTER, mesh: '4x8', microbatches: MICRO, panel: 'inter' });
  await page.evaluate(() => window.autopar.planned());   // the intra-op plan of the mesh comes from the workers before timing
  await nextFrames(page);
  const ref = cli(['inter', '--model', MODEL, '--cluster', CLUSTER, '--microbatches', String(MICRO)]);
  const native = [nativeMs()];
  await startGaps(page);
  const planned = await planInPage(page);
  const gaps = await stopGaps(page);
  native.push(nativeMs());
  const r = planned.result;
  check(`${label}: the page's plan has the CLI's total_latency`, typeof r.total_latency === 'number' && (!ref || r.total_latency === ref.total_latency),
        `page ${r.total_latency}, CLI ${ref?.total_latency}`);
  if (ref) check(`${label}: the page's stages equal the CLI's`, stagesOf(r.stages) === stagesOf(ref.stages));
  check(`${label}: result() carries the worker's inter report (the CLI's JSON)`, r.inter_report && ref &&
        r.inter_report.total_latency === ref.total_latency && r.inter_report.reused_solves === ref.reused_solves &&
        JSON.stringify(r.inter_report.stages) === JSON.stringify(ref.stages));
  const nativeBest = Math.min(...native);
  console.log(`     figures (${label}): page ${planned.ms.toFixed(0)} ms (worker's own work ${r.inter_timing.work_ms.toFixed(0)} ms${label.includes('split') ? ': the merge and DP job only' : ''}) vs native ` +
              `autopar inter ${native.map((x) => x.toFixed(0)).join(' / ')} ms (report ${ref?.elapsed_ms.toFixed(0)} ms): ratio ` +
              `${(planned.ms / nativeBest).toFixed(2)}x (target <= 2x); frames while planning ${gaps.frames}, max gap ${gaps.max.toFixed(0)} ms, ` +
              `${gaps.over250} gaps over 250 ms`);
  return { r, ref };
}

async function main() {
  await withBrowser(async (browser, base) => {
    // The default pool (min(cores - 1, 4), at least 1).
    const app = await openApp(browser, base + 'index.html');
    if (!app) return;
    const page = app.page;
    const st = (o) => page.evaluate((x) => window.autopar.setState(x), o);
    const workers = await page.evaluate(() => window.autopar.workers());
    check('the page started its worker pool at load', workers >= 1, `${workers} workers, hardwareConcurrency ` +
          `${await page.evaluate(() => navigator.hardwareConcurrency)}`);
    await planChecks(page, `${workers} worker(s), first plan after the page is ready`);
    // The figure of a page in use: the engine optimises the workers' code in the background over
    // the first seconds, so the same plan again, after another model was planned.
    await st({ model: 'transformer:layers=22', panel: 'inter' });
    await planInPage(page);
    const one = await planChecks(page, `${workers} worker(s), page in use`);

    // Usable while planning: a larger plan (seconds), a tab switch and frames meanwhile, a screenshot.
    await st({ cluster: 'lecture:64x8', mesh: '64x8' });
    await page.evaluate(() => window.autopar.planned());
    await startGaps(page);
    await page.evaluate(() => { window.__plan = window.autopar.planInter(); });
    await page.waitForTimeout(300);
    await page.screenshot({ path: SHOT });
    const planning = await page.evaluate(() => JSON.parse(Module.ccall('autopar_inter_status', 'string', [], [])));
    const tab = await st({ panel: 'timeline' });
    await page.waitForTimeout(400);
    const stillPlanning = await page.evaluate(() => JSON.parse(Module.ccall('autopar_inter_status', 'string', [], [])));
    const framesMid = (await page.evaluate(() => window.__gaps.frames));
    const big = await page.evaluate(() => window.__plan);
    const gaps = await stopGaps(page);
    const ref64 = cli(['inter', '--model', MODEL, '--cluster', 'lecture:64x8', '--microbatches', String(MICRO)]);
    check('while the worker plans, the page switches tabs and keeps drawing', planning.planning === true && tab.ok === true &&
          framesMid >= 10, `planning ${planning.planning} (${planning.progress}), then ${stillPlanning.planning}; ${framesMid} animation frames`);
    check('the plan made while switching tabs is the CLI\'s', big.total_latency === ref64?.total_latency, `page ${big.total_latency}, CLI ${ref64?.total_latency}`);
    console.log(`     figures (24 layers on 64x8, tab switch while planning): max frame gap ${gaps.max.toFixed(0)} ms, ${gaps.over250} over 250 ms, ` +
                `${gaps.frames} frames; screenshot ${SHOT}`);

    // run(): a CLI command in a worker, a Promise of the CLI's JSON; the page's thread never runs
    // it (its module has no CLI), so frames keep coming during a command of seconds.
    await st({ panel: 'inter' });
    const words = ['inter', '--model', MODEL, '--cluster', 'lecture:64x8', '--microbatches', String(MICRO)];
    await startGaps(page);
    const cmd = await page.evaluate(async (w) => {
      const t0 = performance.now();
      const p = window.autopar.run(w);
      const promise = p instanceof Promise;
      const r = await p;
      return { promise, ms: performance.now() - t0, ok: r.ok, total_latency: r.result?.total_latency };
    }, words);
    const cmdGaps = await stopGaps(page);
    check('run() returns a Promise of the CLI\'s JSON, computed in a worker', cmd.promise && cmd.ok === true &&
          cmd.total_latency === ref64?.total_latency, `page ${cmd.total_latency}, CLI ${ref64?.total_latency}`);
    check('frames keep coming while run() works', cmdGaps.frames >= Math.min(10, cmd.ms / 500),
          `${cmdGaps.frames} frames in ${cmd.ms.toFixed(0)} ms, max gap ${cmdGaps.max.toFixed(0)} ms`);
    console.log(`     figures (run(["inter", ... 64x8]) in a worker): ${cmd.ms.toFixed(0)} ms, max frame gap ${cmdGaps.max.toFixed(0)} ms, ` +
                `${cmdGaps.over250} over 250 ms, ${cmdGaps.frames} frames`);

    // Cancel: the job ends in the workers (a new plan right after is not delayed by the old one).
    await st({ panel: 'inter' });
    await page.evaluate(() => { window.autopar.planInter(); });
    await page.waitForTimeout(300);
    await page.evaluate(() => Module.ccall('autopar_set_state', 'string', ['string'], [JSON.stringify({ cluster: 'lecture:2x4', mesh: '2x4' })]));
    const small = await planInPage(page);
    const ref24 = cli(['inter', '--model', MODEL, '--cluster', 'lecture:2x4', '--microbatches', String(MICRO)]);
    check('inputs changed while planning: the old job is cancelled and the new plan is the CLI\'s', small.result.total_latency === ref24?.total_latency,
          `${small.ms.toFixed(0)} ms; page ${small.result.total_latency}, CLI ${ref24?.total_latency}`);
    check('no console errors or page errors', app.consoleErrors.length === 0, app.consoleErrors.join(' | '));
    await page.close();

    // A pool of 3 (more workers than this machine's cores, to exercise the split): the same plan.
    const pool = await openApp(browser, base + 'index.html?workers=3');
    if (!pool) return;
    check('?workers=3 gives a pool of 3', (await pool.page.evaluate(() => window.autopar.workers())) === 3);
    const three = await planChecks(pool.page, '3 workers, stage costs split');
    check('the pool\'s plan equals the single worker\'s, bit for bit', JSON.stringify(three.r.stages) === JSON.stringify(one.r.stages) &&
          three.r.total_latency === one.r.total_latency && three.r.t_max === one.r.t_max);
    check('no console errors or page errors (pool of 3)', pool.consoleErrors.length === 0, pool.consoleErrors.join(' | '));
  });
}

await runTest('worker.test.mjs', main);
