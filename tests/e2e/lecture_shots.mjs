// Tall screenshots of the Lecture tab for a person to look at (not a test): every scenario, computed
// in the page, with its findings, charts and notes against the lecture, in English and Chinese.
// Run: node tests/e2e/lecture_shots.mjs [NAME ...]   (writes build-wasm/screenshots/tall-*.png)
import path from 'node:path';
import { shotDir, nextFrames, runTest, withBrowser, openApp, waitForResult, check } from './harness.mjs';

const names = process.argv.slice(2);
await runTest('lecture_shots', async () => {
  await withBrowser(async (browser, base) => {
    const app = await openApp(browser, base + 'index.html', { viewport: { width: 1280, height: 2000 } });
    if (!app) return;
    const { page } = app;
    const list = names.length ? names : ['alexnet-strategies', 'task-graph', 'simulator-accuracy', 'mcmc-alexnet', 'gpt-pipeline', 'wide-resnet'];
    for (const lang of ['en', 'zh']) {
      for (const name of list) {
        await page.evaluate((x) => window.autopar.setState(x), { scenario: name, lang });
        const r = await waitForResult(page, (x) => x.scenario?.name === name && Array.isArray(x.scenario.findings), 200_000);
        if (r.scenario?.question && !r.scenario.question.answered) await page.evaluate(() => window.autopar.setState({ lecture_prediction: 'c' }));
        await page.waitForTimeout(lang === 'zh' ? 1500 : 200);
        await nextFrames(page);
        await nextFrames(page);
        await page.screenshot({ path: path.join(shotDir, `tall-${lang}-${name}.png`) });
        check(`${lang} ${name} drawn`, !!r.scenario);
      }
    }
  });
});
