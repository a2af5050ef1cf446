// The Hugging Face families beyond GPT-2, Llama, Mistral and BERT: each shipped config.json gives
// its published parameter count exactly, one layer has the op kinds and shapes of the reference
// implementation (transformers' modeling_<type>.py), contradictory configs are refused naming
// the field, encoder-decoders are refused by name, and torch_dtype sets the float width.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "error_code_printing.h"
#include "app_state.h"
#include "hf_config.h"
#include "json_io.h"
#include "models.h"

using namespace autopar;

namespace {

std::string hf_dir() { return std::string(AUTOPAR_SOURCE_DIR) + "/examples/models/hf/"; }
std::string hf(const std::string& name) { return hf_dir() + name + ".json"; }

Graph load(const std::string& spec) {
  auto g = load_model(spec);
  if (!g.ok()) FAIL(g.error().message);
  return g.value();
}

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// One op as "name kind [output] {param shapes}", e.g. "qkv_1 linear [1, 8, 4608] {[3584, 4608] [4608]}".
std::string signature(const Op& op) {
  std::string s = op.name() + " " + op_kind_name(op.spec.kind) + " " + shape_to_string(op.output.shape) + " {";
  for (size_t k = 0; k < op.params.size(); ++k) s += (k ? " " : "") + shape_to_string(op.params[k].shape);
  return s + "}";
}

// The ops of layer `l` (names ending in "_l"), in graph order.
std::vector<std::string> layer(const Graph& g, int l) {
  const std::string suffix = "_" + std::to_string(l);
  std::vector<std::string> out;
  for (const Op& op : g.ops) {
    const std::string& n = op.name();
    if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0) out.push_back(signature(op));
  }
  return out;
}

Error load_error(const std::string& config_text) {
  auto g = load_model_json(config_text, "test");
  REQUIRE(!g.ok());
  return g.error();
}

// A shipped config with one field changed or added.
std::string edited(const std::string& name, const std::string& key, const Json& value) {
  auto j = parse_json_text(text_of(hf(name)), name);
  REQUIRE(j.ok());
  Json o = j.value();
  o[key] = value;
  return o.dump();
}

}  // namespace

TEST_CASE("each family's shipped config gives its published parameter count exactly") {
  // Sources: each config.json is the model's Hugging Face repository's (examples/models/hf/SOURCES.md);
  // the figure is the repository's safetensors total (the model card rounds it), or the paper's.
  // Qwen/Qwen2-7B, 7.62B: 2 * 152064*3584 (untied) + 28 * (q 3584*3584+3584, k and v 3584*512+512 each,
  // o 3584*3584 without bias, 3*3584*18944, 2*3584) + 3584 = 7,615,616,512.
  CHECK(load(hf("qwen2-7b")).total_param_elements() == 7615616512);
  // Qwen/Qwen2.5-0.5B, "Number of Parameters: 0.49B" (tied): 151936*896 + 24 * (896*896+896 + 2*(896*128+128)
  // + 896*896 + 3*896*4864 + 2*896) + 896 = 494,032,768.
  CHECK(load(hf("qwen2.5-0.5b")).total_param_elements() == 494032768);
  // google/gemma-7b, 8.54B (tied, head_dim 256: q/k/v/o 3072 <-> 4096): 256000*3072 + 28 * (4*3072*4096 + 3*3072*24576
  // + 2*3072) + 3072 = 8,537,680,896. The Gemma report (Table 2) gives 7,751,248,896 non-embedding parameters, the
  // same; its 786,825,216 embedding parameters count 256,128 rows where the checkpoint has 256,000.
  CHECK(load(hf("gemma-7b")).total_param_elements() == 8537680896);
  // google/gemma-2b, 2.51B (one K/V head of 256): 256000*2048 + 18 * (2*2048*2048 + 2*2048*256 + 3*2048*16384 + 2*2048)
  // + 2048 = 2,506,172,416; the report's non-embedding 1,981,884,416 is the layers and the final norm.
  CHECK(load(hf("gemma-2b")).total_param_elements() == 2506172416);
  // microsoft/Phi-3-mini-4k-instruct, 3.82B: 2 * 32064*3072 + 32 * (qkv_proj 3072*9216 + o_proj 3072*3072
  // + gate_up_proj 3072*16384 + down_proj 8192*3072 + 2*3072) + 3072 = 3,821,079,552.
  CHECK(load(hf("phi-3-mini-4k-instruct")).total_param_elements() == 3821079552);
  // mistralai/Mixtral-8x7B-v0.1, "46.7B total parameters" (Mistral AI): 2 * 32000*4096 + 32 * (2*4096^2 + 2*4096*1024
  // + router 4096*8 + 8 experts * 3*4096*14336 + 2*4096) + 4096 = 46,702,792,704.
  CHECK(load(hf("mixtral-8x7b")).total_param_elements() == 46702792704);
  // Qwen/Qwen1.5-MoE-A2.7B, 14.3B: 2 * 151936*2048 + 24 * (q/k/v 3*(2048^2+2048) + o 2048^2 + router 2048*60
  // + 60 experts * 3*2048*1408 + shared expert 3*2048*5632 + shared_expert_gate 2048 + 2*2048) + 2048 = 14,315,784,192.
  CHECK(load(hf("qwen1.5-moe-a2.7b")).total_param_elements() == 14315784192);
  // EleutherAI/pythia-160m, 162,322,944 (the Pythia README's table): 2 * 50304*768 (untied embed_out) + 12 * (2 LN 4*768
  // + query_key_value 768*2304+2304 + dense 768*768+768 + 768*3072+3072 + 3072*768+768) + 1536 = 162,322,944.
  CHECK(load(hf("pythia-160m")).total_param_elements() == 162322944);
  // EleutherAI/gpt-neox-20b, 20.6B: 2 * 50432*6144 + 44 * (4*6144 + 6144*18432+18432 + 6144^2+6144 + 6144*24576+24576
  // + 24576*6144+6144) + 2*6144 = 20,554,567,680.
  CHECK(load(hf("gpt-neox-20b")).total_param_elements() == 20554567680);
  // tiiuae/falcon-7b, 6.92B (multi-query: query_key_value 4544 -> (71+2)*64 = 4672, one LayerNorm per layer,
  // no biases, tied): 65024*4544 + 32 * (2*4544 + 4544*4672 + 4544^2 + 2*4544*18176) + 2*4544 = 6,921,720,704.
  CHECK(load(hf("falcon-7b")).total_param_elements() == 6921720704);
  // facebook/opt-1.3b, 1.32B (OPT paper Table 1: 1.3B): 50272*2048 (tied) + (2048+2)*2048 positions + 24 * (2 LN 4*2048
  // + 4*(2048^2+2048) + 2048*8192+8192 + 8192*2048+2048) + 2*2048 = 1,315,758,080.
  CHECK(load(hf("opt-1.3b")).total_param_elements() == 1315758080);
  // FacebookAI/roberta-base (RobertaModel, as BertModel: no task head), 125M: 50265*768 + 514*768 + 1*768 + 2*768
  // + 12 * 7,087,872 + pooler 768*768+768 = 124,645,632.
  CHECK(load(hf("roberta-base")).total_param_elements() == 124645632);
  // TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T, 1.1B: 2 * 32000*2048 + 22 * (2*2048^2 + 2*2048*256
  // + 3*2048*5632 + 2*2048) + 2048 = 1,100,048,384.
  CHECK(load(hf("tinyllama-1.1b")).total_param_elements() == 1100048384);
  // meta-llama/Meta-Llama-3-8B, 8.03B: 2 * 128256*4096 + 32 * (2*4096^2 + 2*4096*1024 + 3*4096*14336 + 2*4096) + 4096
  // = 8,030,261,248.
  CHECK(load(hf("llama-3-8b")).total_param_elements() == 8030261248);
  // meta-llama/Meta-Llama-3-70B, 70.6B (validate's H100 row): 2 * 128256*8192 + 80 * (2*8192^2 + 2*8192*1024
  // + 3*8192*28672 + 2*8192) + 8192 = 70,553,706,496.
  CHECK(load(hf("llama-3-70b")).total_param_elements() == 70553706496);
  // meta-llama/Llama-3.1-405B, 405.85B (the model Llama 3 trained on 16,384 H100s): 2 * 128256*16384 + 126 *
  // (2*16384^2 + 2*16384*1024 + 3*16384*53248 + 2*16384) + 16384 = 405,853,388,800.
  CHECK(load(hf("llama-3.1-405b")).total_param_elements() == 405853388800);
}

TEST_CASE("one layer of each family has the reference implementation's ops and shapes") {
  // Qwen2 (modeling_qwen2.py): q/k/v_proj with biases side by side ((28 + 2*4) * 128 = 4608), o_proj and the MLP without.
  CHECK(layer(load(hf("qwen2-7b") + ":batch=1,seq=8,layers=2"), 1) ==
        std::vector<std::string>{"norm1_1 rmsnorm [1, 8, 3584] {[3584]}", "qkv_1 linear [1, 8, 4608] {[3584, 4608] [4608]}",
                                 "attn_1 attention [1, 8, 3584] {}", "o_proj_1 linear [1, 8, 3584] {[3584, 3584]}",
                                 "res1_1 add [1, 8, 3584] {}", "norm2_1 rmsnorm [1, 8, 3584] {[3584]}",
                                 "gate_up_1 linear [1, 8, 37888] {[3584, 37888]}", "swiglu_1 swiglu [1, 8, 18944] {}",
                                 "down_1 linear [1, 8, 3584] {[18944, 3584]}", "res2_1 add [1, 8, 3584] {}"});
  // Gemma (modeling_gemma.py): 16 heads of 256 = 4096 wide from a 3072 hidden state, GeGLU, head tied to embed_tokens.
  const Graph gemma = load(hf("gemma-7b") + ":batch=1,seq=8,layers=1");
  CHECK(layer(gemma, 1) ==
        std::vector<std::string>{"norm1_1 rmsnorm [1, 8, 3072] {[3072]}", "qkv_1 linear [1, 8, 12288] {[3072, 12288]}",
                                 "attn_1 attention [1, 8, 4096] {}", "o_proj_1 linear [1, 8, 3072] {[4096, 3072]}",
                                 "res1_1 add [1, 8, 3072] {}", "norm2_1 rmsnorm [1, 8, 3072] {[3072]}",
                                 "gate_up_1 linear [1, 8, 49152] {[3072, 49152]}", "geglu_1 geglu [1, 8, 24576] {}",
                                 "down_1 linear [1, 8, 3072] {[24576, 3072]}", "res2_1 add [1, 8, 3072] {}"});
  CHECK(gemma.ops[size_t(gemma.find_op("lm_head"))].spec.weight_from == "embed_tokens");
  // Phi-3 (modeling_phi3.py): qkv_proj 3072 -> 9216 and gate_up_proj 3072 -> 16384, fused as the checkpoint stores them.
  CHECK(layer(load(hf("phi-3-mini-4k-instruct") + ":batch=1,seq=8,layers=1"), 1) ==
        std::vector<std::string>{"norm1_1 rmsnorm [1, 8, 3072] {[3072]}", "qkv_1 linear [1, 8, 9216] {[3072, 9216]}",
                                 "attn_1 attention [1, 8, 3072] {}", "o_proj_1 linear [1, 8, 3072] {[3072, 3072]}",
                                 "res1_1 add [1, 8, 3072] {}", "norm2_1 rmsnorm [1, 8, 3072] {[3072]}",
                                 "gate_up_1 linear [1, 8, 16384] {[3072, 16384]}", "swiglu_1 swiglu [1, 8, 8192] {}",
                                 "down_1 linear [1, 8, 3072] {[8192, 3072]}", "res2_1 add [1, 8, 3072] {}"});
  // Mixtral (modeling_mixtral.py): the sparse MoE block is one moe op: router [4096, 8], 8 SwiGLU experts with
  // w1|w3 side by side [8, 4096, 2*14336] and w2 [8, 14336, 4096].
  const Graph mixtral = load(hf("mixtral-8x7b") + ":batch=1,seq=8,layers=1");
  CHECK(layer(mixtral, 1) ==
        std::vector<std::string>{"norm1_1 rmsnorm [1, 8, 4096] {[4096]}", "qkv_1 linear [1, 8, 6144] {[4096, 6144]}",
                                 "attn_1 attention [1, 8, 4096] {}", "o_proj_1 linear [1, 8, 4096] {[4096, 4096]}",
                                 "res1_1 add [1, 8, 4096] {}", "norm2_1 rmsnorm [1, 8, 4096] {[4096]}",
                                 "moe_1 moe [1, 8, 4096] {[4096, 8] [8, 4096, 28672] [8, 14336, 4096]}", "res2_1 add [1, 8, 4096] {}"});
  CHECK(mixtral.ops[size_t(mixtral.find_op("moe_1"))].spec.attrs.at("top_k") == 2);
  // Qwen2-MoE (modeling_qwen2_moe.py): 60 experts of 1408 (top 4), the router scoring one more column for the
  // shared expert's sigmoid gate, and the shared expert (5632) as a dense SwiGLU MLP added to the experts' output.
  const Graph qmoe = load(hf("qwen1.5-moe-a2.7b") + ":batch=1,seq=8,layers=1");
  CHECK(layer(qmoe, 1) ==
        std::vector<std::string>{"norm1_1 rmsnorm [1, 8, 2048] {[2048]}", "qkv_1 linear [1, 8, 6144] {[2048, 6144] [6144]}",
                                 "attn_1 attention [1, 8, 2048] {}", "o_proj_1 linear [1, 8, 2048] {[2048, 2048]}",
                                 "res1_1 add [1, 8, 2048] {}", "norm2_1 rmsnorm [1, 8, 2048] {[2048]}",
                                 "moe_1 moe [1, 8, 2048] {[2048, 61] [60, 2048, 2816] [60, 1408, 2048]}",
                                 "shared_gate_up_1 linear [1, 8, 11264] {[2048, 11264]}", "shared_swiglu_1 swiglu [1, 8, 5632] {}",
                                 "shared_down_1 linear [1, 8, 2048] {[5632, 2048]}", "moe_sum_1 add [1, 8, 2048] {}",
                                 "res2_1 add [1, 8, 2048] {}"});
  CHECK(qmoe.ops[size_t(qmoe.find_op("moe_1"))].spec.attrs.at("top_k") == 4);
  // GPT-NeoX (modeling_gpt_neox.py, use_parallel_residual): two LayerNorms of x, attention and MLP side by side,
  // one residual add of their sum.
  CHECK(layer(load(hf("pythia-160m") + ":batch=1,seq=8,layers=1"), 1) ==
        std::vector<std::string>{"ln1_1 layernorm [1, 8, 768] {[768] [768]}", "ln2_1 layernorm [1, 8, 768] {[768] [768]}",
                                 "qkv_1 linear [1, 8, 2304] {[768, 2304] [2304]}", "attn_1 attention [1, 8, 768] {}",
                                 "proj_1 linear [1, 8, 768] {[768, 768] [768]}", "ffn1_1 linear [1, 8, 3072] {[768, 3072] [3072]}",
                                 "ffn2_1 linear [1, 8, 768] {[3072, 768] [768]}", "branches_1 add [1, 8, 768] {}",
                                 "res2_1 add [1, 8, 768] {}"});
  // Falcon-7B (modeling_falcon.py, multi_query, parallel_attn): one LayerNorm read by both branches, Q for 71 heads
  // and one K/V head: 4544 -> 4672, no biases.
  const Graph falcon = load(hf("falcon-7b") + ":batch=1,seq=8,layers=1");
  CHECK(layer(falcon, 1) ==
        std::vector<std::string>{"ln1_1 layernorm [1, 8, 4544] {[4544] [4544]}", "qkv_1 linear [1, 8, 4672] {[4544, 4672]}",
                                 "attn_1 attention [1, 8, 4544] {}", "proj_1 linear [1, 8, 4544] {[4544, 4544]}",
                                 "ffn1_1 linear [1, 8, 18176] {[4544, 18176]}", "ffn2_1 linear [1, 8, 4544] {[18176, 4544]}",
                                 "branches_1 add [1, 8, 4544] {}", "res2_1 add [1, 8, 4544] {}"});
  CHECK(falcon.ops[size_t(falcon.find_op("attn_1"))].spec.attrs.at("kv_heads") == 1);
  CHECK(falcon.ops[size_t(falcon.find_op("ffn1_1"))].spec.activation == "gelu");
  // OPT (modeling_opt.py): pre-LN blocks with biases everywhere, a ReLU MLP, 2048 + 2 learned position rows.
  const Graph opt = load(hf("opt-1.3b") + ":batch=1,seq=8,layers=1");
  CHECK(layer(opt, 1) ==
        std::vector<std::string>{"ln1_1 layernorm [1, 8, 2048] {[2048] [2048]}", "qkv_1 linear [1, 8, 6144] {[2048, 6144] [6144]}",
                                 "attn_1 attention [1, 8, 2048] {}", "proj_1 linear [1, 8, 2048] {[2048, 2048] [2048]}",
                                 "drop1_1 dropout [1, 8, 2048] {}", "res1_1 add [1, 8, 2048] {}",
                                 "ln2_1 layernorm [1, 8, 2048] {[2048] [2048]}", "ffn1_1 linear [1, 8, 8192] {[2048, 8192] [8192]}",
                                 "ffn2_1 linear [1, 8, 2048] {[8192, 2048] [2048]}", "drop2_1 dropout [1, 8, 2048] {}",
                                 "res2_1 add [1, 8, 2048] {}"});
  CHECK(opt.ops[size_t(opt.find_op("ffn1_1"))].spec.activation == "relu");
  CHECK(signature(opt.ops[size_t(opt.find_op("embed_positions"))]) == "embed_positions embedding [1, 8, 2048] {[2050, 2048]}");
  // RoBERTa (modeling_roberta.py): BERT's post-LN layer, one token type, 514 position rows of which 512 are positions.
  const Graph roberta = load(hf("roberta-base") + ":batch=1,seq=8,layers=1");
  CHECK(layer(roberta, 1) ==
        std::vector<std::string>{"qkv_1 linear [1, 8, 2304] {[768, 2304] [2304]}", "attn_1 attention [1, 8, 768] {}",
                                 "proj_1 linear [1, 8, 768] {[768, 768] [768]}", "drop1_1 dropout [1, 8, 768] {}",
                                 "res1_1 add [1, 8, 768] {}", "ln1_1 layernorm [1, 8, 768] {[768] [768]}",
                                 "ffn1_1 linear [1, 8, 3072] {[768, 3072] [3072]}", "ffn2_1 linear [1, 8, 768] {[3072, 768] [768]}",
                                 "drop2_1 dropout [1, 8, 768] {}", "res2_1 add [1, 8, 768] {}", "ln2_1 layernorm [1, 8, 768] {[768] [768]}"});
  CHECK(signature(roberta.ops[size_t(roberta.find_op("position_embeddings"))]) == "position_embeddings embedding [1, 8, 768] {[514, 768]}");
  CHECK(signature(roberta.ops[size_t(roberta.find_op("token_type_embeddings"))]) == "token_type_embeddings embedding [1, 8, 768] {[1, 768]}");
  CHECK(load(hf("roberta-base")).spec.inputs[0].shape[1] == 512);   // the default sequence: every position
  // A padding_idx of 0 leaves 513 positions; a negative one is refused at its field.
  CHECK(load_model_json(edited("roberta-base", "pad_token_id", 0), "r").value().spec.inputs[0].shape[1] == 513);
  CHECK(load_error(edited("roberta-base", "pad_token_id", -1)).path == "pad_token_id");
  auto long_seq = load_model(hf("roberta-base") + ":seq=514");
  REQUIRE(!long_seq.ok());
  CHECK(long_seq.error().code == ErrorCode::out_of_range);
  CHECK(long_seq.error().message.find("512 learned positions") != std::string::npos);
}

TEST_CASE("the families' less common variants: Falcon's new decoder, OPT-350m's projections, Qwen2-MoE's dense layers") {
  // Falcon-40B's layout (new_decoder_architecture): 128 query heads in 8 K/V groups ((128 + 16) * 64 = 9216) and two
  // LayerNorms per layer (ln_attn, ln_mlp).
  const std::string falcon40 = R"({"model_type":"falcon","architectures":["FalconForCausalLM"],"hidden_size":8192,"num_attention_heads":128,
    "num_kv_heads":8,"num_hidden_layers":60,"new_decoder_architecture":true,"parallel_attn":true,"bias":false,"vocab_size":65024})";
  auto f = load_model_json(falcon40, "falcon-40b", "batch=1,seq=8,layers=1");
  REQUIRE(f.ok());
  CHECK(layer(f.value(), 1)[0] == "ln1_1 layernorm [1, 8, 8192] {[8192] [8192]}");
  CHECK(layer(f.value(), 1)[1] == "ln2_1 layernorm [1, 8, 8192] {[8192] [8192]}");
  CHECK(layer(f.value(), 1)[2] == "qkv_1 linear [1, 8, 9216] {[8192, 9216]}");
  // 65024*8192 + 60 * (4*8192 + 8192*9216 + 8192^2 + 2*8192*32768) + 2*8192 = 41,303,293,952.
  CHECK(load_model_json(falcon40, "falcon-40b").value().total_param_elements() == 41303293952);
  // facebook/opt-350m, 331M: post-LN (do_layer_norm_before false, so no final norm), a 512-wide embedding with
  // project_in/out (512 <-> 1024): 50272*512 + 2050*1024 + 2*512*1024 + 24 * (2*2048 + 4*(1024^2+1024)
  // + 1024*4096+4096 + 4096*1024+1024) = 331,196,416.
  const std::string opt350 = R"({"model_type":"opt","architectures":["OPTForCausalLM"],"hidden_size":1024,"ffn_dim":4096,"num_hidden_layers":24,
    "num_attention_heads":16,"max_position_embeddings":2048,"word_embed_proj_dim":512,"do_layer_norm_before":false,"vocab_size":50272})";
  auto o = load_model_json(opt350, "opt-350m");
  REQUIRE(o.ok());
  CHECK(o.value().total_param_elements() == 331196416);
  CHECK(o.value().find_op("ln_f") == -1);
  CHECK(o.value().find_op("project_in") >= 0);
  CHECK(o.value().find_op("project_out") >= 0);
  // Qwen2-MoE's mlp_only_layers and decoder_sparse_step: layer 1 (0-based 0) dense of intermediate_size,
  // then every second layer sparse.
  auto q = load_model_json(edited("qwen1.5-moe-a2.7b", "mlp_only_layers", Json::array({0})), "q", "batch=1,seq=8,layers=4");
  REQUIRE(q.ok());
  CHECK(q.value().find_op("moe_1") == -1);
  CHECK(signature(q.value().ops[size_t(q.value().find_op("gate_up_1"))]) == "gate_up_1 linear [1, 8, 11264] {[2048, 11264]}");
  CHECK(q.value().find_op("moe_2") >= 0);
  auto step = load_model_json(edited("qwen1.5-moe-a2.7b", "decoder_sparse_step", 2), "q", "batch=1,seq=8,layers=4");
  REQUIRE(step.ok());
  CHECK(step.value().find_op("moe_1") == -1);
  CHECK(step.value().find_op("moe_2") >= 0);
  CHECK(step.value().find_op("moe_3") == -1);
  CHECK(step.value().find_op("moe_4") >= 0);
}

TEST_CASE("a config that contradicts itself is refused, naming the field") {
  // Mixtral's config with model_type "mistral" loaded as a dense 7.2B model (15% of its 46.7B).
  Error e = load_error(edited("mixtral-8x7b", "model_type", "mistral"));
  CHECK(e.code == ErrorCode::bad_value);
  CHECK(e.path == "architectures");
  CHECK(e.message.find("MixtralForCausalLM") != std::string::npos);
  CHECK(e.message.find("mixtral") != std::string::npos);
  // The same with architectures agreeing with the type: the experts themselves contradict it.
  auto j = parse_json_text(edited("mixtral-8x7b", "model_type", "mistral"), "m").value();
  j["architectures"] = Json::array({"MistralForCausalLM"});
  e = load_error(j.dump());
  CHECK(e.path == "num_local_experts");
  CHECK(e.message.find("dense") != std::string::npos);
  j.erase("num_local_experts");
  e = load_error(j.dump());   // the router's top-k alone is an MoE field too
  CHECK(e.path == "num_experts_per_tok");
  // Experts under other dense types, by the names transformers uses.
  CHECK(load_error(edited("llama-3-8b", "num_experts", 8)).path == "num_experts");
  CHECK(load_error(edited("qwen2-7b", "n_routed_experts", 64)).path == "n_routed_experts");
  // One expert is no mixture: a dense config may carry num_experts 1.
  CHECK(load_model_json(edited("llama-3-8b", "num_experts", 1), "l", "layers=1").ok());
  // An architecture of another known family; an unknown class (a custom one) is left alone.
  CHECK(load_error(edited("qwen2-7b", "architectures", Json::array({"LlamaForCausalLM"}))).path == "architectures");
  CHECK(load_model_json(edited("qwen2-7b", "architectures", Json::array({"MyQwenForCausalLM"})), "q", "layers=1").ok());
  CHECK(load_error(edited("qwen2-7b", "architectures", "Qwen2ForCausalLM")).code == ErrorCode::wrong_type);
  // An MoE type's top-k above its experts.
  e = load_error(edited("mixtral-8x7b", "num_experts_per_tok", 9));
  CHECK(e.path == "num_experts_per_tok");
}

TEST_CASE("encoder-decoders are refused by name, with the reason") {
  for (const char* type : {"t5", "mt5", "bart", "mbart", "pegasus", "whisper"}) {
    CAPTURE(type);
    Error e = load_error(std::string(R"({"model_type":")") + type + R"(","d_model":512,"vocab_size":32128})");
    CHECK(e.code == ErrorCode::unknown_model);
    CHECK(e.path == "model_type");
    CHECK(e.message.find("encoder-decoder") != std::string::npos);
    CHECK(e.message.find(std::string("'") + type + "'") != std::string::npos);
  }
  // A T5 class under a decoder-only type, and is_encoder_decoder set on one.
  CHECK(load_error(edited("llama-3-8b", "architectures", Json::array({"T5ForConditionalGeneration"}))).path == "architectures");
  CHECK(load_error(edited("llama-3-8b", "is_encoder_decoder", true)).path == "is_encoder_decoder");
  // A type autopar does not read at all says so and lists what it reads.
  Error e = load_error(R"({"model_type":"mamba","vocab_size":50280})");
  CHECK(e.code == ErrorCode::unknown_model);
  CHECK(e.message.find("qwen2_moe") != std::string::npos);
}

TEST_CASE("torch_dtype sets the float width unless dtype_bytes overrides it") {
  // bfloat16 and float16 checkpoints train in 2-byte floats by default (the CLI and the page both load through
  // load_model_json; --precision appends dtype_bytes, which overrides).
  CHECK(load(hf("qwen2-7b") + ":layers=1").spec.dtype == DType::f16);             // bfloat16
  CHECK(load(hf("opt-1.3b") + ":layers=1").spec.dtype == DType::f16);             // float16
  CHECK(load(hf("qwen2-7b") + ":layers=1,dtype_bytes=4").spec.dtype == DType::f32);
  CHECK(load(hf("roberta-base")).spec.dtype == DType::f32);                       // no torch_dtype: 4 bytes
  CHECK(load_model_json(edited("roberta-base", "torch_dtype", "float32"), "r").value().spec.dtype == DType::f32);
  CHECK(load_model_json(edited("roberta-base", "dtype", "bfloat16"), "r").value().spec.dtype == DType::f16);   // transformers' newer name
  // The parameter count does not depend on it; the bytes do.
  const Graph half = load(hf("tinyllama-1.1b"));
  const Graph full = load(hf("tinyllama-1.1b") + ":dtype_bytes=4");
  CHECK(half.total_param_elements() == full.total_param_elements());
  CHECK(half.total_param_bytes() * 2 == full.total_param_bytes());
  Error e = load_error(edited("qwen2-7b", "torch_dtype", "int8"));
  CHECK(e.code == ErrorCode::bad_value);
  CHECK(e.path == "torch_dtype");
  CHECK(load_error(edited("qwen2-7b", "torch_dtype", 16)).code == ErrorCode::wrong_type);
  // The architecture records it for the exports (Megatron's --bf16 or --fp16).
  auto a = arch_from_hf_config(parse_json_text(text_of(hf("opt-1.3b")), "o").value(), "opt");
  REQUIRE(a.ok());
  CHECK(a.value().torch_dtype == "float16");
  CHECK(default_training_shape(a.value()).dtype_bytes == 2);
}

TEST_CASE("every shipped config loads as the page loads it, and SOURCES.md names each one") {
  const std::string sources = text_of(hf_dir() + "SOURCES.md");
  int configs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(hf_dir())) {
    if (entry.path().extension() != ".json") continue;
    ++configs;
    const std::string file = entry.path().filename().string();
    CAPTURE(file);
    // The page imports a file's text (the Model panel's Import: settings.model_json, loaded by
    // load_model_field); the CLI reads it by name.
    web::Settings settings;
    settings.model = file;
    settings.model_json = text_of(entry.path().string());
    auto page = web::load_model_field(settings);
    if (!page.ok()) FAIL(page.error().message);
    auto cli = load_model(entry.path().string());
    REQUIRE(cli.ok());
    CHECK(page.value().spec.dtype == cli.value().spec.dtype);
    CHECK(page.value().total_param_elements() == cli.value().total_param_elements());
    REQUIRE(page.value().spec.arch);   // the exports get the architecture
    CHECK(sources.find("`" + file + "`") != std::string::npos);
  }
  CHECK(configs >= 19);
}
