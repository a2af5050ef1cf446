// Browser end-to-end test of the playground page (index.html + build-wasm/web/autopar-web.*).
// Serves the project root on a free port, drives Debian's Chromium (WebGL 2 through SwiftShader)
// with playwright-core, and checks the page through window.autopar: it starts without console
// errors, draws a non-blank canvas, switches models, reports bad input and keeps the old state,
// and restores a shared link. Screenshots go to build-wasm/screenshots/.
// Run: node tests/e2e/page.test.mjs   (exit status 0 when every check passes)
import { createServer } from 'node:http';
import { readFile, mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const shotDir = path.join(root, 'build-wasm', 'screenshots');
const READY_TIMEOUT_MS = 60_000;
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

const results = [];
function check(name, ok, detail = '') {
  results.push({ name, ok });
  console.log(`${ok ? 'ok  ' : 'FAIL'} - ${name}${detail ? ` (${detail})` : ''}`);
  return ok;
}

// A static file server for the project root (correct MIME type for .wasm: streaming compile).
const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
               '.wasm': 'application/wasm', '.json': 'application/json', '.png': 'image/png',
               '.css': 'text/css', '.data': 'application/octet-stream' };
function startServer() {
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
const nextFrames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

// Decodes a PNG in the page and measures it: distinct colours (quantised to 5 bits per channel)
// and the share of pixels that differ from the most common colour (the background).
async function measurePng(page, png) {
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + b64;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    const counts = new Map();
    for (let i = 0; i < d.length; i += 4) {
      const key = ((d[i] >> 3) << 10) | ((d[i + 1] >> 3) << 5) | (d[i + 2] >> 3);
      counts.set(key, (counts.get(key) || 0) + 1);
    }
    let top = 0;
    for (const v of counts.values()) top = Math.max(top, v);
    const pixels = d.length / 4;
    return { width: c.width, height: c.height, colours: counts.size, nonBackground: 1 - top / pixels };
  }, png.toString('base64'));
}

async function main() {
  if (!existsSync(path.join(root, 'build-wasm', 'web', 'autopar-web.js'))) {
    check('build-wasm/web/autopar-web.js exists (build it with emcmake first)', false);
    return;
  }
  await mkdir(shotDir, { recursive: true });
  const server = await startServer();
  const base = `http://127.0.0.1:${server.address().port}/`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', '--disable-quic',
           '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
    const consoleErrors = [];
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    page.on('pageerror', (e) => consoleErrors.push(String(e)));

    const t0 = Date.now();
    await page.goto(base + 'index.html');
    let ready = true;
    try {
      await page.waitForFunction(() => window.autopar && window.autopar.ready === true, null, { timeout: READY_TIMEOUT_MS });
    } catch { ready = false; }
    if (!check('window.autopar.ready becomes true within 60 s', ready, `${Date.now() - t0} ms`)) {
      const err = await page.evaluate(() => document.getElementById('error-text')?.textContent || '');
      check('no console errors or page errors', consoleErrors.length === 0, [err, ...consoleErrors].join(' | '));
      return;
    }

    const errorBoxHidden = await page.evaluate(() => getComputedStyle(document.getElementById('error')).display === 'none');
    check('no error box is shown', errorBoxHidden);
    const loadingGone = await page.evaluate(() => document.getElementById('loading').classList.contains('done'));
    check('the loading indicator is hidden once ready', loadingGone);

    const canvasSize = await page.evaluate(() => {
      const c = document.getElementById('canvas');
      return { w: c.width, h: c.height, cw: c.clientWidth, ch: c.clientHeight, dpr: window.devicePixelRatio };
    });
    check('the canvas fills the window at devicePixelRatio resolution',
          canvasSize.cw === 1400 && canvasSize.ch === 860 && canvasSize.w === Math.round(canvasSize.cw * canvasSize.dpr),
          `${canvasSize.w}x${canvasSize.h} backing store for ${canvasSize.cw}x${canvasSize.ch} CSS px`);

    await nextFrames(page);
    const shot = await page.screenshot({ path: path.join(shotDir, 'page.png') });
    const m = await measurePng(page, shot);
    check('the canvas is not blank', m.colours >= 24 && m.nonBackground >= 0.05,
          `${m.colours} colours, ${(100 * m.nonBackground).toFixed(1)}% non-background pixels`);

    const s0 = await page.evaluate(() => window.autopar.getState());
    const r0 = await page.evaluate(() => window.autopar.result());
    check('getState() starts with the default example',
          s0.model === 'alexnet' && s0.cluster === 'lecture:2x4' && s0.mesh === '2x4' && s0.strategy === 'dp' &&
          s0.beta === 500 && s0.seed === 1 && s0.microbatches === 32 && s0.search?.running === false &&
          s0.search?.steps === 0 && s0.panel === 'model', JSON.stringify(s0));
    check('result() describes the default example',
          r0.model === 'alexnet' && r0.ops > 0 && r0.total_forward_flops > 0 && r0.total_param_bytes > 0 &&
          r0.num_devices === 8 && r0.makespan_ms === null && r0.search?.step === 0,
          `ops=${r0.ops} flops=${r0.total_forward_flops} param_bytes=${r0.total_param_bytes}`);

    const set1 = await page.evaluate(() => window.autopar.setState({ model: 'mlp:layers=6' }));
    const s1 = await page.evaluate(() => window.autopar.getState());
    const r1 = await page.evaluate(() => window.autopar.result());
    check('setState({model:"mlp:layers=6"}) returns ok', set1.ok === true, JSON.stringify(set1));
    check('getState().model follows setState', s1.model === 'mlp:layers=6', s1.model);
    check('result().ops changes with the model (mlp with 6 layers has more ops than alexnet)',
          r1.ops > r0.ops, `${r0.ops} -> ${r1.ops}`);
    await nextFrames(page);
    await page.screenshot({ path: path.join(shotDir, 'page-mlp.png') });

    const bad = await page.evaluate(() => window.autopar.setState({ model: 'nope' }));
    check('setState({model:"nope"}) returns ok:false with an error naming the model',
          bad.ok === false && typeof bad.error?.code === 'string' && /nope/.test(bad.error?.message || ''),
          JSON.stringify(bad));
    const s2 = await page.evaluate(() => window.autopar.getState());
    check('the previous state is kept after an error', s2.model === 'mlp:layers=6', s2.model);
    const msg = await page.evaluate(() => window.autopar.message());
    check('message() reports the error', /nope/.test(msg), msg);
    await nextFrames(page);
    await page.screenshot({ path: path.join(shotDir, 'page-error.png') });

    const typo = await page.evaluate(() => window.autopar.setState({ modle: 'mlp' }));
    check('an unknown field is refused and named', typo.ok === false && /modle/.test(typo.error?.message || ''),
          typo.error?.message);
    const cl = await page.evaluate(() => [window.autopar.setState({ cluster: 'a100:4x4' }), window.autopar.getState(),
                                          window.autopar.result()]);
    check('setState({cluster:"a100:4x4"}) gives 16 devices and a fitting mesh',
          cl[0].ok === true && cl[1].cluster === 'a100:4x4' && cl[1].mesh === '4x4' && cl[2].num_devices === 16,
          `${JSON.stringify(cl[0])} mesh=${cl[1].mesh} devices=${cl[2].num_devices}`);
    const badMesh = await page.evaluate(() => window.autopar.setState({ mesh: '3x5' }));
    check('a mesh that does not match the devices is refused', badMesh.ok === false && badMesh.error?.path === 'mesh',
          badMesh.error?.message);
    await page.evaluate(() => window.autopar.setState({ panel: 'cluster' }));
    await nextFrames(page);
    check('setState({panel:"cluster"}) brings the Cluster panel to the front',
          (await page.evaluate(() => window.autopar.getState().panel)) === 'cluster');

    // A shared link restores the state in a fresh page.
    const link = await page.evaluate(() => window.autopar.shareLink());
    const page2 = await browser.newPage({ viewport: { width: 1400, height: 860 } });
    page2.on('console', (m2) => { if (m2.type() === 'error') consoleErrors.push(m2.text()); });
    page2.on('pageerror', (e) => consoleErrors.push(String(e)));
    await page2.goto(link);
    await page2.waitForFunction(() => window.autopar && window.autopar.ready === true, null, { timeout: READY_TIMEOUT_MS });
    const restored = await page2.evaluate(() => window.autopar.getState());
    check('shareLink() restores model, cluster and mesh in a new page',
          restored.model === 'mlp:layers=6' && restored.cluster === 'a100:4x4' && restored.mesh === '4x4',
          JSON.stringify(restored));
    await page2.close();

    // A cluster given as an object (edited numbers) round-trips through getState.
    const custom = {
      name: 'mine', nodes: 2, gpus_per_node: 2,
      gpu: { model: 'Test GPU', peak_tflops: 10, memory_bandwidth_gb_per_s: 900, memory_gib: 16, kernel_overhead_us: 5 },
      intra_node: { latency_us: 2, bandwidth_gb_per_s: 100 }, inter_node: { latency_us: 10, bandwidth_gb_per_s: 10 },
    };
    const cc = await page.evaluate((c) => [window.autopar.setState({ cluster: c }), window.autopar.getState(),
                                           window.autopar.result()], custom);
    check('a cluster object is accepted and returned as an object',
          cc[0].ok === true && typeof cc[1].cluster === 'object' && cc[1].cluster.gpu?.peak_tflops === 10 &&
          cc[1].mesh === '2x2' && cc[2].num_devices === 4, `${JSON.stringify(cc[0])} mesh=${cc[1].mesh}`);
    const roundTrip = await page.evaluate(() => window.autopar.setState(window.autopar.getState()));
    check('setState(getState()) is accepted', roundTrip.ok === true, JSON.stringify(roundTrip));
    const negative = await page.evaluate((c) => window.autopar.setState({ cluster: { ...c, gpu: { ...c.gpu, peak_tflops: -1 } } }),
                                         custom);
    check('a negative GPU throughput is refused with a path into the cluster',
          negative.ok === false && /^cluster/.test(negative.error?.path || ''), JSON.stringify(negative.error));

    // Real input: Examples > Models > conv1d through the menu bar (mouse events on the canvas).
    await page.mouse.click(45, 11);
    await nextFrames(page);
    await page.mouse.move(60, 40);
    await nextFrames(page);
    await nextFrames(page);
    await page.mouse.move(200, 40);
    await nextFrames(page);
    await page.mouse.click(200, 40);
    await nextFrames(page);
    const picked = await page.evaluate(() => window.autopar.getState().model);
    check('clicking Examples > Models > conv1d loads conv1d', picked === 'conv1d', picked);

    check('no console errors or page errors', consoleErrors.length === 0, consoleErrors.join(' | '));
  } finally {
    await browser.close();
    server.close();
  }
}

const watchdog = setTimeout(() => {
  console.log('FAIL - the test did not finish within 180 s');
  process.exit(1);
}, 180_000);
try {
  await main();
} catch (e) {
  check('the test ran without an exception', false, e?.stack || String(e));
}
clearTimeout(watchdog);
const failed = results.filter((r) => !r.ok).length;
console.log(`${failed ? 'FAIL' : 'ok  '} - page.test.mjs: ${results.length - failed}/${results.length} checks passed; screenshots in build-wasm/screenshots/`);
process.exit(failed || results.length === 0 ? 1 : 0);
