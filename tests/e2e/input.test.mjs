// Browser test: every click, tap and key lands, and the state survives what a reader does to it.
// - Instant clicks (press and release with no frame between) on every tab, one after another and
//   in a burst, each switch the tab (index.html queues pointer input: a frame per press and release).
// - On a touch screen (a context with hasTouch): a tap on each tab shows that tab, not the one
//   tapped before; a swipe over a panel scrolls it.
// - setState applies model and cluster before strategy whatever the key order.
// - A reload right after a change keeps it; the first visit (no link, no saved state) shows the
//   welcome, a later one does not.
// Run: node tests/e2e/input.test.mjs   (exit 0 when every check passes)
import path from 'node:path';
import { shotDir, cli, check, nextFrames, runTest, withBrowser, openApp } from './harness.mjs';

const PANELS = ['model', 'strategy', 'search', 'accuracy', 'lecture', 'exercises', 'compare', 'intra', 'inter', 'schedules'];

// Waits until getState().panel is `want` (a few frames at most); returns the last panel seen.
async function panelBecomes(page, want, ms = 3000) {
  const t0 = Date.now();
  let p = null;
  while (Date.now() - t0 < ms) {
    p = await page.evaluate(() => window.autopar.getState().panel);
    if (p === want) return p;
    await page.waitForTimeout(30);
  }
  return p;
}

const tabCenter = (tabs, i) => ({ x: tabs[i].x + tabs[i].w / 2, y: tabs[i].y + tabs[i].h / 2 });

await runTest('input.test', async () => {
  await withBrowser(async (browser, base) => {
    // --- First visit: the welcome; instant clicks on tabs.
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const app = await openApp(ctx, base + 'index.html', { viewport: { width: 1280, height: 720 } });
    if (!app) return;
    const { page, consoleErrors } = app;
    await nextFrames(page);
    let r = await page.evaluate(() => window.autopar.result());
    check('a first visit opens the welcome', r.ui?.welcome === true, JSON.stringify(r.ui?.welcome));
    await page.screenshot({ path: path.join(shotDir, 'welcome-1280x720.png') });
    await page.setViewportSize({ width: 1024, height: 640 });
    await nextFrames(page);
    await nextFrames(page);
    await page.screenshot({ path: path.join(shotDir, 'welcome-1024x640.png') });
    await page.setViewportSize({ width: 1280, height: 720 });
    await nextFrames(page);
    await nextFrames(page);
    r = await page.evaluate(() => window.autopar.result());
    const tabs = r.ui.tabs;
    check('result().ui.tabs gives the ten tabs', tabs.length === 10 && tabs.every((t) => t.w > 10), JSON.stringify(tabs));

    // One instant click per tab, in an order that always changes tab.
    const order = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 4, 2, 7];
    const lost = [];
    for (const i of order) {
      const c = tabCenter(tabs, i);
      await page.mouse.click(c.x, c.y);   // move, press, release: no frame in between
      const got = await panelBecomes(page, PANELS[i]);
      if (got !== PANELS[i]) lost.push(`${PANELS[i]} (got ${got})`);
    }
    check(`${order.length} instant clicks on tabs each switch the tab`, lost.length === 0, lost.join(', '));
    r = await page.evaluate(() => window.autopar.result());
    check('the first change closed the welcome', r.ui?.welcome === false);

    // A burst: three instant clicks with no wait at all; the queue gives each its frames.
    for (const i of [1, 5, 3]) {
      const c = tabCenter(tabs, i);
      await page.mouse.click(c.x, c.y);
    }
    check('a burst of three instant clicks ends on the last tab', (await panelBecomes(page, PANELS[3])) === PANELS[3]);

    // --- setState: strategy before model in the object.
    await page.evaluate(() => window.autopar.setState({ model: 'alexnet', cluster: 'lecture:2x4', strategy: 'dp' }));
    const dlrmSearch = cli(['search', '--model', 'dlrm', '--cluster', 'lecture:2x4', '--steps', '200', '--seed', '3']);
    if (dlrmSearch) {
      for (const [label, obj] of [['strategy first', { strategy: dlrmSearch.strategy, model: 'dlrm' }],
                                  ['model first', { model: 'dlrm', strategy: dlrmSearch.strategy }]]) {
        await page.evaluate(() => window.autopar.setState({ model: 'alexnet', strategy: 'dp' }));
        const res = await page.evaluate((o) => window.autopar.setState(o), obj);
        r = await page.evaluate(() => window.autopar.result());
        const sim = cli(['simulate', '--model', 'dlrm', '--cluster', 'lecture:2x4', '--strategy', 'dp']);
        check(`setState({${label}}) from AlexNet applies a DLRM strategy object`,
              res.ok === true && r.model === 'dlrm' && Math.abs(r.makespan_ms - dlrmSearch.best_ms) <= 1e-9 * r.makespan_ms,
              `${JSON.stringify(res.error)} model ${r.model} makespan ${r.makespan_ms} vs ${dlrmSearch.best_ms} (dp ${sim?.makespan_ms})`);
      }
    }

    // --- A reload right after a change keeps it.
    await page.evaluate(() => window.autopar.setState({ model: 'mlp:layers=5', beta: 123, panel: 'search' }));
    await page.reload();
    await page.waitForFunction(() => window.autopar && window.autopar.ready === true, null, { timeout: 60_000 });
    let s = await page.evaluate(() => window.autopar.getState());
    check('a reload right after setState keeps the change', s.model === 'mlp:layers=5' && s.beta === 123 && s.panel === 'search', JSON.stringify(s).slice(0, 200));
    r = await page.evaluate(() => window.autopar.result());
    check('a later visit (saved state) shows no welcome', r.ui?.welcome === false);
    // The same without the link: localStorage alone.
    await page.evaluate(() => window.autopar.setState({ model: 'mlp:layers=3' }));
    await page.goto(base + 'index.html');
    await page.waitForFunction(() => window.autopar && window.autopar.ready === true, null, { timeout: 60_000 });
    s = await page.evaluate(() => window.autopar.getState());
    check('a visit without the link right after a change restores it from localStorage', s.model === 'mlp:layers=3', s.model);
    check('no console errors (mouse)', consoleErrors.length === 0, consoleErrors.join(' | '));
    await ctx.close();

    // --- Touch: taps on tabs and a swipe.
    const tctx = await browser.newContext({ viewport: { width: 1024, height: 640 }, hasTouch: true });
    const tapp = await openApp(tctx, base + 'index.html#v=1&model=transformer:layers=24&panel=model', { viewport: { width: 1024, height: 640 }, hasTouch: true });
    if (!tapp) return;
    const tpage = tapp.page;
    await nextFrames(tpage);
    r = await tpage.evaluate(() => window.autopar.result());
    const ttabs = r.ui.tabs;
    const wrongTaps = [];
    for (const i of [1, 2, 4, 5, 0, 7, 3]) {
      const c = tabCenter(ttabs, i);
      await tpage.touchscreen.tap(c.x, c.y);
      const got = await panelBecomes(tpage, PANELS[i]);
      if (got !== PANELS[i]) wrongTaps.push(`${PANELS[i]} (got ${got})`);
    }
    check('each tap on a tab shows that tab (not the one tapped before)', wrongTaps.length === 0, wrongTaps.join(', '));

    // A swipe up over the Model tab's op table (transformer:layers=24 has a long one) scrolls it.
    await tpage.evaluate(() => window.autopar.setState({ panel: 'model' }));
    await nextFrames(tpage);
    await nextFrames(tpage);
    const before = (await tpage.evaluate(() => window.autopar.result())).ui.scroll_y_sum;
    const cdp = await tctx.newCDPSession(tpage);
    const x = 300, y0 = 520, y1 = 260;
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y: y0 }] });
    for (let k = 1; k <= 8; ++k) {
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x, y: y0 + ((y1 - y0) * k) / 8 }] });
      await nextFrames(tpage);
    }
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await nextFrames(tpage);
    await nextFrames(tpage);
    const after = (await tpage.evaluate(() => window.autopar.result())).ui.scroll_y_sum;
    check('a swipe up over a panel scrolls it', after > before + 50, `scroll ${before} -> ${after}`);
    check('a swipe is not a tap (the tab stays)', (await tpage.evaluate(() => window.autopar.getState().panel)) === 'model');
    await tpage.screenshot({ path: path.join(shotDir, 'touch-after-swipe.png') });
    check('no console errors (touch)', tapp.consoleErrors.length === 0, tapp.consoleErrors.join(' | '));
    await tctx.close();
  });
});
