// Browser test of the glyphs names are drawn with: the English page never fetches the CJK font;
// a model whose op is named in Chinese makes the page fetch it (build-wasm/web/cjk-font.ttf) and
// draw glyphs, so its screenshot differs from the same model with the op named "????" (what
// missing glyphs would draw); a Cyrillic name draws from the UI font. Prints both download sizes.
import { statSync } from 'node:fs';
import path from 'node:path';
import { root, shotDir, check, nextFrames, runTest, withBrowser, openApp } from './harness.mjs';

// A one-op model named `opName`, as a model file.
function model(opName) {
  return JSON.stringify({
    format: 'autopar-model', version: 1, name: 'names', dtype: 'f32',
    inputs: [{ name: 'x', shape: [64, 256], dtype: 'f32' }],
    ops: [{ name: opName, kind: 'linear', inputs: ['x'], output: 'h', attrs: { out_features: 256 } }],
  });
}

// Imports the model under one file name (the same size on disk but for the op name), shows the
// Model tab and returns a screenshot of the op table's first Name cell only, so that nothing but
// the op name's glyphs can make two of them differ.
async function shot(page, opName, file) {
  const r = await page.evaluate(([text]) => window.autopar.importModel(text, 'names.json'), [model(opName)]);
  check(`a model with an op named ${opName} imports`, r.ok === true, JSON.stringify(r));
  await page.evaluate(() => window.autopar.setState({ panel: 'model' }));
  await nextFrames(page);
  await nextFrames(page);
  await page.screenshot({ path: path.join(shotDir, file) });
  return page.screenshot({ clip: { x: 12, y: 298, width: 60, height: 20 } });
}

await runTest('fonts.test', async () => {
  await withBrowser(async (browser, base) => {
    const ctx = await browser.newContext({ viewport: { width: 1400, height: 860 } });
    const app = await openApp(ctx, base + 'index.html#v=1&model=alexnet&panel=model');
    if (!app) return;
    const { page, consoleErrors } = app;
    const fontRequests = [];
    page.on('request', (q) => { if (q.url().includes('cjk-font')) fontRequests.push(q.url()); });
    await nextFrames(page);
    let r = await page.evaluate(() => window.autopar.result());
    check('the English page does not need the CJK font', r.cjk_font === 'not_needed', r.cjk_font);
    const glyphsBefore = r.font_glyphs;

    const question = await shot(page, '????', 'names-question-marks.png');
    check('a model named with ASCII only fetches no font', fontRequests.length === 0, fontRequests.join(', '));
    const cyrillic = await shot(page, 'слой', 'names-cyrillic.png');
    check('a Cyrillic op name draws glyphs from the UI font (its screenshot differs from "????")', !cyrillic.equals(question));
    check('Cyrillic needs no CJK font', (await page.evaluate(() => window.autopar.result())).cjk_font === 'not_needed');

    await page.evaluate(([text]) => window.autopar.importModel(text, 'names.json'), [model('全连接层')]);
    await page.waitForFunction(() => ['loaded', 'failed'].includes(window.autopar.result().cjk_font), null, { timeout: 30_000 }).catch(() => {});
    r = await page.evaluate(() => window.autopar.result());
    check('the CJK glyphs join the atlas', r.font_glyphs > 3000 + glyphsBefore, `${glyphsBefore} -> ${r.font_glyphs}`);
    check('a Chinese op name makes the page fetch the CJK font once', r.cjk_font === 'loaded' && fontRequests.length === 1,
          `${r.cjk_font}, requests: ${fontRequests.join(', ')}`);
    const chinese = await shot(page, '全连接层', 'names-chinese.png');
    check('the Chinese op name draws glyphs (its screenshot differs from "????")', !chinese.equals(question));
    const other = await shot(page, '卷积层', 'names-chinese-2.png');
    check('another Chinese name draws differently (glyphs, not one fallback box)', !other.equals(chinese));
    check('the font is fetched only once', fontRequests.length === 1, fontRequests.join(', '));
    check('no console errors', consoleErrors.length === 0, consoleErrors.join(' | '));

    const size = (f) => statSync(path.join(root, 'build-wasm', 'web', f)).size;
    const english = size('autopar-web.wasm') + size('autopar-web.js');
    const cjk = size('cjk-font.ttf');
    console.log(`download: English page ${(english / 1048576).toFixed(2)} MiB (autopar-web.wasm + .js); ` +
                `the CJK font adds ${(cjk / 1048576).toFixed(2)} MiB only when needed (${((english + cjk) / 1048576).toFixed(2)} MiB in all)`);
  });
});
