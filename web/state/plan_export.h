// The Export menu's files (issue 5, "Exports"): the current timeline as a Perfetto trace, the
// current FlexFlow strategy as JSON (what `simulate --json` prints under "strategy"; the CLI
// reads it back), and Alpa's plans for PyTorch DTensor, JAX, Megatron-LM and torchtitan, which
// are exactly what `autopar export --format F --model M --cluster C` prints. No ImGui in here.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "result.h"

namespace autopar::web {

struct AppState;

// One export format of the menu.
struct ExportFormat {
  std::string id;          // perfetto, strategy, dtensor, jax, megatron, torchtitan
  std::string label;       // menu text
  std::string file_name;   // suggested download name
};

// The formats, in menu order.
const std::vector<ExportFormat>& export_formats();

// The text of one export for the current state (the FlexFlow view built first when an edit left
// it pending); an Error for an unknown format or a failed plan.
Result<std::string> export_plan_text(AppState& state, const std::string& format);

// The text last exported through the menu, shown in a read-only box with a Download button.
struct ExportView {
  bool open = false;
  std::string format, file_name, text;
};

}  // namespace autopar::web
