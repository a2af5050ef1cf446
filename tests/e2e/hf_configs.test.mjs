// Browser test of the shipped Hugging Face configs (issue #32): every examples/models/hf/*.json
// imports into the page through window.autopar.importModel, as a reader's file would, and the page
// builds the same model as `autopar ops --model FILE --json`: the same op count, parameter count
// (the published figure, held by tests/unit/hf_families_test.cpp) and forward FLOPs; no notice of
// an error and no console errors. Screenshots of two families on the Model panel go to
// build-wasm/screenshots/hf-*.png.
// Run: node tests/e2e/hf_configs.test.mjs   (exit status 0 when every check passes)
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { root, shotDir, cli, check, nextFrames, runTest, withBrowser, openApp } from './harness.mjs';

const HF_DIR = path.join(root, 'examples', 'models', 'hf');
const SHOTS = new Set(['mixtral-8x7b.json', 'gemma-2b.json']);

async function hfChecks(page, consoleErrors) {
  // A small cluster: the page simulates and plans each model as it loads, and what is checked
  // here is the model, not its plan.
  const small = await page.evaluate(() => window.autopar.setState({ cluster: 'lecture:1x2', mesh: '1x2', panel: 'model' }));
  check('the page takes a small cluster first', small.ok === true, JSON.stringify(small));
  const files = readdirSync(HF_DIR).filter((f) => f.endsWith('.json')).sort();
  check('the shipped configs are found', files.length >= 19, `${files.length} files in ${HF_DIR}`);
  for (const file of files) {
    const text = readFileSync(path.join(HF_DIR, file), 'utf8');
    const want = cli(['ops', '--model', path.join(HF_DIR, file)]);
    const r = await page.evaluate(([t, n]) => window.autopar.importModel(t, n), [text, file]);
    const got = await page.evaluate(() => window.autopar.result());
    const same = want && r.ok === true && got.model === file && got.ops === want.ops.length &&
                 got.total_param_elements === want.total_param_elements && got.total_forward_flops === want.total_forward_flops;
    check(`${file} loads in the page as \`autopar ops\` builds it`, same,
          `import ${JSON.stringify(r)}; page ops ${got.ops}, params ${got.total_param_elements}, flops ${got.total_forward_flops}; ` +
          `CLI ops ${want?.ops?.length}, params ${want?.total_param_elements}, flops ${want?.total_forward_flops}`);
    check(`${file} raises no error notice`, got.notice?.level !== 'error', got.notice?.text);
    if (SHOTS.has(file)) {
      await nextFrames(page);
      await page.screenshot({ path: path.join(shotDir, `hf-${file.replace('.json', '')}.png`) });
    }
  }
  check('no console errors while importing every config', consoleErrors.length === 0, consoleErrors.slice(0, 3).join(' | '));
}

runTest('hf_configs', () => withBrowser(async (browser, base) => {
  const app = await openApp(browser, base + 'index.html');
  if (!app) return;
  await hfChecks(app.page, app.consoleErrors);
}));
