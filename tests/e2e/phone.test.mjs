// Browser test of the page on a phone (issue 40, problem 10): a 390x844 viewport with touch at
// a phone's pixel ratio. On the Search tab the settings, the chart and the best strategy's table
// stack in one column inside the screen's width, and swiping up reaches the table (before, the
// chart and the table sat right of the screen where no swipe went). Screenshots of the Search,
// Model and Strategy tabs go to build-wasm/screenshots/phone-*.png.
// Run: node tests/e2e/phone.test.mjs   (exit status 0 when every check passes)
import path from 'node:path';
import { shotDir, check, nextFrames, settlePointer, runTest, withBrowser, openApp } from './harness.mjs';

const W = 390, H = 844;
const result = (page) => page.evaluate(() => window.autopar.result());
const shot = (page, name) => page.screenshot({ path: path.join(shotDir, `phone-${name}.png`) });

// One swipe up by `dy` CSS pixels at x, starting at y0, as a finger does it (touch events).
async function swipeUp(cdp, page, x, y0, dy) {
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y: y0 }] });
  for (let k = 1; k <= 6; ++k) {
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x, y: y0 - (dy * k) / 6 }] });
    await nextFrames(page);
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await settlePointer(page);
}

await runTest('phone.test.mjs', () => withBrowser(async (browser, base) => {
  const options = { viewport: { width: W, height: H }, hasTouch: true, isMobile: true, deviceScaleFactor: 3 };
  const ctx = await browser.newContext(options);
  const app = await openApp(ctx, base + 'index.html#v=1&model=transformer:layers=2&cluster=lecture:2x4&panel=search', options);
  if (!app) return;
  const { page } = app;
  await nextFrames(page);
  // A short search, so the chart and the table have rows.
  await page.evaluate(() => window.autopar.setState({ search: { steps: 300 }, seed: 1 }));
  const searched = await page.evaluate(() => window.autopar.runSearch());
  check('a search runs on the phone', searched.search?.step > 0, `step ${searched.search?.step}`);
  await settlePointer(page);
  await nextFrames(page);
  let r = await result(page);
  check('the page is 390 CSS pixels wide', Math.abs(r.ui.display.w - W) < 2, JSON.stringify(r.ui.display));
  const plot = r.ui.places.search_plot, table = r.ui.places.search_table;
  check('the chart stacks inside the screen\'s width', !!plot && plot.x >= 0 && plot.x + plot.w <= W + 1, JSON.stringify(plot));
  check('the table stacks inside the screen\'s width', !!table && table.x >= 0 && table.x + table.w <= W + 1, JSON.stringify(table));
  check('before any swipe the table starts below the screen', !!table && table.y > H * 0.6, JSON.stringify(table));
  await shot(page, 'search-top');

  // Swipe up over the panel until the table's top is on screen (a few swipes at most).
  const cdp = await ctx.newCDPSession(page);
  let swipes = 0;
  while (swipes < 12) {
    r = await result(page);
    const t = r.ui.places.search_table;
    if (t && t.y < H * 0.5) break;
    await swipeUp(cdp, page, W / 2, H * 0.75, H * 0.45);
    ++swipes;
  }
  r = await result(page);
  const t = r.ui.places.search_table;
  check('swiping up brings the best strategy\'s table on screen', !!t && t.y < H * 0.5 && t.y + Math.min(t.h, 100) > 0,
        `after ${swipes} swipes: ${JSON.stringify(t)}`);
  check('the swipes are scrolls, not taps (still the Search tab)', (await page.evaluate(() => window.autopar.getState().panel)) === 'search');
  await shot(page, 'search-table');

  // The other tabs on a phone, for the eye.
  for (const panel of ['model', 'strategy', 'lecture']) {
    await page.evaluate((p) => window.autopar.setState({ panel: p }), panel);
    await nextFrames(page);
    await nextFrames(page);
    await shot(page, panel);
  }
  // The Lecture tab stacks: the scenario list is one combo across the screen and a scenario's
  // details take the whole width below it (side by side they had a third of it, buttons cut).
  await page.evaluate(() => window.autopar.setState({ panel: 'lecture', scenario: 'beta-sweep' }));
  await nextFrames(page);
  await nextFrames(page);
  r = await result(page);
  const combo = r.ui.places.lecture_combo, heading = r.ui.places.lecture_heading;
  check('the Lecture tab\'s scenario list is one combo inside the screen\'s width', !!combo && combo.x >= 0 && combo.x + combo.w <= W + 1 && combo.w > W * 0.8,
        JSON.stringify(combo));
  check('the scenario\'s details sit below the combo, not beside it', !!heading && !!combo && heading.y > combo.y + combo.h - 1 && heading.x < W * 0.2,
        JSON.stringify(heading));
  await shot(page, 'lecture-scenario');
  check('no console errors or page errors', app.consoleErrors.length === 0, app.consoleErrors.join(' | '));
  await ctx.close();
}));
