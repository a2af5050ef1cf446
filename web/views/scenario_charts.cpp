// The Lecture tab's charts, computed from a scenario's results (see scenario_charts.h).
#include "scenario_charts.h"

#include <cmath>
#include <limits>
#include <map>

#include "format_units.h"
#include "page_strings.h"

namespace autopar::web {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The number at j[key] (NaN when absent or not a number).
double num(const Json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : kNaN;
}

ChartSeries series(const char* label_key, ChartSeries::Style style, int color) {
  ChartSeries s;
  s.label = tr(label_key);
  s.style = style;
  s.color = color;
  return s;
}

ScenarioChart chart(std::string id, const char* title_key, const char* x_key, const char* y_key) {
  ScenarioChart c;
  c.id = std::move(id);
  c.title = tr(title_key);
  c.x_title = x_key ? tr(x_key) : "";
  c.y_title = y_key ? tr(y_key) : "";
  return c;
}

// A bar chart's series over `categories`, from one number per category.
ChartSeries bars(const char* label_key, int color, const std::vector<double>& values) {
  ChartSeries s = series(label_key, ChartSeries::Style::bars, color);
  for (size_t k = 0; k < values.size(); ++k) {
    s.x.push_back(double(k));
    s.y.push_back(values[k]);
  }
  return s;
}

// A horizontal line at `y` over [x0, x1].
ChartSeries level(const char* label_key, int color, double x0, double x1, double y) {
  ChartSeries s = series(label_key, ChartSeries::Style::line, color);
  s.x = {x0, x1};
  s.y = {y, y};
  return s;
}

void conv1d(const Json& r, std::vector<ScenarioChart>& out) {
  if (!r.contains("conv1d") || !r["conv1d"].contains("splits")) return;
  ScenarioChart c = chart("conv1d_splits", "chart.conv1d_title", nullptr, "chart.elements_per_gpu");
  std::vector<double> in, w, halo;
  for (const auto& s : r["conv1d"]["splits"]) {
    c.categories.push_back(s.value("name", std::string()));
    in.push_back(num(s, "input_elements_per_device"));
    w.push_back(num(s, "weight_elements_per_device"));
    halo.push_back(num(s, "halo_elements_per_device"));
  }
  c.series = {bars("chart.input", 0, in), bars("chart.weights", 1, w), bars("chart.halo", 2, halo)};
  out.push_back(std::move(c));
}

void space_sizes(const Json& r, std::vector<ScenarioChart>& out) {
  if (!r.contains("alexnet") || !r.contains("dlrm")) return;
  ScenarioChart c = chart("space_sizes", "chart.space_title", nullptr, "chart.log10_strategies");
  c.categories = {"AlexNet", "DLRM"};
  // The lecture's 3.3e11 and 3.7e22.
  c.series = {bars("chart.here", 0, {num(r["alexnet"], "log10_strategies"), num(r["dlrm"], "log10_strategies")}),
              bars("chart.lecture_notes", 4, {std::log10(3.3e11), std::log10(3.7e22)})};
  out.push_back(std::move(c));
}

void alexnet_strategies(const Json& r, std::vector<ScenarioChart>& out) {
  ScenarioChart c = chart("alexnet_strategies", "chart.alexnet_title", nullptr, "chart.iteration_ms");
  std::vector<double> here, lecture;
  // The lecture prints data parallel, model parallel and expert exactly, random strategies as a range.
  const std::map<std::string, double> notes = {{"dp", 595.6}, {"mp", 315.6}, {"expert", 72.0}};
  for (const char* k : {"dp", "mp", "expert", "random:1", "random:2", "random:3"}) {
    if (!r.contains(k)) return;
    c.categories.push_back(k);
    here.push_back(num(r[k], "makespan_ms"));
    lecture.push_back(notes.count(k) ? notes.at(k) : kNaN);
  }
  c.series = {bars("chart.here", 0, here), bars("chart.lecture_notes", 4, lecture)};
  out.push_back(std::move(c));
}

void task_graph(const Json& r, std::vector<ScenarioChart>& out) {
  if (!r.contains("tasks") || !r["tasks"].is_array()) return;
  ScenarioChart c = chart("task_graph", "chart.task_graph_title", "chart.time_ms", nullptr);
  std::map<std::string, int> lane_of;
  for (const auto& t : r["tasks"]) {
    const std::string device = t.value("device", std::string());
    if (!lane_of.count(device)) {
      lane_of[device] = int(c.lanes.size());
      c.lanes.push_back(device);
    }
    const std::string kind = t.value("kind", std::string());
    ChartBox b;
    b.lane = lane_of[device];
    b.start = num(t, "start_ms");
    b.end = num(t, "end_ms");
    b.color = kind == "forward" ? 0 : kind == "backward" ? 2 : kind.find("sync") != std::string::npos ? 3 : 1;
    b.label = t.value("name", std::string()) + " (" + kind + "): " + format_ms(b.start) + " - " + format_ms(b.end);
    c.boxes.push_back(std::move(b));
  }
  out.push_back(std::move(c));
}

void accuracy(const Json& r, std::vector<ScenarioChart>& out) {
  for (const char* m : {"alexnet", "dlrm"}) {
    const std::string ideal = std::string(m) + "_ideal", cal = std::string(m) + "_calibrated";
    if (!r.contains(ideal) || !r.contains(cal) || !r[ideal].contains("points")) continue;
    ScenarioChart c = chart(std::string("accuracy_") + m, std::string(m) == "alexnet" ? "chart.accuracy_alexnet" : "chart.accuracy_dlrm",
                            "chart.simulated_ms", "chart.real_ms");
    c.log_x = c.log_y = true;
    int color = 0;
    for (const std::string* k : {&ideal, &cal}) {
      ChartSeries s = series(k == &ideal ? "chart.ideal" : "chart.calibrated", ChartSeries::Style::points, color);
      color = 1;
      for (const auto& p : r[*k]["points"])
        if (p.is_array() && p.size() == 2 && p[0].is_number() && p[1].is_number()) {
          s.x.push_back(p[0].get<double>());
          s.y.push_back(p[1].get<double>());
        }
      c.series.push_back(std::move(s));
    }
    // Where the two times would be equal (a perfect simulator).
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (const auto& s : c.series)
      for (size_t k = 0; k < s.x.size(); ++k) lo = std::min({lo, s.x[k], s.y[k]}), hi = std::max({hi, s.x[k], s.y[k]});
    if (hi > 0 && lo > 0) {
      ChartSeries diagonal = series("chart.real_equals_simulated", ChartSeries::Style::line, 4);
      diagonal.x = diagonal.y = {lo, hi};
      c.series.insert(c.series.begin(), diagonal);
    }
    out.push_back(std::move(c));
  }
}

void simulator_speed(const Json& r, std::vector<ScenarioChart>& out) {
  if (!r.contains("alexnet") || !r.contains("dlrm")) return;
  ScenarioChart c = chart("simulator_speed", "chart.speed_title", nullptr, "chart.ms_log");
  c.log_y = true;
  c.categories = {"AlexNet", "DLRM"};
  std::vector<double> iteration, evaluation;
  for (const char* m : {"alexnet", "dlrm"}) {
    iteration.push_back(num(r[m], "simulated_ms"));
    const double per_s = num(r[m], "evaluations_per_s");
    evaluation.push_back(per_s > 0 ? 1000.0 / per_s : kNaN);
  }
  c.series = {bars("chart.simulated_iteration", 0, iteration), bars("chart.one_evaluation", 1, evaluation)};
  out.push_back(std::move(c));
}

void mcmc(const Json& r, std::vector<ScenarioChart>& out) {
  if (!r.contains("search") || !r["search"].contains("history")) return;
  ScenarioChart c = chart("mcmc_trace", "chart.mcmc_title", "chart.step", "chart.best_ms");
  ChartSeries trace = series("chart.mcmc_best", ChartSeries::Style::line, 0);
  for (const auto& p : r["search"]["history"])
    if (p.is_array() && p.size() == 2 && p[0].is_number() && p[1].is_number()) {
      trace.x.push_back(p[0].get<double>());
      trace.y.push_back(p[1].get<double>());
    }
  if (trace.x.empty()) return;
  const double x1 = std::max(trace.x.back(), num(r["search"], "steps"));
  // A trace ends at its last improvement: carry the best to the last step.
  if (trace.x.back() < x1) {
    trace.x.push_back(x1);
    trace.y.push_back(trace.y.back());
  }
  c.log_y = true;
  c.series = {trace, level("chart.data_parallel", 4, 0, x1, num(r.value("dp", Json::object()), "makespan_ms")),
              level("chart.expert", 1, 0, x1, num(r.value("expert", Json::object()), "makespan_ms"))};
  out.push_back(std::move(c));
}

void mcmc_vs_exhaustive(const Json& r, std::vector<ScenarioChart>& out) {
  if (!r.contains("mcmc") || !r["mcmc"].is_array()) return;
  ScenarioChart c = chart("mcmc_vs_exhaustive", "chart.mcmc_vs_exhaustive_title", "chart.seed", "chart.ratio_to_optimum");
  std::vector<double> ratios;
  for (const auto& run : r["mcmc"]) {
    c.categories.push_back(std::to_string(run.value("seed", 0)));
    ratios.push_back(num(run, "ratio"));
  }
  const double n = double(ratios.size());
  c.series = {bars("chart.mcmc_run", 0, ratios), level("chart.optimum", 2, -0.5, n - 0.5, 1.0), level("chart.within_2", 4, -0.5, n - 0.5, 1.02)};
  out.push_back(std::move(c));
}

void beta_sweep(const Json& r, std::vector<ScenarioChart>& out) {
  if (!r.contains("sweep") || !r["sweep"].is_array()) return;
  ScenarioChart c = chart("beta_sweep", "chart.beta_title", "chart.beta", "lecture.mean_best_axis");
  c.log_x = true;
  ChartSeries s = series("chart.mean_best", ChartSeries::Style::line_points, 0);
  for (const auto& p : r["sweep"]) {
    s.x.push_back(num(p, "beta"));
    s.y.push_back(num(p, "mean_best_ms"));
  }
  c.series = {s};
  out.push_back(std::move(c));
}

void resharding(const Json& r, std::vector<ScenarioChart>& out) {
  if (!r.contains("table") || !r["table"].contains("table")) return;
  ScenarioChart c = chart("resharding", "chart.resharding_title", nullptr, "chart.ms");
  std::vector<double> cost;
  // The pairs the findings list (each collective once, and the two axes of the same one).
  for (const char* pair : {"S0R>RR", "RS0>RR", "S0S1>S0R", "S0R>RS0", "S0S1>S01R", "RR>S0S1"}) {
    const std::string p = pair, from = p.substr(0, p.find('>')), to = p.substr(p.find('>') + 1);
    for (const auto& row : r["table"]["table"])
      if (row.value("from", std::string()) == from && row.value("to", std::string()) == to) {
        c.categories.push_back(from + " -> " + to);
        cost.push_back(num(row, "cost"));
      }
  }
  c.series = {bars("chart.cost", 0, cost)};
  out.push_back(std::move(c));
}

void megatron(const Json& r, std::vector<ScenarioChart>& out) {
  if (!r.contains("all_meshes") || !r["all_meshes"].contains("meshes")) return;
  ScenarioChart c = chart("megatron_meshes", "chart.megatron_title", nullptr, "chart.objective_ms");
  std::vector<double> objective;
  for (const auto& m : r["all_meshes"]["meshes"]) {
    c.categories.push_back(m.value("mesh", std::string()));
    objective.push_back(num(m, "objective"));
  }
  c.series = {bars("chart.objective", 0, objective)};
  out.push_back(std::move(c));
}

// A pipeline plan's stages as bars (their latencies) with t_max as a line.
void stages(const std::string& id, const Json& plan, std::vector<ScenarioChart>& out) {
  if (!plan.is_object() || !plan.contains("stages") || !plan["stages"].is_array()) return;
  ScenarioChart c = chart(id, "chart.stages_title", nullptr, "chart.stage_ms");
  std::vector<double> latency;
  double t_max = 0;
  for (const auto& st : plan["stages"]) {
    std::string label = "L" + std::to_string(st["layers"][0].get<int>()) + "-" + std::to_string(st["layers"][1].get<int>()) + " " +
                        std::to_string(st["submesh"][0].get<int>()) + "x" + std::to_string(st["submesh"][1].get<int>());
    c.categories.push_back(label);
    latency.push_back(num(st, "latency"));
    t_max = std::max(t_max, latency.back());
  }
  const double n = double(latency.size());
  c.series = {bars("chart.stage_latency", 0, latency), level("chart.t_max", 3, -0.5, n - 0.5, t_max)};
  out.push_back(std::move(c));
}

void gpt_pipeline(const Json& r, std::vector<ScenarioChart>& out) {
  if (!r.contains("plan")) return;
  stages("pipeline_stages", r["plan"], out);
  if (!r.contains("lecture_plan")) return;
  ScenarioChart c = chart("pipeline_vs_lecture", "chart.pipeline_vs_lecture_title", nullptr, "chart.total_ms");
  c.categories = {tr("chart.dp_plan"), tr("chart.lecture_plan")};
  c.series = {bars("chart.total", 0, {num(r["plan"], "total_latency"), num(r["lecture_plan"], "total_latency")})};
  out.push_back(std::move(c));
  if (!r.contains("schedules") || !r["schedules"].is_object()) return;
  // The DP's plan run by the schedule model: the inter-op tab's GPipe and 1F1B makespans.
  ScenarioChart s = chart("pipeline_schedules", "chart.pipeline_schedules_title", nullptr, "chart.makespan_ms");
  s.categories = {tr("chart.closed_form"), "GPipe", "1F1B"};
  s.series = {bars("chart.makespan", 0,
                   {num(r["plan"], "total_latency"), num(r["schedules"].value("gpipe", Json()), "makespan_ms"),
                    num(r["schedules"].value("1f1b", Json()), "makespan_ms")})};
  out.push_back(std::move(s));
}

void cross_mesh(const Json& r, std::vector<ScenarioChart>& out) {
  if (!r.contains("plain") || !r.contains("local")) return;
  ScenarioChart c = chart("cross_mesh", "chart.cross_mesh_title", nullptr, "chart.ms");
  c.categories = {tr("chart.plain_send"), tr("chart.local_all_gather")};
  c.series = {bars("chart.send_ms", 0, {num(r["plain"], "send_ms"), num(r["local"], "send_ms")}),
              bars("chart.local_ms", 1, {num(r["plain"], "local_ms"), num(r["local"], "local_ms")})};
  out.push_back(std::move(c));
}

void wide_resnet(const Json& r, std::vector<ScenarioChart>& out) {
  if (!r.contains("weak_scaling") || !r["weak_scaling"].is_array()) return;
  ScenarioChart c = chart("weak_scaling", "chart.weak_scaling_title", "chart.nodes", "chart.efficiency_percent");
  int color = 0;
  for (const char* mode : {"alpa", "intra-only", "inter-only"}) {
    ChartSeries s = series(mode == std::string("alpa") ? "chart.alpa" : mode == std::string("intra-only") ? "chart.intra_only" : "chart.inter_only",
                           ChartSeries::Style::line_points, color++);
    for (const auto& row : r["weak_scaling"]) {
      s.x.push_back(num(row, "nodes"));
      s.y.push_back(row.contains(mode) ? 100 * num(row[mode], "efficiency") : kNaN);
    }
    c.series.push_back(std::move(s));
  }
  // The lecture's estimates at 1 and 4 nodes (91%, 47%, 87%): thin lines in the pale tone of each mode.
  color = 0;
  for (double at4 : {91.0, 47.0, 87.0}) {
    ChartSeries s = series(color == 0 ? "chart.lecture_alpa" : color == 1 ? "chart.lecture_intra" : "chart.lecture_inter",
                           ChartSeries::Style::line, 8 + color);
    s.x = {1, 4};
    s.y = {100, at4};
    ++color;
    c.series.push_back(std::move(s));
  }
  out.push_back(std::move(c));
}

void published_runs(const Json& r, std::vector<ScenarioChart>& out) {
  if (!r.contains("rows") || !r["rows"].is_array()) return;
  ScenarioChart c = chart("published_runs", "chart.published_title", "lecture.measured_axis", "lecture.predicted_axis");
  c.log_x = c.log_y = true;
  ChartSeries s = series("chart.published_run", ChartSeries::Style::points, 1);
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const auto& row : r["rows"]) {
    s.x.push_back(num(row, "measured_s"));
    s.y.push_back(num(row, "predicted_s"));
    lo = std::min({lo, s.x.back(), s.y.back()});
    hi = std::max({hi, s.x.back(), s.y.back()});
  }
  if (!(hi > 0)) return;
  lo /= 1.5, hi *= 1.5;
  ChartSeries diagonal = series("lecture.perfect_prediction", ChartSeries::Style::line, 4);
  diagonal.x = {lo, hi};
  diagonal.y = {lo, hi};
  ChartSeries up = series("lecture.within_25", ChartSeries::Style::line, 5), down = up;
  up.x = down.x = {lo, hi};
  up.y = {lo * 1.25, hi * 1.25};
  down.y = {lo * 0.75, hi * 0.75};
  down.label.clear();   // one legend entry for the band
  c.series = {diagonal, up, down, s};
  out.push_back(std::move(c));
}

void flexflow_vs_alpa(const Json& r, std::vector<ScenarioChart>& out) {
  ScenarioChart c = chart("flexflow_vs_alpa", "chart.flexflow_vs_alpa_title", nullptr, "chart.iteration_ms");
  std::vector<double> ff, alpa;
  for (auto it = r.begin(); it != r.end(); ++it) {
    c.categories.push_back(it.key());
    ff.push_back(num(it.value(), "flexflow_ms"));
    alpa.push_back(num(it.value(), "alpa_ms"));
  }
  if (c.categories.empty()) return;
  c.series = {bars("chart.flexflow", 0, ff), bars("chart.alpa", 1, alpa)};
  out.push_back(std::move(c));
}

// fits-on-80gb: per plan its model states, activations and total per GPU against the GPU's memory.
void fits_on_80gb(const Json& r, std::vector<ScenarioChart>& out) {
  if (!r.contains("plans") || !r["plans"].is_array() || r["plans"].empty()) return;
  constexpr double kGiB = 1073741824.0;   // the scenario's findings count GiB, as the H100's "80 GB"
  ScenarioChart c = chart("fits_80gb", "chart.fits_80gb_title", nullptr, "chart.gib_per_gpu");
  std::vector<double> states, activations, total;
  for (const Json& p : r["plans"]) {
    c.categories.push_back(p.value(page_language() == Language::zh ? "name_zh" : "name", std::string()));
    states.push_back(num(p, "states_bytes") / kGiB);
    activations.push_back(num(p, "activation_bytes") / kGiB);
    total.push_back(num(p, "total_bytes") / kGiB);
  }
  c.series = {bars("chart.model_states", 0, states), bars("chart.activations", 1, activations), bars("chart.total_memory", 2, total),
              level("chart.gpu_memory", 3, -0.5, double(c.categories.size()) - 0.5, num(r, "capacity_bytes") / kGiB)};
  out.push_back(std::move(c));
}

}  // namespace

int ScenarioChart::points() const {
  int n = int(boxes.size());
  for (const auto& s : series)
    for (double y : s.y) n += std::isfinite(y) ? 1 : 0;
  return n;
}

std::vector<ScenarioChart> scenario_charts(const std::string& name, const Json& r) {
  std::vector<ScenarioChart> out;
  if (!r.is_object()) return out;
  if (name == "conv1d-splits") conv1d(r, out);
  else if (name == "space-sizes") space_sizes(r, out);
  else if (name == "alexnet-strategies") alexnet_strategies(r, out);
  else if (name == "task-graph") task_graph(r, out);
  else if (name == "simulator-accuracy") accuracy(r, out);
  else if (name == "simulator-speed") simulator_speed(r, out);
  else if (name == "mcmc-alexnet" || name == "mcmc-dlrm") mcmc(r, out);
  else if (name == "mcmc-vs-exhaustive") mcmc_vs_exhaustive(r, out);
  else if (name == "beta-sweep") beta_sweep(r, out);
  else if (name == "resharding-table") resharding(r, out);
  else if (name == "megatron") megatron(r, out);
  else if (name == "gpt-pipeline") gpt_pipeline(r, out);
  else if (name == "cross-mesh-resharding") cross_mesh(r, out);
  else if (name == "wide-resnet") wide_resnet(r, out);
  else if (name == "gpt3-1024") stages("pipeline_stages", r.value("plan", Json()), out);
  else if (name == "published-runs") published_runs(r, out);
  else if (name == "flexflow-vs-alpa") flexflow_vs_alpa(r, out);
  else if (name == "fits-on-80gb") fits_on_80gb(r, out);
  return out;
}

}  // namespace autopar::web
