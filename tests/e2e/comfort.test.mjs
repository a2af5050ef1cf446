// Browser end-to-end test of the page's comforts: the keyboard shortcuts (? and F1 open the
// "Keyboard shortcuts" window, Esc closes it, digits switch tabs, Space runs and pauses the
// search, F fits the timeline) and the Cluster drawing's groups (hovering a device with the real
// mouse highlights its tensor-, data- and pipeline-parallel groups). Keys go through Chromium's
// real keyboard events; the page is observed through window.autopar and two read-only hooks of
// the app, autopar_shortcuts_window and autopar_hover_groups (web/panels/keyboard_shortcuts.cpp,
// web/panels/panel_cluster.cpp). Screenshots go to build-wasm/screenshots/comfort-*.png.
// Run: node tests/e2e/comfort.test.mjs   (exit status 0 when every check passes)
import path from 'node:path';
import { shotDir, cli, check, nextFrames, settlePointer, runTest, withBrowser, openApp } from './harness.mjs';

// The share of pixels that differ between two screenshots of the same size.
async function pixelDifference(page, a, b) {
  return page.evaluate(async ([pa, pb]) => {
    const pixels = async (b64) => {
      const img = new Image();
      img.src = 'data:image/png;base64,' + b64;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width; c.height = img.height;
      const ctx = c.getContext('2d');
      ctx.drawImage(img, 0, 0);
      return ctx.getImageData(0, 0, c.width, c.height).data;
    };
    const da = await pixels(pa), db = await pixels(pb);
    if (da.length !== db.length) return 1;
    let differ = 0;
    for (let i = 0; i < da.length; i += 4)
      if (Math.abs(da[i] - db[i]) + Math.abs(da[i + 1] - db[i + 1]) + Math.abs(da[i + 2] - db[i + 2]) > 24) ++differ;
    return differ / (da.length / 4);
  }, [a.toString('base64'), b.toString('base64')]);
}

const shortcutsWindow = (page) => page.evaluate(() => JSON.parse(Module.ccall('autopar_shortcuts_window', 'string', [], [])));
const hoverGroups = (page) => page.evaluate(() => JSON.parse(Module.ccall('autopar_hover_groups', 'string', [], [])));
const getState = (page) => page.evaluate(() => window.autopar.getState());
const result = (page) => page.evaluate(() => window.autopar.result());
const shot = (page, name) => page.screenshot({ path: path.join(shotDir, `comfort-${name}.png`) });

// Holds a key down for a few frames: Dear ImGui 1.86 reads keys without a character (F1, Esc)
// as a state sampled once per frame, so a press must last across a frame, as a person's does.
async function hold(page, key) {
  await page.keyboard.down(key);
  await nextFrames(page);
  await page.keyboard.up(key);
  await nextFrames(page);
}

// Types one character (a quick press: the app reads the typed character) and lets it draw.
async function type(page, key) {
  await page.keyboard.press(key);
  await nextFrames(page);
  await nextFrames(page);
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

async function shortcutChecks(page) {
  const before = await page.screenshot();
  await type(page, '?');
  const opened = await shortcutsWindow(page);
  const withWindow = await shot(page, 'shortcuts');
  const changed = await pixelDifference(page, before, withWindow);
  check('? opens the Keyboard shortcuts window', opened.open === true, JSON.stringify(opened));
  check('the Keyboard shortcuts window is drawn (screenshot differs)', changed > 0.03,
        `${(100 * changed).toFixed(1)}% of pixels changed`);
  await hold(page, 'Escape');
  check('Esc closes it', (await shortcutsWindow(page)).open === false);
  await hold(page, 'F1');
  check('F1 opens it', (await shortcutsWindow(page)).open === true);
  await type(page, '?');
  check('? closes it again', (await shortcutsWindow(page)).open === false);

  // The Help menu's first item opens it too (the menu bar's "Help" title is at x = 278 px).
  await page.mouse.click(278, 11);
  await settlePointer(page);
  await shot(page, 'help-menu');
  await page.mouse.click(320, 36);
  await settlePointer(page);
  check('Help > Keyboard shortcuts opens it', (await shortcutsWindow(page)).open === true);
  await type(page, '?');

  // Digits switch tabs (panel_tab order).
  for (const [key, panel] of [['3', 'search'], ['2', 'strategy'], ['9', 'inter'], ['8', 'intra'], ['1', 'model']]) {
    await type(page, key);
    const st = await getState(page);
    check(`${key} shows the ${panel} tab`, st.panel === panel, `panel ${st.panel}`);
  }

  // Space runs and pauses the search (a budget it cannot finish between the two presses: the
  // default 2,000 steps can end on its own first).
  await page.evaluate(() => window.autopar.setState({ search: { steps: 100000000 } }));
  await type(page, '3');
  const running0 = (await getState(page)).search.running;
  await type(page, ' ');
  const running1 = (await getState(page)).search.running;
  await type(page, ' ');
  const running2 = (await getState(page)).search.running;
  check('Space starts the search and Space pauses it', running0 === false && running1 === true && running2 === false,
        `${running0} -> ${running1} -> ${running2}`);

  // F fits the timeline after the wheel zoomed it (the chart is on the right of the Strategy &
  // Timeline tab).
  await type(page, '2');
  await page.mouse.move(1000, 300);
  for (let k = 0; k < 3; ++k) { await page.mouse.wheel(0, -100); await settlePointer(page); }
  const zoomed = (await result(page)).timeline;
  await page.mouse.move(700, 845);   // off the chart, onto the notice bar
  await type(page, 'f');
  const fitted = (await result(page)).timeline;
  check('F fits the zoomed timeline to the whole iteration', zoomed.fit === false && fitted.fit === true && fitted.t0_ms === 0,
        `zoomed fit=${zoomed.fit}, after F fit=${fitted.fit} [${fitted.t0_ms}, ${fitted.t1_ms}]`);
  await type(page, '1');

  // Keys typed into a text field stay there: click the Cluster panel's GPU model field (right
  // half, the row under "GPU"), type "3" and a space, then Esc cancels the edit.
  await page.mouse.click(1190, 269);
  await settlePointer(page);
  await type(page, '3');
  await type(page, ' ');
  const typing = await getState(page);
  await hold(page, 'Escape');
  const after = await getState(page);
  check('keys typed into a text field are not shortcuts (no tab switch, no search)',
        (typing.panel === 'model' || typing.panel === 'cluster') && typing.search.running === false,
        `panel ${typing.panel}, search running ${typing.search.running}`);
  check('Esc leaves the text field without changing the cluster', after.cluster === 'lecture:2x4', JSON.stringify(after.cluster));
}

// Moves the mouse onto device `device` of the Cluster drawing; returns the hook's report.
async function hoverDevice(page, device) {
  const drawing = await hoverGroups(page);
  const box = drawing.devices.find((d) => d.device === device);
  if (!box) return { drawing, hovered: null };
  const canvas = await page.evaluate(() => { const r = document.getElementById('canvas').getBoundingClientRect(); return { x: r.left, y: r.top }; });
  await page.mouse.move(canvas.x + box.x + box.w / 2, canvas.y + box.y + box.h / 2, { steps: 3 });
  await settlePointer(page);
  await nextFrames(page);
  return hoverGroups(page);
}

async function groupChecks(page) {
  const drawing = await hoverGroups(page);
  check('the Cluster drawing shows the 8 devices of lecture:2x4', drawing.drawn === true && drawing.devices.length === 8,
        `drawn=${drawing.drawn}, ${drawing.devices.length} boxes`);

  // The page plans the pipeline by itself (the inter-op plan follows the page), so once the plan
  // is in the drawing's groups are the plan's: alexnet on lecture:2x4 is two (1,4) stages
  // (`autopar inter`), device 5 is index 1 of stage 1 (GPUs 4-7, its 1x4 logical mesh: tensor
  // group 4-7), its pipeline partner index 1 of stage 0, device 1. Before the plan is in, the
  // groups are the mesh's (2x4: row 4-7 tensor, column 1, 5 data).
  await page.evaluate(() => window.autopar.planInter());
  await nextFrames(page);
  let h = await hoverDevice(page, 5);
  await shot(page, 'cluster-hover-2x4');
  check('hovering device 5 reports it (node 1, GPU 1)', h.hovered?.device === 5 && h.hovered.node === 1 && h.hovered.gpu === 1,
        JSON.stringify(h.hovered));
  check('with the plan the page made itself, device 5 is in stage 1: tensor group 4-7, pipeline partners 1, 5',
        h.groups_from === 'plan' && h.hovered?.stage === 1 && same(h.hovered?.tensor_parallel, [4, 5, 6, 7]) &&
        same(h.hovered?.pipeline, [1, 5]), JSON.stringify(h));

  // Mesh 4x2 is the intra-op tab's mesh: the drawing shows it, the pipeline's groups stay the plan's.
  const set = await page.evaluate(() => window.autopar.setState({ mesh: '4x2' }));
  await nextFrames(page);
  h = await hoverDevice(page, 5);
  await shot(page, 'cluster-hover-4x2');
  check('on mesh 4x2 the drawing follows the mesh and the groups stay the plan\'s',
        set.ok && h.mesh === '4x2' && h.groups_from === 'plan' && same(h.hovered?.pipeline, [1, 5]), JSON.stringify(h));

  // Moving off the drawing clears the hover.
  await page.mouse.move(20, 845);
  await settlePointer(page);
  check('leaving the drawing clears the hovered device', (await hoverGroups(page)).hovered === null);

  // The inter-op plan of alexnet on lecture:1x8 (as `autopar inter` prints it; on lecture:2x4,
  // where a boundary across the 10 GbE costs more, it is two (1,4) stages): stage 0 on a (1,4)
  // sub-mesh (GPUs 0-3), stages 1 and 2 on (1,2) (GPUs 4-5 and 6-7), meshes 1x4, 1x2, 1x2.
  // Device 5 is index 1 of stage 1: tensor parallel with 4; pipeline partners are index 1 of
  // stages 0 and 2, devices 1 and 7.
  await page.evaluate(() => window.autopar.setState({ cluster: 'lecture:1x8' }));
  await nextFrames(page);
  const planned = await page.evaluate(() => window.autopar.planInter());
  const stages = (planned.stages || []).map((s) => [...s.submesh, s.logical_mesh]);
  const ref = cli(['inter', '--model', 'alexnet', '--cluster', 'lecture:1x8', '--microbatches', '32']);
  const refStages = ref ? ref.stages.map((s) => [...s.submesh, s.logical_mesh]) : null;
  const expected = [[1, 4, '1x4'], [1, 2, '1x2'], [1, 2, '1x2']];
  check('the inter-op plan has the stages the groups below are computed for', same(stages, expected) && (!refStages || same(refStages, expected)),
        `page ${JSON.stringify(stages)}, CLI ${JSON.stringify(refStages)}`);
  await page.mouse.move(20, 845);
  await settlePointer(page);
  await shot(page, 'cluster-plan');
  h = await hoverDevice(page, 5);
  await shot(page, 'cluster-hover-pipeline');
  check('with the plan, device 5 is in stage 1 with tensor group 4, 5, data group 5 and pipeline group 1, 5, 7',
        h.groups_from === 'plan' && h.stages === 3 && h.hovered?.stage === 1 && same(h.hovered?.tensor_parallel, [4, 5]) &&
        same(h.hovered?.data_parallel, [5]) && same(h.hovered?.pipeline, [1, 5, 7]), JSON.stringify(h));
  h = await hoverDevice(page, 2);
  check('device 2 (stage 0, index 2) pairs with index 0 of the two-device stages: pipeline 2, 4, 6',
        h.hovered?.stage === 0 && same(h.hovered?.tensor_parallel, [0, 1, 2, 3]) && same(h.hovered?.pipeline, [2, 4, 6]),
        JSON.stringify(h.hovered));
}

await runTest('comfort.test.mjs', () => withBrowser(async (browser, base) => {
  const app = await openApp(browser, base + 'index.html');
  if (!app) return;
  await nextFrames(app.page);
  await shortcutChecks(app.page);
  await groupChecks(app.page);
  check('no console errors or page errors', app.consoleErrors.length === 0, app.consoleErrors.join(' | '));
}));
