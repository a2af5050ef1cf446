// Browser end-to-end test of the lecture companion (issue 6): the Lecture tab and menu, the
// interactive exercises and the FlexFlow-vs-Alpa Compare tab. Serves the project root, drives
// Debian's Chromium (WebGL 2 through SwiftShader) with playwright-core and checks through
// window.autopar: every scenario opens from setState({scenario}) without errors, a light
// scenario's findings equal `build/autopar scenario NAME --json`, exercise 2 marks a right answer
// right and a wrong one wrong, and Compare's makespans equal `build/autopar compare`. Screenshots
// of the Lecture tab, two exercises and Compare go to build-wasm/screenshots/.
// Run: node tests/e2e/lecture.test.mjs   (exit status 0 when every check passes)
import path from 'node:path';
import { root, shotDir, CLI, cli, results, check, nextFrames, settlePointer, runTest, withBrowser, openApp, waitForResult } from './harness.mjs';






// A click Dear ImGui sees: hover for a frame, press for a frame, release.
async function clickAt(page, x, y) {
  await page.mouse.move(x, y);
  await settlePointer(page);
  await page.mouse.down();
  await settlePointer(page);
  await page.mouse.up();
  await settlePointer(page);
}

async function lectureChecks(page, consoleErrors) {
  const st = (o) => page.evaluate((x) => window.autopar.setState(x), o);
  const res = () => page.evaluate(() => window.autopar.result());
  const state = () => page.evaluate(() => window.autopar.getState());

  // Every scenario opens from setState without errors (names from the CLI, or the page's own list).
  const listed = cli(['scenario', '--list']);
  const names = listed ? listed.scenarios.map((s) => s.name)
    : ['conv1d-splits', 'space-sizes', 'alexnet-strategies', 'task-graph', 'simulator-accuracy', 'simulator-speed',
       'mcmc-alexnet', 'mcmc-dlrm', 'mcmc-vs-exhaustive', 'beta-sweep', 'resharding-table', 'linear-nine', 'megatron',
       'gpt-pipeline', 'wide-resnet', 'flexflow-vs-alpa'];
  const failedOpen = [];
  for (const name of names) {
    const before = consoleErrors.length;
    const r = await st({ scenario: name });
    await nextFrames(page);
    await nextFrames(page);
    const s = await state();
    if (!(r.ok === true && s.scenario === name && s.panel === 'lecture' && consoleErrors.length === before))
      failedOpen.push(`${name}: ${JSON.stringify(r)} panel=${s.panel}`);
  }
  check(`all ${names.length} scenarios open from setState({scenario}) without errors`, failedOpen.length === 0, failedOpen.join('; '));

  const bad = await st({ scenario: 'no-such-demo' });
  check('an unknown scenario is refused and named', bad.ok === false && /no-such-demo/.test(bad.error?.message || ''),
        JSON.stringify(bad.error));

  // Set-ups: alexnet-strategies -> alexnet, lecture:2x4, expert; task-graph -> Fig. 5 on elm; mcmc-dlrm -> beta 500.
  await st({ scenario: 'alexnet-strategies' });
  let s = await state();
  check('alexnet-strategies sets up alexnet on lecture:2x4 with the expert strategy',
        s.model === 'alexnet' && s.cluster === 'lecture:2x4' && s.strategy === 'expert', JSON.stringify(s));
  await st({ scenario: 'mcmc-dlrm' });
  s = await state();
  check('mcmc-dlrm sets up dlrm with beta 500', s.model === 'dlrm' && s.beta === 500, `${s.model} beta ${s.beta}`);
  await st({ scenario: 'simulator-accuracy' });
  s = await state();
  check('simulator-accuracy sets up 300 samples', s.accuracy?.samples === 300, JSON.stringify(s.accuracy));

  // task-graph: the Fig. 5 strategy, whose makespan equals the scenario's simulate result.
  await st({ scenario: 'task-graph' });
  s = await state();
  let r = await waitForResult(page, (x) => x.scenario?.name === 'task-graph' && !!x.scenario.findings, 10_000);
  const tgRef = cli(['scenario', 'task-graph']);
  check('task-graph sets up elm on lecture:1x2 with the Fig. 5 strategy',
        s.model === 'elm' && s.cluster === 'lecture:1x2' && /linear1=2x1@0/.test(s.strategy) &&
        (!tgRef || r.makespan_ms === tgRef.results.simulate.makespan_ms),
        `${s.strategy}: page ${r.makespan_ms} ms, CLI ${tgRef?.results.simulate.makespan_ms}`);
  check('task-graph findings equal `autopar scenario task-graph --json`',
        !!r.scenario && (!tgRef || JSON.stringify(r.scenario.findings) === JSON.stringify(tgRef.findings)),
        `${r.scenario?.findings?.length} findings`);

  // A light scenario's numbers equal the native CLI's (computed when it opens).
  await st({ scenario: 'alexnet-strategies' });
  r = await waitForResult(page, (x) => x.scenario?.name === 'alexnet-strategies' && !!x.scenario.findings, 10_000);
  const ref = cli(['scenario', 'alexnet-strategies']);
  check('alexnet-strategies findings equal `autopar scenario alexnet-strategies --json`',
        !!r.scenario && (!ref || JSON.stringify(r.scenario.findings) === JSON.stringify(ref.findings)),
        (r.scenario?.findings || []).join(' | '));
  await nextFrames(page);
  await page.screenshot({ path: path.join(shotDir, 'lecture-alexnet-strategies.png') });
  // beta-sweep (35 searches) starts in the page's workers as it opens: no click, just wait.
  await st({ scenario: 'beta-sweep' });
  await nextFrames(page);
  await page.waitForTimeout(300);
  await page.mouse.move(700, 700);
  await page.screenshot({ path: path.join(shotDir, 'lecture-beta-sweep-running.png') });
  const t0 = Date.now();
  r = await waitForResult(page, (x) => x.scenario?.name === 'beta-sweep', 150_000);
  const sweepRef = cli(['scenario', 'beta-sweep']);
  check('beta-sweep runs in the page and its findings equal `autopar scenario beta-sweep --json`',
        !!r.scenario && (!sweepRef || JSON.stringify(r.scenario.findings) === JSON.stringify(sweepRef.findings)),
        `${Date.now() - t0} ms in the page; ${(r.scenario?.findings || []).join(' | ')}; frame work max ${r.frame_ms?.work_max} ms`);
  await nextFrames(page);
  await page.screenshot({ path: path.join(shotDir, 'lecture-beta-sweep.png') });

  // Exercise 2: beta 0.1 / ms, 100 ms -> 110 ms: exp(-1) = 0.3679.
  let e = await st({ panel: 'exercises', exercise: { number: 2, answer: '0.37' } });
  await nextFrames(page);
  r = await res();
  check('exercise 2 marks 0.37 right for exp(0.1 x (100 - 110))', e.ok === true && r.exercise?.number === 2 &&
        r.exercise?.correct === true && Math.abs(r.exercise.expected - Math.exp(-1)) < 1e-12, JSON.stringify(r.exercise));
  await page.screenshot({ path: path.join(shotDir, 'exercise-2-right.png') });
  e = await st({ exercise: { number: 2, answer: '0.9' } });
  await nextFrames(page);
  r = await res();
  check('exercise 2 marks 0.9 wrong', e.ok === true && r.exercise?.correct === false, JSON.stringify(r.exercise));
  await page.screenshot({ path: path.join(shotDir, 'exercise-2-wrong.png') });
  const badEx = await st({ exercise: { number: 9 } });
  check('exercise 9 is refused', badEx.ok === false && /exercise/.test(badEx.error?.path || ''), JSON.stringify(badEx.error));

  // Exercise 1: 64 samples / 4 x 1024 inputs = 16384 input elements per GPU.
  // All three parts (b/s) x n = 16384, n x (m/p) = 524288 and the 524288-element all-reduce.
  e = await st({ exercise: { number: 1, answers: ['16384', '524288', '524288'] } });
  await nextFrames(page);
  r = await res();
  check('exercise 1 marks its three right parts right', r.exercise?.correct === true && r.exercise?.expected === 16384,
        JSON.stringify(r.exercise));
  await page.screenshot({ path: path.join(shotDir, 'exercise-1.png') });

  // The other exercises draw without errors; screenshots of the delta-simulation and DP ones.
  await st({ model: 'alexnet', cluster: 'lecture:2x4', strategy: 'expert' });
  for (const n of [3, 4, 5, 6, 7, 8]) {
    const before = consoleErrors.length;
    await st({ exercise: { number: n } });
    await nextFrames(page);
    await nextFrames(page);
    check(`exercise ${n} draws without errors`, consoleErrors.length === before, consoleErrors.slice(before).join(' | '));
    if (n === 5) await clickAt(page, 388, 194);   // "All rows" of the DP table
    if (n === 6) await clickAt(page, 385, 231);   // "All" t_max candidates
    if (n === 5 || n === 6) { await page.mouse.move(700, 840); await nextFrames(page); }
    if (n === 4 || n === 7 || n === 8) {   // answered (first box) and checked: the verdicts and explanations
      await st({ exercise: { number: n, answers: n === 4 ? ['0', '1', '1'] : n === 7 ? ['b', 'c', 'd'] : ['a', 'b', 'b'] } });
      await nextFrames(page);
    }
    await page.screenshot({ path: path.join(shotDir, `exercise-${n}.png`) });
  }

  // Compare: both makespans equal `autopar compare --json` for alexnet on lecture:2x4, seed 1.
  await st({ model: 'alexnet', cluster: 'lecture:2x4', seed: 1, strategy: 'dp', panel: 'compare' });
  await nextFrames(page);
  await page.screenshot({ path: path.join(shotDir, 'compare-running.png') });
  r = await waitForResult(page, (x) => x.compare !== null && !x.compare.running, 60_000);   // {running: true} while the workers compare
  // Compare uses the page's micro-batches (and the inter-op tab's plan for them).
  const cmp = cli(['compare', '--model', 'alexnet', '--cluster', 'lecture:2x4', '--seed', '1', '--microbatches',
                   String((await page.evaluate(() => window.autopar.getState())).microbatches)]);
  check('Compare shows FlexFlow and Alpa makespans equal to `autopar compare --json`',
        !!r.compare && (!cmp || (r.compare.flexflow_ms === cmp.flexflow.makespan_ms && r.compare.alpa_ms === cmp.alpa.makespan_ms)),
        `page ${r.compare?.flexflow_ms} / ${r.compare?.alpa_ms} ms, CLI ${cmp?.flexflow.makespan_ms} / ${cmp?.alpa.makespan_ms} ms`);
  await nextFrames(page);
  await page.screenshot({ path: path.join(shotDir, 'compare.png') });
}

async function main() {
  await withBrowser(async (browser, base) => {
    const app = await openApp(browser, base + 'index.html');
    if (!app) return;
    await lectureChecks(app.page, app.consoleErrors);
    check('no console errors or page errors', app.consoleErrors.length === 0, app.consoleErrors.join(' | '));
  });
}

await runTest('lecture.test.mjs', main);
