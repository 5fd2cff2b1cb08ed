/// \file chapters/08_induction/circuit.cpp
/// \brief Scores, region losses and ablations (see circuit.hpp).
#include "circuit.hpp"

#include <cmath>
#include <stdexcept>

#include "common/attention.hpp"
#include "common/loss.hpp"

namespace ch08 {

// [scores]
double previous_token_score(const arma::mat& A) {
  if (A.n_rows != A.n_cols || A.n_rows < 2) {
    throw std::invalid_argument("previous_token_score: need a square pattern of at least 2 x 2, got " + attn::shape(A));
  }
  double sum = 0.0;
  for (arma::uword i = 1; i < A.n_rows; ++i) sum += A(i, i - 1);
  return sum / static_cast<double>(A.n_rows - 1);
}

double induction_score(const arma::mat& A, const Block& block) {
  const arma::uword s = block.start, n = block.length;
  if (A.n_rows != A.n_cols || n < 2 || s + 2 * n > A.n_rows) {
    throw std::invalid_argument("induction_score: a block of " + std::to_string(n) + " tokens at " + std::to_string(s) +
                                " and its repeat do not fit a " + attn::shape(A) + " pattern");
  }
  double sum = 0.0;
  for (arma::uword j = 0; j + 1 < n; ++j) sum += A(s + n + j, s + j + 1);  // query: repeat of token j
  return sum / static_cast<double>(n - 1);                                  // key: the token after its first copy
}

double duplicate_token_score(const arma::mat& A, const arma::urowvec& tokens) {
  if (A.n_rows != A.n_cols || tokens.n_elem != A.n_rows) {
    throw std::invalid_argument("duplicate_token_score: a " + attn::shape(A) + " pattern for " +
                                std::to_string(tokens.n_elem) + " tokens");
  }
  double sum = 0.0, queries = 0.0;
  for (arma::uword i = 1; i < A.n_rows; ++i) {
    double on_copies = 0.0;
    bool repeated = false;
    for (arma::uword j = 0; j < i; ++j) {
      if (tokens(j) == tokens(i)) on_copies += A(i, j), repeated = true;
    }
    if (repeated) sum += on_copies, queries += 1.0;
  }
  return queries > 0 ? sum / queries : 0.0;
}
// [scores]

HeadScores head_scores(const ForwardPass& pass, const RepeatBatch& batch, arma::uword heads) {
  const arma::uword L = pass.layers.size(), B = batch.blocks.size();
  if (B != pass.batch) throw std::invalid_argument("head_scores: the pass is not over this batch");
  HeadScores out{arma::mat(L, heads, arma::fill::zeros), arma::mat(L, heads, arma::fill::zeros),
                 arma::mat(L, heads, arma::fill::zeros)};
  for (arma::uword l = 0; l < L; ++l) {
    for (arma::uword h = 0; h < heads; ++h) {
      for (arma::uword b = 0; b < B; ++b) {
        const arma::mat& A = attention_pattern(pass, l, h, b, heads);
        out.previous_token(l, h) += previous_token_score(A) / static_cast<double>(B);
        out.induction(l, h) += induction_score(A, batch.blocks[b]) / static_cast<double>(B);
        out.duplicate_token(l, h) += duplicate_token_score(A, batch.tokens.row(b)) / static_cast<double>(B);
      }
    }
  }
  return out;
}

RegionLosses region_losses(const Model& model, const RepeatBatch& batch, const arma::mat* keep) {
  ForwardPass pass;
  forward(model, batch.tokens, pass, keep);
  const arma::uword B = batch.tokens.n_rows, T = batch.tokens.n_cols;
  RegionLosses out;
  double n_first = 0, n_repeat = 0, n_all = 0;
  for (arma::uword b = 0; b < B; ++b) {
    for (arma::uword t = 0; t + 1 < T; ++t) {
      const arma::uword label = batch.tokens(b, t + 1);
      const arma::rowvec z = pass.logits.row(b * T + t);
      const double loss = attn::log_sum_exp(z) - z(label);  // -log softmax(z)[label]
      out.overall += loss;
      n_all += 1;
      switch (region_of(batch.blocks[b], t + 1)) {
        case Region::first: out.first += loss; n_first += 1; break;
        case Region::repeat: out.repeat += loss; n_repeat += 1; break;
        case Region::other: break;
      }
    }
  }
  out.overall /= n_all;
  out.first /= std::max(n_first, 1.0);
  out.repeat /= std::max(n_repeat, 1.0);
  return out;
}

std::string head_name(arma::uword layer, arma::uword head) {
  std::string name = "L";  // built piece by piece: GCC 12 misreports "L" + to_string(...) (stringop-overflow)
  name += std::to_string(layer + 1);
  name += ".H";
  name += std::to_string(head);
  return name;
}

// [ablation]
std::vector<Ablation> ablation_study(const Model& model, const RepeatBatch& held_out) {
  const arma::uword L = model.shape.layers, heads = model.shape.heads;
  std::vector<Ablation> out;
  const auto ablate = [&](const std::string& name, const arma::mat& keep) {
    out.push_back({name, keep, region_losses(model, held_out, &keep)});
  };
  for (arma::uword l = 0; l < L; ++l) {
    for (arma::uword h = 0; h < heads; ++h) {
      arma::mat keep(L, heads, arma::fill::ones);
      keep(l, h) = 0.0;  // this head's mixture never reaches the stream
      ablate(head_name(l, h), keep);
    }
  }
  for (arma::uword l = 0; l < L; ++l) {
    arma::mat keep(L, heads, arma::fill::ones);
    keep.row(l).zeros();
    ablate("all of layer " + std::to_string(l + 1), keep);
  }
  return out;
}
// [ablation]

}  // namespace ch08
