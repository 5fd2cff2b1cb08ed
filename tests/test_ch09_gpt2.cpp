/// \file test_ch09_gpt2.cpp
/// \brief GPT-2 (common/gpt2) and chapter 09's tools on it against an independent GPT-2 in numpy:
/// tests/gpt2_reference.py writes a tiny checkpoint in the Hugging Face layout (2 layers, 3 heads,
/// width 24, context 64, 268 tokens; F32 weights from a fixed seed) and its own tokens, logits and
/// attention patterns, which the C++ reading the same files must reproduce; then the chapter's
/// tools on it (common/gpt2/lab: direct logit attribution, zero ablation, patching) against the same
/// reference, and the program's --gpt2 mode run on the checkpoint as a reader would. Then
/// hand-derived cases of the tokenizer and layer norm, and bad files, folders and inputs, each
/// refused with one line.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <boost/mpl/list.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>
#include <sstream>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

#include "common/attention/random.hpp"
#include "common/gpt2/bpe.hpp"
#include "common/gpt2/checkpoint.hpp"
#include "common/gpt2/lab.hpp"
#include "common/gpt2/model.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace gpt2;

namespace {

/// A folder for this run's files, removed when the test program ends.
struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("ch09-gpt2-" + std::to_string(::getpid()));
  Scratch() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
};

const fs::path& scratch() {
  static const Scratch s;
  return s.dir;
}

/// The reference's folder, written once per run by tests/gpt2_reference.py.
const fs::path& reference_dir() {
  static const fs::path dir = [] {
    const fs::path d = scratch() / "reference";
    fs::create_directories(d);
    const attn::test::Run run = attn::test::run(std::string(PYTHON3) + " " + GPT2_REFERENCE + " " + d.string());
    if (run.code != 0) throw std::runtime_error("gpt2_reference.py failed: " + run.err);
    return d;
  }();
  return dir;
}

const json& reference() {
  static const json r = json::parse(std::ifstream(reference_dir() / "reference.json"));
  return r;
}

const Gpt2& tiny() {
  static const Gpt2 model = load_gpt2(reference_dir().string());
  return model;
}

/// The tiny model's weights in T: float as the tools run them, double as the checks that need it.
template <class T>
const BasicWeights<T>& tiny_in() {
  if constexpr (std::is_same_v<T, float>) {
    return tiny().weights;
  } else {
    static const BasicWeights<T> weights = converted<T>(tiny().weights);
    return weights;
  }
}

/// How far a pass in T may be from numpy's float64 one: double agrees to rounding; float to its
/// own precision (epsilon 1.2e-7), grown by the pass's sums of 24 to 96 terms and two layers.
template <class T>
constexpr double agreement() {
  return std::is_same_v<T, double> ? 1e-12 : 2e-5;
}

using Precisions = boost::mpl::list<float, double>;

/// A copy of the reference's folder, for one test to break.
fs::path copy_of_reference(const std::string& name) {
  const fs::path d = scratch() / name;
  fs::create_directories(d);
  for (const char* f : {"config.json", "vocab.json", "merges.txt", "model.safetensors"}) {
    fs::copy_file(reference_dir() / f, d / f);
  }
  return d;
}

/// Rewrites the safetensors header of `path` through `edit`, keeping the tensors' bytes.
template <class Edit>
void edit_header(const fs::path& path, Edit edit) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::uint64_t length = 0;
  for (int k = 7; k >= 0; --k) length = (length << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(k)]);
  json header = json::parse(bytes.substr(8, length));
  edit(header);
  const std::string text = header.dump();
  std::string out(8, '\0');
  for (std::size_t k = 0; k < 8; ++k) out[k] = static_cast<char>((text.size() >> (8 * k)) & 0xFF);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << out << text << bytes.substr(8 + length);
}

/// Appends tensor `name` (F32, `shape`, its bytes `bytes`) after the last tensor of the
/// safetensors file at `path`, as a writer of the format lays a new tensor out.
void add_tensor(const fs::path& path, const std::string& name, const std::vector<std::uint64_t>& shape,
                const std::string& bytes) {
  std::uint64_t end = 0;
  edit_header(path, [&](json& header) {
    for (const auto& [key, entry] : header.items())
      if (key != "__metadata__") end = std::max(end, entry["data_offsets"][1].get<std::uint64_t>());
    header[name] = {{"dtype", "F32"}, {"shape", shape}, {"data_offsets", {end, end + bytes.size()}}};
  });
  std::ofstream(path, std::ios::binary | std::ios::app) << bytes;
}

/// The bytes of tensor `name` in the safetensors file at `path`.
std::string tensor_bytes(const fs::path& path, const std::string& name) {
  const SafetensorsHeader header = read_safetensors_header(path.string());
  const TensorEntry& t = header.tensors.at(name);
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(header.data_start + t.begin));
  std::string bytes(t.end - t.begin, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return bytes;
}

/// A checkpoint of other sizes (WIDTH,HEADS,LAYERS,CONTEXT) or weights ("zero", "subnormal")
/// written by the reference script into a folder of its own.
fs::path other_checkpoint(const std::string& name, const std::string& sizes, const std::string& weights = "random") {
  const fs::path d = scratch() / name;
  fs::create_directories(d);
  const attn::test::Run run = attn::test::run(std::string(PYTHON3) + " " + GPT2_REFERENCE + " " + d.string() +
                                              " --checkpoint " + sizes + " " + weights);
  if (run.code != 0) throw std::runtime_error("gpt2_reference.py --checkpoint failed: " + run.err);
  return d;
}

/// Writes `value` over the first weight of tensor `name` in the safetensors file at `path`.
void set_first_weight(const fs::path& path, const std::string& name, float value) {
  std::uint64_t begin = 0;
  std::size_t header_size = 0;
  edit_header(path, [&](json& header) {
    begin = header[name]["data_offsets"][0].get<std::uint64_t>();
    header_size = header.dump().size();
  });
  std::fstream file(path, std::ios::binary | std::ios::in | std::ios::out);
  file.seekp(static_cast<std::streamoff>(8 + header_size + begin));
  file.write(reinterpret_cast<const char*>(&value), sizeof value);  // little-endian, as the format
}

/// The message load_gpt2(dir) fails with ("" if it loads).
std::string load_error(const fs::path& dir) {
  try {
    load_gpt2(dir.string());
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

/// One line that holds `part`.
void check_message(const std::string& message, const std::string& part) {
  BOOST_TEST(message.find(part) != std::string::npos, "'" << message << "' lacks '" << part << "'");
  BOOST_TEST(message.find('\n') == std::string::npos, "'" << message << "' is not one line");
}

std::vector<arma::uword> ids_of(const json& tokens) { return tokens.get<std::vector<arma::uword>>(); }

}  // namespace

BOOST_AUTO_TEST_SUITE(ch09_gpt2)

// ---- the tokenizer -------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(byte_alphabet_by_hand) {
  const auto alphabet = byte_alphabet();
  BOOST_TEST(alphabet['!'] == "!");
  BOOST_TEST(alphabet['~'] == "~");
  BOOST_TEST(alphabet[0xC3] == "\u00c3");  // printable Latin-1 stands for itself
  BOOST_TEST(alphabet[0x00] == "\u0100");  // the first byte that cannot: U+0100
  BOOST_TEST(alphabet[' '] == "\u0120");   // bytes 0..32 are the first 33 stand-ins: 'Ġ'
  BOOST_TEST(alphabet['\n'] == "\u010a");  // 'Ċ'
  BOOST_TEST(alphabet[0x7F] == "\u0121");  // 0x7F..0xA0 follow: 34 more
  BOOST_TEST(alphabet[0xAD] == "\u0143");  // the 68th and last: 256 + 67
}

BOOST_AUTO_TEST_CASE(pre_tokenize_by_hand) {
  // a run of spaces leaves its last space to the word after it; contractions are their own pieces
  BOOST_TEST(pre_tokenize("Hello  world's") == (std::vector<std::string>{"Hello", " ", " world", "'s"}));
  BOOST_TEST(pre_tokenize("it 12x!! ") == (std::vector<std::string>{"it", " 12", "x", "!!", " "}));
  BOOST_TEST(pre_tokenize("caf\u00e9 \u0663") == (std::vector<std::string>{"caf\u00e9", " \u0663"}));
  BOOST_TEST(pre_tokenize("a\n\nb") == (std::vector<std::string>{"a", "\n", "\n", "b"}));
  BOOST_TEST(pre_tokenize("").empty());
}

BOOST_AUTO_TEST_CASE(bpe_merges_by_hand) {
  // merges.txt's ranks: Ġ b (3), a n (4), Ġb an (5), Ġban k (6); then a a (24)
  const Tokenizer& t = tiny().tokenizer;
  BOOST_TEST(t.merge({"\u0120", "b", "a", "n", "k"}) == (std::vector<std::string>{"\u0120bank"}));
  // one pass merges every occurrence left to right without overlap; "aa aa" has no rule
  BOOST_TEST(t.merge({"a", "a", "a", "a", "a"}) == (std::vector<std::string>{"aa", "aa", "a"}));
  // " and": a n (4) before Ġ a (7), and then nothing joins Ġ with "an"
  BOOST_TEST(t.merge({"\u0120", "a", "n", "d"}) == (std::vector<std::string>{"\u0120", "an", "d"}));
}

BOOST_AUTO_TEST_CASE(tokens_match_reference) {
  for (const json& item : reference()["texts"]) {
    const std::string text = item["text"].get<std::string>();
    const std::vector<arma::uword> ids = tiny().tokenizer.encode(text);
    BOOST_TEST(ids == ids_of(item["tokens"]), "text '" << text << "'");
    BOOST_TEST(tiny().tokenizer.decode(ids) == text);
  }
}

// ---- the model -----------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(gpt2_small_has_124439808_parameters) {
  // wte 50257 x 768 + wpe 1024 x 768 + 12 blocks of (4 x 768 norms + 768 x 2304 + 2304 + 768 x 768
  // + 768 + 768 x 3072 + 3072 + 3072 x 768 + 768) + 2 x 768 = 38597376 + 786432 + 12 x 7087872 + 1536
  BOOST_TEST(parameter_count(kSmall) == 124439808u);
}

BOOST_AUTO_TEST_CASE(layer_norm_by_hand) {
  // row (1, 2, 3): mean 2, population variance 2/3, so (x - 2) / sqrt(2/3) = -sqrt(3/2), 0, sqrt(3/2)
  const arma::mat got =
      layer_norm(arma::mat{{1.0, 2.0, 3.0}}, arma::rowvec{1.0, 2.0, 1.0}, arma::rowvec{0.0, 1.0, 0.0}, 0.0);
  BOOST_TEST(got(0, 0) == -std::sqrt(1.5), boost::test_tools::tolerance(1e-14));
  BOOST_TEST(got(0, 1) == 1.0, boost::test_tools::tolerance(1e-14));
  BOOST_TEST(got(0, 2) == std::sqrt(1.5), boost::test_tools::tolerance(1e-14));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(logits_and_patterns_match_numpy, T, Precisions) {
  const BasicWeights<T>& w = tiny_in<T>();
  double worst_logit = 0.0, worst_pattern = 0.0;
  for (const json& item : reference()["forward"]) {
    const std::vector<arma::uword> ids = tiny().tokenizer.encode(item["text"].get<std::string>());
    BOOST_REQUIRE(ids == ids_of(item["tokens"]));
    const BasicPass<T> pass = forward(w, ids);
    const arma::uword n = ids.size();
    BOOST_REQUIRE(pass.logits.n_rows == n && pass.logits.n_cols == w.config.vocab);
    for (arma::uword i = 0; i < n; ++i) {
      for (arma::uword t = 0; t < w.config.vocab; ++t) {
        const double want = item["logits"][i][t].get<double>();
        worst_logit = std::max(worst_logit, std::abs(pass.logits(i, t) - want) / std::max(1.0, std::abs(want)));
      }
    }
    for (arma::uword l = 0; l < w.config.layers; ++l) {
      for (arma::uword h = 0; h < w.config.heads; ++h) {
        const arma::Mat<T>& A = pass.layers[l].patterns[h];
        const json& want = item["patterns"][l * w.config.heads + h];
        for (arma::uword i = 0; i < n; ++i) {
          for (arma::uword j = 0; j < n; ++j) {
            worst_pattern = std::max(worst_pattern, std::abs(A(i, j) - want[i][j].get<double>()));
            if (j > i) BOOST_TEST(A(i, j) == 0.0);  // the causal mask: exactly zero, not small
          }
        }
      }
    }
  }
  BOOST_TEST_MESSAGE("GPT-2 in " << (sizeof(T) == 4 ? "float" : "double") << " vs numpy: largest logit difference "
                                 << worst_logit << " (relative, floor 1), largest attention weight difference "
                                 << worst_pattern);
  BOOST_TEST(worst_logit < agreement<T>());
  BOOST_TEST(worst_pattern < agreement<T>());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(head_outputs_add_up_to_the_attention_update, T, Precisions) {
  // resid_mid = resid_pre + sum over heads of z_h W_O^h + b_O: the heads' writes are the whole update
  const BasicWeights<T>& w = tiny_in<T>();
  const BasicPass<T> pass = forward(w, tiny().tokenizer.encode("The bank of the river"));
  for (arma::uword l = 0; l < w.config.layers; ++l) {
    arma::Mat<T> sum = pass.layers[l].resid_pre;
    for (const arma::Mat<T>& out : pass.layers[l].head_outputs) sum += out;
    sum.each_row() += w.blocks[l].proj_bias;
    BOOST_TEST(arma::abs(sum - pass.layers[l].resid_mid).max() < agreement<T>());
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(the_cores_split_products_without_changing_them, T, Precisions) {
  // affine() and unembed() cut their products between threads; each block is the same product
  // BLAS computes whole, so the result equals X * W + b and X * wte^T to rounding
  attn::Random rng(5);
  const arma::Mat<T> X = arma::conv_to<arma::Mat<T>>::from(rng.normal_matrix(40, 96, 1.0));
  const arma::Mat<T> W = arma::conv_to<arma::Mat<T>>::from(rng.normal_matrix(96, 1001, 0.1));
  const arma::Row<T> b = arma::conv_to<arma::Row<T>>::from(rng.normal_matrix(1, 1001, 0.1));
  arma::Mat<T> whole = X * W;
  whole.each_row() += b;
  const double tolerance = 100 * std::numeric_limits<T>::epsilon();
  BOOST_TEST(arma::abs(affine(X, W, b) - whole).max() < tolerance);
  BOOST_TEST(arma::abs(affine(X, W, b, Activation::gelu) - gelu(whole)).max() < tolerance);
  BasicWeights<T> w;
  w.wte = W.t();  // 1001 tokens of width 96
  BOOST_TEST(arma::abs(unembed(w, X) - X * w.wte.t()).max() < tolerance);
  BOOST_TEST(unembed(w, arma::Mat<T>(0, 96)).n_rows == 0);  // no row: no product (BLAS would refuse lda 0)
}

BOOST_AUTO_TEST_CASE(heads_run_at_once_equal_each_head_computed_alone) {
  // a model wide enough for forward() to cut its products and its heads between the cores (30
  // tokens x width 192 x 192 is past the million multiply-adds below which nothing is cut): each
  // head's pattern and write must be the head computed alone from the stream entering its layer,
  // A = softmax(Q K^T / sqrt(d_h) + causal), write = A V W_O^h, with Q, K, V from the normed stream
  attn::Random rng(11);
  const Config config{50, 32, 192, 2, 4, 1e-5};
  const Weights w = random_weights<float>(config, rng);
  std::vector<arma::uword> tokens(30);
  for (arma::uword& t : tokens) t = rng.below(config.vocab);
  const Pass pass = forward(w, tokens);
  const arma::uword d = config.width, dh = d / config.heads;
  for (arma::uword l = 0; l < config.layers; ++l) {
    const Block& b = w.blocks[l];
    arma::fmat qkv = layer_norm(pass.layers[l].resid_pre, b.ln_1_gain, b.ln_1_bias, config.epsilon) * b.attn_weight;
    qkv.each_row() += b.attn_bias;
    for (arma::uword h = 0; h < config.heads; ++h) {
      const arma::fmat Q = qkv.cols(h * dh, h * dh + dh - 1), K = qkv.cols(d + h * dh, d + h * dh + dh - 1),
                       V = qkv.cols(2 * d + h * dh, 2 * d + h * dh + dh - 1);
      arma::fmat A = Q * K.t() / std::sqrt(static_cast<float>(dh));
      for (arma::uword i = 0; i < A.n_rows; ++i) {
        A(i, arma::span(0, i)) = arma::exp(A(i, arma::span(0, i)) - A(i, arma::span(0, i)).max());
        A(i, arma::span(0, i)) /= arma::accu(A(i, arma::span(0, i)));
        if (i + 1 < A.n_cols) A(i, arma::span(i + 1, A.n_cols - 1)).zeros();
      }
      const arma::fmat write = A * V * b.proj_weight.rows(h * dh, h * dh + dh - 1);
      BOOST_TEST(arma::abs(pass.layers[l].patterns[h] - A).max() < 1e-5, "L" << l << ".H" << h);
      BOOST_TEST(arma::abs(pass.layers[l].head_outputs[h] - write).max() < 1e-4 * arma::abs(write).max(),
                 "L" << l << ".H" << h);
    }
  }
}

BOOST_AUTO_TEST_CASE(layer_norm_of_large_equal_entries_is_exact_in_float) {
  // every weight 1: each row of every stream holds one value (it grows past 1e6 by the second
  // block), so each norm's centred row is 0 and its output the bias, 1; every logit is then the
  // sum of a row of wte, the width. A float mean of 768 such entries would miss them by hundreds.
  const Config config{50, 64, 768, 2, 12, 1e-5};
  Weights w{config, {}, {}, {}, {}, {}};
  for (const Parameter<float>& p : parameter_table(w)) p.slot->ones(p.rows, p.cols);
  const Pass pass = forward(w, std::vector<arma::uword>{1, 2, 3, 4, 5});
  BOOST_TEST(pass.layers[1].resid_mid.max() > 1e6);
  BOOST_TEST(arma::abs(pass.logits - 768.0f).max() == 0.0f);
}

BOOST_AUTO_TEST_CASE(gelu_matches_its_tanh_form) {
  // 0.5 x (1 + tanh u) computed as x / (1 + e^(-2u)); at x = 1: u = sqrt(2/pi) 1.044715
  const double u = std::sqrt(2.0 / std::numbers::pi) * 1.044715;
  const arma::mat got = gelu(arma::mat{{1.0, -3.0, 0.0, 30.0, -30.0}});
  BOOST_TEST(got(0, 0) == 0.5 * (1.0 + std::tanh(u)), boost::test_tools::tolerance(1e-15));
  const double u3 = std::sqrt(2.0 / std::numbers::pi) * (-3.0 - 0.044715 * 27.0);
  BOOST_TEST(got(0, 1) == -1.5 * (1.0 + std::tanh(u3)), boost::test_tools::tolerance(1e-12));
  BOOST_TEST(got(0, 2) == 0.0);
  BOOST_TEST(got(0, 3) == 30.0);  // far right: x itself
  BOOST_TEST(got(0, 4) == 0.0);   // far left: 0 (e^(-2u) overflows to inf, and -30 / inf is -0)
}

BOOST_AUTO_TEST_CASE(hooks_patch_what_they_are_given) {
  const Weights& w = tiny().weights;
  const std::vector<arma::uword> a = tiny().tokenizer.encode("The bank of the river");
  const std::vector<arma::uword> b = tiny().tokenizer.encode("The bank of the money");
  const Pass clean = forward(w, a), other = forward(w, b);
  BOOST_REQUIRE(a.size() == b.size());
  // patching every head of every layer from the other sentence leaves only the MLPs and the
  // embeddings reading sentence a; patching its residual stream before the final norm gives b's logits
  Hooks residual;
  residual.residual = [&](arma::uword layer, arma::fmat& X) {
    if (layer == w.config.layers) X = other.resid_final;
  };
  BOOST_TEST(arma::abs(forward(w, a, residual).logits - other.logits).max() == 0.0);
  Hooks zero;
  zero.head_output = [](arma::uword layer, arma::uword head, arma::fmat& out) {
    if (layer == 1 && head == 2) out.zeros();
  };
  const Pass ablated = forward(w, a, zero);
  BOOST_TEST(arma::abs(ablated.layers[0].resid_mid - clean.layers[0].resid_mid).max() == 0.0);  // before it: same
  BOOST_TEST(arma::abs(ablated.logits - clean.logits).max() > 1e-3);                            // after it: moved
}

// ---- the chapter's tools on it ------------------------------------------------------------------

namespace {

/// The largest difference between `got` and the reference's rows `want` (a list of lists, or one list).
double worst_difference(const arma::fmat& got, const json& want) {
  double worst = 0.0;
  for (arma::uword i = 0; i < got.n_rows; ++i) {
    const json& row = got.n_rows == 1 && !want[0].is_array() ? want : want[i];
    BOOST_REQUIRE(row.size() == got.n_cols);
    for (arma::uword j = 0; j < got.n_cols; ++j) worst = std::max(worst, std::abs(got(i, j) - row[j].get<double>()));
  }
  return worst;
}

const json& interventions() { return reference()["interventions"]; }

}  // namespace

BOOST_AUTO_TEST_CASE(direct_logits_match_numpy) {
  // numpy: a head's output at t, (o - mean o) / sqrt(var(x_t) + eps) * ln_f.weight @ wte^T
  const Weights& w = tiny().weights;
  const std::vector<arma::uword> a = tiny().tokenizer.encode(interventions()["a"].get<std::string>());
  const Pass pass = forward(w, a);
  const auto layer = interventions()["dla_head"][0].get<arma::uword>(),
             head = interventions()["dla_head"][1].get<arma::uword>();
  const auto t = interventions()["position"].get<arma::uword>();
  const arma::frowvec got = direct_logits(w, pass, t, pass.layers[layer].head_outputs[head].row(t));
  const double worst = worst_difference(got, interventions()["dla"]);
  BOOST_TEST_MESSAGE("direct logit attribution vs numpy: largest difference " << worst);
  BOOST_TEST(worst < agreement<float>());
  BOOST_TEST(arma::abs(got).max() > 0.1);  // a real contribution, not a vector of zeros
}

// The measured roles and losses on sequences numpy ran (the reference's texts of 13 and 15 tokens),
// recomputed here from numpy's patterns and logits by the definitions: the first token stands for
// <|endoftext|> (o = 1) and is neither scored nor read; previous-token: the weight from each later
// position i > o to i - 1, every read of both windows counted once; induction on a sequence of
// o + 2n tokens (n = 6): the weight from position o + n + j to o + j + 1, j = 0 .. n - 2, the mean
// over the two sequences; the held-out loss: -ln p of each next token, over both windows. The
// uniform-attention levels printed beside the roles are the same scores with 1 / (i + 1) on every key.
BOOST_AUTO_TEST_CASE(roles_and_losses_match_numpy_by_their_definitions) {
  const json& texts = reference()["forward"];
  const json &one = texts[0], &two = texts[2];
  const arma::uword o = 1, n = 6, L = tiny().weights.config.layers, H = tiny().weights.config.heads;
  BOOST_REQUIRE(ids_of(one["tokens"]).size() == o + 2 * n);
  BOOST_REQUIRE(ids_of(two["tokens"]).size() > o + 2 * n);
  Probes probes;
  probes.bos = true;
  probes.held = {ids_of(one["tokens"]), ids_of(two["tokens"])};
  std::vector<arma::uword> cut = ids_of(two["tokens"]);
  cut.resize(o + 2 * n);  // causal: numpy's first o + 2n rows are this sequence's
  probes.repeats = {ids_of(one["tokens"]), cut};
  probes.repeat_length = n;
  const Roles r = roles(tiny(), probes);
  arma::mat previous(L, H, arma::fill::zeros), induction(L, H, arma::fill::zeros);
  double reads = 0.0, loss = 0.0, targets = 0.0, previous_uniform = 0.0, induction_uniform = 0.0;
  for (const json* item : {&one, &two}) {
    const arma::uword T = ids_of((*item)["tokens"]).size();
    // uniform causal attention puts 1 / (i + 1) on every key of row i
    for (arma::uword i = o + 1; i < T; ++i) previous_uniform += 1.0 / static_cast<double>(i + 1);
    for (arma::uword j = 0; j + 1 < n; ++j)
      induction_uniform += 1.0 / static_cast<double>(o + n + j + 1) / (2.0 * static_cast<double>(n - 1));
    for (arma::uword k = 0; k < L * H; ++k) {
      const json& A = (*item)["patterns"][k];
      for (arma::uword i = o + 1; i < T; ++i) previous(k / H, k % H) += A[i][i - 1].get<double>();
      for (arma::uword j = 0; j + 1 < n; ++j)
        induction(k / H, k % H) += A[o + n + j][o + j + 1].get<double>() / (2.0 * static_cast<double>(n - 1));
    }
    reads += static_cast<double>(T - 1 - o);
    for (arma::uword i = 0; i + 1 < T; ++i) {
      const std::vector<double> z = (*item)["logits"][i].get<std::vector<double>>();
      double top = z[0], sum = 0.0;
      for (const double v : z) top = std::max(top, v);
      for (const double v : z) sum += std::exp(v - top);
      loss += top + std::log(sum) - z[ids_of((*item)["tokens"])[i + 1]];
      targets += 1.0;
    }
  }
  previous /= reads;
  BOOST_TEST(arma::abs(r.previous_token - previous).max() < agreement<float>());
  BOOST_TEST(arma::abs(r.induction - induction).max() < agreement<float>());
  BOOST_TEST(r.held_tokens == static_cast<arma::uword>(targets));
  BOOST_TEST(std::abs(r.held_loss - loss / targets) < agreement<float>());
  BOOST_TEST(arma::accu(induction) > 0.0);  // the positions scored hold weight: the test can fail
  BOOST_TEST(r.previous_uniform == previous_uniform / reads, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(r.induction_uniform == induction_uniform, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(direct_effects_add_up_to_the_logit) {
  // the final norm is linear once its scale is frozen, so the parts' direct effects sum to the logit
  const Gpt2& m = tiny();
  const TokenText text = read_text(m.tokenizer, "The bank of the river and the bank's money.");
  const Pass pass = forward(m.weights, text.tokens);
  for (const arma::uword t : {arma::uword{0}, arma::uword{5}, arma::uword{text.tokens.size() - 1}}) {
    const Writes writes = head_writes(m, pass, head_view(m, pass, text, t));
    BOOST_TEST(writes.parts == writes.logit, boost::test_tools::tolerance(agreement<float>()));
    BOOST_TEST(writes.heads.size() == m.weights.config.layers * m.weights.config.heads);
  }
}

BOOST_AUTO_TEST_CASE(zero_ablation_and_patching_match_numpy) {
  const Weights& w = tiny().weights;
  const std::vector<arma::uword> a = tiny().tokenizer.encode(interventions()["a"].get<std::string>());
  const std::vector<arma::uword> b = tiny().tokenizer.encode(interventions()["b"].get<std::string>());
  const Pass clean = forward(w, a), source = forward(w, b);
  const arma::uvec all = arma::regspace<arma::uvec>(0, a.size() - 1);
  const json& zero_head = interventions()["zero_head"];
  const arma::fmat zeroed = with_head_output(w, clean, zero_head[0].get<arma::uword>(), zero_head[1].get<arma::uword>(),
                                             arma::fmat(1, w.config.width), all);
  const json& patch_head = interventions()["patch_head"];
  const auto pl = patch_head[0].get<arma::uword>(), ph = patch_head[1].get<arma::uword>();
  const arma::fmat patched = with_head_output(w, clean, pl, ph, source.layers[pl].head_outputs[ph], all);
  const double worst_zero = worst_difference(zeroed, interventions()["zero"]);
  const double worst_patch = worst_difference(patched, interventions()["patched"]);
  BOOST_TEST_MESSAGE("zero ablation vs numpy " << worst_zero << ", patching vs numpy " << worst_patch);
  BOOST_TEST(worst_zero < agreement<float>());
  BOOST_TEST(worst_patch < agreement<float>());
  // the interventions moved the logits: a test that a no-op would pass proves nothing
  BOOST_TEST(arma::abs(zeroed - clean.logits).max() > 1e-3);
  BOOST_TEST(arma::abs(patched - clean.logits).max() > 1e-3);
}

BOOST_AUTO_TEST_CASE(variants_run_together_equal_one_at_a_time) {
  // resume_streams() stacks the variants' streams; each must equal its own resume()
  const Weights& w = tiny().weights;
  const Pass clean = forward(w, tiny().tokenizer.encode("The bank of the river"));
  const std::vector<Hooks> variants{attn::replacing_head(0, 1, arma::fmat(1, w.config.width, arma::fill::zeros)),
                                    attn::replacing_head(0, 2, clean.layers[0].head_outputs[0]), Hooks{}};
  const std::vector<arma::fmat> together = resume_streams(w, clean, 0, variants);
  BOOST_REQUIRE(together.size() == variants.size());
  for (std::size_t v = 0; v < variants.size(); ++v) {
    const arma::fmat alone = resume(w, clean, 0, variants[v], {}).resid_final;
    BOOST_TEST(arma::abs(together[v] - alone).max() < agreement<float>(), "variant " << v);
  }
  BOOST_TEST(arma::abs(together[2] - clean.resid_final).max() < agreement<float>());  // no hook: the clean pass
  BOOST_TEST(arma::abs(together[0] - clean.resid_final).max() > 1e-3);                // a hook: another pass
}

BOOST_AUTO_TEST_CASE(program_runs_every_section_on_the_tiny_checkpoint) {
  const attn::test::Run run = attn::test::run(std::string(CH09_PROGRAM) + " --gpt2 " +
                                              attn::test::quote(reference_dir().string()) + " --no-plots");
  BOOST_TEST(run.code == 0, run.err);
  for (const char* part : {"GPT-2 read from", "1. The head view", "2. What each head writes", "check: the embedding",
                           "3. Measured roles", "induction score", "4. Interventions", "Activation patching",
                           "5. bank after a river word", "after \"the money bank\""}) {
    BOOST_TEST(run.out.find(part) != std::string::npos, "the output lacks '" << part << "'");
  }
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);) BOOST_TEST(line.size() <= 100u, line);
  BOOST_TEST(run.out.find("nan") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(program_refuses_bad_folders_in_one_line) {
  const std::string program = std::string(CH09_PROGRAM) + " --no-plots --gpt2 ";
  const auto refused = [&](const std::string& args, int code, const std::string& part) {
    const attn::test::Run run = attn::test::run(program + args);
    BOOST_TEST(run.code == code, args << ": exit " << run.code << ", " << run.err);
    BOOST_TEST(run.out.empty(), args);
    BOOST_TEST(attn::test::line_count(run.err) == 1u, args << ": " << run.err);
    BOOST_TEST(run.err.rfind("ch09_real_heads: error: --", 0) == 0u, args << ": " << run.err);
    BOOST_TEST(run.err.find(part) != std::string::npos, args << ": '" << run.err << "' lacks '" << part << "'");
  };
  const std::string good = attn::test::quote(reference_dir().string());
  refused("/nonexistent/gpt2", 2, "'/nonexistent/gpt2' does not exist");
  refused(attn::test::quote((reference_dir() / "vocab.json").string()), 2, "is not a folder");
  const fs::path no_merges = copy_of_reference("no-merges");
  fs::remove(no_merges / "merges.txt");
  refused(attn::test::quote(no_merges.string()), 2, "merges.txt' is missing");
  const fs::path folder = copy_of_reference("folder");
  fs::remove(folder / "model.safetensors");
  fs::create_directory(folder / "model.safetensors");
  refused(attn::test::quote(folder.string()), 2, "model.safetensors' is a folder, not a file");
  // a file that is there but unusable is refused as --load refuses one, naming the file
  const fs::path shapes = copy_of_reference("program-shape");
  edit_header(shapes / "model.safetensors", [](json& header) { header["h.0.attn.c_attn.weight"]["shape"] = {72, 24}; });
  refused(attn::test::quote(shapes.string()), 2, "model.safetensors: tensor 'h.0.attn.c_attn.weight' is [72, 24]");
  // a finite weight no trained GPT-2 holds would overflow the pass into NaN: refused at load
  const fs::path huge = copy_of_reference("huge-weight");
  set_first_weight(huge / "model.safetensors", "wte.weight", 3.4e38f);
  refused(attn::test::quote(huge.string()), 2, "tensor 'wte.weight' holds a weight of size 3.4e+38");
  // just past the bound, the size is shown with the digits that put it past (not as 1e+04)
  const fs::path past = copy_of_reference("just-past-the-bound");
  set_first_weight(past / "model.safetensors", "wte.weight", 10000.001f);
  refused(attn::test::quote(past.string()), 2, "holds a weight of size 10000.001, beyond any trained GPT-2's");
  // a long folder name is cut in the middle, so the file's name and the reason stay in the line
  fs::path deep = scratch();
  for (const char c : std::string("defgh")) deep /= std::string(60, c);
  fs::create_directories(deep);
  for (const char* f : {"config.json", "vocab.json", "merges.txt", "model.safetensors"})
    fs::copy_file(reference_dir() / f, deep / f, fs::copy_options::overwrite_existing);
  std::ofstream(deep / "vocab.json", std::ios::trunc) << "{\"a\": 1";
  refused(attn::test::quote(deep.string()), 2, "/vocab.json (");
  refused(attn::test::quote(deep.string()), 2, "bytes): the file is not valid JSON");
  // a text file beyond the checked reader's limit
  const fs::path padded = copy_of_reference("padded-merges");
  std::ofstream(padded / "merges.txt", std::ios::app) << std::string(std::size_t{17} << 20, ' ');
  refused(attn::test::quote(padded.string()), 2, "merges.txt");
  // flags the mode would ignore, and a position past the sentence's tokens
  refused(good + " --steps 5", 2, "--steps does not apply");
  refused(good + " --plots /tmp/x", 2, "--gpt2 draws no plots");
  refused(good + " --sentence 'The bank' --position 5", 2, "--position 5 is past the sentence's 2 tokens");
}

BOOST_AUTO_TEST_CASE(transformer_prefix_and_no_config_json) {
  // GPT2LMHeadModel saves "transformer.<name>" and lm_head.weight; the same model must load the same
  const fs::path d = copy_of_reference("prefix");
  edit_header(d / "model.safetensors", [](json& header) {
    json renamed;
    for (const auto& [name, entry] : header.items())
      renamed[name == "__metadata__" ? name : "transformer." + name] = entry;
    header = renamed;
  });
  add_tensor(d / "model.safetensors", "lm_head.weight", {268, 24}, tensor_bytes(d / "model.safetensors", "wte.weight"));
  const Gpt2 prefixed = load_gpt2(d.string());
  const std::vector<arma::uword> ids = tiny().tokenizer.encode("The bank");
  BOOST_TEST(arma::abs(forward(prefixed.weights, ids).logits - forward(tiny().weights, ids).logits).max() == 0.0);
  // without config.json the heads are width / 64, which width 24 cannot give
  fs::remove(d / "config.json");
  check_message(load_error(d), "not a multiple of GPT-2's 64-wide heads");
}

// ---- bad input -----------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(missing_tensor_is_named) {
  const fs::path d = copy_of_reference("missing");
  edit_header(d / "model.safetensors", [](json& header) { header.erase("h.1.mlp.c_fc.bias"); });
  check_message(load_error(d), "lacks tensor 'h.1.mlp.c_fc.bias' [96]");
}

BOOST_AUTO_TEST_CASE(wrong_shape_names_both_shapes) {
  const fs::path d = copy_of_reference("shape");
  edit_header(d / "model.safetensors", [](json& header) { header["h.0.attn.c_attn.weight"]["shape"] = {72, 24}; });
  check_message(load_error(d), "tensor 'h.0.attn.c_attn.weight' is [72, 24], but GPT-2 of these sizes needs [24, 72]");
}

BOOST_AUTO_TEST_CASE(unknown_tensor_is_refused) {
  const fs::path d = copy_of_reference("unknown");
  add_tensor(d / "model.safetensors", "h.0.attn.rotary", {24}, std::string(96, '\0'));
  check_message(load_error(d),
                "holds tensor 'h.0.attn.rotary' [24], which GPT-2 with 2 layers and width 24 does not have");
}

BOOST_AUTO_TEST_CASE(other_dtype_and_non_finite_weight) {
  const fs::path d = copy_of_reference("dtype");
  // F16 halves the bytes: ln_f.bias's 96 bytes hold 48 of them
  edit_header(d / "model.safetensors", [](json& header) {
    header["ln_f.bias"]["dtype"] = "F16";
    header["ln_f.bias"]["shape"] = {48};
  });
  check_message(load_error(d), "tensor 'ln_f.bias' is F16; this reader takes F32");
  fs::copy_file(reference_dir() / "model.safetensors", d / "model.safetensors", fs::copy_options::overwrite_existing);
  const SafetensorsHeader header = read_safetensors_header((d / "model.safetensors").string());
  {
    std::fstream f(d / "model.safetensors", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(header.data_start + header.tensors.at("wpe.weight").begin + 4 * 5));
    f.write("\x00\x00\xc0\x7f", 4);  // a quiet NaN, little-endian, as entry (0, 5)
  }
  check_message(load_error(d), "tensor 'wpe.weight' has a NaN or infinite entry");
}

BOOST_AUTO_TEST_CASE(n_layer_beyond_the_blocks_is_refused_before_allocating) {
  // 10^12 empty blocks would be terabytes: the count is checked against the header first
  const fs::path d = copy_of_reference("layers");
  json config = json::parse(std::ifstream(d / "config.json"));
  config["n_layer"] = 1000000000000ULL;
  std::ofstream(d / "config.json") << config.dump();
  check_message(load_error(d),
                "config.json: n_layer is 1000000000000, but model.safetensors holds tensors for 2 layers");
  // an entry named for block 999999 counts once, not as 999999 blocks
  add_tensor(d / "model.safetensors", "h.999999.attn.bias", {1, 1, 64, 64},
             tensor_bytes(d / "model.safetensors", "h.0.attn.bias"));
  config["n_layer"] = 999999;
  std::ofstream(d / "config.json") << config.dump();
  check_message(load_error(d), "n_layer is 999999, but model.safetensors holds tensors for 3 layers");
}

BOOST_AUTO_TEST_CASE(truncated_file_says_where) {
  const fs::path d = copy_of_reference("truncated");
  const fs::path model = d / "model.safetensors";
  const auto size = fs::file_size(model);
  fs::resize_file(model, size - 100);
  check_message(load_error(d), "truncated: tensor 'ln_f.bias' ends at byte " + std::to_string(size));
  fs::resize_file(model, 5);
  check_message(load_error(d), "truncated: 5 bytes, fewer than the 8 of the header's length");
}

BOOST_AUTO_TEST_CASE(bad_json_says_which_file) {
  const fs::path d = copy_of_reference("json");
  {
    std::fstream f(d / "model.safetensors", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(8);
    f.put('x');  // the header's opening brace
  }
  check_message(load_error(d), "model.safetensors: the header is not valid JSON (parsing stopped at byte 1)");
  fs::copy_file(reference_dir() / "model.safetensors", d / "model.safetensors", fs::copy_options::overwrite_existing);
  std::ofstream(d / "vocab.json") << "{\"a\": 0,";
  check_message(load_error(d), "vocab.json: the file is not valid JSON");
}

BOOST_AUTO_TEST_CASE(bad_vocabulary_and_merges) {
  const fs::path d = copy_of_reference("vocab");
  std::ofstream(d / "merges.txt", std::ios::app) << "a b c\n";
  check_message(load_error(d), "merges.txt: line 30 ('a b c') is not two symbols separated by one space");
  fs::copy_file(reference_dir() / "merges.txt", d / "merges.txt", fs::copy_options::overwrite_existing);
  std::ofstream(d / "merges.txt", std::ios::app) << "x y\n";
  check_message(load_error(d), "merges.txt: rule 29 ('x' 'y') makes 'xy', which vocab.json lacks");
  std::ofstream(d / "vocab.json") << "{\"a\": 0}";
  check_message(load_error(d), "vocab.json: has 1 tokens, but the model's embedding has 268 rows");
  fs::remove(d / "vocab.json");
  check_message(load_error(d), "vocab.json': No such file or directory");
  check_message(load_error(d / "nowhere"), "is not a folder");
}

BOOST_AUTO_TEST_CASE(unknown_byte_and_bad_text) {
  const Tokenizer& t = tiny().tokenizer;
  // the tiny vocabulary has no token for bytes 0xF0..0xFF, the lead bytes of 4-byte characters
  try {
    t.encode("smile \xF0\x9F\x98\x80");
    BOOST_FAIL("an unknown byte was encoded");
  } catch (const std::invalid_argument& e) {
    check_message(e.what(), "byte 0xF0 (stand-in '\\xc3\\xb0', in ' \\xf0\\x9f\\x98\\x80') has no token in vocab.json");
  }
  BOOST_CHECK_EXCEPTION(t.encode("ok \xFF\xFE"), std::invalid_argument, [](const std::invalid_argument& e) {
    check_message(e.what(), "not valid UTF-8 at byte 3");
    return true;
  });
  BOOST_CHECK_EXCEPTION(t.token_bytes(268), std::invalid_argument, [](const std::invalid_argument& e) {
    check_message(e.what(), "id 268 is outside the vocabulary 0..267");
    return true;
  });
}

BOOST_AUTO_TEST_CASE(bad_sequences_are_refused) {
  const Weights& w = tiny().weights;
  const auto refuses = [&](const std::vector<arma::uword>& ids, const std::string& part) {
    try {
      forward(w, ids);
      BOOST_ERROR("forward accepted a bad sequence: " << part);
    } catch (const std::invalid_argument& e) {
      check_message(e.what(), part);
    }
  };
  refuses({}, "no tokens");
  refuses(std::vector<arma::uword>(65, 1), "65 tokens, more than the context of 64");
  refuses({1, 2, 268}, "token 268 at position 2 is outside the vocabulary 0..267");
}

BOOST_AUTO_TEST_CASE(an_lm_head_that_differs_from_wte_is_refused) {
  // GPT-2 ties its unembedding to the embedding, and the tools read wte.weight for both: a copy is
  // accepted (above), a different lm_head.weight is refused, not silently ignored.
  const fs::path d = copy_of_reference("untied");
  std::string head = tensor_bytes(d / "model.safetensors", "wte.weight");
  head[4 * (24 * 3 + 5)] ^= 0x01;  // entry (3, 5), in its lowest mantissa bit
  add_tensor(d / "model.safetensors", "lm_head.weight", {268, 24}, head);
  check_message(load_error(d), "tensor 'lm_head.weight' differs from 'wte.weight' (entry (3, 5):");
}

BOOST_AUTO_TEST_CASE(overlapping_tensors_and_bytes_of_no_tensor_are_refused) {
  // As the format's reference reader: tensors share no bytes, and every byte after the header
  // belongs to one tensor.
  const fs::path d = copy_of_reference("layout");
  edit_header(d / "model.safetensors",
              [](json& header) { header["ln_f.bias"]["data_offsets"] = header["ln_f.weight"]["data_offsets"]; });
  check_message(load_error(d), "share bytes");
  fs::copy_file(reference_dir() / "model.safetensors", d / "model.safetensors", fs::copy_options::overwrite_existing);
  std::ofstream(d / "model.safetensors", std::ios::binary | std::ios::app) << std::string(8, '\0');
  check_message(load_error(d), "model.safetensors: 8 bytes after the last tensor ('ln_f.bias') belong to no tensor");
}

BOOST_AUTO_TEST_CASE(a_merges_file_cut_short_or_sizes_that_disagree_name_the_file_at_fault) {
  // 240 byte tokens + 28 rules: an empty or half merges.txt leaves tokens no rule makes.
  const fs::path d = copy_of_reference("short-merges");
  std::ofstream(d / "merges.txt") << "#version: 0.2\n";
  check_message(load_error(d), "merges.txt: its 0 rules make no token of 28 in vocab.json");
  std::ifstream full(reference_dir() / "merges.txt");
  std::string line, half;
  for (int k = 0; k < 15 && std::getline(full, line); ++k) half += line + "\n";  // the version line and 14 rules
  std::ofstream(d / "merges.txt") << half;
  check_message(load_error(d), "merges.txt: its 14 rules make no token of 14 in vocab.json");
  // vocab_size against wte.weight's rows: config.json is named, not vocab.json.
  const fs::path c = copy_of_reference("vocab-size");
  json config = json::parse(std::ifstream(c / "config.json"));
  config["vocab_size"] = 267;
  std::ofstream(c / "config.json") << config.dump();
  check_message(load_error(c), "config.json: vocab_size is 267, but model.safetensors' wte.weight has 268 rows");
  // a token written outside the byte alphabet is named in vocab.json's terms
  const fs::path v = copy_of_reference("alphabet");
  json vocab = json::parse(std::ifstream(v / "vocab.json"));
  vocab["\u20ac"] = vocab["\u0100"];  // the euro sign, in place of byte 0's stand-in
  vocab.erase("\u0100");
  std::ofstream(v / "vocab.json") << vocab.dump();
  check_message(load_error(v), "vocab.json: token '\\xe2\\x82\\xac' (id 0) holds");
}

BOOST_AUTO_TEST_CASE(numbers_beyond_a_double_in_json_name_the_file) {
  const fs::path d = copy_of_reference("json-1e400");
  std::string config((std::istreambuf_iterator<char>(std::ifstream(d / "config.json").rdbuf())), {});
  std::ofstream(d / "config.json") << config.substr(0, config.rfind('}')) << ", \"x\": 1e400}";
  check_message(load_error(d), "config.json: the file is not usable JSON (number overflow parsing '1e400')");
  fs::copy_file(reference_dir() / "config.json", d / "config.json", fs::copy_options::overwrite_existing);
  std::ofstream(d / "vocab.json") << "{\"a\": 1e400}";
  check_message(load_error(d), "vocab.json: the file is not usable JSON (number overflow parsing '1e400')");
  fs::copy_file(reference_dir() / "vocab.json", d / "vocab.json", fs::copy_options::overwrite_existing);
  edit_header(d / "model.safetensors", [](json& header) { header["__metadata__"]["x"] = "1e400"; });
  {  // the metadata's string becomes a number of the header's JSON
    std::fstream f(d / "model.safetensors", std::ios::in | std::ios::out | std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), {});
    const std::size_t at = bytes.find("\"1e400\"");
    bytes.replace(at, 7, "1e400  ");
    f.seekp(0);
    f << bytes;
  }
  check_message(load_error(d), "model.safetensors: the header is not usable JSON (number overflow parsing '1e400')");
  const attn::test::Run run =
      attn::test::run(std::string(CH09_PROGRAM) + " --no-plots --gpt2 " + attn::test::quote(d.string()));
  BOOST_TEST(run.code == 2, run.err);
  BOOST_TEST(run.err.find("model.safetensors: the header is not usable JSON") != std::string::npos, run.err);
}

BOOST_AUTO_TEST_CASE(program_checks_context_sentences_and_degenerate_weights) {
  const std::string program = std::string(CH09_PROGRAM) + " --no-plots --gpt2 ";
  // A context shorter than a fixed sentence of sections 3 to 5 is refused at load, naming the file.
  for (const char* context : {"8", "9", "28"}) {
    const fs::path d = other_checkpoint(std::string("context-") + context, std::string("24,3,2,") + context);
    const attn::test::Run run = attn::test::run(program + attn::test::quote(d.string()));
    BOOST_TEST(run.code == 2, context << ": " << run.err);
    BOOST_TEST(run.out.empty(), context);
    BOOST_TEST(run.err.find("config.json': the context is " + std::string(context) + " tokens (n_positions)") !=
                   std::string::npos,
               run.err);
  }
  // Any UTF-8 text reaches the head view (byte-level tokens); a byte without a token is refused.
  const std::string good = attn::test::quote(reference_dir().string());
  for (const char* sentence : {"caf\u00e9 \u65e5\u672c", "one\ntwo"}) {
    const attn::test::Run run = attn::test::run(program + good + " --sentence " + attn::test::quote(sentence));
    BOOST_TEST(run.code == 0, sentence << ": " << run.err);
    BOOST_TEST(run.out.find("1. The head view") != std::string::npos);
  }
  const attn::test::Run emoji = attn::test::run(program + good + " --sentence " + attn::test::quote("hi \U0001F600"));
  BOOST_TEST(emoji.code == 2, emoji.err);
  BOOST_TEST(emoji.err.find("--sentence: encode: byte 0xF0") != std::string::npos, emoji.err);
  // --position counts tokens: its range is the sentence's tokens, not its characters.
  const attn::test::Run position = attn::test::run(program + good + " --sentence 'The bank' --position 50");
  BOOST_TEST(position.code == 2, position.err);
  BOOST_TEST(position.err.find("--position 50 is past the sentence's 2 tokens: with --gpt2 it counts tokens, from 0 "
                               "to 1") != std::string::npos,
             position.err);
  // Degenerate weights (all zero, all subnormal): every section runs; no cosine is "-", never NaN.
  for (const char* weights : {"zero", "subnormal"}) {
    const fs::path d = other_checkpoint(std::string("weights-") + weights, "24,3,2,64", weights);
    const attn::test::Run run = attn::test::run(program + attn::test::quote(d.string()));
    BOOST_TEST(run.code == 0, weights << ": " << run.err);
    BOOST_TEST(!attn::test::has_nan_word(run.out), weights);
    BOOST_TEST(run.out.find("-: nothing is left once centred there") != std::string::npos, weights);
  }
  // 128 heads: the head grids' labels (H127) are wider, and their lines still fit 100 characters
  const fs::path many = other_checkpoint("many-heads", "128,128,1,64");
  const attn::test::Run wide = attn::test::run(program + attn::test::quote(many.string()));
  BOOST_TEST(wide.code == 0, wide.err);
  std::istringstream lines(wide.out);
  for (std::string line; std::getline(lines, line);) BOOST_TEST(line.size() <= 100u, line);
}

BOOST_AUTO_TEST_CASE(a_header_too_large_for_the_memory_limit_is_out_of_memory_not_an_abort) {
#if ATTN_PROGRAMS_SANITIZED
  BOOST_TEST_MESSAGE("skipped under AddressSanitizer, which needs more address space than the limit allows");
  return;
#endif
  // A 67 MB header (a million entries) under a 400 MB limit: the reader builds no JSON document
  // whose destruction could need memory again, so the failure is the one-line out of memory.
  const fs::path d = copy_of_reference("huge-header");
  std::ofstream(scratch() / "pad_header.py") << R"(import json, struct, sys
path = sys.argv[1]
data = open(path, "rb").read()
length = struct.unpack("<Q", data[:8])[0]
header = json.loads(data[8:8 + length])
header.update({"x%d" % i: {"dtype": "F32", "shape": [0], "data_offsets": [0, 0]} for i in range(1000000)})
text = json.dumps(header).encode()
open(path, "wb").write(struct.pack("<Q", len(text)) + text + data[8 + length:])
)";
  const attn::test::Run pad = attn::test::run(std::string(PYTHON3) + " " + (scratch() / "pad_header.py").string() +
                                              " " + attn::test::quote((d / "model.safetensors").string()));
  BOOST_REQUIRE_MESSAGE(pad.code == 0, pad.err);
  const attn::test::Run run = attn::test::run("ulimit -v 400000; timeout 120 " + std::string(CH09_PROGRAM) +
                                              " --no-plots --gpt2 " + attn::test::quote(d.string()));
  BOOST_TEST(run.code == 1, run.err);
  BOOST_TEST(attn::test::line_count(run.err) == 1u, run.err);
  BOOST_TEST(run.err.find(": error: out of memory") != std::string::npos, run.err);
}

BOOST_AUTO_TEST_SUITE_END()
