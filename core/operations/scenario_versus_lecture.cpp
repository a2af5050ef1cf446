// Where the scenarios' numbers differ from the ones lecture 15's notes print (issue 40): one
// "the lecture says X; here Y, because Z" per difference, made from a scenario's results so the
// CLI and the page (which gets the results from its worker) say the same. The notes print the
// output of the lecture's own Python scripts, which do not come with them: where a number cannot
// be reproduced, the text says so and why instead of pretending.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "report_text.h"
#include "scenarios.h"

namespace autopar {
namespace {

using Notes = std::vector<Bilingual>;

// A number of the results at `path` ("a.b.0.c"), or NaN when it is absent or not a number.
double number_at(const Json& j, const std::string& path) {
  const Json* v = &j;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t dot = path.find('.', start);
    const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (v->is_array()) {
      const size_t k = size_t(std::strtoul(key.c_str(), nullptr, 10));
      if (k >= v->size()) return std::nan("");
      v = &(*v)[k];
    } else if (v->is_object() && v->contains(key)) {
      v = &(*v)[key];
    } else {
      return std::nan("");
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return v->is_number() ? v->get<double>() : std::nan("");
}

// True when every number is finite (the results hold what the note needs).
bool all_finite(std::initializer_list<double> xs) {
  return std::all_of(xs.begin(), xs.end(), [](double x) { return std::isfinite(x); });
}

std::string ms(double v) { return fmt("%.1f ms", v); }
std::string times(double v) { return fmt("%.1fx", v); }

// 2.3: the sizes of the SOAP space.
void space_sizes(const Json& r, Notes& n) {
  const double a = number_at(r, "alexnet.log10_strategies"), d = number_at(r, "dlrm.log10_strategies");
  if (!all_finite({a, d})) return;
  n.push_back(say("The lecture says AlexNet has 3.3e11 strategies and DLRM 3.7e22; here 10^{0} and 10^{1}, because the op tables "
                  "differ: the counting rule is the same (power-of-two degrees, aligned blocks: an op with 2 splittable dimensions "
                  "has 26 configurations on 8 GPUs, with 3 dimensions 42), but the lecture's scripts, which the notes do not include, "
                  "give their ops other splittable dimensions. Their exact counts cannot be rebuilt from the notes: dozens of mixes of "
                  "ops with 0 to 5 splittable dimensions give 3.3e11 and 3.7e22 to two digits.",
                  "讲义说 AlexNet 有 3.3e11 种策略、DLRM 有 3.7e22 种；这里是 10^{0} 和 10^{1}，因为算子表不同：计数规则相同"
                  "（并行度为二的幂、设备按块对齐：8 块卡上一个有 2 个可切维的算子有 26 种配置，3 个维有 42 种），但讲义的脚本"
                  "（讲义没有附带）给算子的可切维不同。讲义的精确计数无法从讲义重建：有几十种由 0 到 5 个可切维的算子组成的组合，"
                  "都能在两位有效数字上得到 3.3e11 和 3.7e22。",
                  {fmt("%.2f", a), fmt("%.2f", d)}));
}

// 2.3: AlexNet under the named strategies.
void alexnet_strategies(const Json& r, Notes& n) {
  const double dp = number_at(r, "dp.makespan_ms"), mp = number_at(r, "mp.makespan_ms"), ex = number_at(r, "expert.makespan_ms");
  double lo = 1e300, hi = 0;
  int beat_dp = 0;
  for (const char* k : {"random:1", "random:2", "random:3"}) {
    const double v = number_at(r, std::string(k) + ".makespan_ms");
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v), hi = std::max(hi, v);
    beat_dp += v < dp;
  }
  if (!all_finite({dp, mp, ex})) return;
  n.push_back(say("The lecture says data parallel 595.6 ms, model parallel 315.6 ms, expert 72.0 ms, three random strategies "
                  "334-754 ms; here {0}, {1}, {2} and {3}-{4} ({5} of 3 random strategies beat data parallel). The order is the "
                  "same and the expert strategy is far ahead in both (data parallel / expert: lecture 8.3x, here {6}), but the "
                  "milliseconds are not, because the cost constants differ: the lecture's scripts time ops and links with their own "
                  "numbers, which the notes do not give, while this cluster is a P100 datasheet with fitted kernel efficiencies, "
                  "PCIe in a node and 10 Gb/s Ethernet between nodes. Without the scripts the lecture's milliseconds cannot be "
                  "reproduced; compare ratios, not times.",
                  "讲义说数据并行 595.6 ms、模型并行 315.6 ms、专家策略 72.0 ms、三个随机策略 334-754 ms；这里是 {0}、{1}、{2} 和 "
                  "{3}-{4}（3 个随机策略中有 {5} 个快过数据并行）。顺序相同，专家策略在两边都遥遥领先（数据并行 / 专家：讲义 8.3x，"
                  "这里 {6}），但毫秒数不同，因为代价常数不同：讲义的脚本用它自己的数字为算子和连接计时，讲义没有给出这些数字；"
                  "这里的集群是 P100 的规格表加上拟合的 kernel 效率、节点内 PCIe、节点间 10 Gb/s 以太网。没有那些脚本，就无法复现"
                  "讲义的毫秒数；请比较比值，而不是时间。",
                  {ms(dp), ms(mp), ms(ex), ms(lo), ms(hi), std::to_string(beat_dp), times(dp / ex)}));
}

// 3.2: the task graph of FlexFlow's Fig. 5.
void task_graph(const Json& r, Notes& n) {
  if (!r.contains("tasks") || !r["tasks"].is_array()) return;
  const size_t tasks = r["tasks"].size();
  std::map<std::string, int> kinds;
  for (const auto& t : r["tasks"])
    if (t.contains("kind") && t["kind"].is_string()) ++kinds[t["kind"].get<std::string>()];
  std::string list_en, list_zh;
  for (const auto& [kind, count] : kinds) {
    list_en += (list_en.empty() ? "" : ", ") + std::to_string(count) + " " + kind;
    list_zh += (list_zh.empty() ? "" : "，") + std::to_string(count) + " 个 " + kind;
  }
  if (tasks == 15) return;
  n.push_back(say("The lecture says its code prints 15 tasks; here {0} ({1}). The notes do not list the lecture's 15 tasks, so which "
                  "one this graph lacks cannot be checked; here every forward and backward task of each part, one transfer per "
                  "link a tensor crosses (a transfer to the same GPU is no task) and one parameter-sync task per replicated weight "
                  "shard are counted, as the FlexFlow paper builds its task graph (section 5.1). A script that also counts, e.g., "
                  "the weight update or a transfer of the embedding's output to its own GPU gets one more.",
                  "讲义说它的代码打印了 15 个任务；这里是 {0} 个（{2}）。讲义没有列出那 15 个任务，所以无法核对这张图少了哪一个；"
                  "这里按 FlexFlow 论文构建任务图的方式（5.1 节）计数：每个分块的前向和反向任务，张量经过的每条连接一个传输任务"
                  "（传到同一块卡上不算任务），每个被复制的权重分片一个参数同步任务。如果脚本还把权重更新、或者嵌入输出传到它自己"
                  "所在的卡也算作任务，就会多出一个。",
                  {std::to_string(tasks), list_en, list_zh}));
}

// 3.4: the simulator's accuracy.
void simulator_accuracy(const Json& r, Notes& n) {
  const double rank = number_at(r, "dlrm_ideal.sim_best_true_rank"), err = number_at(r, "alexnet_ideal.mean_rel_error"),
               cal = number_at(r, "dlrm_calibrated.sim_best_true_rank");
  if (!all_finite({rank, err, cal})) return;
  n.push_back(say("The lecture says the ideal simulator's favourite DLRM strategy is really #48 and AlexNet's error stays within 30%; "
                  "here the favourite is really #{0} (calibrated: #{1}) and AlexNet's mean error is {2}, because the 300 random "
                  "strategies are drawn by this page's random number generator and its own 'real execution' model, not the "
                  "lecture's: the same lesson (the simulator is least right where the search goes), other draws.",
                  "讲义说理想模拟器的 DLRM 首选实际排第 48、AlexNet 的误差在 30% 以内；这里首选实际排第 {0}（校准后第 {1}），"
                  "AlexNet 的平均误差是 {2}，因为这 300 个随机策略由本页面的随机数生成器和它自己的“真实执行”模型产生，而不是讲义的："
                  "教训相同（模拟器恰恰在搜索要去的地方最不准），抽样不同。",
                  {fmt("%.0f", rank), fmt("%.0f", cal), fmt("%.1f%%", 100 * err)}));
}

// 3.5: the simulator's speed.
void simulator_speed(const Json& r, Notes& n) {
  const double a = number_at(r, "alexnet.evaluations_per_s"), d = number_at(r, "dlrm.evaluations_per_s");
  const double as = number_at(r, "alexnet.simulated_ms"), ds = number_at(r, "dlrm.simulated_ms");
  if (!all_finite({a, d, as, ds})) return;
  n.push_back(say("The lecture says its Python simulator takes about 0.2 ms (AlexNet) and 0.6 ms (DLRM) per strategy, 160 to 2,600 "
                  "times faster than the iteration it simulates; here {0} and {1} per strategy (C++ on this machine or in this "
                  "browser, the task graph built each time), {2} and {3} times faster than the simulated iteration. The ratio "
                  "is smaller than the lecture's because this cluster's simulated iterations are shorter (AlexNet's expert "
                  "strategy 56.8 ms here), not because the simulator is slower.",
                  "讲义说它的 Python 模拟器评估一个策略约 0.2 ms（AlexNet）和 0.6 ms（DLRM），比被模拟的迭代快 160 到 2,600 倍；"
                  "这里每个策略 {0} 和 {1}（本机或本浏览器里的 C++，每次都构建任务图），比模拟的迭代快 {2} 和 {3} 倍。比例比讲义小，"
                  "是因为这个集群上模拟的迭代更短（这里 AlexNet 的专家策略是 56.8 ms），而不是模拟器更慢。",
                  {fmt("%.3g ms", 1000 / a), fmt("%.3g ms", 1000 / d), fmt("%.0f", as * a / 1000), fmt("%.0f", ds * d / 1000)}));
}

// 4.2: MCMC on AlexNet and DLRM.
void mcmc(const std::string& model, const Json& r, Notes& n) {
  const double dp = number_at(r, "dp.makespan_ms"), ex = number_at(r, "expert.makespan_ms"), best = number_at(r, "search.best_ms");
  if (!all_finite({dp, ex, best}) || best <= 0) return;
  if (model == "alexnet") {
    n.push_back(say("The lecture says the search is 16.9x faster than data parallel and 2x faster than the expert strategy; here "
                    "{0} and {1}, because data parallelism is cheaper under this cluster's constants ({2} against the lecture's "
                    "595.6 ms) while the searched strategy is about as fast as the lecture's ({3} against about 35 ms), so there is "
                    "less to win; the search finds the same kind of strategy (convolutions split, fully connected layers on fewer GPUs).",
                    "讲义说搜索比数据并行快 16.9 倍、比专家策略快 2 倍；这里是 {0} 和 {1}，因为在这个集群的常数下数据并行更便宜"
                    "（{2}，讲义是 595.6 ms），而搜到的策略和讲义的差不多快（{3}，讲义约 35 ms），可赢的余地更小；搜索找到的是"
                    "同一类策略（卷积切开，全连接层放在更少的卡上）。",
                    {times(dp / best), times(ex / best), ms(dp), ms(best)}));
  } else {
    n.push_back(say("The lecture says the search is about 770x faster than data parallel (the slides' DLRM figure: about 10x); here "
                    "{0}. Both are far beyond the slides because the tables are large and the network slow. Data parallelism "
                    "all-reduces the 2 GB of tables (5.12e8 parameters x 4 B) every step: in a ring each of the 8 GPUs sends "
                    "2 x 7/8 of them, {1} in all, which is the 'parameter sync bytes' Exercise 7 shows.",
                    "讲义说搜索比数据并行快约 770 倍（slides 上的 DLRM 图约 10 倍）；这里是 {0}。两者都远超 slides，因为嵌入表大、"
                    "网络慢。数据并行每步对 2 GB 的嵌入表（5.12e8 个参数 × 4 B）做 all-reduce：环形算法里 8 块卡每块发送其中的 "
                    "2 × 7/8，合计 {1}，也就是练习 7 显示的“参数同步字节数”。",
                    {times(dp / best), fmt("%.1f GiB", number_at(r, "dp.param_sync_bytes") / 1073741824.0)}));
  }
}

// 4.4: MCMC against the exhaustive optimum.
void mcmc_vs_exhaustive(const Json& r, Notes& n) {
  const double best = number_at(r, "exhaustive.best_ms"), exact = number_at(r, "exact"), near = number_at(r, "within_2_percent");
  if (!all_finite({best, exact, near})) return;
  n.push_back(say("The lecture says the optimum is 1.302 ms and 3 of 10 runs find it, the rest within 2%; here the optimum is {0}, "
                  "{1} of 10 runs find it and {2} of 10 are within 2%. The optimum's time differs with the cost constants; the "
                  "finding (MCMC reaches or nearly reaches the optimum in a tenth of the space) is the same.",
                  "讲义说最优为 1.302 ms，10 次中 3 次找到，其余在 2% 以内；这里最优为 {0}，10 次中 {1} 次找到，{2} 次在 2% 以内。"
                  "最优的时间随代价常数而不同；结论（MCMC 在不到十分之一的空间里达到或接近最优）相同。",
                  {fmt("%.4f ms", best), fmt("%.0f", exact), fmt("%.0f", near)}));
}

// 4.4: the beta sweep.
void beta_sweep(const Json& r, Notes& n) {
  if (!r.contains("sweep") || !r["sweep"].is_array() || r["sweep"].empty()) return;
  double best_beta = 0, best_ms = 1e300, at500 = std::nan("");
  for (const auto& p : r["sweep"]) {
    const double b = number_at(p, "beta"), m = number_at(p, "mean_best_ms");
    if (!all_finite({b, m})) return;
    if (m < best_ms) best_ms = m, best_beta = b;
    if (b == 500) at500 = m;
  }
  if (best_beta == 500) return;
  n.push_back(say("The lecture says beta = 500 is best on this problem; here beta = {0} is ({1} mean best; beta 500: {2}). The cost "
                  "difference is divided by the initial cost in both, so beta has no unit, but the best beta still depends on how "
                  "far apart neighbouring strategies' costs are, which follows the cost constants: under this cost model a greedier "
                  "chain does slightly better in 2,000 steps. The shape is the lecture's: a tiny beta is a random walk, a large one "
                  "is nearly as good as the best.",
                  "讲义说这个问题上 β = 500 最好；这里是 β = {0}（平均最好 {1}；β 500：{2}）。两边都把代价差除以初始代价，所以 β "
                  "没有单位，但最好的 β 仍取决于相邻策略的代价差多少，这随代价常数而变：在这个代价模型下，2,000 步里更贪心的链"
                  "略好一些。形状和讲义相同：β 很小等于乱走，很大时几乎和最好的一样好。",
                  {fmt("%g", best_beta), ms(best_ms), std::isfinite(at500) ? ms(at500) : std::string("-")}));
}

// 5.5: the Megatron layer's meshes.
void megatron(const Json& r, Notes& n) {
  if (!r.contains("all_meshes") || !r["all_meshes"].contains("best_mesh") || !r["all_meshes"]["best_mesh"].is_string()) return;
  const std::string best = r["all_meshes"]["best_mesh"].get<std::string>();
  if (best == "4x2") {
    // The same choice as the lecture's; its milliseconds are not.
    std::string list;
    if (r["all_meshes"].contains("meshes"))
      for (const auto& m : r["all_meshes"]["meshes"])
        list += (list.empty() ? "" : ", ") + m.value("mesh", std::string()) + " " + ms(number_at(m, "objective"));
    n.push_back(say("The lecture says the best logical mesh is 4 x 2 (4-way tensor x 2-way data parallel) at 5.13 ms, 8-way tensor "
                    "parallel 5.36 ms, data parallel 6.92 ms; here 4 x 2 is best too, but the objectives are {0}, because the layer's "
                    "sizes and this cluster's PCIe links are not the lecture script's (the notes give neither): the same choice and "
                    "the same split of the ops, other milliseconds.",
                    "讲义说最好的逻辑网格是 4 × 2（4 路张量并行 × 2 路数据并行），5.13 ms；8 路张量并行 5.36 ms，数据并行 6.92 ms；"
                    "这里最好的也是 4 × 2，但目标值是 {0}，因为这一层的大小和这个集群的 PCIe 连接都不是讲义脚本的（讲义两者都没有"
                    "给出）：同样的选择、同样的算子切法，毫秒数不同。",
                    {list}));
    return;
  }
  n.push_back(say("The lecture says the best logical mesh is 4 x 2 (4-way tensor x 2-way data parallel: 5.13 ms; 8-way tensor "
                  "parallel 5.36 ms, data parallel 6.92 ms); here it is {0} (every mesh's objective is listed above), because the "
                  "per-axis link costs differ: in this cluster a node's 8 GPUs share PCIe at 16 GB/s, the same on both axes of any "
                  "1-node mesh, so the mesh only changes how the traffic divides. The split of the ops (Megatron's) is the same.",
                  "讲义说最好的逻辑网格是 4 × 2（4 路张量并行 × 2 路数据并行：5.13 ms；8 路张量并行 5.36 ms，数据并行 6.92 ms）；"
                  "这里是 {0}（上面列出了每个网格的目标值），因为每个轴的连接代价不同：这个集群里一个节点的 8 块卡共享 16 GB/s 的 "
                  "PCIe，单节点网格的两个轴一样，网格只改变流量怎么分。各算子的切法（Megatron 的）相同。",
                  {best}));
}

// 6.3: the GPT-style pipeline.
void gpt_pipeline(const Json& r, Notes& n) {
  if (!r.contains("plan") || !r["plan"].contains("stages") || !r["plan"]["stages"].is_array()) return;
  const Json& stages = r["plan"]["stages"];
  bool whole_nodes = stages.size() == 4;
  for (const auto& st : stages) whole_nodes = whole_nodes && number_at(st, "submesh.0") == 1 && number_at(st, "submesh.1") == 8;
  if (whole_nodes) return;
  const double total = number_at(r, "plan.total_latency");
  const double lecture_plan = number_at(r, "lecture_plan.total_latency");
  std::string shape = stages.empty() ? "" : fmt("%.0f", number_at(stages[0], "submesh.0")) + " x " + fmt("%.0f", number_at(stages[0], "submesh.1"));
  n.push_back(say("The lecture says Alpa puts one stage on each node (4 stages of 8 GPUs, each 4-way tensor x 2-way data parallel, "
                  "Megatron-LM 2021's hand-made plan); here the DP finds {0} stages on {1} sub-meshes, total {2}. {3}Inside a node this "
                  "cluster joins its GPUs by PCIe at 16 GB/s, not NVLink, so tensor and data parallelism over 8 GPUs pay more than "
                  "two pipeline stages of 4 GPUs each pay at their boundary, and with 32 micro-batches the bubble of the extra "
                  "stages is small.",
                  "讲义说 Alpa 在每个节点上放一级（4 级、每级 8 块卡，4 路张量并行 × 2 路数据并行，就是 Megatron-LM 2021 的手工方案）；"
                  "这里动态规划找到 {0} 级、子网格 {1}，总计 {2}。{4}这个集群的节点内用 16 GB/s 的 PCIe 而不是 NVLink 连接，"
                  "所以 8 块卡上的张量并行和数据并行，比两个各 4 块卡的流水线级在边界上付出的更多；而 32 个 micro-batch 时，多出来的"
                  "级带来的空泡很小。",
                  {std::to_string(stages.size()), shape, ms(total),
                   std::isfinite(lecture_plan) ? fmt("The lecture's plan costs %.1f ms here. ", lecture_plan) : std::string(),
                   std::isfinite(lecture_plan) ? fmt("讲义的方案在这里要 %.1f ms。", lecture_plan) : std::string()}));
}

// 6.3: wide ResNet's weak scaling (the runner's own findings say why; the note puts the numbers side by side).
void wide_resnet(const Json& r, Notes& n) {
  if (!r.contains("weak_scaling") || !r["weak_scaling"].is_array() || r["weak_scaling"].empty()) return;
  const Json& last = r["weak_scaling"].back();
  const double alpa = number_at(last, "alpa.efficiency"), intra = number_at(last, "intra-only.efficiency"),
               inter = number_at(last, "inter-only.efficiency");
  if (!all_finite({alpa, intra, inter})) return;
  n.push_back(say("The lecture says that from 1 to 4 nodes Alpa keeps 91% of the throughput per GPU, intra-op only 47%, inter-op "
                  "only 87% (the paper measures 80% for Alpa); here {0}, {1} and {2}. This cluster's nodes are joined by 10 Gb/s "
                  "Ethernet, a tenth of the paper's network: a stage boundary across nodes costs about as much as a stage, so no "
                  "plan keeps its throughput across nodes. The lecture's estimate is, in its own words, optimistic.",
                  "讲义说从 1 个节点到 4 个节点，Alpa 的每卡吞吐保持 91%，只用算子内 47%，只用算子间 87%（论文测得 Alpa 80%）；"
                  "这里是 {0}、{1} 和 {2}。这个集群的节点之间是 10 Gb/s 以太网，只有论文网络的十分之一：跨节点的级边界和一个级"
                  "本身差不多贵，所以没有哪种方案能跨节点保持吞吐。讲义自己也说它的估算偏乐观。",
                  {fmt("%.0f%%", 100 * alpa), fmt("%.0f%%", 100 * intra), fmt("%.0f%%", 100 * inter)}));
}

}  // namespace

std::vector<Bilingual> versus_lecture(const std::string& name, const Json& results) {
  Notes n;
  if (!results.is_object()) return n;
  if (name == "space-sizes") space_sizes(results, n);
  else if (name == "alexnet-strategies") alexnet_strategies(results, n);
  else if (name == "task-graph") task_graph(results, n);
  else if (name == "simulator-accuracy") simulator_accuracy(results, n);
  else if (name == "simulator-speed") simulator_speed(results, n);
  else if (name == "mcmc-alexnet") mcmc("alexnet", results, n);
  else if (name == "mcmc-dlrm") mcmc("dlrm", results, n);
  else if (name == "mcmc-vs-exhaustive") mcmc_vs_exhaustive(results, n);
  else if (name == "beta-sweep") beta_sweep(results, n);
  else if (name == "megatron") megatron(results, n);
  else if (name == "gpt-pipeline") gpt_pipeline(results, n);
  else if (name == "wide-resnet") wide_resnet(results, n);
  return n;
}

}  // namespace autopar
