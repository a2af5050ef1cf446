// Browser test of the exercises (lecture 15, section 11): nothing reveals an answer before Check,
// a wrong Check names the wrong parts with a hint and reveals nothing, the answer comes with a
// second wrong try or on request, and result().exercise.correct is true only when every part is
// right (never null after a Check). Each exercise is driven with a wrong, a partly wrong and a
// right answer; the right answers are read from a second page where "Show the answer" was
// pressed (the same defaults give the same exercises), and cross-checked by hand and by the CLI.
// Run: node tests/e2e/exercises.test.mjs   (exit 0 when every check passes)
import path from 'node:path';
import { shotDir, cli, check, nextFrames, runTest, withBrowser, openApp } from './harness.mjs';

const N = 8;
const close = (a, b, rel = 1e-9) => Math.abs(a - b) <= rel * Math.max(1, Math.abs(a), Math.abs(b));

await runTest('exercises.test', async () => {
  await withBrowser(async (browser, base) => {
    const viewport = { viewport: { width: 1280, height: 720 } };
    // Page A reveals every answer ("Show the answer" without a try).
    const a = await openApp(browser, base + 'index.html', viewport);
    if (!a) return;
    const answers = {};
    for (let n = 1; n <= N; ++n) {
      const r = await a.page.evaluate((k) => {
        window.autopar.setState({ panel: 'exercises', exercise: { number: k, reveal: true } });
        return window.autopar.result().exercise;
      }, n);
      answers[n] = r.parts.map((p) => p.expected);
      check(`exercise ${n}: "Show the answer" reveals every part without a try`,
            r.revealed === true && r.checked === false && r.correct === null && r.parts.length > 0 &&
            r.parts.every((p) => p.expected !== null), JSON.stringify(r));
    }
    await a.page.close();

    // Hand-worked and CLI values for the exercises that have them.
    // 1: b=64, n=1024, m=1024, s=4, p=2: (64/4) x 1024 = 16384 inputs, 1024 x 512 = 524288 weights, all-reduced.
    check('exercise 1 answers are (b/s) x n, n x (m/p) and the shard', JSON.stringify(answers[1]) === '[16384,524288,524288]', JSON.stringify(answers[1]));
    // 2: min(1, exp(0.1 x (100 - 110))) = e^-1.
    check('exercise 2 answer is exp(-1)', close(answers[2][0], Math.exp(-1)), JSON.stringify(answers[2]));
    // 4: 4096 x 4096 x 4 B = 64 MiB. Axis 0 first: 2 GPUs gather 1/8 shards into 1/4, each receives
    // half of 16 MiB = 8 MiB; axis 1 first: axis 0 then gathers halves into 64 MiB, receiving 32 MiB.
    check('exercise 4 answers: axis 0 first, 8 MiB and 32 MiB over axis 0', JSON.stringify(answers[4]) === JSON.stringify([0, 8 * 2 ** 20, 32 * 2 ** 20]),
          JSON.stringify(answers[4]));
    const dp = cli(['simulate', '--model', 'dlrm', '--cluster', 'lecture:2x4', '--strategy', 'dp']);
    const expert = cli(['simulate', '--model', 'dlrm', '--cluster', 'lecture:2x4', '--strategy', 'expert']);
    if (dp && expert) check('exercise 7 answer is DLRM data parallel / expert from the CLI', close(answers[7][0], dp.makespan_ms / expert.makespan_ms), `${answers[7][0]}`);
    const alex = cli(['simulate', '--model', 'alexnet', '--cluster', 'lecture:2x4', '--strategy', 'dp']);
    if (alex) check('exercise 8 answer is compute + transfers + sync of AlexNet dp from the CLI',
                    close(answers[8][0], alex.compute_ms + alex.activation_transfer_ms + alex.param_sync_ms), `${answers[8][0]}`);

    // Page B: the reader's path through each exercise.
    const b = await openApp(browser, base + 'index.html', viewport);
    if (!b) return;
    const { page, consoleErrors } = b;
    const ex = (o) => page.evaluate((x) => { const s = window.autopar.setState({ panel: 'exercises', exercise: x }); return { s, r: window.autopar.result().exercise }; }, o);
    const text = (v) => (Array.isArray(v) ? v[0] : String(v));
    for (let n = 1; n <= N; ++n) {
      const right = answers[n].map(text);
      const wrongs = right.map((v, k) => (n === 3 ? 'no_such_op' : String(Number(v) * 3 + 7 + k)));
      let { s, r } = await ex({ number: n });
      check(`exercise ${n}: before Check nothing is graded or revealed`, s.ok && r.checked === false && r.correct === null &&
            r.parts.every((p) => p.expected === null && p.correct === null), JSON.stringify(r));
      await nextFrames(page);
      await page.screenshot({ path: path.join(shotDir, `exercise-${n}-before.png`) });

      ({ r } = await ex({ number: n, answers: wrongs }));
      check(`exercise ${n}: a wrong Check says which parts are wrong, with a hint, and reveals nothing`,
            r.correct === false && r.revealed === false && r.parts.every((p) => p.correct === false && p.expected === null && p.hint),
            JSON.stringify(r));
      await nextFrames(page);
      await page.screenshot({ path: path.join(shotDir, `exercise-${n}-wrong.png`) });

      // Partly wrong: the first part right and the others wrong (single-part exercises: wrong again).
      const partly = right.length > 1 ? [right[0], ...wrongs.slice(1)] : wrongs;
      ({ r } = await ex({ number: n, answers: partly }));
      check(`exercise ${n}: a partly wrong second try is not correct and reveals the answer`,
            r.correct === false && r.revealed === true && (right.length === 1 || (r.parts[0].correct === true && r.parts[1].correct === false)) &&
            r.parts.every((p) => p.expected !== null), JSON.stringify(r));
      await nextFrames(page);
      await page.screenshot({ path: path.join(shotDir, `exercise-${n}-revealed.png`) });

      ({ r } = await ex({ number: n, answers: right }));
      check(`exercise ${n}: the right answer is correct`, r.correct === true && r.parts.every((p) => p.correct === true), JSON.stringify(r));
    }
    check('no console errors', consoleErrors.length === 0, consoleErrors.join(' | '));
    await page.close();
  });
});
