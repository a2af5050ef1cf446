// The worker's message loop (linked before autopar-worker.js's code with --pre-js): messages
// from the page are handed to the module as they come; while jobs run, a setTimeout(0) loop
// steps them ~30 ms at a time, so a cancel or pause is seen between two steps. Replies go to
// the page as {id, kind, text} (text: the reply's JSON); the session itself sends a job's
// progress at most every 100 ms (autopar_worker.cpp), with the partial results since the last.
var autoparWorker = { ready: false, warming: false, queue: [], looping: false };
var STEP_BUDGET_MS = 30;
// A small plan run once at startup, while the page is still loading. V8 first runs WebAssembly
// in its baseline tier and compiles a function with its optimizing tier only once it is hot, so
// the first real plan ran about 4x slower than the next (measured: 600 ms of work, then 100 ms).
// The warm-up makes the planner's functions hot (graph building, the intra-op ILP with GLPK,
// resharding, the stage costs and the DP); its replies are dropped (negative id), and a message
// from the page cancels it, so it never delays real work.
var WARMUP_ID = -1;
var WARMUP = '{"id":' + WARMUP_ID + ',"op":"start","operation":"inter","inputs":{"model":"transformer:layers=4",' +
             '"cluster":"lecture:2x4"},"request":{"microbatches":8}}';

function autoparPostReplies(lines) {
  if (!lines) return;
  var list = lines.split('\n');
  for (var k = 0; k < list.length; k++) {
    var line = list[k];
    if (!line) continue;
    var a = line.indexOf(' '), b = line.indexOf(' ', a + 1);
    var id = Number(line.slice(0, a)), kind = line.slice(a + 1, b);
    if (id < 0) {                      // the warm-up's
      if (kind !== 'progress') autoparWorker.warming = false;
      continue;
    }
    postMessage({ id: id, kind: kind, text: line.slice(b + 1) });
  }
}

function autoparLoop() {
  autoparWorker.looping = false;
  autoparPostReplies(UTF8ToString(_autopar_worker_step(STEP_BUDGET_MS)));
  if (_autopar_worker_busy()) autoparSchedule();
}

function autoparSchedule() {
  if (autoparWorker.looping) return;
  autoparWorker.looping = true;
  setTimeout(autoparLoop, 0);
}

// Large messages (a pool's stage-cost parts) would overflow ccall's stack copy: malloc'd here.
function autoparHandle(text) {
  var size = lengthBytesUTF8(text) + 1;
  var p = _malloc(size);
  stringToUTF8(text, p, size);
  var out = UTF8ToString(_autopar_worker_message(p));
  _free(p);
  autoparPostReplies(out);
  autoparSchedule();
}

// A message is the JSON text {id, op, operation, inputs, request, units?} (or that object).
self.onmessage = function (e) {
  var text = typeof e.data === 'string' ? e.data : JSON.stringify(e.data);
  if (autoparWorker.ready && autoparWorker.warming) {
    autoparWorker.warming = false;
    autoparHandle('{"id":' + WARMUP_ID + ',"op":"cancel"}');
  }
  if (autoparWorker.ready) autoparHandle(text);
  else autoparWorker.queue.push(text);
};

Module['onRuntimeInitialized'] = function () {
  autoparWorker.ready = true;
  postMessage({ id: 0, kind: 'ready', text: '' });
  var queued = autoparWorker.queue;
  autoparWorker.queue = [];
  if (!queued.length) {
    autoparWorker.warming = true;
    autoparHandle(WARMUP);
  }
  for (var k = 0; k < queued.length; k++) autoparHandle(queued[k]);
};
