// Browser end-to-end test of the live pipeline (Alpa inter-op) tab (issue 40: 2, 4, 6):
// - the plan follows the page's inputs without planInter(): micro-batches changed with the tab's
//   own "+" button and by setState, and a cluster change, each re-plan it to the CLI's plan;
// - a share link to the tab opens with its plan (a fresh page, no call but the link);
// - a change's new plan lands in the page within 2x the native CLI's time for the same plan
//   (timed inside the page from the setState call; the ratio is printed, not asserted: the
//   machine's two cores are shared);
// - the tab's terms redo the total by hand (sum of lanes and send/recv + (B - 1) x t_max), and
//   the schedules explain why 1F1B takes longer than GPipe here;
// - Compare uses the page's micro-batches and the very plan the inter-op tab shows.
// Screenshots go to build-wasm/screenshots/ (tab-pipeline-*.png, tab-compare-same-plan.png).
// Run: node tests/e2e/pipeline.test.mjs   (exit status 0 when every check passes)
import path from 'node:path';
import { shotDir, cli, check, nextFrames, settlePointer, runTest, withBrowser, openApp, waitForResult } from './harness.mjs';

// The micro-batches' "+" button on a 1400 x 860 viewport, left of Plan (239, 119), as the
// screenshot tab-pipeline-24-layers-4x8.png shows it.
const PLUS_BUTTON = [102, 119];

const stagesOf = (stages) => JSON.stringify((stages || []).map((s) => [s.layers, s.submesh, s.latency, s.logical_mesh]));
const planned = (ref) => (r) => typeof r.total_latency === 'number' && (!ref || r.total_latency === ref.total_latency);

// Waits (in the page) until no pipeline planning is in progress or owed, taking the worker's
// result as it arrives; returns the page's milliseconds from `t0`.
async function msUntilPlanned(page) {
  return page.evaluate(() => new Promise((resolve) => {
    const poll = () => {
      const s = JSON.parse(Module.ccall('autopar_inter_status', 'string', [], []));
      if (!s.planning) resolve(performance.now() - window.__t0);
      else setTimeout(poll, 1);
    };
    poll();
  }));
}

async function liveChecks(page, base) {
  const st = (o) => page.evaluate((x) => window.autopar.setState(x), o);

  // 1. The tab plans by itself: the inputs set, nothing pressed.
  const model = 'transformer:layers=24', cluster = 'lecture:4x8';
  const ref32 = cli(['inter', '--model', model, '--cluster', cluster, '--microbatches', '32']);
  const set = await st({ model, cluster, mesh: '4x8', microbatches: 32, panel: 'inter' });
  let r = await waitForResult(page, planned(ref32), 60_000);
  check('the inter-op tab plans its inputs by itself (no planInter): the CLI\'s total latency and stages',
        set.ok === true && planned(ref32)(r) && (!ref32 || stagesOf(r.stages) === stagesOf(ref32.stages)),
        `page ${r.total_latency}, CLI ${ref32?.total_latency}`);
  await nextFrames(page);
  await page.mouse.move(10, 850);
  await settlePointer(page);
  await page.screenshot({ path: path.join(shotDir, 'tab-pipeline-24-layers-4x8.png') });

  // 2. The terms shown redo the total by hand, t_max included (the receive is part of the lane).
  const t = r.inter_terms;
  const sum = t ? t.lanes.reduce((a, b) => a + b, 0) + t.sends.reduce((a, b) => a + b, 0) : NaN;
  const byHand = sum + 31 * (t ? t.t_max : NaN);
  check('sum(lane_i + send_i) + (B - 1) x t_max of the terms shown equals the total latency',
        t && Math.abs(byHand - r.total_latency) < 1e-9 * r.total_latency && t.t_max === r.t_max &&
        t.t_max === Math.max(...t.lanes, ...t.sends),
        `by hand ${byHand}, total ${r.total_latency}, t_max ${t?.t_max} vs ${r.t_max}`);
  const maxLatency = Math.max(...r.stages.map((s) => s.latency));
  check('t_max is larger than every stage latency, and the lanes (latency + receive) show why',
        t && t.t_max > maxLatency && t.lanes.some((l) => l === t.t_max), `t_max ${t?.t_max}, largest latency ${maxLatency}`);
  // 3. The schedules explain themselves: 1F1B slower here, the sentence says why, with the charts' numbers.
  const s = r.inter_schedules;
  check('here 1F1B takes longer than GPipe, and the tab says why (send/recv against the stage, memory)',
        s && s['1f1b'].makespan_ms > s.gpipe.makespan_ms && /Why 1F1B takes longer here/.test(s.explanation) &&
        /each way/.test(s.explanation) && s.gpipe.peak_in_flight === 32 && s['1f1b'].peak_in_flight < 32 &&
        s['1f1b'].idle_ms > s.gpipe.idle_ms, s?.explanation);
  await st({ lang: 'zh' });
  const zh = await page.evaluate(() => window.autopar.result());
  check('the explanation is in Chinese on the Chinese page', /1F1B 更慢/.test(zh.inter_schedules?.explanation || ''), zh.inter_schedules?.explanation);
  await nextFrames(page);
  await page.screenshot({ path: path.join(shotDir, 'tab-pipeline-zh.png') });
  await st({ lang: 'en' });

  // 4. Micro-batches "+" (the tab's own button): 32 -> 64, the next count dividing the batch of
  // 64, and the plan follows.
  await page.waitForTimeout(300);   // past the debounce of the last start
  await page.mouse.click(...PLUS_BUTTON);
  await settlePointer(page);
  const ref64 = cli(['inter', '--model', model, '--cluster', cluster, '--microbatches', '64']);
  r = await waitForResult(page, planned(ref64), 60_000);
  const state = await page.evaluate(() => window.autopar.getState());
  check('micro-batches "+" steps to 64 (the next divisor of the batch) and the plan follows with the CLI\'s',
        state.microbatches === 64 && planned(ref64)(r), `microbatches ${state.microbatches}, page ${r.total_latency}, CLI ${ref64?.total_latency}`);

  // 5. A cluster change re-plans too.
  const ref2x8 = cli(['inter', '--model', model, '--cluster', 'lecture:2x8', '--microbatches', '64']);
  await st({ cluster: 'lecture:2x8' });
  r = await waitForResult(page, planned(ref2x8), 60_000);
  check('a cluster change re-plans: the CLI\'s plan on lecture:2x8', planned(ref2x8)(r) && (!ref2x8 || stagesOf(r.stages) === stagesOf(ref2x8.stages)),
        `page ${r.total_latency}, CLI ${ref2x8?.total_latency}`);

  // 6. How fast a change's plan lands: setState -> the plan taken, inside the page, against the
  // native CLI's own time for the same plan (its elapsed_ms). Best of three changes each way.
  await st({ cluster, microbatches: 32 });
  await waitForResult(page, planned(ref32), 60_000);
  const ref16 = cli(['inter', '--model', model, '--cluster', cluster, '--microbatches', '16']);
  const times = [];
  for (const b of [16, 32, 16, 32, 16, 32]) {
    await page.waitForTimeout(400);   // past the debounce: a single change plans at once
    await page.evaluate((x) => { window.__t0 = performance.now(); window.autopar.setState({ microbatches: x }); }, b);
    times.push(await msUntilPlanned(page));
    r = await page.evaluate(() => window.autopar.result());
    const ref = b === 16 ? ref16 : ref32;
    if (!planned(ref)(r)) check(`the timed change to ${b} micro-batches ends with the CLI's plan`, false, `${r.total_latency} vs ${ref?.total_latency}`);
  }
  const cliMs = Math.min(ref16?.elapsed_ms ?? NaN, ref32?.elapsed_ms ?? NaN);
  const best = Math.min(...times);
  const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
  check('every timed change landed with a plan', times.every((x) => x > 0 && Number.isFinite(x)), times.join(', '));
  console.log(`     figures: a change's new plan landed in the page after ${times.map((x) => x.toFixed(0)).join(', ')} ms ` +
              `(best ${best.toFixed(0)}, median ${median.toFixed(0)}); native CLI ${cliMs.toFixed(0)} ms for the same plan: ` +
              `ratio best ${(best / cliMs).toFixed(2)}x, median ${(median / cliMs).toFixed(2)}x (target <= 2x; ` +
              `not judged here: the cores are shared)`);

  // 7. A shared link to the tab opens with its plan: a fresh page with only the link.
  const link = await page.evaluate(() => window.autopar.shareLink());
  const other = await openApp(page.context().browser(), base + 'index.html' + link.slice(link.indexOf('#')));
  if (other) {
    const o = await waitForResult(other.page, planned(ref32), 60_000);
    const os = await other.page.evaluate(() => window.autopar.getState());
    check('a shared link to the inter-op tab opens with its plan (the CLI\'s), nothing pressed',
          os.panel === 'inter' && os.microbatches === 32 && planned(ref32)(o) && (!ref32 || stagesOf(o.stages) === stagesOf(ref32.stages)),
          `panel ${os.panel}, page ${o.total_latency}, CLI ${ref32?.total_latency}`);
    await nextFrames(other.page);
    await other.page.screenshot({ path: path.join(shotDir, 'tab-pipeline-from-link.png') });
    check('no console errors on the page opened from the link', other.consoleErrors.length === 0, other.consoleErrors.join(' | '));
    await other.page.close();
  }

  // 8. Compare: the page's micro-batches and the very plan the inter-op tab shows.
  const small = 'transformer:layers=8';
  const refSmall = cli(['inter', '--model', small, '--cluster', 'lecture:2x4', '--microbatches', '16']);
  await st({ model: small, cluster: 'lecture:2x4', mesh: '2x4', microbatches: 16, panel: 'inter' });
  const inter = await waitForResult(page, planned(refSmall), 60_000);
  await st({ panel: 'compare' });
  const cmp = await page.evaluate(() => window.autopar.compare());
  const alpa = cmp.compare?.report?.alpa;
  check('Compare uses the page\'s 16 micro-batches', alpa?.microbatches === 16, JSON.stringify(alpa?.microbatches));
  check('Compare\'s Alpa plan is the inter-op tab\'s: the same stages, sub-meshes, latencies and objective',
        alpa && alpa.objective === inter.total_latency && alpa.stages.length === inter.stages.length &&
        alpa.stages.every((st2, k) => JSON.stringify(st2.layers) === JSON.stringify(inter.stages[k].layers) &&
                                      JSON.stringify(st2.submesh) === JSON.stringify(inter.stages[k].submesh) &&
                                      st2.latency === inter.stages[k].latency && st2.devices[0] === inter.stages[k].device_offset),
        `compare ${JSON.stringify(alpa?.stages?.map((x) => [x.layers, x.submesh]))}, inter ${JSON.stringify(inter.stages.map((x) => [x.layers, x.submesh]))}`);
  await nextFrames(page);
  await page.mouse.move(10, 850);
  await settlePointer(page);
  await page.screenshot({ path: path.join(shotDir, 'tab-compare-same-plan.png') });
}

async function main() {
  await withBrowser(async (browser, base) => {
    const app = await openApp(browser, base + 'index.html');
    if (!app) return;
    await liveChecks(app.page, base);
    check('no console errors or page errors', app.consoleErrors.length === 0, app.consoleErrors.join(' | '));
  });
}

await runTest('pipeline.test.mjs', main);
