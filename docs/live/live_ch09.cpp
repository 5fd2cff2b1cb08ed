/// \file live_ch09.cpp
/// \brief Chapter 09's head view, live: the model ch09_real_heads trained and saved, read back with
/// the docs build (docs/live/export_ch09.cpp) and run through the readable forward pass of
/// common/attention/attn_only.hpp on the reader's sentence.
///
/// The docs build exports the saved model into the book (html/live/ch09_model.js, written by
/// docs/live/export_ch09.cpp: the shape, the float32 parameters, and the vocabulary run.txt
/// records), and the page hands the floats to ch09_load, which fills the model with them. For every head of every
/// layer, ch09_heads gives what chapter 09's head view and contribution sections compute (ch09::head_view,
/// chapters/09_real_heads/heads.cpp, there with the fast pass): the weights a_ij, the size of what each source sends,
/// ||a_ij v_j W_O^h|| (Kobayashi et al. 2020, §3), and the size of the head's whole write at each position,
/// ||sum_j a_ij v_j W_O^h|| (Elhage et al. 2021).
#include <emscripten/bind.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "chapters/09_real_heads/lab.hpp"
#include "common/attention/attn_only.hpp"
#include "docs/live/convert.hpp"

namespace {

using Model = attn::AttnOnlyModel<float>;  // as chapter 09 trains and saves it

/// The model and its vocabulary, once the page has handed them over.
struct Loaded {
  Model model;             ///< the saved parameters
  ch09::Vocabulary vocab;  ///< the characters it was trained on
};
std::optional<Loaded> loaded;

/// The vocabulary's characters from run.txt's hexadecimal text ("0a20..."). Throws
/// std::invalid_argument for text that is not pairs of hexadecimal digits.
std::string unhex(const std::string& hex) {
  if (hex.size() % 2 != 0) throw std::invalid_argument("the vocabulary is not pairs of hexadecimal digits");
  std::string out;
  for (std::size_t k = 0; k < hex.size(); k += 2) {
    std::size_t used = 0;
    const int byte = std::stoi(hex.substr(k, 2), &used, 16);
    if (used != 2) throw std::invalid_argument("the vocabulary is not pairs of hexadecimal digits");
    out += static_cast<char>(byte);
  }
  return out;
}

/// `values` (row-major) as a JS Float64Array, copied in one call.
live::val float64(const std::vector<double>& values) {
  return live::val::global("Float64Array")
      .new_(emscripten::typed_memory_view(values.size(), values.data()))
      .call<live::val>("slice");
}

/// Fills a model of `shape` ({vocab, context, width, heads, d_k, layers, final_norm}) with
/// `parameters` (a Float32Array: the groups in parameter_table() order, each column-major, as
/// export_ch09.cpp wrote them) and reads the vocabulary (run.txt's hexadecimal characters):
/// {layers, heads, context, width, d_k, vocab, parameters}, or {error} when either is refused.
live::val load(const live::val& shape, const live::val& parameters, const std::string& characters_hex) {
  return live::guarded([&] {
    const auto size = [&](const char* key) { return shape[key].as<arma::uword>(); };
    const attn::AttnOnlyShape s{size("vocab"),
                                size("context"),
                                size("width"),
                                size("heads"),
                                size("d_k"),
                                size("layers"),
                                shape["final_norm"].as<bool>()};
    Model model = attn::zero_model<float>(s);  // validates the shape
    const std::vector<float> values = emscripten::convertJSArrayToNumberVector<float>(parameters);
    if (values.size() != attn::parameter_count(s)) {
      throw std::invalid_argument("the model has " + std::to_string(values.size()) + " parameters, its shape " +
                                  std::to_string(attn::parameter_count(s)));
    }
    std::size_t at = 0;
    for (arma::fmat* M : attn::parameter_ptrs(model)) {
      std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(at), M->n_elem, M->memptr());
      at += M->n_elem;
      if (!M->is_finite()) throw std::invalid_argument("the model holds a parameter that is not finite");
    }
    ch09::Vocabulary vocab(unhex(characters_hex));
    if (vocab.size() != model.shape.vocab) {
      throw std::invalid_argument("the model reads " + std::to_string(model.shape.vocab) +
                                  " tokens, its vocabulary has " + std::to_string(vocab.size()));
    }
    loaded.emplace(Loaded{std::move(model), std::move(vocab)});
    live::val out = live::val::object();
    out.set("layers", s.layers);
    out.set("heads", s.heads);
    out.set("context", s.context);
    out.set("width", s.width);
    out.set("d_k", s.d_k);
    out.set("vocab", s.vocab);
    out.set("parameters", attn::parameter_count(s));
    return out;
  });
}

/// The sentence's tokens (1 x n). Throws std::invalid_argument unless it has 1 to `context`
/// printable ASCII characters (what ch09_real_heads --sentence accepts).
arma::umat tokens_of(const ch09::Vocabulary& vocab, const std::string& sentence, arma::uword context) {
  if (sentence.empty() || sentence.size() > context) {
    throw std::invalid_argument("a sentence must have 1 to " + std::to_string(context) + " characters, got " +
                                std::to_string(sentence.size()));
  }
  for (const char c : sentence) {
    if (c < 32 || c > 126) throw std::invalid_argument("a sentence must be printable ASCII (no tabs or accents)");
  }
  return vocab.encode(sentence);
}

/// Every head on `sentence` (n characters): {labels (n axis labels, space as "_"), names ("L1.H0",
/// ...), layers, heads, n, weights, contributions, writes}. For the k-th head (k = l heads + h):
/// weights[k n n + i n + j] = a_ij and contributions[...] = ||a_ij v_j W_O^h|| (n x n each, row i
/// the receiving character, zero above the diagonal), writes[k n + i] = ||sum_j a_ij v_j W_O^h||.
live::val heads(const std::string& sentence) {
  return live::guarded([&] {
    if (!loaded) throw std::invalid_argument("the model has not been loaded");
    // Chapter 09 pads a sentence with spaces to the whole context; under the causal mask no
    // position reads a later one, so the sentence's own n positions compute the same numbers.
    const arma::umat tokens = tokens_of(loaded->vocab, sentence, loaded->model.shape.context);  // 1 x n
    const arma::uword n = tokens.n_cols;
    const Model& model = loaded->model;
    const attn::AttnOnlyShape& s = model.shape;
    attn::AttnOnlyPass<float> pass;
    attn::forward(model, tokens, pass);  // the readable pass, one sequence of n tokens
    const arma::uword dk = s.d_k;
    std::vector<double> weights, contributions, writes;
    live::val names = live::val::array();
    for (arma::uword l = 0; l < s.layers; ++l) {
      const arma::mat V = arma::conv_to<arma::mat>::from(pass.layers[l].part(2));  // T x heads d_k
      const arma::mat Wo = arma::conv_to<arma::mat>::from(model.layers[l].Wo);     // heads d_k x width
      for (arma::uword h = 0; h < s.heads; ++h) {
        names.call<void>("push", "L" + std::to_string(l + 1) + ".H" + std::to_string(h));
        const arma::mat A =
            arma::conv_to<arma::mat>::from(attn::attention_pattern(pass, l, h, 0)).submat(0, 0, n - 1, n - 1);
        // what source j sends through head h: v_j W_O^h (n x width); row i of A times it is the write at i
        const arma::mat sent = V.submat(0, h * dk, n - 1, h * dk + dk - 1) * Wo.rows(h * dk, h * dk + dk - 1);
        const arma::rowvec size = arma::sqrt(arma::sum(arma::square(sent), 1)).t();  // ||v_j W_O^h||
        const arma::vec write = arma::sqrt(arma::sum(arma::square(A * sent), 1));    // ||sum_j a_ij v_j W_O^h||
        for (arma::uword i = 0; i < n; ++i) {
          for (arma::uword j = 0; j < n; ++j) {
            weights.push_back(A(i, j));
            contributions.push_back(A(i, j) * size(j));  // ||a_ij v_j W_O^h|| = a_ij ||v_j W_O^h||
          }
          writes.push_back(write(i));
        }
      }
    }
    std::vector<std::string> labels;
    for (arma::uword t = 0; t < n; ++t) labels.push_back(loaded->vocab.label(tokens(0, t)));
    live::val out = live::val::object();
    out.set("labels", live::strings(labels));
    out.set("names", names);
    out.set("layers", s.layers);
    out.set("heads", s.heads);
    out.set("n", n);
    out.set("weights", float64(weights));
    out.set("contributions", float64(contributions));
    out.set("writes", float64(writes));
    return out;
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(ch09) {
  emscripten::function("ch09_load", &load);
  emscripten::function("ch09_heads", &heads);
}
