// Measurement, run by hand (not part of ./test.sh: it takes a minute or more): issue 41's target
// "Llama 3 405B on 16,384 H100s planned in today's space in under 120 s in the page". Imports
// the Hugging Face config into the page, asks for today's space on h100:2048x8 with 8,192-token
// sequences and a batch of 2,048, and times from the setState that starts the plan to the plan
// shown; the total is checked against `autopar inter --space today` for the same inputs, and the
// native CLI's wall time is measured in the same minutes.
// Run: NODE_PATH=/usr/share/nodejs node tests/e2e/bench_405b_page.mjs   (after ./test.sh's builds)
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { root, CLI, check, runTest, withBrowser, openApp, waitForResult } from './harness.mjs';

const FILE = path.join(root, 'examples', 'models', 'hf', 'llama-3.1-405b.json');
const SHAPE = 'seq=8192,batch=2048', CLUSTER = 'h100:2048x8', MICRO = 32;

async function main() {
  await withBrowser(async (browser, base) => {
    const app = await openApp(browser, base + 'index.html');
    if (!app) return;
    const { page } = app;
    await page.waitForTimeout(3000);   // the workers' warm-up
    const text = await readFile(FILE, 'utf8');
    const load0 = os.loadavg()[0];
    const t0 = Date.now();
    const set = await page.evaluate((x) => window.autopar.setState(x), {
      model: `llama-3.1-405b.json:${SHAPE}`, model_json: text, cluster: CLUSTER, mesh: '2048x8', microbatches: MICRO, space: 'today', panel: 'inter' });
    check('405B, h100:2048x8 and today\'s space are accepted', set.ok === true, JSON.stringify(set.error));
    const r = await waitForResult(page, (x) => x.inter_planning === false && typeof x.total_latency === 'number', 600_000);
    const pageS = (Date.now() - t0) / 1000;
    const n0 = Date.now();
    const ref = JSON.parse(execFileSync(CLI, ['inter', '--model', `${FILE}:${SHAPE}`, '--cluster', CLUSTER, '--microbatches', String(MICRO), '--space', 'today', '--json'],
                                        { maxBuffer: 1 << 28 }).toString());
    const nativeS = (Date.now() - n0) / 1000;
    console.log(`     figures: page ${pageS.toFixed(1)} s, native ${nativeS.toFixed(1)} s wall (load ${load0.toFixed(1)} -> ${os.loadavg()[0].toFixed(1)}); ` +
                `plan ${r.total_latency?.toFixed(1)} ms, B=${r.inter_microbatches}, ${r.stages?.length} stages`);
    check(`the page's plan equals the CLI's (page ${r.total_latency}, CLI ${ref?.total_latency})`, !!ref && r.total_latency === ref.total_latency);
    check(`planned in the page in under 120 s (${pageS.toFixed(1)} s)`, set.ok === true && typeof r.total_latency === 'number' && pageS < 120);
  });
}

runTest('bench_405b_page.mjs', main);
