// Browser end-to-end test of the Alpa inter-op plan as a job in the page's workers (index.html +
// build-wasm/web/autopar-web.*, build-wasm/wasm/autopar-worker.*): pressing Plan for a 24-layer
// transformer on 64x8 (seconds of work; the tab starts it by itself when the inputs are set)
// keeps the page drawing while result().inter_progress climbs from below 1 to 1, and ends with
// the CLI's plan; Cancel stops it and it does not resume by itself; changing the micro-batches
// mid-way restarts it for the new inputs; planInter() returns a Promise of the plan. Timings are printed, never asserted (2 shared cores).
// Run: node tests/e2e/inter_progress.test.mjs   (exit status 0 when every check passes)
import path from 'node:path';
import { shotDir, cli, check, nextFrames, runTest, withBrowser, openApp } from './harness.mjs';

// Where the panel's buttons are on a 1400 x 860 viewport (as in alpa.test.mjs).
const PLAN_BUTTON = [239, 119];
const CANCEL_BUTTON = [315, 148];   // next to the progress bar, shown while planning

// result() after the next animation frame.
const resultNextFrame = (page) =>
  page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(window.autopar.result()))));

// Clicks Plan and waits (at most 60 frames) until the page reports planning: queued input gives
// the hover, the press and the release frames of their own, so planning starts a few frames later.
async function clickPlan(page) {
  await page.mouse.click(...PLAN_BUTTON);
  for (let k = 0; k < 60; ++k) if ((await resultNextFrame(page)).inter_planning) return;
}

// Samples result() once a frame until planning ends (or `limit_ms` passes); returns the samples.
async function samplePlanning(page, limit_ms) {
  const samples = [];
  const t0 = Date.now();
  for (;;) {
    const r = await resultNextFrame(page);
    samples.push(r);
    if (!r.inter_planning || Date.now() - t0 > limit_ms) return samples;
  }
}

const stagesOf = (stages) => JSON.stringify((stages || []).map((s) => [s.layers, s.submesh, s.latency, s.logical_mesh]));

async function progressChecks(page) {
  const st = (o) => page.evaluate((x) => window.autopar.setState(x), o);
  const res = () => page.evaluate(() => window.autopar.result());

  // A plan of many frames: 24 layers on 64x8 (seconds of work natively, mostly intra-op
  // solves; on 4x8 they now plan in a few frames).
  const set = await st({ model: 'transformer:layers=24', cluster: 'lecture:64x8', mesh: '64x8', microbatches: 32, panel: 'inter' });
  const before = await res();
  check('setting the inputs on the inter-op tab starts planning by itself (no Plan pressed); no stale total meanwhile',
        set.ok === true && before.total_latency === null && before.inter_planning === true, JSON.stringify(set.error || before.inter_progress));
  await clickPlan(page);   // Plan is disabled while planning: the planning goes on
  const samples = await samplePlanning(page, 50_000);
  const during = samples.filter((r) => r.inter_planning);
  const last = samples[samples.length - 1];
  const progress = during.map((r) => r.inter_progress);
  check('pressing Plan starts planning with progress below 1', during.length > 0 && progress[0] < 1, `first ${progress[0]}`);
  check('inter_progress never goes back', progress.every((p, i) => i === 0 || p >= progress[i - 1]));
  const inside = new Set(progress.filter((p) => p > 0 && p < 1));
  check('inter_progress takes several values between 0 and 1 (the worker reports progress)', inside.size >= 3, `${inside.size} values`);
  // While a worker plans, the page draws a frame for its progress at most every 250 ms (web/platform/main.cpp,
  // so that drawing leaves the cores to the workers): at least one every half second is expected.
  const frames0 = during.length ? during[0].frame_ms.frames : 0;
  const planMs = last.inter_timing?.elapsed_ms ?? 0;
  const wanted = Math.max(3, Math.floor(planMs / 500));
  check('frames keep being drawn while the worker plans', during.length >= 3 && last.frame_ms.frames - frames0 >= wanted,
        `${last.frame_ms.frames - frames0} frames drawn during ${during.length} samples and ${planMs.toFixed(0)} ms of planning (want ${wanted})`);
  const ref = cli(['inter', '--model', 'transformer:layers=24', '--cluster', 'lecture:64x8', '--microbatches', '32']);
  check('planning ends with inter_progress 1 and the CLI\'s total latency', last.inter_planning === false && last.inter_progress === 1 &&
        typeof last.total_latency === 'number' && (!ref || last.total_latency === ref.total_latency),
        `page ${last.total_latency}, CLI ${ref?.total_latency}`);
  if (ref) check('the planned stages equal the CLI\'s (layers, sub-mesh, latency, logical mesh)', stagesOf(last.stages) === stagesOf(ref.stages));
  const t = last.inter_timing;
  check('the worker reported the plan over many replies', t && t.slices >= 10, JSON.stringify(t));
  // result().frame_ms covers the last 120 frames: all of them planning ones once that many passed.
  const fm = last.frame_ms;
  const frameFigures = fm.frames - frames0 >= 120
    ? `; over the last 120 frames of planning the app's work per frame: median ${fm.work_median.toFixed(1)} ms, ` +
      `max ${fm.work_max.toFixed(1)} ms; whole frame median ${fm.median.toFixed(1)} ms`
    : '';
  console.log(`     figures: ${t.slices} slices, ${t.work_ms.toFixed(0)} ms of work in ${t.elapsed_ms.toFixed(0)} ms, ` +
              `longest slice ${t.longest_slice_ms.toFixed(1)} ms${frameFigures} ` +
              `(the native CLI: ${ref ? ref.elapsed_ms.toFixed(0) : '?'} ms in one go)`);
  await nextFrames(page);
  await page.screenshot({ path: path.join(shotDir, 'tab-alpa-inter-24-layers.png') });

  // Cancel: the planning stops and nothing is planned for the new inputs.
  await st({ microbatches: 16 });
  await nextFrames(page);
  await clickPlan(page);
  const planning = await res();
  await page.screenshot({ path: path.join(shotDir, 'tab-alpa-inter-progress.png') });
  await page.mouse.click(...CANCEL_BUTTON);
  for (let k = 0; k < 60; ++k) if (!(await resultNextFrame(page)).inter_planning) break;
  const cancelled = await res();
  check('Cancel stops the planning; the stale plan is not shown', planning.inter_planning === true && cancelled.inter_planning === false &&
        cancelled.total_latency === null && cancelled.inter_progress === null,
        `planning ${planning.inter_planning} (${planning.inter_progress}), then ${cancelled.inter_planning}`);
  const idle = await resultNextFrame(page);
  check('after Cancel no planning resumes', idle.inter_planning === false && idle.total_latency === null);

  // Changing the micro-batches while planning restarts it for the new value.
  // 64x8: seconds of planning, so the change lands while it runs (4x8 plans in a few tenths).
  await st({ model: 'transformer:layers=24', cluster: 'lecture:64x8', mesh: '64x8', microbatches: 16 });
  await nextFrames(page);
  await clickPlan(page);
  const mid = await res();
  await st({ microbatches: 8 });
  const restarted = await samplePlanning(page, 50_000);
  const end = restarted[restarted.length - 1];
  const ref8 = cli(['inter', '--model', 'transformer:layers=24', '--cluster', 'lecture:64x8', '--microbatches', '8']);
  check('micro-batches changed while planning: it restarts and ends with the CLI\'s plan for the new value',
        mid.inter_planning === true && end.inter_planning === false && end.inter_progress === 1 &&
        typeof end.total_latency === 'number' && (!ref8 || end.total_latency === ref8.total_latency),
        `planning when changed: ${mid.inter_planning}; page ${end.total_latency}, CLI ${ref8?.total_latency}`);

  // planInter(): a Promise of result() once planned.
  await st({ model: 'transformer:layers=24', cluster: 'lecture:2x4', mesh: '2x4', microbatches: 4 });
  const now = await page.evaluate(() => window.autopar.planInter());
  const ref4 = cli(['inter', '--model', 'transformer:layers=24', '--cluster', 'lecture:2x4', '--microbatches', '4']);
  check('planInter() resolves to result() with the CLI\'s plan', now.inter_planning === false && now.inter_progress === 1 &&
        typeof now.total_latency === 'number' && (!ref4 || now.total_latency === ref4.total_latency),
        `page ${now.total_latency}, CLI ${ref4?.total_latency}`);
}

async function main() {
  await withBrowser(async (browser, base) => {
    const app = await openApp(browser, base + 'index.html');
    if (!app) return;
    await progressChecks(app.page);
    check('no console errors or page errors', app.consoleErrors.length === 0, app.consoleErrors.join(' | '));
  });
}

await runTest('inter_progress.test.mjs', main);
