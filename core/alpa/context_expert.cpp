// Context and expert parallelism's pieces. See context_expert.h.
#include "context_expert.h"

#include <algorithm>

namespace autopar {

Result<Graph> context_parallel_graph(const Graph& microbatch, int cp, const std::string& arg_path) {
  if (cp <= 1) return microbatch;
  ModelSpec spec = microbatch.spec;
  for (Tensor& t : spec.inputs) {
    if (t.shape.size() < 2)
      return make_error(ErrorCode::bad_value, "plan item 'cp=" + std::to_string(cp) + "': context parallelism splits the sequence, but input '" + t.name +
                                         "' is " + shape_to_string(t.shape) + " (no sequence dimension); leave cp out for this model",
                        arg_path);
    // Megatron's load balancing cuts each sequence into 2 cp chunks (rank i: chunks i and 2cp-1-i).
    if (t.shape[1] % (2 * int64_t(cp)) != 0)
      return make_error(ErrorCode::bad_value, "plan item 'cp=" + std::to_string(cp) + "': the sequence of " + std::to_string(t.shape[1]) +
                                         " tokens does not split into 2*cp = " + std::to_string(2 * cp) +
                                         " equal chunks (Megatron-Core's causal load balancing); pick cp with 2*cp dividing the sequence length",
                        arg_path);
    t.shape[0] *= cp;
    t.shape[1] /= cp;
  }
  for (OpSpec& o : spec.ops) o.shape.reset();   // re-inferred for the shorter sequences
  return build_graph(spec);
}

LinkSpec group_link(const Cluster& c, int stride, int size) {
  const int64_t span = int64_t(std::max(1, stride)) * std::max(1, size);
  const int G = c.gpus_per_node;
  if (span <= G && G % span == 0) return c.intra_node;
  return c.inter_node_shared(G);   // every GPU of the node has a transfer leaving it
}

double ring_exposed_ms(int cp, double step_bytes, double block_ms, const LinkSpec& link) {
  if (cp <= 1) return 0;
  return double(cp - 1) * std::max(0.0, link.transfer_ms(step_bytes) - block_ms);
}

double expert_all_to_all_ms(int ep, double bytes, const LinkSpec& link) {
  if (ep <= 1) return 0;
  return link.latency_ms() + bytes * double(ep - 1) / double(ep) / link.bandwidth_bytes_per_ms();
}

int64_t model_experts(const Graph& g) {
  for (const Op& op : g.ops)
    if (op.spec.kind == OpKind::moe) return op.spec.attrs.at("experts");
  return 0;
}

}  // namespace autopar
