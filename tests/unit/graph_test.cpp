// Unit tests of the operator graph: hand-checked shapes, FLOPs and bytes, split dimensions,
// topological order, and every kind of inconsistent model with its error code and JSON path.
#include <doctest/doctest.h>

#include "error_code_printing.h"
#include "test_inputs.h"
#include "graph.h"
#include "models.h"

using namespace autopar;
using autopar::test::model;

namespace {

ModelSpec tiny_chain() {
  // x[4, 8] -> a (linear 8->6) -> b (linear 6->2)
  ModelSpec m;
  m.name = "tiny";
  m.inputs = {Tensor{"x", {4, 8}, DType::f32}};
  OpSpec a;
  a.name = "a"; a.kind = OpKind::linear; a.inputs = {"x"}; a.output = "ha"; a.attrs = {{"out_features", 6}};
  OpSpec b;
  b.name = "b"; b.kind = OpKind::linear; b.inputs = {"ha"}; b.output = "hb"; b.attrs = {{"out_features", 2}};
  m.ops = {a, b};
  return m;
}

Error build_error(const ModelSpec& m) {
  auto g = build_graph(m);
  REQUIRE_FALSE(g.ok());
  return g.error();
}

}  // namespace

TEST_CASE("conv1d of the lecture: shapes, FLOPs and bytes by hand") {
  Graph g = model("conv1d");
  REQUIRE(g.ops.size() == 1);
  const Op& conv = g.ops[0];
  // Input [n=8, c_in=16, L=64] = 8,192 elements (lecture 2.2); "same" padding keeps L = 64.
  CHECK(conv.inputs[0].shape == Shape{8, 16, 64});
  CHECK(conv.output.shape == Shape{8, 32, 64});
  CHECK(num_elements(conv.inputs[0].shape) == 8192);
  // Weight [c_out=32, c_in=16, k=3] = 1,536 elements (lecture 2.2), no bias.
  REQUIRE(conv.params.size() == 1);
  CHECK(num_elements(conv.params[0].shape) == 1536);
  CHECK(conv.param_bytes == 1536 * 4);
  // 2 * n * c_out * L * c_in * k = 2 * 8 * 32 * 64 * 16 * 3 = 1,572,864.
  CHECK(conv.forward_flops == 1572864.0);
  CHECK(conv.backward_flops == 2 * conv.forward_flops);
  CHECK(conv.input_bytes == 8192 * 4);
  CHECK(conv.output_bytes == 8 * 32 * 64 * 4);
  CHECK(conv.forward_bytes() == 32768 + 6144 + 65536);
  // SOAP: sample (n), parameter (output channels), attribute (length).
  REQUIRE(conv.split_dims.size() == 3);
  CHECK(conv.split_dims[0] == SplitDim{"sample", SplitKind::sample, 0, 8});
  CHECK(conv.split_dims[1] == SplitDim{"channel", SplitKind::parameter, 1, 32});
  CHECK(conv.split_dims[2] == SplitDim{"length", SplitKind::attribute, 2, 64});
}

TEST_CASE("linear with bias and fused ReLU: FLOPs and bytes by hand") {
  Graph g = model("mlp3:batch=64,hidden=4096");
  const Op& fc1 = g.ops[0];
  CHECK(fc1.output.shape == Shape{64, 4096});
  // 2 * 64 * 4096 * 4096 (matmul) + 64 * 4096 (bias) + 64 * 4096 (ReLU) = 2,148,007,936.
  CHECK(fc1.forward_flops == 2148007936.0);
  // weight 4096 x 4096 + bias 4096 = 16,781,312 floats = 67,125,248 bytes.
  CHECK(fc1.param_bytes == 67125248);
  CHECK(fc1.split_dims.size() == 2);
  CHECK(g.ops[2].spec.activation == "none");
}

TEST_CASE("AlexNet matches the classic parameter count and shapes") {
  Graph g = model("alexnet");
  REQUIRE(g.ops.size() == 8);
  CHECK(g.ops[0].output.shape == Shape{256, 64, 27, 27});   // 224 -> conv 11/4 -> 55 -> pool 3/2 -> 27
  CHECK(g.ops[4].output.shape == Shape{256, 256, 6, 6});
  CHECK(g.ops[5].params[0].shape == Shape{9216, 4096});    // flattened 256 * 6 * 6
  // torchvision's AlexNet has 61,100,840 parameters (244 MB in FP32; lecture 4.3: "250 MB").
  CHECK(g.total_param_elements() == 61100840);
  CHECK(g.ops[0].split_dims.size() == 4);
}

TEST_CASE("DLRM: 16 ops, eight 1,000,000 x 64 tables (5.12e8 parameters, 2 GB)") {
  Graph g = model("dlrm");
  CHECK(g.ops.size() == 16);
  int tables = 0;
  for (const Op& op : g.ops)
    if (op.spec.kind == OpKind::embedding) {
      ++tables;
      CHECK(op.param_bytes == int64_t(1000000) * 64 * 4);
      CHECK(op.output_bytes == 1024 * 64 * 4);   // a few hundred KB per table output (lecture 3.4)
    }
  CHECK(tables == 8);
  const Op& cat = g.ops[size_t(g.find_op("interact"))];
  CHECK(cat.output.shape == Shape{1024, 64 * 9});
  CHECK(cat.inputs.size() == 9);
}

TEST_CASE("transformer-chain: one layer of about 200M parameters (lecture 5.5)") {
  Graph g = model("transformer-chain");
  REQUIRE(g.ops.size() == 5);
  // 12 h^2 weights with h = 4096 = 201,326,592, plus biases 3h + h + 4h + h = 9h.
  CHECK(g.total_param_elements() == int64_t(12) * 4096 * 4096 + 9 * 4096);
  const Op& attn = g.ops[1];
  CHECK(attn.output.shape == Shape{4, 1024, 4096});
  // 4 b s^2 h + 5 b heads s^2 = 4*4*1024^2*4096 + 5*4*32*1024^2.
  CHECK(attn.forward_flops == 4.0 * 4 * 1024 * 1024 * 4096 + 5.0 * 4 * 32 * 1024 * 1024);
  // Sample, the query positions (context parallelism), heads: in output-dimension order.
  CHECK(attn.split_dims[1] == SplitDim{"length", SplitKind::attribute, 1, 1024});
  CHECK(attn.split_dims[2] == SplitDim{"heads", SplitKind::attribute, 2, 32});
}

TEST_CASE("every built-in model builds with its defaults, in topological order") {
  for (const auto& m : builtin_models()) {
    CAPTURE(m.name);
    Graph g = model(m.name);
    CHECK(g.name() == m.name);
    for (size_t i = 0; i < g.ops.size(); ++i)
      for (int p : g.ops[i].producers) CHECK(p < int(i));
    CHECK(g.total_forward_flops() > 0);
  }
  CHECK(model("transformer:vocab=1000").ops.front().spec.kind == OpKind::embedding);
  CHECK(model("mlp:layers=6").ops.size() == 6 + 5 + 1);
}

TEST_CASE("ops are reordered topologically when declared out of order") {
  ModelSpec m = tiny_chain();
  std::swap(m.ops[0], m.ops[1]);
  auto g = build_graph(m);
  REQUIRE(g.ok());
  CHECK(g.value().ops[0].name() == "a");
  CHECK(g.value().ops[1].producers == std::vector<int>{0});
  CHECK(g.value().consumers[0] == std::vector<int>{1});
}

TEST_CASE("inconsistent models are refused with a code and a JSON path") {
  SUBCASE("a shape that does not match its producer") {
    ModelSpec m = tiny_chain();
    m.ops[1].shape = Shape{4, 3};
    Error e = build_error(m);
    CHECK(e.code == ErrorCode::bad_shape);
    CHECK(e.path == "ops[1].shape");
    CHECK(e.message.find("[4, 3]") != std::string::npos);
    CHECK(e.message.find("[4, 2]") != std::string::npos);
  }
  SUBCASE("a cycle names its ops") {
    ModelSpec m = tiny_chain();
    m.ops[0].inputs = {"hb"};
    Error e = build_error(m);
    CHECK(e.code == ErrorCode::cycle);
    CHECK(e.message.find("'a'") != std::string::npos);
    CHECK(e.message.find("'b'") != std::string::npos);
  }
  SUBCASE("a self loop") {
    ModelSpec m = tiny_chain();
    m.ops[1].inputs = {"hb"};
    CHECK(build_error(m).code == ErrorCode::cycle);
  }
  SUBCASE("an unknown tensor") {
    ModelSpec m = tiny_chain();
    m.ops[1].inputs = {"nope"};
    Error e = build_error(m);
    CHECK(e.code == ErrorCode::unknown_tensor);
    CHECK(e.path == "ops[1].inputs[0]");
  }
  SUBCASE("a missing attribute") {
    ModelSpec m = tiny_chain();
    m.ops[0].attrs.clear();
    Error e = build_error(m);
    CHECK(e.code == ErrorCode::missing_field);
    CHECK(e.path == "ops[0].attrs");
  }
  SUBCASE("an unknown attribute lists the valid ones") {
    ModelSpec m = tiny_chain();
    m.ops[0].attrs["kernel"] = 3;
    Error e = build_error(m);
    CHECK(e.code == ErrorCode::unknown_field);
    CHECK(e.path == "ops[0].attrs.kernel");
    CHECK(e.message.find("out_features") != std::string::npos);
  }
  SUBCASE("zero and negative sizes") {
    ModelSpec m = tiny_chain();
    m.ops[0].attrs["out_features"] = 0;
    CHECK(build_error(m).code == ErrorCode::out_of_range);
    m = tiny_chain();
    m.inputs[0].shape = {4, -8};
    Error e = build_error(m);
    CHECK(e.code == ErrorCode::bad_shape);
    CHECK(e.path == "inputs[0].shape[1]");
  }
  SUBCASE("absurd sizes are refused, not allocated") {
    ModelSpec m = tiny_chain();
    m.inputs[0].shape = {int64_t(1) << 30, int64_t(1) << 30};
    CHECK(build_error(m).code == ErrorCode::too_large);
    m = tiny_chain();
    m.ops.resize(size_t(kMaxOps) + 1, m.ops[0]);
    CHECK(build_error(m).code == ErrorCode::too_large);
  }
  SUBCASE("duplicate names") {
    ModelSpec m = tiny_chain();
    m.ops[1].name = "a";
    CHECK(build_error(m).code == ErrorCode::duplicate_name);
    m = tiny_chain();
    m.ops[1].output = "x";
    CHECK(build_error(m).code == ErrorCode::duplicate_name);
  }
  SUBCASE("wrong arity and rank") {
    ModelSpec m = tiny_chain();
    m.ops[1].inputs = {"ha", "x"};
    CHECK(build_error(m).code == ErrorCode::bad_arity);
    m = tiny_chain();
    m.ops[0].kind = OpKind::conv2d;
    m.ops[0].attrs = {{"out_channels", 4}, {"kernel", 3}};
    CHECK(build_error(m).code == ErrorCode::bad_shape);
  }
  SUBCASE("embedding needs integer indices") {
    ModelSpec m = tiny_chain();
    m.ops[0].kind = OpKind::embedding;
    m.ops[0].attrs = {{"num_embeddings", 10}, {"embedding_dim", 8}};
    Error e = build_error(m);
    CHECK(e.code == ErrorCode::bad_dtype);
    CHECK(e.path == "ops[0].inputs[0]");
  }
  SUBCASE("add with mismatched shapes") {
    ModelSpec m = tiny_chain();
    m.ops[1].kind = OpKind::add;
    m.ops[1].inputs = {"x", "ha"};
    m.ops[1].attrs.clear();
    Error e = build_error(m);
    CHECK(e.code == ErrorCode::bad_shape);
    CHECK(e.path == "ops[1].inputs[1]");
  }
  SUBCASE("attention heads must divide hidden") {
    // The built-in model refuses the pair itself, at its argument...
    auto refused = builtin_model_spec("transformer-chain:hidden=100,heads=3");
    REQUIRE(!refused.ok());
    CHECK(refused.error().path == "--model");
    // ...and the graph check catches it in a model written by hand.
    auto s = builtin_model_spec("transformer-chain:hidden=96,heads=3");
    REQUIRE(s.ok());
    ModelSpec m = s.value();
    m.ops[1].attrs["heads"] = 7;
    Error e = build_error(m);
    CHECK(e.code == ErrorCode::bad_shape);
    CHECK(e.path == "ops[1].inputs[0]");
  }
  SUBCASE("empty model") {
    ModelSpec m = tiny_chain();
    m.ops.clear();
    CHECK(build_error(m).path == "ops");
  }
}

TEST_CASE("built-in model arguments: unknown names, keys and values") {
  auto unknown = builtin_model_spec("resnet");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().code == ErrorCode::unknown_model);
  CHECK(unknown.error().message.find("alexnet") != std::string::npos);
  auto key = builtin_model_spec("mlp:depth=3");
  REQUIRE_FALSE(key.ok());
  CHECK(key.error().code == ErrorCode::unknown_param);
  CHECK(key.error().message.find("layers") != std::string::npos);
  auto value = builtin_model_spec("mlp:layers=three");
  REQUIRE_FALSE(value.ok());
  CHECK(value.error().code == ErrorCode::bad_value);
  auto range = builtin_model_spec("mlp:layers=0");
  REQUIRE_FALSE(range.ok());
  CHECK(range.error().code == ErrorCode::out_of_range);
  auto dtype = builtin_model_spec("mlp:dtype_bytes=3");
  REQUIRE_FALSE(dtype.ok());
  auto ok = builtin_model_spec("mlp:layers=3,batch=16,");
  REQUIRE(ok.ok());
  CHECK(ok.value().inputs[0].shape == Shape{16, 1024});
  auto half = load_model("mlp:dtype_bytes=2");
  REQUIRE(half.ok());
  CHECK(half.value().ops[0].param_bytes == (1024 * 1024 + 1024) * 2);
}
