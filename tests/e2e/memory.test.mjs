// Browser end-to-end test of memory on the page (issue #13): on a small GPU the FlexFlow strategy
// shows DOES NOT FIT with the same memory by kind as `autopar simulate --json`; the precision
// selector (getState().precision, as --precision), the ZeRO stage and recomputation (getState()
// zero and remat) drive the FlexFlow strategy with the CLI's numbers; a search from data
// parallelism returns a strategy that fits; bad values are refused with their path; no console
// errors. Screenshots go to build-wasm/screenshots/ (memory-*.png).
// Run: node tests/e2e/memory.test.mjs   (exit status 0 when every check passes)
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { root, shotDir, cli, check, nextFrames, runTest, withBrowser, openApp } from './harness.mjs';

const MODEL = 'mlp:layers=4,hidden=4096,batch=64';

async function memoryChecks(page) {
  const st = (o) => page.evaluate((x) => window.autopar.setState(x), o);
  const res = () => page.evaluate(() => window.autopar.result());
  const state = () => page.evaluate(() => window.autopar.getState());
  const smallGpu = JSON.parse(await readFile(path.join(root, 'tests', 'parity', 'small-gpu.json'), 'utf8'));
  const base = ['simulate', '--model', MODEL, '--cluster', 'tests/parity/small-gpu.json'];
  const sameMemory = (a, b) => a && b && ['params_bytes', 'grads_bytes', 'optimizer_bytes', 'activation_bytes', 'total_bytes']
    .every((k) => a[k] === b[k]) && a.fits === b.fits;

  // Data parallelism does not fit the 0.4 GiB GPU: the mark, and the CLI's memory by kind.
  let set = await st({ model: MODEL, cluster: smallGpu, strategy: 'dp', panel: 'strategy' });
  let r = await res();
  let ref = cli([...base, '--strategy', 'dp']);
  check('dp on a small GPU: result().fits is false and the memory by kind equals the CLI\'s simulate',
        set.ok && r.fits === false && (!ref || sameMemory(r.memory, ref.memory)),
        `page ${JSON.stringify(r.memory)}, CLI ${JSON.stringify(ref?.memory)}`);
  await nextFrames(page);
  await page.screenshot({ path: path.join(shotDir, 'memory-dp-does-not-fit.png') });

  // Placing the layers apart fits.
  set = await st({ strategy: 'mp' });
  r = await res();
  check('mp on the same GPU fits', set.ok && r.fits === true, JSON.stringify(r.memory));

  // ZeRO 3 and recomputation drive the FlexFlow strategy: the CLI's makespan, syncs and memory.
  for (const [zero, remat] of [[3, false], [1, true], [3, true]]) {
    set = await st({ strategy: 'dp', zero, remat });
    r = await res();
    ref = cli([...base, '--strategy', 'dp', '--zero', String(zero), ...(remat ? ['--remat'] : [])]);
    check(`zero ${zero}${remat ? ' + remat' : ''}: the FlexFlow strategy's makespan, syncs and memory equal simulate --zero ${zero}${remat ? ' --remat' : ''}`,
          set.ok && (!ref || (r.makespan_ms === ref.makespan_ms && r.param_sync_bytes === ref.param_sync_bytes &&
                              r.compute_ms === ref.compute_ms && sameMemory(r.memory, ref.memory))),
          `page ${r.makespan_ms} ${r.memory?.total_bytes}, CLI ${ref?.makespan_ms} ${ref?.memory?.total_bytes}`);
  }
  const s = await state();
  check('getState() carries zero and remat', s.zero === 3 && s.remat === true, JSON.stringify({ zero: s.zero, remat: s.remat }));
  await page.screenshot({ path: path.join(shotDir, 'memory-zero3-remat.png') });

  // The precision selector: mixed precision, as --precision mixed (16-bit model, the FP16 peak).
  set = await st({ zero: 0, remat: false, precision: 'mixed', panel: 'cluster' });
  r = await res();
  ref = cli([...base, '--strategy', 'dp', '--precision', 'mixed']);
  check('precision mixed: the makespan and memory equal simulate --precision mixed; the memory counts mixed precision',
        set.ok && r.memory?.precision === 'mixed' && (!ref || (r.makespan_ms === ref.makespan_ms && sameMemory(r.memory, ref.memory))),
        `page ${r.makespan_ms} ${JSON.stringify(r.memory)}, CLI ${ref?.makespan_ms}`);
  check('getState().precision is mixed', (await state()).precision === 'mixed');
  await nextFrames(page);
  await page.screenshot({ path: path.join(shotDir, 'memory-cluster-mixed.png') });
  set = await st({ precision: '' });
  check('precision "" goes back to the model as loaded', set.ok && (await res()).memory?.precision === 'fp32');

  // Bad values are refused with their path.
  for (const [bad, field] of [[{ zero: 4 }, 'zero'], [{ remat: 1 }, 'remat'], [{ precision: 'fp4' }, 'precision']]) {
    const out = await st(bad);
    check(`setState(${JSON.stringify(bad)}) is refused naming ${field}`, out.ok === false && out.error?.path === field, JSON.stringify(out.error));
  }

  // A search from data parallelism on the small GPU returns a strategy that fits.
  set = await st({ strategy: 'dp', panel: 'search', search: { running: true, steps: 1500 } });
  await page.waitForFunction(() => window.autopar.result().search?.finished === true, null, { timeout: 60_000 }).catch(() => {});
  r = await res();
  check('the search on the small GPU ends with a strategy that fits', r.search?.finished === true && r.search?.fits === true,
        JSON.stringify(r.search && { finished: r.search.finished, fits: r.search.fits, best_ms: r.search.best_ms }));
  await nextFrames(page);
  await page.screenshot({ path: path.join(shotDir, 'memory-search-fits.png') });
}

async function main() {
  await withBrowser(async (browser, base) => {
    const app = await openApp(browser, base + 'index.html');
    if (!app) return;
    await memoryChecks(app.page);
    check('no console errors or page errors', app.consoleErrors.length === 0, app.consoleErrors.join(' | '));
  });
}

await runTest('memory.test.mjs', main);
