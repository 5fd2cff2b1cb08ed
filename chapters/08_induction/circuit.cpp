/// \file chapters/08_induction/circuit.cpp
/// \brief Scores, region losses and ablations (see circuit.hpp).
#include "circuit.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace ch08 {

HeadScores head_scores(const ForwardPass& pass, const RepeatBatch& batch) {
  const arma::uword L = pass.layers.size(), B = batch.blocks.size(), heads = pass.keep.n_cols;
  if (B != pass.batch) throw std::invalid_argument("head_scores: the pass is not over this batch");
  HeadScores out{arma::mat(L, heads, arma::fill::zeros), arma::mat(L, heads, arma::fill::zeros),
                 arma::mat(L, heads, arma::fill::zeros)};
  for (arma::uword l = 0; l < L; ++l) {
    for (arma::uword h = 0; h < heads; ++h) {
      for (arma::uword b = 0; b < B; ++b) {
        const arma::mat A = arma::conv_to<arma::mat>::from(attn::attention_pattern(pass, l, h, b));
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
  attn::fast::forward(model, batch.tokens, pass, keep);
  const arma::mat losses = attn::next_token_losses(pass, batch.tokens);  // B x (T - 1), -log p(label)
  RegionLosses out;
  double n_first = 0, n_repeat = 0;
  for (arma::uword b = 0; b < losses.n_rows; ++b) {
    for (arma::uword t = 0; t < losses.n_cols; ++t) {
      const double loss = losses(b, t);
      switch (region_of(batch.blocks[b], t + 1)) {
        case Region::first:
          out.first += loss;
          n_first += 1;
          break;
        case Region::repeat:
          out.repeat += loss;
          n_repeat += 1;
          break;
        case Region::other:
          break;
      }
    }
  }
  out.overall = arma::mean(arma::vectorise(losses));
  out.first /= std::max(n_first, 1.0);
  out.repeat /= std::max(n_repeat, 1.0);
  return out;
}

// [ablation]
std::vector<Ablation> ablation_study(const Model& model, const RepeatBatch& held_out) {
  const arma::uword L = model.shape.layers, heads = model.shape.heads;
  std::vector<Ablation> out;
  const auto ablate = [&](const std::string& name, const arma::mat& keep) {
    out.push_back({name, keep, region_losses(model, held_out, &keep)});
  };
  for (const attn::AblationMask& m : attn::single_head_and_layer_ablations(L, heads)) ablate(m.name, m.keep);
  return out;
}
// [ablation]

HeadIndex top_head(const arma::mat& scores) {
  if (scores.is_empty()) throw std::invalid_argument("top_head: the score table is empty");
  const arma::uword best = scores.index_max();
  return {best % scores.n_rows, best / scores.n_rows};
}

AblationSummary summarize_ablations(const std::vector<Ablation>& ablations, const RegionLosses& base,
                                    arma::uword layers, arma::uword heads) {
  if (layers == 0 || heads == 0 || ablations.size() != layers * heads + layers) {
    throw std::invalid_argument("summarize_ablations: expected " + std::to_string(layers * heads + layers) +
                                " ablations, got " + std::to_string(ablations.size()));
  }
  AblationSummary s{.advantage = base.first - base.repeat,
                    .last_layer_rise = ablations.back().losses.repeat - base.repeat};
  s.key_first_layer_rise = -std::numeric_limits<double>::infinity();
  for (arma::uword h = 0; h < heads; ++h) {  // entries 0 .. heads - 1 zero one first-layer head each
    const double rise = ablations[h].losses.repeat - base.repeat;
    if (rise > s.key_first_layer_rise) s.key_first_layer_rise = rise, s.key_first_layer = {0, h};
  }
  return s;
}

}  // namespace ch08
