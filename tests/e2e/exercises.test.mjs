// Browser test of the exercises (lecture 15, section 11), as a student meets them: nothing
// reveals an answer before a real attempt (an empty Check is no attempt and "Show the answer" is
// refused until one), a wrong Check names the wrong parts with a hint and reveals nothing, the
// answer comes with a second wrong try or on request after a try, result().exercise.correct is
// true only when every part is right, and "New instance" (or new inputs) after a reveal hides the
// answer again. Exercises 7 and 8 ask the lecture's "why" as choices before any number shows.
// Each exercise is driven wrong, partly wrong and right; the right answers are read from a second
// page where "Show the answer" was pressed after a wrong try (the same defaults give the same
// exercises), and cross-checked by hand and by the CLI.
// Run: node tests/e2e/exercises.test.mjs   (exit 0 when every check passes)
import path from 'node:path';
import { shotDir, cli, check, nextFrames, runTest, withBrowser, openApp } from './harness.mjs';

const N = 8;
const close = (a, b, rel = 1e-9) => Math.abs(a - b) <= rel * Math.max(1, Math.abs(a), Math.abs(b));
// A wrong answer for a part whose right answer is `v`: another letter for a choice, a name no op
// has for exercise 3, a far-off number otherwise.
const wrongFor = (n, part, v, k) => (part.choices.length ? (v === 'a' ? 'b' : 'a') : n === 3 ? 'no_such_op' : String(Number(v) * 3 + 7 + k));
const text = (v) => (Array.isArray(v) ? v[0] : String(v));

await runTest('exercises.test', async () => {
  await withBrowser(async (browser, base) => {
    const viewport = { viewport: { width: 1280, height: 720 } };
    // Page A: a wrong try, then "Show the answer".
    const a = await openApp(browser, base + 'index.html', viewport);
    if (!a) return;
    const answers = {};
    for (let n = 1; n <= N; ++n) {
      const r = await a.page.evaluate((k) => {
        const set = (x) => window.autopar.setState({ panel: 'exercises', exercise: x });
        const early = set({ number: k, reveal: true });
        const empty = (set({ number: k, answers: [], check: true }), window.autopar.result().exercise);
        const parts = empty.parts;
        const tryWrong = set({ number: k, answers: parts.map((p) => (p.choices.length ? 'zz' : 'zz')) });
        const revealed = set({ number: k, reveal: true });
        return { early, empty, tryWrong, revealed, r: window.autopar.result().exercise };
      }, n);
      check(`exercise ${n}: "Show the answer" before any attempt is refused and reveals nothing`,
            r.early.ok === false && r.early.error?.code === 'not_ready' && r.empty.revealed === false, JSON.stringify(r.early));
      check(`exercise ${n}: an empty Check is not an attempt (no try counted, nothing graded)`,
            r.empty.unanswered === true && r.empty.tries === 0 && r.empty.checked === false && r.empty.can_reveal === false &&
            r.empty.parts.every((p) => p.expected === null), JSON.stringify(r.empty));
      answers[n] = r.r.parts.map((p) => p.expected);
      answers[n].choices = r.r.parts.map((p) => p.choices);
      check(`exercise ${n}: after a wrong try "Show the answer" reveals every part`,
            r.revealed.ok === true && r.r.revealed === true && r.r.tries === 1 && r.r.parts.length > 0 && r.r.parts.every((p) => p.expected !== null),
            JSON.stringify(r.r));
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
    // 7: the "why" as choices (b: the replicated tables' all-reduce; c: each table on one GPU), then
    // the speed-up's bucket from the CLI's simulations (under 2x, 2-10x, 10-100x, 100-1000x, 1000x+).
    const dp = cli(['simulate', '--model', 'dlrm', '--cluster', 'lecture:2x4', '--strategy', 'dp']);
    const expert = cli(['simulate', '--model', 'dlrm', '--cluster', 'lecture:2x4', '--strategy', 'expert']);
    if (dp && expert) {
      const ratio = dp.makespan_ms / expert.makespan_ms;
      const bucket = 'abcde'[[2, 10, 100, 1000].filter((b) => ratio >= b).length];
      check('exercise 7 asks why (b), which configuration (c) and the speed-up bucket of DLRM data parallel / expert from the CLI',
            JSON.stringify(answers[7].map(text)) === JSON.stringify(['b', 'c', bucket]) && answers[7].choices.every((c) => c.length >= 3),
            `${JSON.stringify(answers[7])}, ratio ${ratio}`);
    }
    // 8: the additive cost is the larger (a), the ILP needs a sum (b), and the ratio's bucket from the CLI.
    const alex = cli(['simulate', '--model', 'alexnet', '--cluster', 'lecture:2x4', '--strategy', 'dp']);
    if (alex) {
      const ratio = (alex.compute_ms + alex.activation_transfer_ms + alex.param_sync_ms) / alex.makespan_ms;
      const bucket = 'abcde'[[1.25, 1.5, 2, 3].filter((b) => ratio >= b).length];
      check('exercise 8 asks which is larger (a), why the ILP cannot use a simulator (b) and the additive / makespan bucket from the CLI',
            JSON.stringify(answers[8].map(text)) === JSON.stringify(['a', 'b', bucket]), `${JSON.stringify(answers[8])}, ratio ${ratio}`);
    }

    // Page B: the reader's path through each exercise.
    const b = await openApp(browser, base + 'index.html', viewport);
    if (!b) return;
    const { page, consoleErrors } = b;
    const ex = (o) => page.evaluate((x) => { const s = window.autopar.setState({ panel: 'exercises', exercise: x }); return { s, r: window.autopar.result().exercise }; }, o);
    for (let n = 1; n <= N; ++n) {
      const right = answers[n].map(text);
      let { s, r } = await ex({ number: n });
      const wrongs = right.map((v, k) => wrongFor(n, r.parts[k], v, k));
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

      // New instance after the reveal: new inputs, the answers hidden again (no answer at once).
      const before = r.instance;
      ({ s, r } = await ex({ number: n, new_instance: true }));
      check(`exercise ${n}: "New instance" after a reveal gives a new question with its answer hidden`,
            s.ok === true && r.instance !== before && r.revealed === false && r.tries === 0 && r.checked === false &&
            r.parts.every((p) => p.expected === null && p.correct === null), `${s.ok ? '' : JSON.stringify(s.error)} ${before} -> ${r.instance}`);
      await nextFrames(page);
      await page.screenshot({ path: path.join(shotDir, `exercise-${n}-new-instance.png`) });
      // Exercises 3, 5, 7 and 8 changed the page's strategy, mesh or cluster: back to the defaults,
      // which page A's answers are for.
      await page.evaluate(() => window.autopar.setState({ model: 'alexnet', cluster: 'lecture:2x4', mesh: '2x4', strategy: 'dp' }));
    }

    // Exercise 2: the reveal stays while its inputs stay (switching exercises and back keeps it).
    let { r } = await ex({ number: 2, answers: ['0.9'] });
    ({ r } = await ex({ number: 2, reveal: true }));
    await ex({ number: 1 });
    ({ r } = await ex({ number: 2 }));
    check('exercise 2: a reveal after a wrong try stays while the inputs stay', r.revealed === true && r.parts[0].expected !== null, JSON.stringify(r));

    // Exercise 3: the key is the op whose move recomputes the largest share of its tasks (the hint's
    // "an early move saves the least"), not the largest count.
    await page.evaluate(() => window.autopar.setState({ model: 'alexnet', cluster: 'lecture:2x4', strategy: 'expert' }));
    ({ r } = await ex({ number: 3, answers: ['no_such_op'] }));
    ({ r } = await ex({ number: 3, reveal: true }));
    check('exercise 3 on AlexNet expert: the key is conv1 (every one of its tasks recomputed), by share', JSON.stringify(r.parts[0].expected) === '["conv1"]',
          JSON.stringify(r.parts[0]));
    check('no console errors', consoleErrors.length === 0, consoleErrors.join(' | '));
    await page.close();
  });
});
