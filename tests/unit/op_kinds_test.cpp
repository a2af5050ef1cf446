// The table of per-kind traits and the kinds real models need (RMSNorm, SwiGLU, dropout,
// grouped-query attention, tied embeddings, the [CLS] token), with hand-worked numbers.
#include <doctest/doctest.h>

#include "error_code_printing.h"
#include "json_io.h"
#include "models.h"
#include "op_kinds.h"
#include "regions.h"

using namespace autopar;

namespace {

Result<Graph> build_from(const char* text) {
  auto j = parse_json_text(text, "test");
  REQUIRE(j.ok());
  auto spec = model_from_json(j.value());
  if (!spec.ok()) return spec.error();
  return build_graph(spec.value());
}

}  // namespace

TEST_CASE("every op kind has one entry in the trait table, named as it parses") {
  std::vector<OpKind> kinds = all_op_kinds();
  CHECK(kinds.size() == all_op_kind_traits().size());
  for (size_t i = 0; i < kinds.size(); ++i) {
    const OpKindTraits& t = op_kind_traits(kinds[i]);
    CHECK(t.kind == kinds[i]);
    CHECK(parse_op_kind(t.name) == kinds[i]);
    CHECK(int(kinds[i]) == int(i));   // declaration order
    CHECK(t.min_inputs <= t.max_inputs);
    CHECK(t.min_rank <= t.max_rank);
  }
}

TEST_CASE("a Llama-style block: RMSNorm, grouped-query attention, SwiGLU") {
  // hidden 64, 8 heads of 8, 2 K/V heads: fused QKV is (8 + 2*2) * 8 = 96 wide; the MLP is 2 x 160 -> 160.
  auto g = build_from(R"({"name":"b","inputs":[{"name":"x","shape":[2,16,64]}],"ops":[
    {"name":"norm","kind":"rmsnorm","inputs":["x"],"output":"n"},
    {"name":"qkv","kind":"linear","inputs":["n"],"output":"qkv","attrs":{"out_features":96,"bias":0}},
    {"name":"attn","kind":"attention","inputs":["qkv"],"output":"a","attrs":{"heads":8,"kv_heads":2}},
    {"name":"gate_up","kind":"linear","inputs":["a"],"output":"gu","attrs":{"out_features":320,"bias":0}},
    {"name":"act","kind":"swiglu","inputs":["gu"],"output":"s"},
    {"name":"drop","kind":"dropout","inputs":["s"],"output":"d"}]})");
  REQUIRE(g.ok());
  const Graph& m = g.value();
  CHECK(m.ops[0].params.size() == 1);                       // RMSNorm: a scale, no shift
  CHECK(m.ops[0].params[0].shape == Shape{64});
  CHECK(m.ops[0].forward_flops == 4.0 * 2 * 16 * 64);
  CHECK(m.ops[2].output.shape == Shape{2, 16, 64});           // 8 heads x 8
  // 4 * b * s^2 * h + 5 * b * heads * s^2 = 4*2*256*64 + 5*2*8*256 = 131072 + 20480
  CHECK(m.ops[2].forward_flops == 151552.0);
  CHECK(m.ops[4].output.shape == Shape{2, 16, 160});
  CHECK(m.ops[4].forward_flops == 5.0 * 2 * 16 * 160);
  // The model file does not gain attributes that were absent (kv_heads is kept, dropout is not added).
  CHECK(m.spec.ops[2].attrs.count("kv_heads") == 1);
  CHECK(m.spec.ops[2].attrs.count("dropout") == 0);
  CHECK(m.total_param_elements() == 64 + 64 * 96 + 64 * 320);

  // A head slice [16, 32) (query heads 2..3, group 0 of 4 heads) reads Q[16, 32), K[64, 72) and V[80, 88).
  Box out;
  out.rank = 3;
  out.lo[0] = 0; out.hi[0] = 2; out.lo[1] = 0; out.hi[1] = 16; out.lo[2] = 16; out.hi[2] = 32;
  BoxList in = input_boxes(m.ops[2], 0, out);
  REQUIRE(in.count == 3);
  CHECK(in.boxes[0].lo[2] == 16);
  CHECK(in.boxes[0].hi[2] == 32);
  CHECK(in.boxes[1].lo[2] == 64);
  CHECK(in.boxes[1].hi[2] == 72);
  CHECK(in.boxes[2].lo[2] == 80);
  CHECK(in.boxes[2].hi[2] == 88);
  // SwiGLU's slice [40, 80) of 160 reads gate [40, 80) and up [200, 240).
  out.lo[2] = 40; out.hi[2] = 80;
  in = input_boxes(m.ops[4], 0, out);
  REQUIRE(in.count == 2);
  CHECK(in.boxes[0].lo[2] == 40);
  CHECK(in.boxes[1].lo[2] == 200);
  CHECK(in.boxes[1].hi[2] == 240);
}

TEST_CASE("grouped-query attention refuses widths and groups that do not fit") {
  auto bad_width = build_from(R"({"name":"b","inputs":[{"name":"x","shape":[2,16,100]}],"ops":[
    {"name":"attn","kind":"attention","inputs":["x"],"output":"a","attrs":{"heads":8,"kv_heads":2}}]})");
  REQUIRE(!bad_width.ok());
  CHECK(bad_width.error().code == ErrorCode::bad_shape);
  CHECK(bad_width.error().path == "ops[0].inputs[0]");
  auto bad_group = build_from(R"({"name":"b","inputs":[{"name":"x","shape":[2,16,96]}],"ops":[
    {"name":"attn","kind":"attention","inputs":["x"],"output":"a","attrs":{"heads":8,"kv_heads":3}}]})");
  REQUIRE(!bad_group.ok());
  CHECK(bad_group.error().path == "ops[0].attrs.kv_heads");
}

TEST_CASE("a tied output embedding counts its weight once; a mismatched tie is refused") {
  // Table 100 x 16 (1,600) + head weight tied to it: 1,600 parameters in all, not 3,200.
  auto g = build_from(R"({"name":"t","inputs":[{"name":"ids","shape":[4,8],"dtype":"i32"}],"ops":[
    {"name":"wte","kind":"embedding","inputs":["ids"],"output":"e","attrs":{"num_embeddings":100,"embedding_dim":16}},
    {"name":"head","kind":"linear","inputs":["e"],"output":"logits","attrs":{"out_features":100,"bias":0},"weight_from":"wte"},
    {"name":"loss","kind":"loss","inputs":["logits"],"output":"l"}]})");
  REQUIRE(g.ok());
  CHECK(g.value().total_param_elements() == 1600);
  CHECK(g.value().total_param_bytes() == 6400);
  CHECK(g.value().ops[1].params[0].name == "wte.weight");
  CHECK(g.value().ops[1].param_bytes == 6400);              // the head still reads the whole table
  CHECK(g.value().ops[1].backward_flops == 2 * g.value().ops[1].forward_flops);
  // Round trip keeps the tie.
  Json j = model_to_json(g.value());
  CHECK(j["ops"][1]["weight_from"] == "wte");
  auto bad = build_from(R"({"name":"t","inputs":[{"name":"ids","shape":[4,8],"dtype":"i32"}],"ops":[
    {"name":"wte","kind":"embedding","inputs":["ids"],"output":"e","attrs":{"num_embeddings":100,"embedding_dim":16}},
    {"name":"head","kind":"linear","inputs":["e"],"output":"logits","attrs":{"out_features":99},"weight_from":"wte"}]})");
  REQUIRE(!bad.ok());
  CHECK(bad.error().code == ErrorCode::bad_shape);
  CHECK(bad.error().path == "ops[1].weight_from");
  auto missing = build_from(R"({"name":"t","inputs":[{"name":"x","shape":[4,16]}],"ops":[
    {"name":"head","kind":"linear","inputs":["x"],"output":"y","attrs":{"out_features":100},"weight_from":"nope"}]})");
  REQUIRE(!missing.ok());
  CHECK(missing.error().path == "ops[0].weight_from");
}

TEST_CASE("BERT's pooler reads the first token; tanh is a fused activation") {
  auto g = build_from(R"({"name":"p","inputs":[{"name":"x","shape":[4,8,16]}],"ops":[
    {"name":"cls","kind":"first_token","inputs":["x"],"output":"c"},
    {"name":"pool","kind":"linear","inputs":["c"],"output":"p","attrs":{"out_features":16},"activation":"tanh"}]})");
  REQUIRE(g.ok());
  CHECK(g.value().ops[0].output.shape == Shape{4, 16});
  // 2*4*16*16 + bias 64 + tanh 4*64
  CHECK(g.value().ops[1].forward_flops == 2048.0 + 64 + 256);
}
