// The worker's message loop (linked before autopar-worker.js's code with --pre-js): messages
// from the page are handed to the module as they come; while jobs run, a loop steps them
// ~30 ms at a time, so a cancel or pause is seen between two steps. Replies go to
// the page as {id, kind, body}: the envelope beside the body's JSON text, which nothing here
// reads or edits; messages in are objects, written with JSON.stringify. The session sends a job's
// progress at most every 100 ms (autopar_worker.cpp), with the partial results since the last.
var autoparWorker = { ready: false, queue: [], looping: false };
var STEP_BUDGET_MS = 30;
// Plans run at startup while the worker is idle. V8 first runs WebAssembly in its baseline tier
// and compiles a function with its optimizing tier only once it is hot, in the background, so
// the first real plan ran 2-4x slower than later ones (24 layers on 4x8 in the page: 125 ms of
// work, then 45 ms). The warm-ups make the planner's functions hot (graph building, the
// intra-op ILP with GLPK, resharding, stage costs, the DP) on models unlike any the page starts
// with, round after round until WARMUP_BUDGET_MS of their own work; their replies are dropped
// (negative ids). Measured on the first plan half a second after the page is ready, work per
// budget: 0.4 s 105-113 ms, 1.5 s 54-83 ms, 3 s 44-54 ms (45 ms warm). A message from the page
// pauses the warm-up, which resumes only once the page's jobs are done, and its steps are
// short, so it delays real work by a few ms at most; it costs one core for a few seconds after
// load, when the reader is still reading.
var WARMUPS = [
  ['transformer:layers=4', 'lecture:2x4', 8],
  ['transformer:layers=6,hidden=768,heads=12', 'lecture:4x8', 16],
  ['moe', 'lecture:2x4', 8],
  ['transformer:layers=8', 'lecture:2x8', 16],
  ['transformer:layers=6,hidden=512,heads=8', 'lecture:4x8', 32]
];
var WARMUP_BUDGET_MS = 3000;
var WARMUP_STEP_MS = 4;   // a page message waits for the step in progress
var warmup = { next: 0, id: 0, paused: false, ended: false, spentMs: 0 };

// Starts the next warm-up (the list round after round) while the budget allows.
function autoparWarmupNext() {
  warmup.id = 0;
  if (warmup.spentMs >= WARMUP_BUDGET_MS) return;
  var k = warmup.next++ % WARMUPS.length, w = WARMUPS[k];
  warmup.id = -1 - k;
  autoparMessage({ id: warmup.id, op: 'start', operation: 'inter', inputs: { model: w[0], cluster: w[1] }, request: { microbatches: w[2] } });
}

// A pool's split plan (web/jobs/worker_pool.js) passes the stage-cost shares from worker to
// worker: each share's job sends its result body down a MessageChannel port (forwards: job id
// -> port), and the worker that merges them (gathers: its job id -> {start, missing, got}) hands
// each part to its session as it comes (read there once, never spliced into a text) and sends
// the DP's start message, with held_parts, once every part is in. The page's thread never holds
// the parts.
var forwards = {};
var gathers = {};

function autoparGather(m) {
  var g = { start: m.start, missing: m.ports.length, got: [] };
  gathers[m.id] = g;
  m.ports.forEach(function (port, k) {
    port.onmessage = function (e) {
      port.close();
      if (gathers[m.id] !== g || g.got[k]) return;   // dropped (cancelled), or a second part
      g.got[k] = true;
      autoparPostReplies(autoparCall(function (p) { return _autopar_worker_part(m.id, k, m.ports.length, p); }, e.data));
      if (--g.missing > 0) return;
      delete gathers[m.id];
      autoparMessage(g.start);
    };
  });
}

function autoparPostReplies(lines) {
  if (!lines) return;
  var list = lines.split('\n');
  for (var k = 0; k < list.length; k++) {
    var line = list[k];
    if (!line) continue;
    var a = line.indexOf(' '), b = line.indexOf(' ', a + 1);
    var id = Number(line.slice(0, a)), kind = line.slice(a + 1, b);
    if (id < 0) {                      // a warm-up's: the next one follows when it ended
      if (kind !== 'progress' && id === warmup.id) warmup.ended = true;
      continue;
    }
    if (kind !== 'progress' && forwards[id]) {   // a share's part goes to the merging worker
      var port = forwards[id];
      delete forwards[id];
      if (kind === 'result') {
        port.postMessage(line.slice(b + 1));
        port.close();
        postMessage({ id: id, kind: 'forwarded', body: '' });
        continue;
      }
      port.close();                    // an error goes to the page, which fails the job
    }
    postMessage({ id: id, kind: kind, body: line.slice(b + 1) });
  }
}

function autoparLoop() {
  autoparWorker.looping = false;
  var t0 = performance.now();
  // A running warm-up is alone (the page's messages pause it): short steps, so that a message
  // from the page waits little.
  var warming = warmup.id !== 0 && !warmup.paused;
  autoparPostReplies(UTF8ToString(_autopar_worker_step(warming ? WARMUP_STEP_MS : STEP_BUDGET_MS)));
  if (warming) warmup.spentMs += performance.now() - t0;
  if (warmup.ended) {
    warmup.ended = false;
    autoparWarmupNext();
  }
  if (!_autopar_worker_busy() && warmup.id !== 0 && warmup.paused) {   // the page's jobs are done
    warmup.paused = false;
    autoparMessage({ id: warmup.id, op: 'resume' });
  }
  if (_autopar_worker_busy()) autoparSchedule();
}

// The next step comes as a message on a channel of its own: setTimeout(0) waits at least 4 ms
// once nested, which added a tenth to a 100 ms plan.
var autoparWake = new MessageChannel();
autoparWake.port1.onmessage = autoparLoop;

function autoparSchedule() {
  if (autoparWorker.looping) return;
  autoparWorker.looping = true;
  autoparWake.port2.postMessage(0);
}

// Calls `f` with `text` copied into the module's heap, and returns the replies it gave. Large
// texts (a pool's stage-cost parts) would overflow ccall's stack copy: malloc'd here.
function autoparCall(f, text) {
  var size = lengthBytesUTF8(text) + 1;
  var p = _malloc(size);
  stringToUTF8(text, p, size);
  var out = UTF8ToString(f(p));
  _free(p);
  return out;
}

// Hands one session message (its JSON text) to the module and routes its replies.
function autoparHandle(text) {
  autoparPostReplies(autoparCall(_autopar_worker_message, text));
  autoparSchedule();
}

// The same for a message object.
function autoparMessage(m) { autoparHandle(JSON.stringify(m)); }

// One CLI command (window.autopar.run): the words as a JSON array text, run to its end here
// (wasm/autopar_api.cpp), its {ok, result | error} text posted back as a 'cli' reply. It holds
// this worker for as long as the command takes; the page's thread never runs it.
function autoparRunCli(id, wordsText) {
  postMessage({ id: id, kind: 'cli', body: autoparCall(_autopar_run, wordsText) });
  autoparSchedule();   // the loop resumes a paused warm-up once nothing else runs
}

// Takes one message: the pool's own ({op: 'cli', id, words}: a CLI command; 'forward': send job
// id's part down `port`; 'gather': hold the parts from `ports` for the DP job id, then start it
// with `start`; 'drop': forget that gathering and the parts held), else a session message.
function autoparTake(data) {
  var op = typeof data === 'object' && data !== null ? data.op : '';
  if (op === 'cli') autoparRunCli(data.id, data.words);
  else if (op === 'forward') forwards[data.id] = data.port;
  else if (op === 'gather') autoparGather(data);
  else if (op === 'drop') {
    delete gathers[data.id];
    autoparMessage({ id: data.id, op: 'cancel' });   // the session forgets the parts it holds
  } else autoparHandle(typeof data === 'string' ? data : JSON.stringify(data));
}

// A message is a session message {id, op, operation, inputs, request, units?, held_parts?}
// (an object, or its JSON text), or a CLI command {op: 'cli', id, words} (words: the JSON
// array's text).
self.onmessage = function (e) {
  if (autoparWorker.ready && warmup.id !== 0 && !warmup.paused) {
    warmup.paused = true;
    autoparMessage({ id: warmup.id, op: 'pause' });
  }
  if (autoparWorker.ready) autoparTake(e.data);
  else autoparWorker.queue.push(e.data);
};

Module['onRuntimeInitialized'] = function () {
  autoparWorker.ready = true;
  postMessage({ id: 0, kind: 'ready', body: UTF8ToString(_autopar_worker_about()) });   // {glpk: VERSION}
  var queued = autoparWorker.queue;
  autoparWorker.queue = [];
  for (var k = 0; k < queued.length; k++) autoparTake(queued[k]);
  autoparWarmupNext();
  if (queued.length && warmup.id !== 0) {   // the page's messages go first
    warmup.paused = true;
    autoparMessage({ id: warmup.id, op: 'pause' });
  }
};
