import { withBrowser, openApp, nextFrames, runTest, check } from './harness.mjs';
const mk = (n) => JSON.stringify({format:'autopar-model',version:1,name:'names',dtype:'f32',inputs:[{name:'x',shape:[64,256],dtype:'f32'}],ops:[{name:n,kind:'linear',inputs:['x'],output:'h',attrs:{out_features:256}}]});
await runTest('dbg', async () => { await withBrowser(async (browser, base) => {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 860 } }); const app = await openApp(ctx, base + 'index.html#v=1&model=alexnet&panel=model');
  const page = app.page; page.on('console', m => console.log('console:', m.text()));
  for (const n of ['????', 'слой']) { await page.evaluate(([t]) => window.autopar.importModel(t, 'names.json'), [mk(n)]); await nextFrames(page); }
  await page.evaluate(([t]) => window.autopar.importModel(t, 'names.json'), [mk('全连接层')]);
  await page.waitForFunction(() => window.autopar.result().cjk_font === 'loaded');
  let r = await page.evaluate(() => window.autopar.result()); console.log(r.cjk_font, r.font_glyphs);
  await nextFrames(page); await page.screenshot({ path: '/tmp/dbg1.png' });
  await page.waitForTimeout(1000); await page.mouse.move(300, 400); await nextFrames(page); await nextFrames(page);
  await page.screenshot({ path: '/tmp/dbg2.png' });
}); });
