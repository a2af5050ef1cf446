// Browser test of input that never surprises (issue 40, problem 9 and the "Also" paragraph):
// - digits and Space typed after a click next to a field (a near miss) switch no tab and start no
//   search; the notice says why; once the pointer moves away the shortcuts work again;
// - keys typed right after clicking a field (no frame in between) land in that field, not in the
//   field focused before the click;
// - the beta slider's typed values outside setState's bound (0 .. 1e9) are clamped to it, and
//   the notice says so; setState refuses the same values; a GPUs-per-node value past the core's
//   bound is clamped with a notice naming the cluster that results;
// - an imported Hugging Face config takes overrides in the Spec field
//   (examples/models/hf/llama-3-8b.json:batch=16), as the CLI does, with the CLI's numbers;
// - a strategy that does not fit says so at the top of the Strategy panel.
// Keys go through Chromium's real keyboard events. Screenshots: build-wasm/screenshots/typing-*.png.
// Run: node tests/e2e/typing.test.mjs   (exit status 0 when every check passes)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { root, shotDir, cli, check, nextFrames, settlePointer, runTest, withBrowser, openApp } from './harness.mjs';

const getState = (page) => page.evaluate(() => window.autopar.getState());
const result = (page) => page.evaluate(() => window.autopar.result());
const shot = (page, name) => page.screenshot({ path: path.join(shotDir, `typing-${name}.png`) });
const place = async (page, name) => (await result(page)).ui.places[name];

// Waits until the app has taken every queued key and pointer step, then for its frames.
async function settle(page) {
  await settlePointer(page);
  await nextFrames(page);
  await nextFrames(page);
}

// Types `text` as quick key presses (each pressed and released at once, as a person types).
async function typeKeys(page, text) {
  await page.keyboard.type(text);
  await settle(page);
}

async function nearMissChecks(page) {
  await page.evaluate(() => window.autopar.setState({ panel: 'model', search: { steps: 100000000 } }));
  await settle(page);
  const spec = await place(page, 'spec');
  check('the Model panel reports where its Spec field is', !!spec && spec.w > 20, JSON.stringify(spec));
  // A click just left of the field, on its label: no widget is hit.
  await page.mouse.click(spec.x - 12, spec.y + spec.h / 2);
  await settle(page);
  await typeKeys(page, '256 ');
  let s = await getState(page);
  let r = await result(page);
  check('digits typed after clicking next to a field switch no tab', s.panel === 'model', `panel ${s.panel}`);
  check('a space typed then starts no search', s.search.running === false, `running ${s.search.running}`);
  check('the keys are held back as typing, and the notice says so', r.ui.keys_held_back === true && /256/.test(r.notice.text),
        `${r.ui.keys_held_back} "${r.notice.text}"`);
  await shot(page, 'near-miss');
  // The pointer moves away and two seconds pass: the shortcuts work again.
  await page.mouse.move(700, 500, { steps: 4 });
  await settle(page);
  await page.waitForTimeout(2000);
  await typeKeys(page, '3');
  s = await getState(page);
  check('after the pointer moved away, 3 shows the Search tab again', s.panel === 'search', `panel ${s.panel}`);
  await typeKeys(page, '1');
  check('and 1 the Model tab', (await getState(page)).panel === 'model');
}

async function clickThenTypeChecks(page) {
  // Focus the cluster's nodes field first, then click the Spec field and type at once: no frame
  // passes between the click and the keys.
  await page.evaluate(() => window.autopar.setState({ model: 'alexnet', cluster: 'lecture:2x4', mesh: '2x4', panel: 'model' }));
  await settle(page);
  const nodes = await place(page, 'nodes');
  const spec = await place(page, 'spec');
  await page.mouse.click(nodes.x + nodes.w / 3, nodes.y + nodes.h / 2);
  await settle(page);
  await page.mouse.click(spec.x + spec.w / 2, spec.y + spec.h / 2);
  await page.keyboard.press('Control+a');
  await page.keyboard.type('mlp:layers=3');
  await page.keyboard.press('Enter');
  await settle(page);
  await page.waitForTimeout(200);
  await settle(page);
  const s = await getState(page);
  check('keys typed at once after clicking the Spec field land there (the model changes)', s.model === 'mlp:layers=3', `model ${s.model}`);
  check('and not in the field focused before the click (the cluster is unchanged)', s.cluster === 'lecture:2x4', `cluster ${s.cluster}`);
  await page.mouse.click(700, 600);   // leave the fields
  await settle(page);
}

// Ctrl+click on a slider types a value into it (Dear ImGui); `text` is typed and Enter pressed.
async function typeIntoSlider(page, rect, text) {
  await page.keyboard.down('Control');
  await page.mouse.click(rect.x + rect.w / 2, rect.y + rect.h / 2);
  await settle(page);
  await page.keyboard.up('Control');
  await settle(page);
  await page.keyboard.press('Control+a');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
  await settle(page);
}

async function clampChecks(page) {
  await page.evaluate(() => window.autopar.setState({ panel: 'search', beta: 500 }));
  await settle(page);
  const beta = await place(page, 'beta');
  check('the Search panel reports where its beta slider is', !!beta && beta.w > 20, JSON.stringify(beta));
  await typeIntoSlider(page, beta, '-5');
  let s = await getState(page);
  let r = await result(page);
  check('beta -5 typed into the slider is clamped to 0, setState\'s lower bound', s.beta === 0, `beta ${s.beta}`);
  check('and the notice says so with the bound', /beta -5 is outside 0 \.\. 1,000,000,000/.test(r.notice.text), r.notice.text);
  await shot(page, 'beta-clamped');
  await typeIntoSlider(page, beta, '1e10');
  s = await getState(page);
  r = await result(page);
  check('beta 1e10 is clamped to 1e9, setState\'s upper bound (not 100,000)', s.beta === 1e9, `beta ${s.beta}`);
  check('and the notice says so', /used 1,000,000,000/.test(r.notice.text), r.notice.text);
  await typeIntoSlider(page, beta, '250000');
  s = await getState(page);
  check('beta 250,000 (inside the bound, past the old slider\'s 100,000) is kept', s.beta === 250000, `beta ${s.beta}`);
  const at = await page.evaluate(() => [window.autopar.setState({ beta: 1e9 }), window.autopar.setState({ beta: 1e9 + 1 }), window.autopar.setState({ beta: -5 })]);
  check('setState takes the same bound: 1e9 yes, 1e9+1 and -5 no', at[0].ok === true && at[1].ok === false && at[2].ok === false,
        JSON.stringify(at));

  // GPUs per node past the core's 72 (GB200 NVL72, the largest NVLink domain a preset has): clamped, and the notice names the cluster that results.
  await page.evaluate(() => window.autopar.setState({ panel: 'model', cluster: 'lecture:2x4', mesh: '2x4', beta: 500 }));
  await settle(page);
  const gpus = await place(page, 'gpus');
  await page.mouse.click(gpus.x + gpus.w / 4, gpus.y + gpus.h / 2);
  await settle(page);
  await page.keyboard.press('Control+a');
  await page.keyboard.type('1000');
  await page.keyboard.press('Enter');
  await settle(page);
  await page.waitForTimeout(300);
  await settle(page);
  s = await getState(page);
  r = await result(page);
  check('1,000 GPUs per node is clamped to 72: lecture:2x72', s.cluster === 'lecture:2x72', s.cluster);
  check('the notice names the bound and the cluster that results', /GPUs per node 1,000 is outside 1 \.\. 72/.test(r.notice.text) &&
        /2 x 72 = 144 GPUs/.test(r.notice.text), r.notice.text);
  await shot(page, 'gpus-clamped');
  await page.mouse.click(700, 600);
  await settle(page);
}

async function importedSpecChecks(page) {
  const rel = 'examples/models/hf/llama-3-8b.json';
  await page.evaluate(() => window.autopar.setState({ panel: 'model', cluster: 'lecture:1x2', mesh: '1x2', model: 'alexnet' }));
  const text = readFileSync(path.join(root, rel), 'utf8');
  const imported = await page.evaluate(([t]) => window.autopar.importModel(t, 'llama-3-8b.json'), [text]);
  check('llama-3-8b.json imports', imported.ok === true, JSON.stringify(imported));
  // The import's notice and model lines move the panel's fields: read the Spec field's place
  // only once the page has drawn them (a loaded run once clicked where the field had been).
  await settle(page);
  await page.waitForTimeout(300);
  await settle(page);
  const spec = await place(page, 'spec');
  await page.mouse.click(spec.x + spec.w / 2, spec.y + spec.h / 2);
  await settle(page);
  await page.keyboard.press('Control+a');
  await page.keyboard.type(`${rel}:batch=16`);
  await page.keyboard.press('Enter');
  await settle(page);
  await page.waitForTimeout(300);
  await settle(page);
  const s = await getState(page);
  const r = await result(page);
  const want = cli(['ops', '--model', path.join(root, rel) + ':batch=16']);
  check(`the Spec field takes ${rel}:batch=16 for the imported file`, s.model === 'llama-3-8b.json:batch=16' && !!s.model_json &&
        r.notice.level !== 'error', `model ${s.model}, notice ${r.notice.level}: ${r.notice.text}`);
  check('the page builds what `autopar ops --model FILE.json:batch=16` builds', want && r.ops === want.ops.length &&
        r.total_param_elements === want.total_param_elements && r.total_forward_flops === want.total_forward_flops,
        `page ${r.ops} ops ${r.total_forward_flops} FLOPs; CLI ${want?.ops?.length} ops ${want?.total_forward_flops} FLOPs`);
  await shot(page, 'imported-batch16');
  // A link keeps the resized import.
  const link = await page.evaluate(() => window.autopar.shareLink());
  check('the share link carries the overrides', decodeURIComponent(link).includes('llama-3-8b.json:batch=16'), link.slice(0, 120));
  // Another file by name is refused with a message naming the imported one.
  await page.mouse.click(spec.x + spec.w / 2, spec.y + spec.h / 2);
  await settle(page);
  await page.keyboard.press('Control+a');
  await page.keyboard.type('mistral-7b.json:batch=2');
  await page.keyboard.press('Enter');
  // As after the first import: the refusal is a notice of the next frames (a loaded machine
  // once read the notice before them).
  await settle(page);
  await page.waitForTimeout(300);
  await settle(page);
  const bad = await result(page);
  check('another file by name is refused, naming the imported file and how to resize it',
        bad.notice.level === 'error' && /llama-3-8b\.json:batch=16/.test(bad.notice.text) && (await getState(page)).model === 'llama-3-8b.json:batch=16',
        bad.notice.text);
  await page.mouse.click(700, 600);
  await settle(page);
}

async function doesNotFitChecks(page) {
  // Llama-3-8B in FP32 Adam on two 16 GiB GPUs cannot fit: the panel's first line says so.
  await page.evaluate(() => window.autopar.setState({ panel: 'strategy', strategy: 'dp' }));
  await settle(page);
  await page.waitForTimeout(300);
  await settle(page);
  const r = await result(page);
  const banner = r.ui.places.does_not_fit;
  check('a plan that does not fit says so at the top of the Strategy panel', !!banner && banner.y < 140,
        JSON.stringify(banner));
  await shot(page, 'does-not-fit');
}

await runTest('typing.test.mjs', () => withBrowser(async (browser, base) => {
  const app = await openApp(browser, base + 'index.html');
  if (!app) return;
  const { page } = app;
  await nextFrames(page);
  await nearMissChecks(page);
  await clickThenTypeChecks(page);
  await clampChecks(page);
  await importedSpecChecks(page);
  await doesNotFitChecks(page);
  check('no console errors or page errors', app.consoleErrors.length === 0, app.consoleErrors.join(' | '));
}));
