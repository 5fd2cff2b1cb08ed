/// \file masking.cpp
/// \brief Chapter 06 computations (see masking.hpp).
#include "masking.hpp"

#include <cmath>
#include <stdexcept>

#include "common/attention/cross_attention.hpp"
#include "common/attention/toy.hpp"

namespace ch06 {

namespace {
void require_square(const arma::mat& M, const char* who) {
  if (M.n_rows != M.n_cols || M.is_empty()) {
    throw std::invalid_argument(std::string(who) + ": needs a non-empty square matrix, got " + attn::shape(M));
  }
}
}  // namespace

attn::HeadPass identity_head(const arma::mat& X, bool causal) {
  const arma::mat I = arma::eye(X.n_cols, X.n_cols);  // d x d
  return attn::attention(X, I, I, I, {.causal = causal});
}

// [zero_fill]
arma::mat zero_fill(const arma::mat& scores) {
  require_square(scores, "zero_fill");
  return arma::trimatl(scores);  // keeps j <= i; the future gets score 0, and exp(0) = 1 is not 0
}
// [zero_fill]

arma::vec future_share(const arma::mat& A) {
  require_square(A, "future_share");
  return arma::sum(arma::trimatu(A, 1), 1);  // strictly above the diagonal
}

const std::vector<std::string>& tired_cat_words() {
  static const std::vector<std::string> words{"the", "tired", "cat", "finally", "slept"};
  return words;
}

arma::mat tired_cat_weights() {
  // clang-format off
  return {{0.55, 0.05, 0.30, 0.03, 0.07},
          {0.05, 0.45, 0.40, 0.03, 0.07},
          {0.18, 0.30, 0.40, 0.04, 0.08},
          {0.04, 0.05, 0.10, 0.41, 0.40},
          {0.05, 0.20, 0.35, 0.20, 0.20}};
  // clang-format on
}

// [renormalize_causal]
arma::mat renormalize_causal(const arma::mat& A) {
  require_square(A, "renormalize_causal");
  if (A.min() < 0.0) throw std::invalid_argument("renormalize_causal: A has a negative weight");
  arma::mat causal = arma::trimatl(A);  // drop the future keys j > i
  for (arma::uword i = 0; i < causal.n_rows; ++i) {
    const double allowed = arma::accu(causal.row(i));
    if (!(allowed > 0.0)) {
      throw std::invalid_argument("renormalize_causal: row " + std::to_string(i) + " has no weight on allowed keys");
    }
    causal.row(i) /= allowed;  // the survivors share the whole row again
  }
  return causal;
}
// [renormalize_causal]

// [mask_log_weights]
arma::mat mask_log_weights(const arma::mat& A) {
  require_square(A, "mask_log_weights");
  // softmax(log a) = a / sum(a): log-weights are scores that reproduce A. Masking them with -inf
  // before softmax leaves exp(log a_ij) = a_ij on the allowed keys and divides by their total.
  return attn::softmax_rows(arma::log(A) + attn::causal_mask(A.n_rows));
}
// [mask_log_weights]

MaskSection mask_section() {
  MaskSection m{.words = attn::split_sentence("the river bank")};
  const arma::mat X = attn::toy_embeddings().lookup(m.words);
  m.mask = attn::causal_mask(X.n_rows);
  m.open = identity_head(X, false);
  m.causal = identity_head(X, true);
  m.leaky = attn::softmax_rows(zero_fill(m.open.scores));
  m.leaked = future_share(m.leaky);
  return m;
}

TiredCatSection tired_cat_section() {
  TiredCatSection t{.words = tired_cat_words(), .A = tired_cat_weights()};
  t.renormalized = renormalize_causal(t.A);
  t.masked = mask_log_weights(t.A);
  t.scores = arma::log(t.A);
  t.mask = attn::causal_mask(t.A.n_rows);
  t.masked_scores = t.scores + t.mask;
  return t;
}

BothViews both_views(const std::vector<std::string>& words) {
  const arma::mat X = attn::toy_embeddings().lookup(words);
  return {.words = words, .open = identity_head(X, false), .causal = identity_head(X, true)};
}

WordOrderSection word_order_section() {
  WordOrderSection s{.bank_last = both_views(attn::split_sentence("the river bank")),
                     .bank_middle = both_views(attn::split_sentence("the bank river"))};
  return s;
}

CrossSection cross_section() {
  CrossSection c{.q_words = attn::split_sentence("river bank"),
                 .kv_words = attn::split_sentence("the money bank the river")};
  const arma::mat Xq = attn::toy_embeddings().lookup(c.q_words);    // 2 x 4
  const arma::mat Xkv = attn::toy_embeddings().lookup(c.kv_words);  // 5 x 4
  const arma::mat I = arma::eye(Xq.n_cols, Xq.n_cols);
  c.pass = attn::cross_attention(Xq, Xkv, I, I, I);
  // The newest two positions of the key sequence as queries, as when generating with a key/value cache.
  c.offset = Xkv.n_rows - 2;
  c.newest_words.assign(c.kv_words.end() - 2, c.kv_words.end());
  c.offset_pass = attn::cross_attention(Xkv.tail_rows(2), Xkv, I, I, I, {.causal = true, .offset = c.offset});
  try {
    attn::cross_attention(Xq, Xkv, I, I, I, {.causal = true});
  } catch (const std::invalid_argument& e) {
    c.refusal = e.what();  // a non-square causal pass needs an alignment
  }
  return c;
}

}  // namespace ch06
