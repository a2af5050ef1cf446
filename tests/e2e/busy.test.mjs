// Browser test of the page while its long work runs in the workers (issue #14): the FlexFlow
// search (its live plot filling from the worker's partial results, Pause, the result equal to
// `autopar search`), the comparison (two planners side by side, merged into `autopar compare
// --json`), the accuracy study (the scatter filling from partials, the summaries equal to
// `autopar accuracy`) and edits of a large model on the intra-op and the Strategy & Timeline
// tabs. While each runs, animation-frame gaps are recorded in the page and printed (the largest
// gap and how many exceed 250 ms), a tab switch and a hover must be answered by the next frames,
// and the page must keep drawing. Timing assertions are generous (2 shared cores, software WebGL
// frames of 60-100 ms, far more under load) but can fail: work done on the main thread shows as a
// frame's own work or an edit's setState call of seconds. The vertices a frame draws are counted
// exactly: with a software WebGL they are most of a frame's cost.
// Run: node tests/e2e/busy.test.mjs   (exit status 0 when every check passes)
import { cli, check, nextFrames, settlePointer, runTest, withBrowser, openApp, startGaps, stopGaps, shotDir } from './harness.mjs';

const LARGE = 'transformer:layers=24', CLUSTER = 'lecture:4x8';
// Generous bounds for this machine (2 shared cores, software WebGL: under load one frame's GL
// submission alone takes 0.5-1.5 s, so the gaps are printed and bounded loosely). The app's own
// work per frame (result().frame_ms, without the GL submission) is what the workers keep small:
// at most 54 ms in a loaded run with the work in the workers, where the intra-op ILP of an edit
// alone took ~300 ms on the main thread and compare's Alpa plan more.
const MAX_GAP_MS = 4000, MAX_WORK_MS = 250;
// Vertices one frame may draw. The intra-op tab drew all 433 rows of a 48-layer transformer's
// op table (1.2 million vertices, a second per frame with SwiftShader); the rows in view take
// 10,000, the Strategy & Timeline tab 10,000 (narrow tasks folded).
const MAX_VERTICES = 60000;


// The app's frame counter now (result().frame_ms.frames).
const appFrames = (page) => page.evaluate(() => window.autopar.result().frame_ms?.frames || 0);

// Prints a phase's figures and checks them: frames kept coming, no frame's own work was long.
async function report(page, label, gaps, ms, framesBefore) {
  const fm = await page.evaluate(() => window.autopar.result().frame_ms);
  const n = Math.min(fm.work_last.length, fm.frames - framesBefore);
  const work = n > 0 ? Math.max(...fm.work_last.slice(-n)) : 0;
  const whole = n > 0 ? Math.max(...fm.total_last.slice(-n)) : 0;
  const vertices = n > 0 ? Math.max(...fm.vertices_last.slice(-n)) : 0;
  console.log(`     figures (${label}): ${ms.toFixed(0)} ms, ${gaps.frames} animation frames (${n} app frames), max frame gap ` +
              `${gaps.max.toFixed(0)} ms, ${gaps.over250} gaps over 250 ms; the app's own work per frame at most ${work.toFixed(0)} ms ` +
              `(the whole frame with its WebGL calls ${whole.toFixed(0)} ms), at most ${vertices} vertices a frame`);
  check(`${label}: frames kept coming (max gap ${gaps.max.toFixed(0)} ms <= ${MAX_GAP_MS}), no frame worked long ` +
        `(${work.toFixed(0)} ms <= ${MAX_WORK_MS}) or drew much (${vertices} <= ${MAX_VERTICES} vertices)`,
        gaps.frames >= 5 && n >= 2 && gaps.max <= MAX_GAP_MS && work <= MAX_WORK_MS && vertices <= MAX_VERTICES);
}

// The page answers while work runs: a tab switch shows in result().ui within a few frames, and
// a hover over the tab strip is drawn (frames advance).
async function responsive(page, label, panel) {
  const t0 = Date.now();
  const before = await page.evaluate(() => window.__gaps.frames);
  const tab = await page.evaluate((p) => window.autopar.setState({ panel: p }), panel);
  await nextFrames(page);
  const r = await page.evaluate(() => window.autopar.result());
  const t = r.ui.tabs[0];
  if (t) await page.mouse.move(t.x + t.w / 2, t.y + t.h / 2);
  await settlePointer(page);
  const after = await page.evaluate(() => window.__gaps.frames);
  const ms = Date.now() - t0;
  check(`${label}: a tab switch and a hover are answered while it runs (${ms} ms, ${after - before} frames)`,
        tab.ok === true && (await page.evaluate(() => window.autopar.getState().panel)) === panel && after - before >= 2 && ms < 5000);
}

// Which jobs run (autopar_jobs_status: takes the workers' results, computes nothing itself).
const jobs = (page) => page.evaluate(() => window.autopar.jobs());

// Applies an edit through setState and times the call in the page: the edit's own work on the
// main thread (the model loaded, the strategy resolved, the simulation rebuilt if it is shown).
const timedEdit = (page, o) => page.evaluate((x) => {
  const t = performance.now();
  const r = window.autopar.setState(x);
  return { ok: r.ok, ms: performance.now() - t };
}, o);

// Makes `layers` edits of the transformer, each drawn until the intra-op plan the worker computes
// for it has arrived, and checks that no edit's setState took over `bound` ms; returns the gaps
// recorded meanwhile.
async function edits(page, label, layers, bound) {
  await startGaps(page);
  const calls = [];
  let sawPlanning = false;
  for (const l of layers) {
    const e = await timedEdit(page, { model: `transformer:layers=${l}` });
    calls.push(e);
    await nextFrames(page);
    sawPlanning ||= (await jobs(page)).intra;
    for (let k = 0; k < 100 && (await jobs(page)).intra; k++) await page.waitForTimeout(100);
    await nextFrames(page);
  }
  const gaps = await stopGaps(page);
  const worst = Math.max(...calls.map((c) => c.ms));
  console.log(`     figures (${label}): setState per edit ${calls.map((c) => c.ms.toFixed(0)).join(', ')} ms (layers ${layers.join(', ')})`);
  check(`${label}: every edit was applied and none worked long on the main thread (${worst.toFixed(0)} ms <= ${bound})`,
        calls.every((c) => c.ok) && worst <= bound);
  return { gaps, sawPlanning };
}

const strip = (j, keys) => { const o = JSON.parse(JSON.stringify(j)); for (const k of keys) delete o[k]; return o; };

async function main() {
  await withBrowser(async (browser, base) => {
    const app = await openApp(browser, base + 'index.html');
    if (!app) return;
    const page = app.page;
    const st = (o) => page.evaluate((x) => window.autopar.setState(x), o);
    const workers = await page.evaluate(() => window.autopar.workers());

    // 1. The search on a large model, in the worker: the plot fills in, Pause holds, the result is the CLI's.
    await st({ model: LARGE, cluster: CLUSTER, mesh: '4x8', seed: 2, beta: 300, panel: 'search', search: { running: false, steps: 400 } });
    await nextFrames(page);
    const f0 = await appFrames(page);
    await startGaps(page);
    const t0 = Date.now();
    const done = page.evaluate(() => window.autopar.runSearch());
    const seen = [];
    for (let k = 0; k < 40; k++) {
      await page.waitForTimeout(250);
      const s = (await page.evaluate(() => window.autopar.result())).search;
      seen.push([s.step, s.trace_points]);
      if (s.finished) break;
      if (k === 3) await responsive(page, 'searching', 'strategy');
    }
    const r = await done;
    const searchGaps = await stopGaps(page);
    const searchMs = Date.now() - t0;
    const partialSteps = seen.filter(([step]) => step > 0 && step < r.search.step);
    check('the search\'s live plot fills in from the worker\'s partial results before it ends',
          partialSteps.length >= 2 && partialSteps.some(([, pts]) => pts > 1), JSON.stringify(seen.slice(0, 8)));
    const ref = cli(['search', '--model', LARGE, '--cluster', CLUSTER, '--beta', '300', '--steps', '400', '--seed', '2']);
    const wall = ['elapsed_ms', 'evals_per_s'];
    check('the search in the worker equals `autopar search` (best, counts, history, strategy)', !!ref && !!r.search.report &&
          JSON.stringify(strip(r.search.report, wall)) === JSON.stringify(strip(ref, wall)) && r.search.best_ms === ref.best_ms,
          `page ${r.search.best_ms} after ${r.search.step}, CLI ${ref?.best_ms} after ${ref?.steps}`);
    await report(page, `search of ${LARGE} on ${CLUSTER}, ${workers} worker(s)`, searchGaps, searchMs, f0);

    // Pause holds the search where it is; Resume goes on to the same result as without pausing.
    await st({ panel: 'search', seed: 3, search: { running: true, steps: 600 } });
    await page.waitForTimeout(600);
    await st({ search: { running: false } });
    await page.waitForTimeout(400);
    const p1 = (await page.evaluate(() => window.autopar.result())).search.step;
    await page.waitForTimeout(600);
    const p2 = (await page.evaluate(() => window.autopar.result())).search.step;
    check('Pause stops the search in the worker', p1 === p2 && p1 > 0, `${p1} then ${p2} proposals`);
    const resumed = await page.evaluate(() => window.autopar.runSearch());
    const ref3 = cli(['search', '--model', LARGE, '--cluster', CLUSTER, '--beta', '300', '--steps', '600', '--seed', '3']);
    check('after Pause and Resume the search equals `autopar search`', resumed.search.best_ms === ref3?.best_ms &&
          resumed.search.step === ref3?.steps, `page ${resumed.search.best_ms}, CLI ${ref3?.best_ms}`);

    // 2. Compare: two worker jobs side by side, merged into the CLI's report.
    const CMP_MODEL = 'transformer:layers=8';
    await st({ model: CMP_MODEL, cluster: 'lecture:2x4', mesh: '2x4', seed: 1, panel: 'compare' });
    const f1 = await appFrames(page);
    await startGaps(page);
    const c0 = Date.now();
    const cmpDone = page.evaluate(() => window.autopar.compare());
    await page.waitForTimeout(800);
    await responsive(page, 'comparing', 'model');
    const cr = await cmpDone;
    const cmpGaps = await stopGaps(page);
    // Compare uses the page's micro-batches (and the inter-op tab's plan for them).
    const cmpRef = cli(['compare', '--model', CMP_MODEL, '--cluster', 'lecture:2x4', '--seed', '1', '--microbatches',
                        String((await page.evaluate(() => window.autopar.getState())).microbatches)]);
    const times = (j) => { const o = JSON.parse(JSON.stringify(j)); delete o.flexflow.elapsed_ms; delete o.alpa.solve_ms; return o; };
    check('Compare in the workers merges into `autopar compare --json` byte for byte (but its wall times)', !!cr.compare?.report && !!cmpRef &&
          JSON.stringify(times(cr.compare.report)) === JSON.stringify(times(cmpRef)),
          `page ${cr.compare?.flexflow_ms} / ${cr.compare?.alpa_ms}, CLI ${cmpRef?.flexflow.makespan_ms} / ${cmpRef?.alpa.makespan_ms}`);
    await report(page, `compare ${CMP_MODEL} on lecture:2x4, ${workers} worker(s)`, cmpGaps, Date.now() - c0, f1);

    // 3. The accuracy study: the scatter fills in from partials; the summaries equal the CLI's.
    await st({ model: LARGE, cluster: CLUSTER, mesh: '4x8', seed: 4, accuracy: { samples: 40 }, panel: 'accuracy' });
    const f2 = await appFrames(page);
    await startGaps(page);
    const a0 = Date.now();
    const accDone = page.evaluate(() => window.autopar.studyAccuracy());
    const dones = [];
    for (let k = 0; k < 60; k++) {
      await page.waitForTimeout(200);
      const a = (await page.evaluate(() => window.autopar.result())).accuracy;
      dones.push(a.done);
      if (a.complete) break;
    }
    const ar = await accDone;
    const accGaps = await stopGaps(page);
    const accRef = cli(['accuracy', '--model', LARGE, '--cluster', CLUSTER, '--samples', '40', '--seed', '4']);
    check('the accuracy scatter fills in while the study runs', dones.some((d) => d > 0 && d < 40), dones.join(','));
    check('the accuracy study in the worker equals `autopar accuracy`', ar.accuracy.complete && !!accRef &&
          ar.accuracy.ideal.kendall_tau === accRef.kendall_tau && ar.accuracy.ideal.mean_rel_error === accRef.mean_rel_error,
          `page tau ${ar.accuracy.ideal?.kendall_tau}, CLI ${accRef?.kendall_tau}`);
    await report(page, `accuracy, 40 strategies of ${LARGE} on ${CLUSTER}`, accGaps, Date.now() - a0, f2);

    // 4. Edits of a large model on the intra-op tab: each edit's intra-op plan is computed in the
    // worker ("planning..." meanwhile), its table drawn; the FlexFlow simulation, not shown on this
    // tab, waits until something reads it; result() afterwards is the CLI's plan.
    await st({ model: LARGE, cluster: CLUSTER, mesh: '4x8', panel: 'intra' });
    await page.evaluate(() => window.autopar.result());
    await nextFrames(page);
    const f3 = await appFrames(page);
    const e0 = Date.now();
    const intraEdits = `four edits of the transformer (up to 48 layers) on ${CLUSTER}, intra-op tab`;
    const { gaps: editGaps, sawPlanning } = await edits(page, intraEdits, [20, 48, 22, 24], MAX_WORK_MS);
    const editMs = Date.now() - e0;
    const er = await page.evaluate(() => window.autopar.result());
    const intraRef = cli(['intra', '--model', LARGE, '--cluster', CLUSTER, '--mesh', '4x8']);
    check('after the edits the intra-op plan, computed in the worker, is the CLI\'s', er.intra_source === 'worker' &&
          er.objective === intraRef?.objective && er.intra_planning === false,
          `page ${er.objective} (from the ${er.intra_source}), CLI ${intraRef?.objective}; planning seen between frames: ${sawPlanning}`);
    await report(page, intraEdits, editGaps, editMs, f3);
    await page.screenshot({ path: `${shotDir}/busy-intra-edits.png` });

    // 5. The same edits on the Strategy & Timeline tab: each rebuilds the simulation on the main
    // thread (18,000-37,000 tasks: 30-60 ms of an edit, 170 ms in a run at load 7) and draws its
    // timeline. Its bound is looser, the intra-op tab's catches the ILP.
    await st({ panel: 'strategy' });
    await nextFrames(page);
    const f4 = await appFrames(page);
    const s0 = Date.now();
    const timelineEdits = `four edits of the transformer (up to 48 layers) on ${CLUSTER}, Strategy & Timeline tab`;
    const { gaps: tlGaps } = await edits(page, timelineEdits, [20, 48, 22, 24], 2 * MAX_WORK_MS);
    const tr = await page.evaluate(() => window.autopar.result());
    const simRef = cli(['simulate', '--model', LARGE, '--cluster', CLUSTER]);
    check('after the edits the simulated strategy is the CLI\'s', tr.makespan_ms === simRef?.makespan_ms && tr.tasks === simRef?.tasks,
          `page ${tr.makespan_ms} ms, ${tr.tasks} tasks; CLI ${simRef?.makespan_ms} ms, ${simRef?.tasks} tasks`);
    await report(page, timelineEdits, tlGaps, Date.now() - s0, f4);
    await page.screenshot({ path: `${shotDir}/busy-timeline-edits.png` });

    check('no console errors or page errors', app.consoleErrors.length === 0, app.consoleErrors.join(' | '));
  });
}

await runTest('busy.test.mjs', main);
