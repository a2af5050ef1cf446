// Browser test of the page's language (English / 中文): the menu bar's switch changes
// getState().lang at once and loses nothing (the running search goes on, every other field stays);
// the CJK font is fetched when Chinese is chosen, and the page stays usable until it arrives; the
// share link, a reload and localStorage keep the language; a first visit from a Chinese browser
// opens in Chinese. The Lecture, Exercises and Alpa tabs are screenshotted in both languages: the
// Chinese ones differ from the English ones, and no character of the Chinese string table falls
// back to '?' (result().missing_glyphs). Screenshots: build-wasm/screenshots/lang-*.png.
import path from 'node:path';
import { shotDir, check, nextFrames, runTest, withBrowser, openApp } from './harness.mjs';

const VIEW = { viewport: { width: 1400, height: 860 } };

// Shows a tab set up as a reader would see it and returns its screenshot (also saved).
async function tabShot(page, name, state) {
  const r = await page.evaluate((s) => window.autopar.setState(s), state);
  if (!r.ok) check(`setState for the ${name} screenshot`, false, JSON.stringify(r));
  await nextFrames(page);
  await nextFrames(page);
  await page.waitForTimeout(300);
  await nextFrames(page);
  const lang = await page.evaluate(() => window.autopar.getState().lang);
  return page.screenshot({ path: path.join(shotDir, `lang-${lang}-${name}.png`) });
}

const TABS = [
  ['lecture', { scenario: 'megatron', panel: 'lecture' }],
  ['exercises', { panel: 'exercises', exercise: { number: 3, answer: 'conv1', check: true } }],
  ['intra', { model: 'transformer-chain', cluster: 'lecture:1x8', mesh: '1x8', panel: 'intra' }],
  ['inter', { model: 'transformer:layers=8', cluster: 'lecture:2x4', mesh: '2x4', panel: 'inter' }],
];

await runTest('lang.test', async () => {
  await withBrowser(async (browser, base) => {
    // --- An English browser: English, no CJK font; the tabs in English.
    const ctx = await browser.newContext({ ...VIEW, locale: 'en-US' });
    const app = await openApp(ctx, base + 'index.html');
    if (!app) return;
    const { page, consoleErrors } = app;
    const fontRequests = [];
    page.on('request', (q) => { if (q.url().includes('cjk-font')) fontRequests.push(q.url()); });
    let s = await page.evaluate(() => window.autopar.getState());
    let r = await page.evaluate(() => window.autopar.result());
    check('an English browser opens in English', s.lang === 'en', s.lang);
    check('the English page does not fetch the CJK font', r.cjk_font === 'not_needed' && fontRequests.length === 0, r.cjk_font);
    check('every character of the English table has a glyph', r.missing_glyphs === 0, String(r.missing_glyphs));
    const english = {};
    for (const [name, state] of TABS) english[name] = await tabShot(page, name, state);

    // --- The switch in the menu bar, clicked while a search runs; the font is held back for a
    // second to see the page still works before it arrives.
    await page.evaluate(() => window.autopar.setState({ model: 'alexnet', cluster: 'lecture:2x4', mesh: '2x4', panel: 'search',
                                                       search: { running: true, steps: 200000 } }));
    await nextFrames(page);
    let release;
    const held = new Promise((res) => { release = res; });
    await page.route('**/cjk-font.ttf', async (route) => { await held; await route.continue(); });
    const before = await page.evaluate(() => window.autopar.getState());
    const stepBefore = (await page.evaluate(() => window.autopar.result())).search.step;
    r = await page.evaluate(() => window.autopar.result());
    const zh = r.ui.languages && r.ui.languages.zh;
    check('the menu bar shows the language switch', !!zh && zh.w > 0, JSON.stringify(r.ui.languages));
    if (zh) await page.mouse.click(zh.x + zh.w / 2, zh.y + zh.h / 2);
    await page.waitForFunction(() => window.autopar.getState().lang === 'zh', null, { timeout: 10_000 }).catch(() => {});
    s = await page.evaluate(() => window.autopar.getState());
    check('clicking 中文 switches getState().lang to zh', s.lang === 'zh', s.lang);
    const same = JSON.stringify({ ...s, lang: 'en', search: { ...s.search } }) === JSON.stringify({ ...before, search: { ...before.search } });
    check('switching changes nothing but the language', same, JSON.stringify(s).slice(0, 300));
    r = await page.evaluate(() => window.autopar.result());
    check('the CJK font is being fetched for Chinese', r.cjk_font === 'loading', r.cjk_font);
    await page.waitForTimeout(1000);
    const r2 = await page.evaluate(() => window.autopar.result());
    check('the search goes on while the font loads (nothing lost)', r2.search.step > stepBefore && s.search.running,
          `${stepBefore} -> ${r2.search.step}`);
    const usable = await page.evaluate(() => window.autopar.setState({ beta: 400 }));
    await nextFrames(page);
    check('the page stays usable before the font arrives', usable.ok === true &&
          (await page.evaluate(() => window.autopar.getState().beta)) === 400);
    release();
    await page.waitForFunction(() => window.autopar.result().cjk_font === 'loaded', null, { timeout: 30_000 }).catch(() => {});
    r = await page.evaluate(() => window.autopar.result());
    check('the CJK font arrives once', r.cjk_font === 'loaded' && fontRequests.length === 1, `${r.cjk_font}, ${fontRequests.length} requests`);
    check('every character of the Chinese table has a glyph (no "?" fallback)', r.missing_glyphs === 0, String(r.missing_glyphs));
    await page.evaluate(() => window.autopar.setState({ search: { running: false }, beta: 500 }));

    // --- The tabs in Chinese.
    for (const [name, state] of TABS) {
      const shot = await tabShot(page, name, state);
      check(`the ${name} tab in Chinese differs from English`, !shot.equals(english[name]));
    }
    r = await page.evaluate(() => window.autopar.result());
    check('the Lecture tab computes its findings in Chinese', JSON.stringify(r.scenario || {}).includes('网格'),
          JSON.stringify(r.scenario || {}).slice(0, 120));

    // --- The page's own notices (index.html's, by key) read in Chinese too: Copy link.
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base.replace(/\/$/, '') });
    await page.evaluate(() => Module.autoparCopyLink());
    await page.waitForFunction(() => /链接/.test(window.autopar.message()), null, { timeout: 10_000 }).catch(() => {});
    const copyNotice = await page.evaluate(() => window.autopar.message());
    check('the Copy link notice reads in Chinese', /已复制链接（\d+ 个字符）/.test(copyNotice), copyNotice);

    // --- The link, a reload and localStorage keep the language.
    const link = await page.evaluate(() => window.autopar.shareLink());
    check('the share link holds lang=zh', link.includes('lang=zh'), link.slice(-80));
    await page.reload();
    await page.waitForFunction(() => window.autopar && window.autopar.ready === true, null, { timeout: 60_000 });
    s = await page.evaluate(() => window.autopar.getState());
    check('a reload keeps Chinese', s.lang === 'zh', s.lang);
    const bare = await openApp(ctx, base + 'index.html');
    if (bare) {
      s = await bare.page.evaluate(() => window.autopar.getState());
      check('a visit without a link restores Chinese from localStorage', s.lang === 'zh', s.lang);
      await bare.page.close();
    }
    const fresh = await browser.newContext({ ...VIEW, locale: 'en-US' });
    const linked = await openApp(fresh, link);
    if (linked) {
      s = await linked.page.evaluate(() => window.autopar.getState());
      check('the share link opens in Chinese in a fresh English browser', s.lang === 'zh', s.lang);
    }
    await fresh.close();
    check('no console errors', consoleErrors.length === 0, consoleErrors.join(' | '));

    // --- A first visit from a Chinese browser; a link still wins.
    const zhCtx = await browser.newContext({ ...VIEW, locale: 'zh-CN' });
    const first = await openApp(zhCtx, base + 'index.html');
    if (first) {
      s = await first.page.evaluate(() => window.autopar.getState());
      r = await first.page.evaluate(() => window.autopar.result());
      check('a first visit from a zh-CN browser opens in Chinese', s.lang === 'zh', s.lang);
      check('with the welcome, in Chinese', r.ui.welcome === true);
      await first.page.waitForFunction(() => window.autopar.result().cjk_font === 'loaded', null, { timeout: 30_000 }).catch(() => {});
      await nextFrames(first.page);
      await first.page.screenshot({ path: path.join(shotDir, 'lang-zh-welcome.png') });
      await first.page.close();
    }
    const en = await openApp(zhCtx, base + 'index.html#v=1&lang=en&panel=lecture');
    if (en) {
      s = await en.page.evaluate(() => window.autopar.getState());
      check('a link with lang=en opens in English even in a Chinese browser', s.lang === 'en', s.lang);
    }
    await zhCtx.close();
  });
});
