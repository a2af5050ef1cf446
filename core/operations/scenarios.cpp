// The lecture's demos as data. See scenarios.h.
#include "scenarios.h"

#include <sstream>

#include "number_text.h"
#include "report_text.h"

namespace autopar {
namespace {
// gpt3-1024's findings from its plan's `inter --json` report, in both languages.
Status gpt3_findings(const Json& j, Json& r, std::vector<Bilingual>& f) {
  r["plan"] = j;
  int gpus = 0;
  for (const auto& st : j["stages"]) gpus += st["submesh"][0].get<int>() * st["submesh"][1].get<int>();
  r["gpus_used"] = gpus;
  f.push_back(say("{0} stages on {1} GPUs, total {2} per iteration of 64 micro-batches", "{0} 级，共 {1} 块卡，每次迭代（64 个 micro-batch）总计 {2}",
                  {std::to_string(j["stages"].size()), std::to_string(gpus), format_ms(j["total_latency"].get<double>())}));
  for (const auto& st : j["stages"])
    f.push_back(say("layers {0}-{1} on ({2},{3}) as {4}: {5}", "第 {0}-{1} 层，子网格 ({2},{3})，逻辑网格 {4}：{5}",
                    {std::to_string(st["layers"][0].get<int>()), std::to_string(st["layers"][1].get<int>()),
                     std::to_string(st["submesh"][0].get<int>()), std::to_string(st["submesh"][1].get<int>()),
                     st["logical_mesh"].get<std::string>(), format_ms(st["latency"].get<double>())}));
  f.push_back(say("{0} intra-op solves reused from identical layers; the DP tried {1} of {2} t_max candidates",
                  "{0} 次算子内求解从相同的层复用；动态规划尝试了 {2} 个 t_max 候选中的 {1} 个",
                  {std::to_string(j["reused_solves"].get<int>()), std::to_string(j["t_max_tried"].get<int>()),
                   std::to_string(j["t_max_candidates"].get<int>())}));
  f.push_back(say("planned in {0} (stage costs {1}, DP {2}) on this machine", "在本机上规划用时 {0}（级代价 {1}，动态规划 {2}）",
                  {fmt("%.1f s", j["elapsed_ms"].get<double>() / 1000), fmt("%.1f s", j["phases"]["stage_costs"]["elapsed_ms"].get<double>() / 1000),
                   fmt("%.2f s", j["phases"]["dp"]["elapsed_ms"].get<double>() / 1000)}));
  return Ok{};
}

}  // namespace

const PlannedScenario* planned_scenario(const std::string& name) {
  // Mixed precision, as GPT-3 was trained (Brown et al. 2020, section 2.3).
  static const PlannedScenario gpt3{"transformer:layers=96,hidden=12288,heads=96,seq=2048,batch=1536,dtype_bytes=2", "a100:128x8,precision=mixed", 64,
                                    gpt3_findings};
  return name == "gpt3-1024" ? &gpt3 : nullptr;
}

namespace {

// One entry of Scenario::shows.
Json shown(const std::string& result_path, const Json& value) { return Json{{"result", result_path}, {"value", value}}; }

// Lecture parts 2 and 3: the SOAP space and the simulator.
void add_simulation_scenarios(std::vector<Scenario>& s) {
  s.push_back({"conv1d-splits", "2.2", {"One convolution, six ways to split it", "同一个卷积，六种切法"},
               {"A 1-D convolution (n=8, c_in=16, c_out=32, L=64, k=3) split over 4 GPUs along Sample, Attribute and Parameter: "
                "every split gives the single-GPU result, but costs differ: sample splits replicate the weights (and sync their "
                "gradients), parameter splits read the whole input, attribute splits also read a halo of k-1 positions.",
                "一个 1-D 卷积（n=8, c_in=16, c_out=32, L=64, k=3）沿样本（Sample）、属性（Attribute）和参数（Parameter）维切到 4 块卡上："
                "每种切法都得到和单卡相同的结果，但代价不同：样本维复制权重（还要同步梯度），参数维要读完整的输入，"
                "属性维还要多读 k-1 个位置的光晕（halo）。"}});
  s.push_back({"space-sizes", "2.3", {"How large the SOAP space is", "SOAP 空间有多大"},
               {"Degrees are powers of two and parts go to aligned blocks of devices; even so AlexNet (8 ops) and DLRM (16 ops) on 8 "
                "GPUs have astronomically many strategies (the lecture's code counts 3.3e11 and 3.7e22 with slightly different op "
                "dimensions).",
                "并行度限制为二的幂、设备按块对齐；即便如此，AlexNet（8 个算子）和 DLRM（16 个算子）在 8 块卡上的策略数仍是天文数字"
                "（讲义的代码算子维度略有不同，数出 3.3e11 和 3.7e22 种）。"}});
  s.push_back({"alexnet-strategies", "2.3", {"AlexNet under data parallel, model parallel, expert and random strategies",
                                              "AlexNet 的数据并行、模型并行、专家策略与随机策略"},
               {"Batch 256 on 2 nodes x 4 GPUs: data parallelism all-reduces 244 MB of weights across the slow network, model "
                "parallelism serialises the layers, the expert strategy (convolutions data parallel, fully connected layers split "
                "by parameter inside a node) is several times faster; random strategies land in between. Good strategies are rare.",
                "batch 256、2 节点 × 4 卡：数据并行（data parallel）要跨慢速网络对 244 MB 权重做 all-reduce，模型并行（model parallel）"
                "把各层串行起来，专家策略（卷积数据并行、全连接层在一个节点内按参数切）快好几倍；随机策略落在两者之间。好策略稀少。"}});
  s.push_back({"task-graph", "3.2", {"The task graph of embedding -> linear -> linear (FlexFlow Fig. 5)",
                                      "嵌入 → 线性 → 线性的任务图（task graph，FlexFlow 图 5）"},
               {"The three-layer network of the FlexFlow paper on 2 GPUs: the embedding whole on GPU 0, the first linear split by "
                "sample over both GPUs, the second whole on GPU 1. Every compute task, transfer task on a link and parameter-sync "
                "task is listed with its ready, start and end time, by the simulation rule of Algorithm 1.",
                "FlexFlow 论文的三层网络放在 2 块卡上：嵌入整个放在 GPU 0，第一个线性层按样本切到两块卡上，第二个整个放在 GPU 1。"
                "按算法 1 的模拟规则，列出每个计算任务、连接上的传输任务和参数同步任务的就绪、开始和结束时间。"}});
  s.push_back({"simulator-accuracy", "3.4", {"How accurate the simulator is, and where it matters", "模拟器准不准，在哪里要紧"},
               {"300 random strategies simulated by the ideal simulator, by a calibrated one (message-size-aware bandwidth), and by a "
                "finer 'real execution' model (jittered compute, 20 us per task, bandwidth efficiency bytes/(bytes + 1 MB)). AlexNet's "
                "large messages keep the ranking; DLRM's best strategies are made of small messages, exactly where the ideal "
                "simulator is wrong, and calibration restores the ranking of the best.",
                "300 个随机策略分别由理想模拟器、校准后的模拟器（按消息大小调整带宽）和更细的“真实执行”模型"
                "（计算时间有随机波动、每个任务 20 us、带宽效率 = 字节数/(字节数 + 1 MB)）来模拟。AlexNet 的大消息保持了排序；"
                "DLRM 的好策略由小消息组成，恰好是理想模拟器出错的地方，校准后最好的那些策略的排序得以恢复。"}});
  s.push_back({"simulator-speed", "3.5", {"How fast the simulator is compared with the iteration it simulates", "模拟器比它模拟的迭代快多少"},
               {"The simulator evaluates a strategy in microseconds while the simulated training iteration takes milliseconds: "
                "the ratio is what lets a search try thousands of strategies.",
                "模拟器评估一个策略只要几微秒，而被模拟的训练迭代要几毫秒：正是这个比例让搜索能尝试成千上万个策略。"}});
}

// Lecture part 4: the MCMC search.
void add_search_scenarios(std::vector<Scenario>& s) {
  for (const char* m : {"alexnet", "dlrm"}) {
    std::string model = m;
    s.push_back({"mcmc-" + model, "4.2", say("MCMC search on {0} with the time breakdown", "{0} 上的 MCMC 搜索与时间分解", {model}),
                 model == "alexnet" ? Bilingual{"From data parallel, Metropolis-Hastings finds a strategy faster than the expert one: convolutions "
                                                "split, fully connected layers no longer replicated on all 8 GPUs, trading parameter sync for "
                                                "some activation transfer.",
                                                "从数据并行出发，Metropolis-Hastings 找到一个比专家策略更快的策略：卷积层切开，全连接层不再在"
                                                "全部 8 块卡上复制，用一些激活传输换掉参数同步。"}
                                    : Bilingual{"Data parallelism all-reduces 2 GB of embedding tables across the network; the search keeps each "
                                                "table unreplicated and moves only the looked-up rows.",
                                                "数据并行要跨网络对 2 GB 的嵌入表做 all-reduce；搜索让每张表不复制，只传查出来的行。"}});
  }
  s.push_back({"mcmc-vs-exhaustive", "4.4", {"Does MCMC find the optimum? Three linear layers on 8 GPUs", "MCMC 能搜到最优吗？8 块卡上的三个线性层"},
               {"17,576 strategies are few enough to enumerate: the global optimum is known, and 10 MCMC runs of 1,500 steps (under a "
                "tenth of the space) are compared with it.",
                "17,576 种策略少到可以穷举：全局最优已知，拿 10 次各 1,500 步（不到空间的十分之一）的 MCMC 和它比较。"}});
  s.push_back({"beta-sweep", "4.4", {"What beta does", "β 的作用"},
               {"AlexNet from data parallel, 2,000 steps, 5 seeds per beta: a small beta accepts almost anything (a random walk), a "
                "large one is greedy. The mean best time per beta is plotted in the page's Lecture panel.",
                "AlexNet 从数据并行出发，2,000 步，每个 β 取 5 个种子：β 太小几乎什么都接受（等于乱走），太大则是贪心。"
                "页面的“讲义”面板画出每个 β 的平均最好时间。"}});
}

// Lecture parts 5 to 7: Alpa's intra- and inter-op passes, and both planners compared.
void add_alpa_scenarios(std::vector<Scenario>& s) {
  s.push_back({"resharding-table", "5.2", {"Resharding between sharding specs on a 2 x 4 mesh", "2 × 4 网格上分片规格之间的重分片"},
               {"Comparing source and target mesh axis by mesh axis gives each resharding's collectives (Alpa Table 2); the same "
                "operation along axis 0, which crosses nodes, costs an order of magnitude more than along axis 1.",
                "逐个网格轴比较源和目标，得出每种重分片（resharding）需要的集合通信（Alpa 表 2）；同样的操作，沿跨节点的轴 0 "
                "比沿轴 1 贵一个数量级。"}});
  s.push_back({"linear-nine", "5.3", {"The nine ways to run one Linear layer on a 2 x 4 mesh", "2 × 4 网格上一个 Linear 层的九种切法"},
               {"Y[b,j] = sum_i X[b,i] W[i,j], 8,192 tokens x 4096 -> 4096: each mesh axis goes to b (data parallel), i (row) or j "
                "(column). The plan puts data parallelism on the slow axis 0 and tensor parallelism on the fast axis 1.",
                "Y[b,j] = sum_i X[b,i] W[i,j]，8,192 token × 4096 → 4096：每个网格轴分给 b（数据并行）、i（行并行）或 j（列并行）。"
                "方案把数据并行放在慢的轴 0 上，张量并行放在快的轴 1 上。"}});
  // Asks before it tells (the Welcome dialog's first suggestion): the explanation sets the
  // problem, the question asks for the split, and the telling is the answer's "why".
  s.push_back({"megatron", "5.5", {"Megatron-LM rediscovered, logical meshes compared, and the 2-node surprise",
                                    "重新发现 Megatron-LM、比较逻辑网格，以及 2 节点的意外"},
               {"One transformer layer as a chain (QKV projection -> attention core -> output projection -> FFN1 -> FFN2) on one "
                "node of 8 GPUs, then on 2 nodes x 8 GPUs. Nobody tells the intra-op pass how Megatron-LM splits a layer: it "
                "chooses every op's split from the costs alone. Before the numbers, predict what it finds.",
                "一个 transformer 层作为一条链（QKV 投影 → 注意力核心 → 输出投影 → FFN1 → FFN2），先放在一个节点的 8 块卡上，"
                "再放在 2 节点 × 8 卡上。没有人告诉算子内 pass（intra-op pass）Megatron-LM 怎样切一层：它只根据代价为每个算子选切法。"
                "看数字之前，先预测它会找到什么。"}});
  s.back().question = ScenarioQuestion{
      {"On one node of 8 GPUs, how does the intra-op pass split the five ops?", "在一个节点的 8 块卡上，算子内 pass 怎样切这五个算子？"},
      {{"every op data parallel: the batch split 8 ways, the weights replicated", "每个算子都数据并行：batch 切成 8 份，权重复制"},
       {"every op by column (its output features split 8 ways)", "每个算子都按列切（输出特征切成 8 份）"},
       {"QKV by column, attention by heads, output projection by row, FFN1 by column, FFN2 by row",
        "QKV 按列、注意力按头、输出投影按行、FFN1 按列、FFN2 按行"},
       {"each op whole on its own GPUs, one after another (a pipeline inside the layer)", "每个算子整个放在自己的几块卡上，一个接一个（层内流水线）"}},
      2,
      {"Column then row: a column split leaves each GPU a slice of the features, which the next op's row split (or the "
       "attention's split by heads) consumes where it is, so nothing is resharded between the ops and only the row-split "
       "ops' outputs need an all-reduce, two per layer: exactly Megatron-LM's split (lecture 14), found from the costs. On "
       "2 nodes x 8 GPUs it puts tensor parallelism across the nodes: a micro-batch's activations are small next to the "
       "layer's 200M weights, whose gradients data parallelism would all-reduce over the slow network.",
       "先按列再按行：按列切让每块卡留下一部分特征，下一个算子按行切（或注意力按头切）时就地使用，算子之间不需要重分片，"
       "只有按行切的算子的输出需要 all-reduce，每层两次：这正是 Megatron-LM 的切法（第 14 讲），从代价里推出来的。在 2 节点 × "
       "8 卡上，它把张量并行放到节点之间：一个 micro-batch 的激活比这一层 200M 的权重小得多，而数据并行要在慢速网络上对这些"
       "权重的梯度做 all-reduce。"}};
  // Asks before it tells: the lecture's answer (one stage per node) is not this cluster's.
  s.push_back({"gpt-pipeline", "6.3", {"Inter-op plan of a GPT-style model on 4 x 8 GPUs", "4 × 8 卡上 GPT 式模型的算子间方案"},
               {"24 transformer layers, 32 micro-batches on 4 nodes x 8 GPUs (PCIe inside a node, 10 Gb/s Ethernet between nodes): "
                "the DP slices the layers into pipeline stages on sub-meshes and picks each stage's logical mesh. Before the numbers, "
                "predict its slicing.",
                "24 个 transformer 层、32 个 micro-batch，放在 4 节点 × 8 卡上（节点内 PCIe，节点间 10 Gb/s 以太网）：动态规划（DP）"
                "把各层切成流水线（pipeline）的级，放到子网格上，并为每一级选逻辑网格。看数字之前，先预测它怎么切。"}});
  s.back().question = ScenarioQuestion{
      {"How does the DP slice the 24 layers on this cluster?", "在这个集群上，动态规划怎样切这 24 层？"},
      {{"one stage per node: 4 stages of 8 GPUs, tensor and data parallel inside (the lecture's and Megatron-LM's plan)",
        "每个节点一级：4 级、每级 8 块卡，级内张量并行和数据并行（讲义和 Megatron-LM 的方案）"},
       {"stages of half a node: 8 stages of 4 GPUs, every stage inside a node", "半个节点一级：8 级、每级 4 块卡，每一级都在一个节点内"},
       {"one stage over all 32 GPUs: no pipeline, only tensor and data parallelism", "一级用全部 32 块卡：不用流水线，只用张量并行和数据并行"},
       {"24 stages of one layer each", "24 级，每级一层"}},
      1,
      {"8 stages of half a node. Stages stay inside nodes, where tensor and data parallelism are cheap, as the lecture says; but "
       "this cluster joins a node's GPUs by PCIe at 16 GB/s, not NVLink, so tensor and data parallelism over 8 GPUs cost more "
       "than a pipeline boundary between two 4-GPU stages, and with 32 micro-batches the bubble of the extra stages is small. "
       "The lecture's plan, priced by the same cost model, is far slower here (the findings give both).",
       "8 级，每级半个节点。级留在节点内部，那里张量并行和数据并行便宜，这一点和讲义一致；但这个集群的节点内用 16 GB/s 的 PCIe "
       "而不是 NVLink 连接，所以 8 块卡上的张量并行和数据并行，比两个 4 卡级之间的流水线边界更贵；而 32 个 micro-batch 时，"
       "多出来的级带来的空泡很小。讲义的方案用同一个代价模型定价，在这里慢得多（结果里给出两者）。"}};
  // Lecture 6.4, self-contained: one pipeline boundary priced by the same model as `inter`.
  s.push_back({"cross-mesh-resharding", "6.4", {"Cross-mesh resharding: send/recv and Alpa's local all-gather",
                                                 "跨网格的重分片：send/recv 与 Alpa 的 local all-gather"},
               {"A stage on a (1,2) sub-mesh of node 0 hands a 4 MiB activation (2 x 512 x 1024 floats: one micro-batch of the "
                "24-layer transformer) to the next stage, on a (1,4) sub-mesh of node 1 whose tensor-parallel layer needs it "
                "replicated on all 4 GPUs. Plain send/recv sends every receiver its own copy over the 10 GbE link; Alpa sends "
                "one copy, a quarter to each receiver, and all-gathers it inside node 1 over the fast links. `autopar inter` "
                "prices every boundary this way (unless --ignore-boundaries).",
                "节点 0 的 (1,2) 子网格上的一级把 4 MiB 的激活（2 × 512 × 1024 个 float：24 层 transformer 的一个 micro-batch）"
                "交给下一级；下一级在节点 1 的 (1,4) 子网格上，它的张量并行层需要这份激活在全部 4 块卡上复制。"
                "普通的 send/recv 经 10 GbE 连接给每个接收者各发一份；Alpa 只发一份，每个接收者收四分之一，再在节点 1 内部"
                "经高速连接做 all-gather。`autopar inter` 按这种方式为每个级边界定价（除非 --ignore-boundaries）。"}});
  s.push_back({"wide-resnet", "6.3", {"Wide-ResNet: data parallel early, channels split late; weak scaling",
                                       "宽 ResNet：前面的层数据并行，后面的层切通道；弱扩展"},
               {"Early layers have large activations and small weights (data parallel), late layers the reverse (channel splits). "
                "Weak scaling from 1 to 4 nodes with a fixed batch per node compares inter + intra (Alpa), intra-only and inter-only.",
                "前面的层激活大、权重小（数据并行），后面的层相反（切通道）。每节点 batch 固定，从 1 个节点弱扩展到 4 个节点，"
                "比较算子间 + 算子内（Alpa）、只用算子内和只用算子间。"}});
  // Section 6.5: Alpa's compilation takes hours at its largest size; the analytic planner's
  // growth is measured by `autopar bench --planner`.
  s.push_back({"gpt3-1024", "6.5", {"GPT-3 175B on 1,024 GPUs, planned in minutes where Alpa takes hours", "1,024 块卡上的 GPT-3 175B：几分钟规划完（Alpa 要几个小时）"},
               {"GPT-3 175B (96 layers of 12288, 96 heads, batch 1536 of 2048 tokens) on 128 nodes x 8 A100 with 64 micro-batches. "
                "Alpa compiles and profiles for hours at this size; here the stage costs are analytic, every transformer layer is "
                "the same so its intra-op plans are shared, and the DP skips runs of t_max candidates that cannot beat the best plan. "
                "The plan uses all 1,024 GPUs: a few pipeline stages of whole nodes, each on its best logical mesh.",
                "GPT-3 175B（96 层、宽 12288、96 个头，batch 1536、每条 2048 token）放在 128 节点 × 8 块 A100 上，64 个 micro-batch。"
                "在这个规模上 Alpa 要编译和实测几个小时；这里级的代价是解析计算的，所有 transformer 层相同，它们的算子内方案共享，"
                "动态规划还跳过那些不可能胜过最好方案的 t_max 候选。方案用满全部 1,024 块卡：几个由整节点组成的流水线级，"
                "每级用它最好的逻辑网格。"}});
  // The cost model held against training runs that happened (`autopar validate --price-only`).
  s.push_back({"published-runs", "6.5", {"Predicted against measured: published training runs", "预测与实测：已发表的训练运行"},
               {"Each row is a run someone published: Megatron-LM's SC'21 Table 1, Korthikanti et al. 2022's Table 5 (full recomputation, "
                "and sequence parallelism with selective recomputation), BLOOM 176B, Alpa's own benchmark, NVIDIA's DGX H100 recipe runs "
                "(GPT-3 175B, Llama 3 8B with FSDP and 70B, in FP8). autopar prices "
                "exactly the plan that run used (t, p, d, micro-batch size, interleaving, recomputation, sequence parallelism) on a cluster of the same "
                "size, under its calibrated cost model (kernel efficiency, NCCL bus bandwidth, overlap, optimizer step), and compares "
                "the predicted iteration time with the measured one.",
                "每一行都是别人发表过的一次训练：Megatron-LM 的 SC'21 表 1、Korthikanti 等人 2022 年的表 5（完全重计算，以及序列并行加选择性重计算）、"
                "BLOOM 176B、Alpa 自己的基准、NVIDIA 在 DGX H100 上的配方运行（GPT-3 175B、用 FSDP 的 Llama 3 8B 和 70B，FP8）。autopar 在同样大小的集群上，"
                "用校准过的代价模型（kernel 效率、NCCL 总线带宽、通信重叠、优化器步骤）为那次运行实际用的方案（t、p、d、micro-batch "
                "大小、交错、重计算、序列并行）定价，并把预测的迭代时间和实测的比较。"}});
  s.push_back({"flexflow-vs-alpa", "7", {"FlexFlow and Alpa on the same model and cluster", "同一个模型和集群上的 FlexFlow 与 Alpa"},
               {"MCMC over the flat SOAP space against Alpa's pipeline (inter-op stages, an exact intra-op solve for each), both plans "
                "simulated by the same simulator: Alpa's micro-batch by micro-batch, with each stage boundary as send/recv transfer tasks.",
                "在扁平的 SOAP 空间上做 MCMC，对比 Alpa 的流水线（算子间的级，每级做一次精确的算子内求解）；两个方案由同一个模拟器"
                "模拟：Alpa 的方案逐个 micro-batch 模拟，每个级边界是 send/recv 传输任务。"}});
}

// Issue 41: the sequence dimension as both planners now search it (lecture 2.1's Attribute
// dimension, 5.5's sharding specs), appended after the lecture's own scenarios.
void add_sequence_scenarios(std::vector<Scenario>& s) {
  s.push_back({"sequence-parallel", "5.5", {"The ILP rediscovers sequence parallelism", "ILP 重新发现序列并行"},
               {"Four Megatron-sized transformer layers (hidden 8192, 64 heads, 2 x 2,048 tokens) on one node of 8 A100s, as in the "
                "megatron scenario, but with norms and residual adds in the graph and with strategies along the sequence in the "
                "intra-op space: a row-parallel linear may reduce-scatter its output to a split of the sequence instead of "
                "all-reducing it, a column-parallel one may all-gather its input from that split, and norms and adds may run on "
                "their share of the positions. Nobody tells the ILP about Korthikanti et al.'s sequence parallelism (2022, section "
                "4.2.2). It plans the layers on 80 GB GPUs, then on GPUs of 9 GB (below what the tensor-parallel plan needs), "
                "then on 9 GB without the sequence strategies.",
                "四个 Megatron 规模的 transformer 层（宽 8192、64 个头、2 × 2,048 个 token）放在一个节点的 8 块 A100 上，和 megatron "
                "场景一样，但图里有归一化和残差加法，算子内空间里也有沿序列的策略：按行并行的线性层可以把输出 reduce-scatter "
                "成序列的切分，而不是 all-reduce；按列并行的线性层可以从这种切分 all-gather 输入；归一化和加法可以只算自己那部分位置。"
                "没有人告诉 ILP Korthikanti 等人的序列并行（2022，第 4.2.2 节）。它先在 80 GB 的卡上规划，再在 9 GB 的卡上"
                "（低于张量并行方案所需），最后在 9 GB、没有序列维策略时规划。"}});
  s.push_back({"context-parallel", "2.1", {"SOAP's attribute dimension is context parallelism", "SOAP 的属性维就是上下文并行"},
               {"Lecture 2.1 lists the positions of a sequence among SOAP's Attribute dimensions. Split attention along them and "
                "each GPU computes the outputs of its own positions, reading every position's keys and values: context "
                "parallelism. Two transformer layers with one sequence of 16,384 tokens (batch 1, so there is no batch to split) "
                "on 8 GPUs: the space with and without that dimension, data parallelism, Megatron's split, every op split along "
                "the sequence, and what MCMC finds from data parallelism, all priced by the same simulator.",
                "讲义 2.1 把序列中的位置列为 SOAP 的属性维之一。沿位置切注意力，每块卡计算自己那些位置的输出，读取所有位置的 key "
                "和 value：这就是上下文并行（context parallelism）。两个 transformer 层、一条 16,384 token 的序列（batch 1，"
                "没有 batch 可切），放在 8 块卡上：有无这一维时的空间大小、数据并行、Megatron 的切法、每个算子都沿序列切，"
                "以及 MCMC 从数据并行出发找到的策略，全部由同一个模拟器定价。"}});
}

// Today's memory savers side by side on one GPU's 80 GB (issue 41): the plan knobs of `memory --plan`.
void add_memory_scenarios(std::vector<Scenario>& s) {
  s.push_back({"fits-on-80gb", "6.5", {"What fits on 80 GB: recomputation vs SP vs ZeRO vs CP", "80 GB 里放得下什么：重计算、SP、ZeRO 与 CP"},
               {"Llama-2-7B at 32K tokens (batch 4) on one node of 8 H100 (80 GB each), as t=2, d=4: `autopar memory --plan` per GPU for "
                "the plan as it is and with one memory saver at a time: selective or full recomputation, sequence parallelism, ZeRO-1 or "
                "ZeRO-3, context parallelism (cp=2 instead of t=2), then SP + full recomputation + ZeRO-1 together. Each saver shrinks "
                "something different: ZeRO the model states, SP and CP the activations, recomputation the activations kept for backward.",
                "32K token（batch 4）的 Llama-2-7B，放在一个 8 块 H100（每块 80 GB）的节点上，t=2、d=4：用 `autopar memory --plan` "
                "算出方案原样时每卡的显存，以及每次只加一种省显存手段时的显存：选择性或完全重计算、序列并行、ZeRO-1 或 ZeRO-3、"
                "上下文并行（用 cp=2 代替 t=2），最后 SP + 完全重计算 + ZeRO-1 一起用。每种手段省的东西不同：ZeRO 省模型状态，"
                "SP 和 CP 省激活，重计算省为反向保留的激活。"}});
  s.back().question = ScenarioQuestion{
      {"Which one change alone makes the plan fit on 80 GB?", "只改哪一项就能让这个方案放进 80 GB？"},
      {{"ZeRO-3 (FSDP): shard parameters, gradients and optimizer state", "ZeRO-3（FSDP）：把参数、梯度和优化器状态都分片"},
       {"sequence parallelism", "序列并行"},
       {"selective recomputation", "选择性重计算"},
       {"full recomputation", "完全重计算"}},
      3,
      {"Full recomputation. At 32K tokens the activations (about 83 GiB) outweigh the model states (about 50 GiB): ZeRO-3 cuts the "
       "states to a quarter and still leaves the activations over 80 GiB; SP splits only the LayerNorm, dropout and residual "
       "activations; selective recomputation saves nothing here, because the H100 preset runs FlashAttention, which never stores the "
       "s x s scores it drops. Keeping only each layer's input is what brings the activations down.",
       "完全重计算。32K token 时激活（约 83 GiB）比模型状态（约 50 GiB）还大：ZeRO-3 把状态减到四分之一，激活仍超过 80 GiB；"
       "SP 只切 LayerNorm、dropout 和残差的激活；选择性重计算在这里什么也省不了，因为 H100 预设用 FlashAttention，"
       "本来就不保存它要丢掉的 s x s 分数。只保留每层的输入，才能把激活降下来。"}};
}

// The scenario table, in lecture order: each entry's texts (its runner is scenario_runs.cpp's).
std::vector<Scenario> scenarios() {
  std::vector<Scenario> s;
  add_simulation_scenarios(s);
  add_search_scenarios(s);
  add_alpa_scenarios(s);
  add_sequence_scenarios(s);
  add_memory_scenarios(s);
  return s;
}

// The scenarios' page set-ups, set by name.
class PageSetups {
 public:
  using Shows = std::function<Json(const Json&, const std::vector<std::string>&)>;
  explicit PageSetups(std::vector<Scenario>& all) : all_(all) {}
  // Scenario `name` sets the page up with `setup`, opens `panel` and shows `shows(result, findings)`.
  void set(const std::string& name, Json setup, const std::string& panel, Shows shows) {
    for (auto& s : all_)
      if (s.name == name) {
        s.page = Json{{"setup", setup}, {"panel", panel}};
        s.shows = shows;
      }
  }

 private:
  std::vector<Scenario>& all_;
};

// The findings the page computes itself (its Lecture tab runs the same command), after `list`.
Json with_findings(Json list, const std::vector<std::string>& f) {
  list.push_back(shown("scenario.findings", f));
  return list;
}

// Lecture parts 2-4 (FlexFlow): SOAP, the simulator, MCMC.
void attach_flexflow_page_setups(PageSetups& p) {
  p.set("conv1d-splits", {{"model", "conv1d"}, {"cluster", "lecture:1x4"}, {"mesh", "1x4"}, {"strategy", "dp"}}, "model",
      [=](const Json& r, const std::vector<std::string>& f) {
        // The model's weights are what a sample split replicates on every device.
        Json l = Json::array();
        for (const auto& x : r["conv1d"]["splits"])
          if (x["degrees"]["sample"] == 4) l.push_back(shown("total_param_elements", x["weight_elements_per_device"]));
        return with_findings(l, f);
      });
  p.set("space-sizes", {{"model", "dlrm"}, {"cluster", "lecture:2x4"}, {"mesh", "2x4"}}, "model",
      [=](const Json& r, const std::vector<std::string>& f) {
        return with_findings(Json::array({shown("space.strategies", r["dlrm"]["strategies"]),
                                          shown("space.log10_strategies", r["dlrm"]["log10_strategies"])}), f);
      });
  p.set("alexnet-strategies", {{"model", "alexnet"}, {"cluster", "lecture:2x4"}, {"mesh", "2x4"}, {"strategy", "expert"}}, "strategy",
      [=](const Json& r, const std::vector<std::string>& f) {
        Json l = Json::array();
        for (const char* k : {"makespan_ms", "compute_ms", "activation_transfer_ms", "param_sync_ms"}) l.push_back(shown(k, r["expert"][k]));
        return with_findings(l, f);
      });
  p.set("task-graph", {{"model", "elm"}, {"cluster", "lecture:1x2"}, {"mesh", "1x2"}, {"strategy", "mp;embed=1x1@0;linear1=2x1@0;linear2=1x1@1"}},
      "strategy", [=](const Json& r, const std::vector<std::string>& f) {
        return with_findings(Json::array({shown("makespan_ms", r["simulate"]["makespan_ms"]), shown("tasks", r["tasks"].size())}), f);
      });
  p.set("simulator-accuracy", {{"model", "alexnet"}, {"cluster", "lecture:2x4"}, {"mesh", "2x4"}, {"seed", 1}, {"accuracy", {{"samples", 300}}}},
      "accuracy", [](const Json& r, const std::vector<std::string>&) {
        Json l = Json::array();
        for (const char* kind : {"ideal", "calibrated"})
          for (const char* k : {"mean_rel_error", "kendall_tau", "top_kendall_tau", "sim_best_true_rank"})
            l.push_back(shown(std::string("accuracy.") + kind + "." + k, r[std::string("alexnet_") + kind][k]));
        return l;
      });
  p.set("simulator-speed", {{"model", "alexnet"}, {"cluster", "lecture:2x4"}, {"mesh", "2x4"}, {"strategy", "expert"}}, "strategy",
      [](const Json& r, const std::vector<std::string>&) { return Json::array({shown("makespan_ms", r["alexnet"]["simulated_ms"])}); });
  for (const char* m : {"alexnet", "dlrm"})
    p.set(std::string("mcmc-") + m,
        {{"model", m}, {"cluster", "lecture:2x4"}, {"mesh", "2x4"}, {"strategy", "dp"}, {"beta", 500}, {"seed", 1},
         {"search", {{"steps", 3000}, {"init", "dp"}}}},
        "search", [](const Json& r, const std::vector<std::string>&) {
          return Json::array({shown("makespan_ms", r["dp"]["makespan_ms"]), shown("search.best_ms", r["search"]["best_ms"]),
                              shown("search.init_ms", r["search"]["init_ms"]), shown("search.step", r["search"]["steps"])});
        });
  p.set("mcmc-vs-exhaustive",
      {{"model", "mlp3"}, {"cluster", "lecture:1x8"}, {"mesh", "1x8"}, {"beta", 500}, {"seed", 1}, {"search", {{"steps", 1500}, {"init", "random"}}}},
      "search", [](const Json& r, const std::vector<std::string>&) {
        return Json::array({shown("search.best_ms", r["mcmc"][0]["best_ms"])});
      });
  p.set("beta-sweep", {{"model", "alexnet"}, {"cluster", "lecture:2x4"}, {"mesh", "2x4"}, {"beta", 500}}, "lecture",
      [=](const Json&, const std::vector<std::string>& f) { return with_findings(Json::array(), f); });
}

// Lecture parts 5-6 (Alpa): resharding, the intra-op pass, the inter-op pass.
void attach_alpa_page_setups(PageSetups& p) {
  p.set("resharding-table", {{"model", "mlp:layers=2,batch=1024,in=1024,hidden=1024,out=1024"}, {"cluster", "lecture:2x4"}, {"mesh", "2x4"}},
      "intra", [=](const Json&, const std::vector<std::string>& f) { return with_findings(Json::array(), f); });
  p.set("linear-nine", {{"model", "mlp:layers=1,batch=8192,in=4096,hidden=4096,out=4096"}, {"cluster", "lecture:2x4"}, {"mesh", "2x4"}}, "intra",
      [=](const Json& r, const std::vector<std::string>& f) {
        const Json& op = r["plan"]["ops"][0];
        return with_findings(Json::array({shown("objective", r["plan"]["objective"]), shown("intra_ops.0.strategy", op["strategy"]),
                                          shown("intra_ops.0.input_specs", op["input_specs"])}), f);
      });
  p.set("megatron", {{"model", "transformer-chain"}, {"cluster", "lecture:1x8"}, {"mesh", "1x8"}}, "intra",
      [=](const Json& r, const std::vector<std::string>& f) {
        const Json& one = r["one_node"];
        Json l = Json::array({shown("objective", one["objective"]), shown("resharding_cost", one["resharding_cost"])});
        for (size_t k = 0; k < one["ops"].size(); ++k) l.push_back(shown("intra_ops." + std::to_string(k) + ".strategy", one["ops"][k]["strategy"]));
        return with_findings(l, f);
      });
  p.set("gpt-pipeline", {{"model", "transformer:layers=24"}, {"cluster", "lecture:4x8"}, {"mesh", "4x8"}, {"microbatches", 32}}, "inter",
      [](const Json& r, const std::vector<std::string>&) {
        const Json& plan = r["plan"];
        Json l = Json::array({shown("total_latency", plan["total_latency"]), shown("stages.length", plan["stages"].size())});
        for (size_t k = 0; k < plan["stages"].size(); ++k)
          for (const char* key : {"layers", "submesh", "logical_mesh", "latency"})
            l.push_back(shown("stages." + std::to_string(k) + "." + key, plan["stages"][k][key]));
        return l;
      });
  // The boundary it prices is one of the inter-op tab's (the same 24-layer transformer's activations).
  p.set("cross-mesh-resharding", {{"model", "transformer:layers=24"}, {"cluster", "lecture:2x4"}, {"mesh", "2x4"}}, "inter",
      [=](const Json&, const std::vector<std::string>& f) { return with_findings(Json::array(), f); });
  p.set("wide-resnet", {{"model", "wide-resnet"}, {"cluster", "lecture:1x8"}, {"mesh", "1x8"}}, "intra",
      [](const Json& r, const std::vector<std::string>&) {
        const Json& ops = r["intra_1x8"]["ops"];
        const size_t late = ops.size() - 6;
        return Json::array({shown("objective", r["intra_1x8"]["objective"]), shown("intra_ops.1.strategy", ops[1]["strategy"]),
                            shown("intra_ops." + std::to_string(late) + ".strategy", ops[late]["strategy"])});
      });
}

// The lecture's wider views: GPT-3 at scale, the published runs, the two planners side by side.
void attach_overview_page_setups(PageSetups& p) {
  // The page shows the scenario's text with its defaults: with GPT-3 on 1,024 GPUs set up, its
  // result() (which also simulates the FlexFlow strategy over every device) takes seconds and can
  // run out of memory, and planning takes minutes over frames.
  p.set("gpt3-1024", Json::object(), "lecture", [](const Json&, const std::vector<std::string>&) { return Json::array(); });
  // The table and its chart are drawn in the Lecture tab itself (no set-up of other tabs).
  p.set("published-runs", Json::object(), "lecture", [](const Json&, const std::vector<std::string>&) { return Json::array(); });
  // 8 micro-batches: what `compare` takes for alexnet (the largest divisor of its batch up to 8), now that Compare uses the page's.
  p.set("flexflow-vs-alpa", {{"model", "alexnet"}, {"cluster", "lecture:2x4"}, {"mesh", "2x4"}, {"seed", 1}, {"microbatches", 8}}, "compare",
      [](const Json& r, const std::vector<std::string>&) {
        return Json::array({shown("compare.flexflow_ms", r["alexnet"]["flexflow_ms"]), shown("compare.alpa_ms", r["alexnet"]["alpa_ms"])});
      });
}

// The sequence dimension's scenarios: the intra-op tab on the layers planned (its own plan at the
// preset's 80 GB), the strategy tab on the long sequence; the numbers are the findings.
void attach_sequence_page_setups(PageSetups& p) {
  p.set("sequence-parallel", {{"model", "transformer:layers=4,batch=2,seq=2048,hidden=8192,heads=64"}, {"cluster", "a100:1x8"}, {"mesh", "1x8"}},
      "intra", [=](const Json&, const std::vector<std::string>& f) { return with_findings(Json::array(), f); });
  p.set("context-parallel", {{"model", "transformer:layers=2,batch=1,seq=16384,hidden=1024,heads=16"}, {"cluster", "lecture:1x8"}, {"mesh", "1x8"},
                             {"strategy", "expert"}},
      "strategy", [=](const Json&, const std::vector<std::string>& f) { return with_findings(Json::array(), f); });
}

// fits-on-80gb: the Model & Cluster tab's memory per pipeline stage, on the plan as it is (the
// first row); the knobs then try each saver.
void attach_memory_page_setups(PageSetups& p) {
  p.set("fits-on-80gb",
        {{"model", "llama2-7b:seq=32768,batch=4"}, {"cluster", "h100:1x8"}, {"mesh", "1x8"}, {"microbatches", 1},
         {"plan", {{"tp", 2}, {"pp", 1}, {"dp", 4}, {"cp", 1}, {"ep", 1}, {"v", 1}, {"mbs", 0}, {"first", 0}, {"last", 0}, {"sp", false},
                   {"recompute", "none"}, {"zero", 0}, {"reshard", true}, {"optimizer", "adam"}}}},
        "cluster", [](const Json& r, const std::vector<std::string>& f) {
          const Json& first = r["plans"][0];
          return with_findings(Json::array({shown("plan_memory.stages.0.total_bytes", first["total_bytes"]), shown("plan_memory.fits", first["fits"])}), f);
        });
}

// The page's set-up and the numbers its tab shows, per scenario (kept beside the commands above:
// a set-up that differs from the scenario's own inputs would teach a wrong number).
void attach_page_setups(std::vector<Scenario>& all) {
  PageSetups p(all);
  attach_flexflow_page_setups(p);
  attach_alpa_page_setups(p);
  attach_overview_page_setups(p);
  attach_sequence_page_setups(p);
  attach_memory_page_setups(p);
}


std::vector<Scenario> build_catalogue() {
  std::vector<Scenario> all = scenarios();
  attach_page_setups(all);
  return all;
}

}  // namespace

const std::vector<Scenario>& scenario_catalogue() {
  static const std::vector<Scenario> all = build_catalogue();
  return all;
}

const Scenario* find_scenario(const std::string& name) {
  for (const auto& s : scenario_catalogue())
    if (s.name == name) return &s;
  return nullptr;
}

ScenarioListReport scenario_list_operation(Language language) { return ScenarioListReport{language}; }

Json ScenarioListReport::to_json() const {
  Json list = Json::array();
  for (const auto& s : scenario_catalogue())
    list.push_back(Json{{"name", s.name}, {"section", s.section}, {"title", s.title.in(language)}, {"explanation", s.explanation.in(language)},
                        {"page", s.page}, {"question", s.question ? scenario_question_to_json(*s.question, language) : Json(nullptr)}});
  return Json{{"scenarios", list}};
}

std::string ScenarioListReport::to_text() const {
  std::ostringstream t;
  for (const auto& s : scenario_catalogue()) t << pad(s.section, 5) << pad(s.name, 22) << s.title.in(language) << "\n";
  return t.str();
}

Json scenario_numbers_to_json(const ScenarioReport& report) {
  Json findings = Json::array();
  for (const Bilingual& f : report.findings) findings.push_back(Json{{"en", f.en}, {"zh", f.zh}});
  return Json{{"results", report.results}, {"findings", findings}};
}

Result<ScenarioNumbers> scenario_numbers_from_json(const Json& j) {
  if (!j.is_object() || !j.contains("results") || !j.contains("findings") || !j["findings"].is_array())
    return make_error(ErrorCode::wrong_type, "a scenario's numbers must be an object with results and a findings array", "");
  ScenarioNumbers n;
  n.results = j["results"];
  for (size_t k = 0; k < j["findings"].size(); ++k) {
    const Json& f = j["findings"][k];
    const std::string path = "findings[" + std::to_string(k) + "]";
    if (!f.is_object() || !f.contains("en") || !f["en"].is_string() || !f.contains("zh") || !f["zh"].is_string())
      return make_error(ErrorCode::wrong_type, path + " must be {\"en\": text, \"zh\": text}", path);
    n.findings.push_back(Bilingual{f["en"].get<std::string>(), f["zh"].get<std::string>()});
  }
  return n;
}

std::vector<std::string> ScenarioReport::findings_in(Language l) const {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(f.in(l));
  return out;
}

Json ScenarioReport::to_json() const {
  const std::vector<std::string> shown_findings = findings_in(language);
  Json page = scenario->page;
  if (page.is_object()) page["shows"] = scenario->shows ? scenario->shows(results, shown_findings) : Json::array();
  Json versus = Json::array();
  for (const Bilingual& v : versus_lecture()) versus.push_back(v.in(language));
  return Json{{"name", scenario->name}, {"section", scenario->section}, {"title", scenario->title.in(language)},
              {"explanation", scenario->explanation.in(language)},
              {"question", scenario->question ? scenario_question_to_json(*scenario->question, language) : Json(nullptr)},
              {"findings", shown_findings}, {"versus_lecture", versus}, {"results", results}, {"page", page}};
}

std::vector<Bilingual> ScenarioReport::versus_lecture() const { return autopar::versus_lecture(scenario->name, results); }

Json scenario_question_to_json(const ScenarioQuestion& q, Language language) {
  Json choices = Json::array();
  for (const Bilingual& c : q.choices) choices.push_back(c.in(language));
  return Json{{"prompt", q.prompt.in(language)}, {"choices", choices}, {"answer", q.answer}, {"why", q.why.in(language)}};
}

std::string ScenarioReport::to_text() const {
  std::ostringstream t;
  t << (language == Language::zh ? "讲义 " : "Lecture ") << scenario->section << (language == Language::zh ? "：" : ": ")
    << scenario->title.in(language) << "\n\n" << scenario->explanation.in(language) << "\n\n";
  const bool zh = language == Language::zh;
  if (const auto& q = scenario->question) {
    // The CLI cannot wait for a prediction: it asks, then answers below the choices.
    t << (zh ? "问题：" : "Question: ") << q->prompt.in(language) << "\n";
    for (size_t k = 0; k < q->choices.size(); ++k) t << "  " << char('a' + k) << ") " << q->choices[k].in(language) << "\n";
    t << (zh ? "答案：" : "Answer: ") << char('a' + q->answer) << ") " << q->why.in(language) << "\n\n";
  }
  for (const auto& f : findings_in(language)) t << "  " << f << "\n";
  const std::vector<Bilingual> versus = versus_lecture();
  if (!versus.empty()) {
    t << "\n" << (zh ? "与讲义的不同：" : "Against the lecture notes:") << "\n";
    for (const auto& v : versus) t << "  " << v.in(language) << "\n";
  }
  return t.str();
}

}  // namespace autopar
