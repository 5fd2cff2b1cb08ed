/// \file chapters/08_induction/circuit.hpp
/// \brief Chapter 08 measurements: loss on first occurrences vs repeats, per-head previous-token
/// and induction scores, and ablations.
///
/// Source: the article, "Reverse-engineer a head you trained" (record the loss and the induction
/// scores, compare the loss before and after each ablation; a name such as "induction head"
/// should summarize measured behaviour); Olsson et al. 2022, "In-context Learning and Induction
/// Heads", §2 (prefix matching and copying); Elhage et al. 2021 (previous-token heads).
#pragma once

#include <armadillo>
#include <string>
#include <vector>

#include "common/head_roles.hpp"
#include "model.hpp"
#include "repeats.hpp"

namespace ch08 {

using attn::duplicate_token_score;
using attn::induction_score;
using attn::previous_token_score;

/// Scores of every head, averaged over a batch; each entry is a mean attention weight in [0, 1]
/// (attn::previous_token_score and its kin, common/head_roles.hpp).
struct HeadScores {
  arma::mat previous_token;   ///< layers x heads
  arma::mat induction;        ///< layers x heads
  arma::mat duplicate_token;  ///< layers x heads
};

/// Scores of every head of the last forward pass over `batch` (run forward() on batch.tokens first;
/// B sequences of T tokens, one Block each). Throws std::invalid_argument if the pass is over
/// another number of sequences.
HeadScores head_scores(const ForwardPass& pass, const RepeatBatch& batch);

/// Mean next-token losses (nats) of a pass, split by where the target sits (see Region).
struct RegionLosses {
  double overall = 0.0;  ///< every predicted position
  double first = 0.0;    ///< block tokens in the first copy
  double repeat = 0.0;   ///< block tokens in the repeat
};

/// Losses of `model` on `batch` (B x T tokens), optionally with heads ablated (keep: layers x heads
/// of 0/1 multipliers, see attn::forward()). Throws std::invalid_argument, from attn::forward(), for
/// a token outside the vocabulary, a wrong tokens or keep shape, or non-finite scores.
RegionLosses region_losses(const Model& model, const RepeatBatch& batch, const arma::mat* keep = nullptr);

/// One ablation: which heads were zeroed and what the held-out losses became.
struct Ablation {
  std::string name;     ///< e.g. "L1.H0" or "all of layer 2"
  arma::mat keep;       ///< layers x heads, 0 for ablated heads
  RegionLosses losses;  ///< held-out losses with those heads zeroed
};

/// Zero-ablation of each head alone, then of all heads of each layer together (in that order):
/// layers x heads + layers rows. Source: the article, "Reverse-engineer a head you trained"
/// (compare the loss before and after each ablation). Throws as region_losses() does.
std::vector<Ablation> ablation_study(const Model& model, const RepeatBatch& held_out);

using attn::head_name;

}  // namespace ch08
