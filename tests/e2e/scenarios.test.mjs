// Browser test: every lecture scenario sets the page up as its own text says, and every number
// the page then shows equals the scenario's. Generic over `autopar scenario --list`: for each
// scenario it reads `autopar scenario NAME --json` (its findings and "page": the set-up and the
// result() paths the demonstrating tab shows, with their values), opens the scenario with
// setState({scenario}), checks the page's state against the set-up, presses "Show it"
// (window.autopar.showScenario(): the tab in front, its search / plan / study started) and waits
// until result() holds every value. Values must be equal (numbers to 1e-9 relative: native and
// WASM compute the same doubles). Screenshots of each demonstrating tab go to build-wasm/screenshots/.
// Run: node tests/e2e/scenarios.test.mjs   (needs build/autopar and build-wasm; exit 0 when all pass)
import path from 'node:path';
import { shotDir, cli, check, nextFrames, runTest, withBrowser, openApp, waitForResult } from './harness.mjs';

// The value at a dotted path ("intra_ops.0.strategy", "stages.length") of `obj`, or undefined.
function at(obj, dotted) {
  let v = obj;
  for (const part of dotted.split('.')) {
    if (v === null || v === undefined) return undefined;
    v = v[part];
  }
  return v;
}

// Equal as the page must show it: numbers to 1e-9 relative, arrays and objects element-wise.
function same(a, b) {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object')
    return Object.keys(a).length === Object.keys(b).length && Object.keys(a).every((k) => same(a[k], b[k]));
  return a === b;
}

// The set-up's fields as getState() reports them (the page fills in its defaults for the rest).
function setupDiffers(setup, state) {
  const out = [];
  for (const [k, v] of Object.entries(setup)) {
    if (v && typeof v === 'object') {
      for (const [k2, v2] of Object.entries(v)) if (!same(v2, state[k]?.[k2])) out.push(`${k}.${k2}: ${JSON.stringify(state[k]?.[k2])} != ${JSON.stringify(v2)}`);
    } else if (!same(v, state[k])) {
      out.push(`${k}: ${JSON.stringify(state[k])} != ${JSON.stringify(v)}`);
    }
  }
  return out;
}

// The charts each scenario draws in the Lecture tab (web/views/scenario_charts.h), by id.
const chartsOf = {
  'conv1d-splits': ['conv1d_splits'], 'space-sizes': ['space_sizes'], 'alexnet-strategies': ['alexnet_strategies'],
  'task-graph': ['task_graph'], 'simulator-accuracy': ['accuracy_alexnet', 'accuracy_dlrm'], 'simulator-speed': ['simulator_speed'],
  'mcmc-alexnet': ['mcmc_trace'], 'mcmc-dlrm': ['mcmc_trace'], 'mcmc-vs-exhaustive': ['mcmc_vs_exhaustive'], 'beta-sweep': ['beta_sweep'],
  'resharding-table': ['resharding'], 'megatron': ['megatron_meshes'], 'gpt-pipeline': ['pipeline_stages', 'pipeline_vs_lecture', 'pipeline_schedules'],
  'cross-mesh-resharding': ['cross_mesh'], 'wide-resnet': ['weak_scaling'], 'published-runs': ['published_runs'],
  'flexflow-vs-alpa': ['flexflow_vs_alpa'], 'fits-on-80gb': ['fits_80gb'],
};

await runTest('scenarios.test', async () => {
  const listed = cli(['scenario', '--list']);
  if (!check('build/autopar lists the scenarios (build it natively first)', !!listed)) return;
  // The CLI's own runs, all before the browser starts (the two compete for the same cores).
  const t0 = Date.now();
  const refs = listed.scenarios.map((s) => cli(['scenario', s.name]));
  console.log(`     (${refs.length} scenarios computed natively in ${((Date.now() - t0) / 1000).toFixed(1)} s)`);

  await withBrowser(async (browser, base) => {
    const app = await openApp(browser, base + 'index.html', { viewport: { width: 1280, height: 720 } });
    if (!app) return;
    const { page, consoleErrors } = app;
    for (const ref of refs) {
      const name = ref.name;
      const t1 = Date.now();
      const errorsBefore = consoleErrors.length;
      const opened = await page.evaluate((n) => window.autopar.setState({ scenario: n }), name);
      if (!check(`${name}: opens`, opened.ok === true, JSON.stringify(opened.error))) continue;
      // The Lecture tab computes the scenario in the page's workers as it opens (gpt3-1024, planned in
      // minutes, on request): its findings, its charts and where it differs from the lecture notes
      // equal the CLI's (wall-clock figures aside).
      if (name !== 'gpt3-1024') {
        const computed = await waitForResult(page, (x) => x.scenario?.name === name && Array.isArray(x.scenario.findings), 200_000);
        const sc = computed.scenario || {};
        const timed = name === 'simulator-speed';   // evaluations per second are measured, not computed
        check(`${name}: the Lecture tab computes it in the page (findings equal \`autopar scenario ${name} --json\`)`,
              sc.name === name && sc.findings.length === ref.findings.length && (timed || JSON.stringify(sc.findings) === JSON.stringify(ref.findings)),
              `page ${JSON.stringify(sc.findings)?.slice(0, 300)} vs CLI ${JSON.stringify(ref.findings).slice(0, 300)}`);
        check(`${name}: "the lecture says X; here Y, because Z" as the CLI's (${ref.versus_lecture.length})`,
              Array.isArray(sc.versus_lecture) && sc.versus_lecture.length === ref.versus_lecture.length &&
              (timed || JSON.stringify(sc.versus_lecture) === JSON.stringify(ref.versus_lecture)), JSON.stringify(sc.versus_lecture)?.slice(0, 400));
        const want = chartsOf[name] || [];
        const got = (sc.charts || []).filter((c) => c.points > 0).map((c) => c.id);
        check(`${name}: draws its chart(s) ${want.join(', ') || '(none: the CLI prints no table or series)'}`,
              want.every((id) => got.includes(id)), JSON.stringify(sc.charts));
        if (ref.question) {
          check(`${name}: asks before it tells (the question is open, nothing answered)`, sc.question?.asked === true && sc.question.answered === false,
                JSON.stringify(sc.question));
          await page.evaluate(() => window.autopar.setState({ panel: 'lecture' }));
          await nextFrames(page);
          await page.screenshot({ path: path.join(shotDir, `lecture-${name}-question.png`) });
          const wrongLetter = ref.question.answer === 0 ? 'b' : 'a';
          const p1 = await page.evaluate((l) => window.autopar.setState({ lecture_prediction: l }), wrongLetter);
          const after = (await page.evaluate(() => window.autopar.result())).scenario;
          check(`${name}: a prediction is checked and marked (wrong here), then the findings show`,
                p1.ok === true && after.question.answered === true && after.question.correct === false, JSON.stringify(after.question));
        }
        await page.evaluate(() => window.autopar.setState({ panel: 'lecture' }));
        await nextFrames(page);
        await page.screenshot({ path: path.join(shotDir, `lecture-${name}.png`) });
      }
      const pageInfo = ref.page;
      if (!check(`${name}: the scenario says how the page shows it (page.setup, page.panel, page.shows)`,
                 pageInfo && pageInfo.setup && pageInfo.panel && Array.isArray(pageInfo.shows))) continue;
      const state = await page.evaluate(() => window.autopar.getState());
      const diffs = setupDiffers(pageInfo.setup, state);
      check(`${name}: the page is set up as the scenario runs (${Object.keys(pageInfo.setup).join(', ')})`, diffs.length === 0, diffs.join('; '));

      const shown = await page.evaluate(() => window.autopar.showScenario());
      check(`${name}: "Show it" brings the ${pageInfo.panel} tab to the front`, shown.ok === true && shown.panel === pageInfo.panel, JSON.stringify(shown));
      // A pipeline plan runs in slices over frames (seconds under a software renderer): finish it now.
      if ((await page.evaluate(() => window.autopar.result())).inter_planning) await page.evaluate(() => window.autopar.planInter());
      // Wait until every value is there (searches, plans and studies run in frames).
      const wrong = () => page.evaluate((shows) => {
        const r = window.autopar.result();
        const bad = [];
        for (const s of shows) {
          let v = r;
          for (const part of s.result.split('.')) v = v === null || v === undefined ? undefined : v[part];
          bad.push({ path: s.result, got: v === undefined ? null : v, want: s.value });
        }
        return bad;
      }, pageInfo.shows);
      let rows = await wrong();
      const deadline = Date.now() + 90_000;
      while (rows.some((x) => !same(x.got, x.want)) && Date.now() < deadline) {
        await page.waitForTimeout(100);
        rows = await wrong();
      }
      const bad = rows.filter((x) => !same(x.got, x.want));
      check(`${name}: the ${pageInfo.panel} tab shows the scenario's ${rows.length} numbers`, bad.length === 0,
            bad.map((x) => `${x.path}: page ${JSON.stringify(x.got)?.slice(0, 200)} != scenario ${JSON.stringify(x.want)?.slice(0, 200)}`).join('; '));
      await nextFrames(page);
      await page.screenshot({ path: path.join(shotDir, `scenario-${name}.png`) });
      check(`${name}: no console errors`, consoleErrors.length === errorsBefore, consoleErrors.slice(errorsBefore).join(' | '));
      console.log(`     (${name}: ${((Date.now() - t1) / 1000).toFixed(1)} s in the page)`);
    }
    // Uneven splits (page side): one extra sample keeps AlexNet data parallel with about the same
    // time (parts of 33 and 32 samples), equal to the CLI's number.
    const ref256 = cli(['simulate', '--model', 'alexnet', '--cluster', 'lecture:2x4', '--strategy', 'dp']);
    const ref257 = cli(['simulate', '--model', 'alexnet:batch=257', '--cluster', 'lecture:2x4', '--strategy', 'dp']);
    const odd = await page.evaluate(() => { window.autopar.setState({ model: 'alexnet:batch=257', cluster: 'lecture:2x4', strategy: 'dp' }); return window.autopar.result(); });
    check('AlexNet batch 257 under data parallel: the CLI\'s time, within 1% of batch 256',
          Math.abs(odd.makespan_ms - ref257.makespan_ms) <= 1e-9 * ref257.makespan_ms && Math.abs(odd.makespan_ms / ref256.makespan_ms - 1) < 0.01,
          `page ${odd.makespan_ms}, CLI ${ref257.makespan_ms}, batch 256 ${ref256.makespan_ms}`);
    await page.close();
  });
});
