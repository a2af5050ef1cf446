// The Search tab's MCMC step inspector (issue 40): a search run in the page's worker leaves step
// records; Step shows them one by one, Play replays them at the speed chosen and Pause stops the
// replay; each shown proposal's acceptance probability is min(1, exp(-beta x delta / cost(S0)))
// and "accepted" agrees with it. Also: the expert strategy names its recipe (Megatron-LM on a
// transformer). Screenshots: build-wasm/screenshots/inspector-*.png.
import path from 'node:path';
import { check, cli, nextFrames, openApp, runTest, settlePointer, shotDir, withBrowser } from './harness.mjs';

const shot = (page, name) => page.screenshot({ path: path.join(shotDir, `inspector-${name}.png`) });
const result = (page) => page.evaluate(() => window.autopar.result());
const click = async (page, place) => {
  const r = await result(page);
  const p = r.ui.places[place];
  if (!check(`the ${place} button is on the page`, !!p)) return;
  await page.mouse.click(p.x + p.w / 2, p.y + p.h / 2);
  await settlePointer(page);
};

// The checks every shown proposal must pass: the formula, and accepted iff not worse or u < p.
function checkRecord(rec, beta, label) {
  if (!check(`${label}: a proposal is shown`, !!rec)) return;
  const cost0 = beta / rec.rate;
  const expected = Math.min(1, Math.exp(-beta * rec.delta_cost / cost0));
  check(`${label}: p = min(1, exp(-beta x delta / cost(S0)))`, Math.abs(rec.probability - expected) <= 1e-9 * Math.max(1, expected),
        `p ${rec.probability}, formula ${expected}, delta ${rec.delta_cost}`);
  const taken = rec.delta_cost <= 0 ? rec.draw === null : rec.draw !== null && rec.draw < rec.probability;
  check(`${label}: accepted agrees with the draw`, rec.accepted === taken, JSON.stringify(rec));
  check(`${label}: the move names an op and its old -> new configuration`, rec.move !== 'config' || (rec.op && rec.text.includes(' -> ')), rec.text);
}

await runTest('inspector', () => withBrowser(async (browser, base) => {
  const app = await openApp(browser, base);
  if (!app) return;
  const { page, consoleErrors } = app;
  // A small search in the worker, from data parallel, with a beta that rejects some worse moves.
  await page.evaluate(() => window.autopar.setState({ model: 'dlrm', cluster: 'lecture:2x4', panel: 'search', beta: 50, seed: 4,
                                                       search: { steps: 400, init: 'dp' } }));
  await nextFrames(page);
  let r = await result(page);
  check('before a search the inspector has no records', r.search.inspector.records === 0);
  await page.evaluate(() => window.autopar.setState({ search: { running: true } }));
  await page.waitForFunction(() => window.autopar.result().search.finished === true, null, { timeout: 60_000 });
  for (let k = 0; k < 20 && (await result(page)).search.inspector.records < 1; ++k) await nextFrames(page);
  r = await result(page);
  check('the worker sent the search\'s step records', r.search.inspector.records > 0 && r.search.inspector.records <= r.search.step,
        `${r.search.inspector.records} records, ${r.search.step} proposals`);
  check('nothing is shown before Play or Step', r.search.inspector.shown === 0);
  await shot(page, 'search-before');

  // Step: one proposal at a time, and the first is proposal 1 from the initial strategy.
  await click(page, 'inspector_step');
  r = await result(page);
  check('Step shows the first proposal', r.search.inspector.shown === 1 && r.search.inspector.current?.step === 1,
        JSON.stringify(r.search.inspector.current));
  check('the first proposal starts from the initial cost', Math.abs(r.search.inspector.current.current_cost - r.search.init_ms) < 1e-9);
  checkRecord(r.search.inspector.current, 50, 'proposal 1');
  await click(page, 'inspector_step');
  await click(page, 'inspector_step');
  r = await result(page);
  check('three Steps show three proposals', r.search.inspector.shown === 3 && !r.search.inspector.playing);

  // Play at the fastest speed, then Pause: the replay moves by itself and stops.
  const speed = r.ui.places.inspector_speed;
  // The speed slider's right end: the fastest speed offered, 50 proposals/s.
  await page.mouse.click(speed.x + speed.w - 3, speed.y + speed.h / 2);
  await settlePointer(page);
  r = await result(page);
  check('the speed control sets 50 proposals/s', r.search.inspector.speed === 50, `speed ${r.search.inspector.speed}`);
  await click(page, 'inspector_play');
  await page.waitForTimeout(1500);
  r = await result(page);
  const playedTo = r.search.inspector.shown;
  check('Play replays the chain by itself', r.search.inspector.playing && playedTo > 10, `shown ${playedTo}`);
  await click(page, 'inspector_play');   // Pause
  r = await result(page);
  const pausedAt = r.search.inspector.shown;
  await page.waitForTimeout(600);
  r = await result(page);
  check('Pause stops the replay', !r.search.inspector.playing && r.search.inspector.shown === pausedAt, `${pausedAt} then ${r.search.inspector.shown}`);
  checkRecord(r.search.inspector.current, 50, `proposal ${r.search.inspector.current?.step}`);
  for (const [k, rec] of (r.search.inspector.recent || []).entries()) checkRecord(rec, 50, `recent ${k}`);
  const worse = [r.search.inspector.current, ...r.search.inspector.recent].filter((x) => x && x.delta_cost > 0);
  check('the proposals shown include worse ones with p < 1', worse.some((x) => x.probability < 1));
  await shot(page, 'search-tab');
  // Step on to a worse proposal, whose probability and draw the inspector writes out.
  for (let k = 0; k < 60 && !((await result(page)).search.inspector.current?.draw > 0); ++k) await click(page, 'inspector_step');
  r = await result(page);
  if (check('Step reaches a worse proposal with a random draw', r.search.inspector.current?.draw !== null, JSON.stringify(r.search.inspector.current))) {
    checkRecord(r.search.inspector.current, 50, `proposal ${r.search.inspector.current.step}`);
    await shot(page, 'search-worse');
  }

  // A new search starts the replay again.
  await page.evaluate(() => window.autopar.setState({ seed: 5 }));
  await page.evaluate(() => window.autopar.setState({ search: { running: true } }));
  await page.waitForFunction(() => window.autopar.result().search.finished === true, null, { timeout: 60_000 });
  await nextFrames(page);
  r = await result(page);
  check('a new search starts the replay from its beginning', r.search.inspector.shown === 0, `shown ${r.search.inspector.shown}`);

  // The expert strategy says which recipe it applied: Megatron's on a transformer.
  await page.evaluate(() => window.autopar.setState({ model: 'transformer:layers=2', cluster: 'lecture:2x4', strategy: 'expert', panel: 'strategy' }));
  await nextFrames(page);
  r = await result(page);
  check('result().expert_recipe is transformer on a transformer', r.expert_recipe === 'transformer', r.expert_recipe);
  const native = cli(['simulate', '--model', 'transformer:layers=2', '--cluster', 'lecture:2x4', '--strategy', 'expert']);
  if (native) {
    check('the CLI names the same recipe', native.expert_recipe?.name === 'transformer', JSON.stringify(native.expert_recipe));
    check('the page simulates the expert strategy as the CLI does', Math.abs(r.makespan_ms - native.makespan_ms) <= 1e-9 * native.makespan_ms,
          `${r.makespan_ms} vs ${native.makespan_ms}`);
  }
  await shot(page, 'expert-transformer');
  await page.evaluate(() => window.autopar.setState({ model: 'alexnet' }));
  await nextFrames(page);
  check('result().expert_recipe is cnn on AlexNet', (await result(page)).expert_recipe === 'cnn');

  // Compare: where Alpa's pipelined plan wins, the page says why FlexFlow's space cannot reach it.
  await page.evaluate(() => window.autopar.setState({ model: 'transformer:layers=4', cluster: 'lecture:2x4', mesh: '2x4', microbatches: 8,
                                                       seed: 1, panel: 'compare' }));
  const cmp = await page.evaluate(() => window.autopar.compare());
  const ref = cli(['compare', '--model', 'transformer:layers=4', '--cluster', 'lecture:2x4', '--seed', '1', '--microbatches', '8']);
  const alpaWins = cmp.compare && cmp.compare.alpa_ms < cmp.compare.flexflow_ms && cmp.compare.report.alpa.stages.length > 1;
  check('Alpa\'s pipelined plan beats FlexFlow\'s here (as on the CLI)', alpaWins && (!ref || ref.alpa.makespan_ms < ref.flexflow.makespan_ms),
        `page ${cmp.compare?.flexflow_ms} vs ${cmp.compare?.alpa_ms}`);
  await nextFrames(page);
  r = await result(page);
  check('Compare says why: SOAP has no micro-batch pipeline', typeof r.compare.why_flexflow_slower === 'string' &&
        r.compare.why_flexflow_slower.includes('no micro-batch pipeline'), r.compare.why_flexflow_slower);
  await page.mouse.move(10, 850);
  await settlePointer(page);
  await shot(page, 'compare-why');
  await page.evaluate(() => window.autopar.setState({ lang: 'zh' }));
  await nextFrames(page);
  r = await result(page);
  // (The page spaces CJK characters with U+3000 so that ImGui can wrap between them.)
  check('and says it in Chinese', typeof r.compare.why_flexflow_slower === 'string' && r.compare.why_flexflow_slower.replace(/[\s\u3000]/g, '').includes('没有micro-batch流水线'),
        r.compare.why_flexflow_slower);
  await page.waitForTimeout(1500);   // the CJK font arrives
  await nextFrames(page);
  await shot(page, 'compare-why-zh');
  await page.evaluate(() => window.autopar.setState({ lang: 'en' }));
  check('no console errors', consoleErrors.length === 0, consoleErrors.join(' | '));
}));
