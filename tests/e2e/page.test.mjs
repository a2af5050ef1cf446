// Browser end-to-end test of the playground page (index.html + build-wasm/web/autopar-web.*).
// Serves the project root on a free port, drives Debian's Chromium (WebGL 2 through SwiftShader)
// with playwright-core, and checks the page through window.autopar: it starts without console
// errors, draws a non-blank canvas, switches models, reports bad input and keeps the old state,
// and restores a shared link; the FlexFlow panels (strategy, timeline, search, accuracy) show
// the CLI's numbers exactly (build/autopar is run for reference when it exists), the search runs
// without freezing the page, the timeline zooms and pans with the mouse, and exportTrace() gives
// a Perfetto trace. Screenshots of every tab go to build-wasm/screenshots/.
// Run: node tests/e2e/page.test.mjs   (exit status 0 when every check passes)
import { mkdir, writeFile } from 'node:fs/promises';
import { existsSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, shotDir, READY_TIMEOUT_MS, CLI, cli, check, startServer, nextFrames, settlePointer, launchChromium, runTest, waitForResult } from './harness.mjs';




// Reference numbers printed by build/autopar (alexnet on lecture:2x4), used when the CLI has not
// been built: simulate --strategy dp / expert, search --steps 300 --seed 1 --beta 500.
const FALLBACK = { dp: 352.1766329298113, expert: 56.78358320301886, search300: 31.080503154716965 };



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


// Starts counting animation frames in the page (window.__frames: timestamps).
const startFrameCounter = (page) => page.evaluate(() => {
  window.__frames = [];
  window.__countFrames = true;
  const tick = (t) => { if (!window.__countFrames) return; window.__frames.push(t); requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
});
// Stops it; returns {count, median_ms, max_ms} of the intervals between frames.
const stopFrameCounter = (page) => page.evaluate(() => {
  window.__countFrames = false;
  const f = window.__frames;
  const gaps = [];
  for (let i = 1; i < f.length; ++i) gaps.push(f[i] - f[i - 1]);
  gaps.sort((a, b) => a - b);
  return { count: f.length, median_ms: gaps.length ? gaps[gaps.length >> 1] : Infinity, max_ms: gaps.length ? gaps[gaps.length - 1] : Infinity };
});

async function flexflowChecks(page, browser) {
  const cliNote = existsSync(CLI) ? 'vs build/autopar' : 'vs recorded CLI output (build/autopar missing)';
  const st = (o) => page.evaluate((x) => window.autopar.setState(x), o);
  const res = () => page.evaluate(() => window.autopar.result());

  // makespan_ms equals `autopar simulate --json` exactly, for named and edited strategies.
  for (const strategy of ['dp', 'expert', 'mp', 'random:7']) {
    const set = await st({ strategy });
    const r = await res();
    const ref = cli(['simulate', '--model', 'alexnet', '--cluster', 'lecture:2x4', '--strategy', strategy]);
    const want = ref ? ref : (FALLBACK[strategy] ? { makespan_ms: FALLBACK[strategy] } : null);
    if (!want) continue;
    const same = set.ok && r.makespan_ms === want.makespan_ms &&
      (!ref || (r.compute_ms === ref.compute_ms && r.activation_transfer_ms === ref.activation_transfer_ms &&
                r.param_sync_ms === ref.param_sync_ms && r.param_sync_bytes === ref.param_sync_bytes &&
                r.activation_bytes === ref.activation_bytes && r.tasks === ref.tasks &&
                r.peak_memory_bytes === ref.peak_memory_bytes));
    check(`result() for alexnet/lecture:2x4/${strategy} equals the CLI's simulate (${cliNote})`, same,
          `page ${r.makespan_ms} ms, CLI ${want.makespan_ms} ms`);
  }

  // Per-op edits: a compact string that round-trips, and the same makespan as the CLI given the
  // strategy as a file.
  const edited = 'expert;fc6=1x8@0;conv5=2x2x1x1@4';
  const e1 = await st({ strategy: edited });
  const re = await res();
  check('setState accepts a strategy with per-op edits and getState returns it',
        e1.ok === true && (await page.evaluate(() => window.autopar.getState().strategy)) === edited, JSON.stringify(e1));
  if (existsSync(CLI)) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'autopar-e2e-'));
    const file = path.join(dir, 'strategy.json');
    writeFileSync(file, JSON.stringify(re.strategy_json));
    const ref = cli(['simulate', '--model', 'alexnet', '--cluster', 'lecture:2x4', '--strategy', file]);
    rmSync(dir, { recursive: true, force: true });
    check('an edited strategy simulates to the CLI\'s makespan (strategy_json through --strategy FILE)',
          re.makespan_ms === ref.makespan_ms, `page ${re.makespan_ms}, CLI ${ref.makespan_ms}`);
  }
  const asObject = await st({ strategy: re.strategy_json });
  const ro = await res();
  check('setState takes a strategy object too (stored as edits on dp)',
        asObject.ok === true && ro.makespan_ms === re.makespan_ms && /^dp;/.test(ro.strategy), ro.strategy);
  for (const [bad, why] of [['expert;fc6=512x1@0', 'a degree larger than its dimension (batch 256)'], ['dp;nosuchop=1x1@0', 'an unknown op'],
                            ['dp;fc6=1x2@7', 'devices out of range'], ['fast', 'an unknown base']]) {
    const b = await st({ strategy: bad });
    check(`a strategy with ${why} is refused and names the strategy`, b.ok === false && b.error?.path === 'strategy',
          JSON.stringify(b.error));
  }
  check('the previous strategy is kept after refused edits', (await res()).strategy === ro.strategy);

  // Strategy & Timeline tab: screenshot, then real mouse input on the timeline.
  await st({ strategy: 'expert', panel: 'strategy' });
  await nextFrames(page);
  await nextFrames(page);
  await page.screenshot({ path: path.join(shotDir, 'tab-strategy-timeline.png') });
  const fit = (await res()).timeline;
  const makespan = (await res()).makespan_ms;
  check('the timeline starts fitted to the whole iteration', fit.fit === true && fit.t0_ms === 0 && fit.t1_ms >= makespan &&
        fit.lanes >= 8, JSON.stringify(fit));
  // The chart spans the right part of the window; zoom in around x = 1000 with the wheel.
  await page.mouse.move(1000, 300);
  for (let k = 0; k < 4; ++k) { await page.mouse.wheel(0, -100); await settlePointer(page); }
  const zoomed = (await res()).timeline;
  check('the mouse wheel zooms the timeline in around the cursor',
        zoomed.fit === false && zoomed.t1_ms - zoomed.t0_ms < 0.6 * (fit.t1_ms - fit.t0_ms) && zoomed.t0_ms > fit.t0_ms &&
        zoomed.t1_ms < fit.t1_ms, `${JSON.stringify(fit)} -> ${JSON.stringify(zoomed)}`);
  await page.mouse.move(1000, 300);
  await page.mouse.down();
  for (let k = 1; k <= 5; ++k) { await page.mouse.move(1000 + 20 * k, 300); await nextFrames(page); }
  await page.mouse.up();
  await settlePointer(page);
  const panned = (await res()).timeline;
  const width0 = zoomed.t1_ms - zoomed.t0_ms, width1 = panned.t1_ms - panned.t0_ms;
  check('dragging pans the timeline (earlier times come into view, same zoom)',
        panned.t0_ms < zoomed.t0_ms && Math.abs(width1 - width0) < 1e-9 * Math.max(1, width0),
        `${JSON.stringify(zoomed)} -> ${JSON.stringify(panned)}`);
  await page.mouse.move(1100, 209);   // over a backward task of GPU 1: its tooltip is in the screenshot
  await settlePointer(page);
  await nextFrames(page);
  await page.screenshot({ path: path.join(shotDir, 'tab-strategy-timeline-zoomed.png') });
  // The Fit button, first in the Timeline window's toolbar (the window starts at 38% of the width).
  await page.mouse.move(556, 98);
  await settlePointer(page);
  await page.mouse.click(556, 98);
  await settlePointer(page);
  const refit = (await res()).timeline;
  check('the Fit button shows the whole iteration again', refit.fit === true && refit.t0_ms === 0 && refit.t1_ms === fit.t1_ms,
        JSON.stringify(refit));

  // The Perfetto trace of the current timeline.
  const traceText = await page.evaluate(() => window.autopar.exportTrace());
  let trace = null;
  try { trace = JSON.parse(traceText); } catch { trace = null; }
  const events = trace?.traceEvents || [];
  const xs = events.filter((e) => e.ph === 'X');
  const names = events.filter((e) => e.ph === 'M' && e.name === 'thread_name');
  const rNow = await res();
  check('exportTrace() parses as JSON with one X event per task and named GPU and link tracks',
        trace !== null && xs.length === rNow.tasks && names.length === rNow.timeline.lanes &&
        names.some((e) => e.args?.name === 'GPU 0') && names.some((e) => /link|network/.test(e.args?.name || '')) &&
        xs.every((e) => typeof e.ts === 'number' && e.dur > 0),
        `${xs.length} X events for ${rNow.tasks} tasks, ${names.length} thread names for ${rNow.timeline.lanes} lanes`);
  const lastEnd = Math.max(...xs.map((e) => e.ts + e.dur));
  check('the trace ends at the makespan', Math.abs(lastEnd / 1000 - rNow.makespan_ms) < 1e-6 * rNow.makespan_ms,
        `${lastEnd / 1000} vs ${rNow.makespan_ms}`);

  // The search: runs inside the frame loop; the page keeps drawing frames meanwhile.
  await st({ panel: 'search', strategy: 'dp' });
  await nextFrames(page);
  await page.screenshot({ path: path.join(shotDir, 'tab-search-idle.png') });
  const init = (await res()).makespan_ms;
  await startFrameCounter(page);
  const t0 = Date.now();
  const go = await st({ search: { running: true, steps: 300 } });
  const sState = await page.evaluate(() => window.autopar.getState().search);
  check('setState({search:{running:true, steps:300}}) starts the search', go.ok === true && sState.running === true &&
        sState.steps === 300, `${JSON.stringify(go)} ${JSON.stringify(sState)}`);
  const improved = await waitForResult(page, (r) => r.search?.best_ms !== null && r.search.best_ms < init, 5000);
  check('result().search.best_ms drops below the initial makespan within 5 s',
        improved.search?.best_ms < init, `${improved.search?.best_ms} < ${init} after ${Date.now() - t0} ms, step ${improved.search?.step}`);
  const done = await waitForResult(page, (r) => r.search?.finished === true, 20000);
  const frames = await stopFrameCounter(page);
  check('the search finishes and getState().search.running turns false',
        done.search?.finished === true && (await page.evaluate(() => window.autopar.getState().search.running)) === false,
        JSON.stringify(done.search));
  // Frame time measured in the page (result().frame_ms, over the last 120 frames, most of them
  // with the search running): the app's own work (search slice + UI) must stay well inside a
  // frame. The whole frame also includes the WebGL submission, which under SwiftShader on this
  // 2-core machine blocks for 60-100 ms with or without a search; it is only checked for gaps.
  check('the page keeps drawing while the search runs (animation frames keep coming, no gap over 1 s)',
        frames.count >= 3 && frames.max_ms < 1000, JSON.stringify(frames));
  check('frame time in the page while the search runs: median of the app\'s own work under 33 ms',
        done.frame_ms?.work_median < 33, JSON.stringify(done.frame_ms));   // the maximum is reported, not checked: a shared machine's spikes are not the page's
  const refSearch = cli(['search', '--model', 'alexnet', '--cluster', 'lecture:2x4', '--steps', '300', '--seed', '1', '--beta', '500']);
  const wantBest = refSearch ? refSearch.best_ms : FALLBACK.search300;
  check(`the search finds the CLI's best_ms for the same steps, seed and beta (${cliNote})`,
        done.search?.best_ms === wantBest && (!refSearch || (done.search.step === refSearch.steps && done.search.accepted === refSearch.accepted)),
        `page ${done.search?.best_ms} (step ${done.search?.step}), CLI ${wantBest}`);
  await nextFrames(page);
  await page.screenshot({ path: path.join(shotDir, 'tab-search.png') });

  // "Use best" (the fourth button under the settings) applies the best strategy found.
  await page.mouse.move(306, 288);
  await settlePointer(page);
  await page.mouse.click(306, 288);
  await settlePointer(page);
  await nextFrames(page);
  const applied = await res();
  check('"Use best" applies the best strategy: the strategy panel shows the search\'s best makespan',
        applied.makespan_ms === done.search.best_ms && applied.strategy.startsWith('dp;') &&
        (await page.evaluate(() => window.autopar.getState().panel)) === 'strategy',
        `${applied.makespan_ms} vs ${done.search.best_ms}, strategy ${applied.strategy}`);
  await page.mouse.move(700, 845);   // out of the way: no tooltip in the screenshot
  await settlePointer(page);
  await page.screenshot({ path: path.join(shotDir, 'tab-strategy-best.png') });
  const refBest = existsSync(CLI) ? (() => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'autopar-e2e-'));
    const file = path.join(dir, 'best.json');
    writeFileSync(file, JSON.stringify(applied.strategy_json));
    const out = cli(['simulate', '--model', 'alexnet', '--cluster', 'lecture:2x4', '--strategy', file]);
    rmSync(dir, { recursive: true, force: true });
    return out;
  })() : null;
  if (refBest) check('the applied best strategy simulates to the same makespan in the CLI', refBest.makespan_ms === applied.makespan_ms,
                     `${refBest.makespan_ms}`);

  // Tab strip with the mouse: back to Search.
  await page.mouse.move(307, 38);
  await settlePointer(page);
  await page.mouse.click(307, 38);
  await settlePointer(page);
  await nextFrames(page);
  check('clicking the "Search" tab brings the search panel to the front',
        (await page.evaluate(() => window.autopar.getState().panel)) === 'search');

  // The accuracy study, in slices across frames; equal to `autopar accuracy`.
  await st({ panel: 'accuracy', accuracy: { samples: 100 } });
  const acc = await waitForResult(page, (r) => r.accuracy?.complete === true, 30000);
  check('the accuracy study completes with progress reported', acc.accuracy?.complete === true && acc.accuracy.done === 100,
        JSON.stringify(acc.accuracy));
  for (const mode of ['ideal', 'calibrated']) {
    const ref = cli(['accuracy', '--model', 'alexnet', '--cluster', 'lecture:2x4', '--samples', '100', '--seed', '1',
                     ...(mode === 'calibrated' ? ['--calibrated'] : [])]);
    if (!ref) continue;
    const got = acc.accuracy?.[mode] || {};
    check(`the ${mode} simulator's accuracy equals the CLI's`,
          ['mean_rel_error', 'max_rel_error', 'kendall_tau', 'top_kendall_tau', 'sim_best_true_rank'].every((k) => got[k] === ref[k]),
          `page ${JSON.stringify(got)} CLI tau ${ref.kendall_tau}`);
  }
  await page.mouse.move(700, 845);
  await settlePointer(page);
  await page.screenshot({ path: path.join(shotDir, 'tab-accuracy.png') });

  // Share links carry the new fields.
  await st({ strategy: edited, beta: 300, seed: 4, search: { steps: 777, budget_ms: 50, init: 'expert' }, accuracy: { samples: 40 },
             panel: 'strategy' });
  const want = await page.evaluate(() => window.autopar.getState());
  const wantResult = await res();
  const link = await page.evaluate(() => window.autopar.shareLink());
  const page2 = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  await page2.goto(link);
  await page2.waitForFunction(() => window.autopar && window.autopar.ready === true, null, { timeout: READY_TIMEOUT_MS });
  const got = await page2.evaluate(() => window.autopar.getState());
  const gotResult = await page2.evaluate(() => window.autopar.result());
  await page2.close();
  check('shareLink() restores strategy edits, beta, seed, search and accuracy settings and the panel',
        got.strategy === edited && got.beta === 300 && got.seed === 4 && got.search.steps === 777 && got.search.budget_ms === 50 &&
        got.search.init === 'expert' && got.accuracy.samples === 40 && got.panel === 'strategy' &&
        gotResult.makespan_ms === wantResult.makespan_ms, `${JSON.stringify(got)} vs ${JSON.stringify(want)}`);

  // Back to the defaults for the rest of the test.
  await st({ strategy: 'dp', beta: 500, seed: 1, search: { steps: 2000, budget_ms: 0, init: 'dp' }, accuracy: { samples: 100 },
             panel: 'model' });
  await nextFrames(page);
}

async function main() {
  if (!existsSync(path.join(root, 'build-wasm', 'web', 'autopar-web.js'))) {
    check('build-wasm/web/autopar-web.js exists (build it with emcmake first)', false);
    return;
  }
  await mkdir(shotDir, { recursive: true });
  const server = await startServer();
  const base = `http://127.0.0.1:${server.address().port}/`;
  const browser = await launchChromium();
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
    await writeFile(path.join(shotDir, 'tab-model-cluster.png'), shot);
    const m = await measurePng(page, shot);
    check('the canvas is not blank', m.colours >= 24 && m.nonBackground >= 0.05,
          `${m.colours} colours, ${(100 * m.nonBackground).toFixed(1)}% non-background pixels`);

    const s0 = await page.evaluate(() => window.autopar.getState());
    const r0 = await page.evaluate(() => window.autopar.result());
    check('getState() starts with the default example',
          s0.model === 'alexnet' && s0.cluster === 'lecture:2x4' && s0.mesh === '2x4' && s0.strategy === 'dp' &&
          s0.beta === 500 && s0.seed === 1 && s0.microbatches === 32 && s0.search?.running === false &&
          s0.search?.steps === 2000 && s0.search?.init === 'dp' && s0.accuracy?.samples === 100 && s0.panel === 'model',
          JSON.stringify(s0));
    check('result() describes the default example',
          r0.model === 'alexnet' && r0.ops > 0 && r0.total_forward_flops > 0 && r0.total_param_bytes > 0 &&
          r0.num_devices === 8 && typeof r0.makespan_ms === 'number' && r0.search?.step === 0 && r0.search?.best_ms === null,
          `ops=${r0.ops} flops=${r0.total_forward_flops} param_bytes=${r0.total_param_bytes}`);

    // ---- FlexFlow panels: strategy, timeline, search, accuracy ------------------------------
    await flexflowChecks(page, browser);

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
    await settlePointer(page);
    await page.mouse.move(60, 40);
    await settlePointer(page);
    await nextFrames(page);
    await page.mouse.move(200, 40);
    await settlePointer(page);
    await page.mouse.click(200, 40);
    await settlePointer(page);
    const picked = await page.evaluate(() => window.autopar.getState().model);
    check('clicking Examples > Models > conv1d loads conv1d', picked === 'conv1d', picked);

    check('no console errors or page errors', consoleErrors.length === 0, consoleErrors.join(' | '));
  } finally {
    await browser.close();
    server.close();
  }
}

await runTest('page.test.mjs', main);
