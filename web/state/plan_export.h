// The Export menu's files (issue 5, "Exports"): the current timeline as a Perfetto trace, the
// current FlexFlow strategy as JSON (what `simulate --json` prints under "strategy"; the CLI
// reads it back), and Alpa's plans for PyTorch DTensor, JAX, Megatron-LM and torchtitan, which
// are exactly what `autopar export --format F --model M --cluster C` prints. No ImGui in here.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "result.h"

namespace autopar::web {

struct AppState;

// One export format of the menu.
struct ExportFormat {
  std::string id;          // perfetto, strategy, dtensor, jax, megatron, torchtitan
  std::string label_key;   // the menu text's string key (web/strings), so it reads in the page's language
  std::string file_name;   // suggested download name
};

// The formats, in menu order.
const std::vector<ExportFormat>& export_formats();

// One export in the making. perfetto and strategy are the page's own views, done at once; the
// engine formats are planned by a worker ("export", worker_session.h, with an ExportRequest), so
// their intra-op ILP never runs on the drawing thread (the page does not link GLPK).
struct ExportJob {
  std::string format;
  int64_t request = 0;                          // the worker's job id while it plans; 0: none
  std::optional<Result<std::string>> outcome;   // the file's text or the error, once there
};

// Starts the export of `format` for the current state (the FlexFlow view built first when an
// edit left it pending); an unknown format, perfetto and strategy end at once.
ExportJob start_export(AppState& state, const std::string& format);
// Takes the worker's reply once it arrived; true when job.outcome is set (now or before).
bool take_export(AppState& state, ExportJob& job);
// Stops the worker's planning of `job`, if any (its reply is then ignored).
void cancel_export(AppState& state, ExportJob& job);
// True while a worker plans the export.
inline bool export_pending(const ExportJob& job) { return job.request != 0; }

// The export chosen last in the menu: planned (pending) until the worker replies, then shown in
// a read-only box with a Download button.
struct ExportView {
  bool open = false;
  std::string format, file_name, text;
  ExportJob job;                       // pending while export_pending(job)
};

}  // namespace autopar::web
