// The page's pool of Web Workers (build-wasm/wasm/autopar-worker.js: the operations as
// messages, core/operations/worker_session.h, and the CLI's commands). Started at page load, so
// the first plan finds warm workers (each warms its planner up while idle, wasm/worker_loop.js).
// Sized by navigator.hardwareConcurrency: min(cores - 1, 4), at least 1 (the main thread keeps
// a core for drawing); "?workers=N" in the page's URL overrides it (1 to 8).
// The app posts {id, op, operation, inputs, request, units?} texts (op: start, cancel, pause,
// resume); replies come back through `deliver(id, kind, body)`: the envelope (the app's job
// id; kind progress, result or error) beside the body's JSON text {KIND: ..., partial?}, which
// the pool passes on without editing. The first worker to start also delivers (0, 'ready',
// '{"glpk": VERSION}') (the page links no GLPK: its About box shows the workers'). An "inter"
// plan on a pool of n > 1 workers (Alpa's space; today's runs whole plans in turn on one worker) is split: each worker computes one share of the stage costs
// (the pairs p with p % n == k) and sends its part down a MessageChannel to the worker that
// merges the parts (in pair order: bit for bit the table of one worker) and runs the DP; the
// parts never pass through the page's thread. Messages to the workers are objects. run(words) runs one CLI command in a worker: a Promise of its {ok, result | error}.
// No SharedArrayBuffer: plain messages, so any static server will do.
(function () {
  'use strict';

  function poolSize() {
    var m = /[?&]workers=(\d+)/.exec(location.search);
    if (m) return Math.max(1, Math.min(8, Number(m[1])));
    var cores = navigator.hardwareConcurrency || 2;
    return Math.max(1, Math.min(cores - 1, 4));
  }

  // `deliver(id, kind, body)`: a reply for the app. Returns null when workers cannot start here.
  function AutoparPool(scriptUrl, deliver) {
    var size = poolSize();
    var workers = [];
    try {
      for (var k = 0; k < size; k++) workers.push(new Worker(scriptUrl));
    } catch (e) {
      console.warn('autopar: no Web Workers (' + e + '); the page plans on its main thread');
      return null;
    }
    var nextId = 1;
    var routes = {};        // worker job id -> {job, share}
    var jobs = {};          // app id -> {workers: [[worker, id], ...], gather: [worker, id], shares, done, total, message}
    var commands = {};      // worker id of a CLI command -> {worker, resolve}
    var load = workers.map(function () { return 0; });
    var reportedReady = false;

    // A start message (units only when given).
    function startMessage(id, operation, inputs, request, units) {
      var m = { id: id, op: 'start', operation: operation, inputs: inputs, request: request };
      if (units !== undefined) m.units = units;
      return m;
    }
    function send(w, id, operation, inputs, request, units) {
      load[w]++;
      workers[w].postMessage(startMessage(id, operation, inputs, request, units));
    }
    function leastLoaded() {
      var best = 0;
      for (var k = 1; k < workers.length; k++) if (load[k] < load[best]) best = k;
      return best;
    }
    function end(appId) {
      var job = jobs[appId];
      if (!job) return;
      job.workers.forEach(function (p) { delete routes[p[1]]; load[p[0]]--; });
      delete jobs[appId];
    }
    // Ends job `appId` and stops its work in the workers (a gathering not yet started is dropped).
    function stop(appId) {
      var job = jobs[appId];
      if (!job) return;
      var list = job.workers.slice(), gather = job.gather;
      end(appId);
      list.forEach(function (p) { workers[p[0]].postMessage({ id: p[1], op: 'cancel' }); });
      if (gather) workers[gather[0]].postMessage({ op: 'drop', id: gather[1] });
    }
    function start(job, w, operation, request, share) {
      var id = nextId++;
      routes[id] = { job: job, share: share };
      job.workers.push([w, id]);
      send(w, id, operation, job.message.inputs, request, job.message.units);
    }

    function onReply(w, e) {
      var r = e.data;
      if (r.kind === 'ready') {             // once: what the workers run with ({glpk}, the About box's)
        if (!reportedReady && r.body) {
          reportedReady = true;
          deliver(0, 'ready', r.body);
        }
        return;
      }
      if (r.kind === 'cli') {
        var command = commands[r.id];
        if (!command) return;
        delete commands[r.id];
        load[w]--;
        command.resolve(JSON.parse(r.body));
        return;
      }
      var route = routes[r.id];
      if (!route) return;                 // cancelled
      var job = route.job;
      if (route.share === undefined) {    // a whole job, or the DP after the shares
        if (r.kind !== 'progress') end(job.appId);
        deliver(job.appId, r.kind, r.body);
        return;
      }
      if (r.kind === 'error') {           // one share failed: the job fails
        stop(job.appId);
        deliver(job.appId, r.kind, r.body);
        return;
      }
      if (r.kind === 'progress') {
        var p = JSON.parse(r.body).progress;
        job.done[route.share] = p.done;
        job.total[route.share] = p.total;
        var done = job.done.reduce(function (a, b) { return a + b; }, 0);
        var total = job.total.reduce(function (a, b) { return a + b; }, 0);
        deliver(job.appId, 'progress', JSON.stringify({ progress: { done: done, total: total, fraction: total ? done / total : 0, phase: 'stage costs' } }));
        return;
      }
      // 'forwarded': the share's part went to the merging worker, whose DP job replies from now on.
      delete routes[r.id];
      load[w]--;
      job.workers = job.workers.filter(function (p) { return p[1] !== r.id; });
    }
    // Splits an "inter" plan over the workers: share k on worker k, its part sent down a channel
    // to the least loaded worker, which holds the parts as they come and starts the DP (its job
    // id known now, its request the plan's, held_parts set) once all are in.
    function split(entry) {
      var m = entry.message, request = m.request || {};
      var merger = leastLoaded(), gatherId = nextId++, ports = [];
      for (var k = 0; k < workers.length; k++) {
        var share = {};
        for (var key in request) share[key] = request[key];
        share.share_index = k;
        share.share_count = workers.length;
        entry.done.push(0);
        entry.total.push(0);
        var channel = new MessageChannel(), id = nextId++;
        workers[k].postMessage({ op: 'forward', id: id, port: channel.port1 }, [channel.port1]);
        ports.push(channel.port2);
        routes[id] = { job: entry, share: k };
        entry.workers.push([k, id]);
        send(k, id, 'stage_costs', m.inputs, share, m.units);
      }
      var dp = startMessage(gatherId, 'inter', m.inputs, request, m.units);
      dp.held_parts = true;
      routes[gatherId] = { job: entry, share: undefined };
      entry.workers.push([merger, gatherId]);
      entry.gather = [merger, gatherId];
      load[merger]++;
      workers[merger].postMessage({ op: 'gather', id: gatherId, ports: ports, start: dp }, ports);
    }
    workers.forEach(function (worker, w) {
      worker.onmessage = function (e) { onReply(w, e); };
      worker.onerror = function (e) { console.warn('autopar: worker ' + w + ' failed: ' + (e.message || e)); };
    });

    return {
      size: size,
      // The app's message text.
      post: function (text) {
        var m = JSON.parse(text);
        if (m.op === 'cancel') {
          stop(m.id);
          return;
        }
        if (m.op === 'pause' || m.op === 'resume') {   // to the worker(s) holding the job, with their ids
          var held = jobs[m.id];
          if (!held) return;
          held.workers.forEach(function (p) {
            var fw = { id: p[1], op: m.op };
            if (m.units !== undefined) fw.units = m.units;
            workers[p[0]].postMessage(fw);
          });
          return;
        }
        var entry = { appId: m.id, message: m, workers: [], gather: null, done: [], total: [] };
        jobs[m.id] = entry;
        var request = m.request || {};
        // Today's space (request.space "today") plans whole plans one after another: one worker.
        if (m.operation === 'inter' && workers.length > 1 && !request.parts && request.space !== 'today') return split(entry);
        start(entry, leastLoaded(), m.operation, request, undefined);
      },
      // Runs one CLI command (an array of words, without --json) in the least loaded worker: a
      // Promise of {ok: true, result} or {ok: false, error}, the CLI's JSON.
      run: function (words) {
        var w = leastLoaded(), id = nextId++;
        load[w]++;
        return new Promise(function (resolve) {
          commands[id] = { resolve: resolve };
          workers[w].postMessage({ op: 'cli', id: id, words: JSON.stringify(words === undefined ? null : words) });
        });
      }
    };
  }

  window.AutoparPool = AutoparPool;
})();
