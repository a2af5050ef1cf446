// Shared pieces of the browser tests: the project paths, the native CLI for reference numbers,
// check() with its results, a static file server for the project root, and frame waiting.
import { createServer } from 'node:http';
import { readFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const shotDir = path.join(root, 'build-wasm', 'screenshots');
export const READY_TIMEOUT_MS = 60_000;
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const CLI = path.join(root, 'build', 'autopar');

// Runs the native CLI with --json and parses its output; null when build/autopar is missing.
export function cli(args) {
  if (!existsSync(CLI)) return null;
  return JSON.parse(execFileSync(CLI, [...args, '--json'], { encoding: 'utf8', maxBuffer: 64 << 20 }));
}

// Every check of this test process, in order.
export const results = [];
// Records and prints one check; returns whether it passed.
export function check(name, ok, detail = '') {
  results.push({ name, ok });
  console.log(`${ok ? 'ok  ' : 'FAIL'} - ${name}${detail ? ` (${detail})` : ''}`);
  return ok;
}

// A static file server for the project root (correct MIME type for .wasm: streaming compile).
const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
               '.wasm': 'application/wasm', '.json': 'application/json', '.png': 'image/png',
               '.css': 'text/css', '.data': 'application/octet-stream' };
export function startServer() {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    let rel = decodeURIComponent(url.pathname);
    if (rel.endsWith('/')) rel += 'index.html';
    const file = path.resolve(root, '.' + rel);
    if (!file.startsWith(root + path.sep)) { res.writeHead(403).end(); return; }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'Content-Type': MIME[path.extname(file)] || 'application/octet-stream',
                           'Cache-Control': 'no-store' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// Waits for two animation frames so the app has drawn the latest state.
export const nextFrames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

// Waits until the app has taken every queued pointer step (index.html gives it one step a frame:
// a click is a hover, a press and a release frame), then for the frames that draw the result.
// A fixed number of frames raced a busy machine: CI once checked a menu before its release frame.
export async function settlePointer(page, limitMs = 5000) {
  const t0 = Date.now();
  while (await page.evaluate(() => !!(Module.autoparPointerPending && Module.autoparPointerPending())) && Date.now() - t0 < limitMs)
    await nextFrames(page);
  await nextFrames(page);
}

// Launches Debian's Chromium headless with the flags of TOOLCHAIN.md (WebGL 2 through SwiftShader,
// no background networking on this closed network).
export async function launchChromium() {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', '--disable-quic',
           '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  });
}

// Runs `body(browser, base)` with the project root served at `base` and Chromium launched, and
// closes both after; fails one check instead when the page has not been built.
export async function withBrowser(body) {
  if (!existsSync(path.join(root, 'build-wasm', 'web', 'autopar-web.js'))) {
    check('build-wasm/web/autopar-web.js exists (build it with emcmake first)', false);
    return;
  }
  await mkdir(shotDir, { recursive: true });
  const server = await startServer();
  const browser = await launchChromium();
  try {
    await body(browser, `http://127.0.0.1:${server.address().port}/`);
  } finally {
    await browser.close();
    server.close();
  }
}

// Opens `url` in a new page of `owner` (a browser or a browser context; `options` as for its
// newPage) and waits for window.autopar.ready. Returns {page, consoleErrors} with console and page
// errors collected from then on, or null after a failed check when the app never became ready.
export async function openApp(owner, url, options = { viewport: { width: 1400, height: 860 } }) {
  const page = await owner.newPage(options);
  const consoleErrors = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(url);
  try {
    await page.waitForFunction(() => window.autopar && window.autopar.ready === true, null, { timeout: READY_TIMEOUT_MS });
  } catch {
    check(`the app at ${url.slice(0, 80)} becomes ready within ${READY_TIMEOUT_MS / 1000} s`, false, consoleErrors.join(' | '));
    return null;
  }
  return { page, consoleErrors };
}

// Runs a test's main() under a 240 s watchdog, prints the summary line and exits with 0 only
// when every check passed.
export async function runTest(name, main) {
  const watchdog = setTimeout(() => {
    console.log(`FAIL - ${name} did not finish within 240 s`);
    process.exit(1);
  }, 240_000);
  try {
    await main();
  } catch (e) {
    check('the test ran without an exception', false, e?.stack || String(e));
  }
  clearTimeout(watchdog);
  const failed = results.filter((r) => !r.ok).length;
  console.log(`${failed ? 'FAIL' : 'ok  '} - ${name}: ${results.length - failed}/${results.length} checks passed; screenshots in build-wasm/screenshots/`);
  process.exit(failed || results.length === 0 ? 1 : 0);
}

// Starts recording animation-frame gaps in the page (window.__gaps); stopGaps returns them.
export const startGaps = (page) => page.evaluate(() => {
  const g = { last: 0, max: 0, over250: 0, frames: 0, on: true };
  window.__gaps = g;
  const tick = (t) => {
    if (!g.on) return;
    if (g.last) {
      const d = t - g.last;
      g.max = Math.max(g.max, d);
      if (d > 250) g.over250++;
    }
    g.last = t;
    g.frames++;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
});
export const stopGaps = (page) => page.evaluate(() => { window.__gaps.on = false; return window.__gaps; });

// Waits until `pred(result())` holds (polling), or `timeoutMs` passes; returns the last result().
export async function waitForResult(page, pred, timeoutMs) {
  const t0 = Date.now();
  let r = await page.evaluate(() => window.autopar.result());
  while (!pred(r) && Date.now() - t0 < timeoutMs) {
    await page.waitForTimeout(50);
    r = await page.evaluate(() => window.autopar.result());
  }
  return r;
}

// Scrolls the panel under the pointer (the wheel over it) until ui.places[`place`] is on screen
// (the Cluster panel's memory sections sit below the devices); returns its place.
export async function scrollTo(page, place, viewportWidth, viewportHeight) {
  for (let k = 0; k < 25; ++k) {
    await settlePointer(page);
    const p = (await page.evaluate(() => window.autopar.result())).ui?.places?.[place];
    if (p && p.y > 40 && p.y + Math.min(p.h, viewportHeight / 2) < viewportHeight - 90) return p;
    const x = Math.min(Math.max(p ? p.x + 10 : viewportWidth * 0.75, 5), viewportWidth - 5);
    await page.mouse.move(x, viewportHeight * 0.8);
    await page.mouse.wheel(0, p && p.y <= 40 ? -250 : 250);
  }
  return (await page.evaluate(() => window.autopar.result())).ui?.places?.[place];
}
