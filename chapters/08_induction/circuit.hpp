/// \file chapters/08_induction/circuit.hpp
/// \brief Chapter 08 measurements: loss on first occurrences vs repeats, per-head previous-token
/// and induction scores, and ablations.
///
/// Throws: std::invalid_argument for a pass over another number of sequences than the batch
/// (head_scores); from attn::fast::forward() for a token outside the vocabulary, a wrong tokens or
/// keep shape, or non-finite scores (region_losses, ablation_study); for an empty score table
/// (top_head); for ablations that are not layers x heads + layers entries (summarize_ablations).
/// Sources: the article, "Reverse-engineer a head you trained" (record the loss and the induction
/// scores, compare the loss before and after each ablation; a name such as "induction head" should
/// summarize measured behaviour); Olsson et al. 2022, "In-context Learning and Induction Heads", §2
/// (prefix matching and copying); Elhage et al. 2021 (previous-token heads).
#pragma once

#include <armadillo>
#include <string>
#include <vector>

#include "common/attention/head_roles.hpp"
#include "model.hpp"
#include "repeats.hpp"

namespace ch08 {

using attn::duplicate_token_score;
using attn::induction_score;
using attn::previous_token_score;

/// Scores of every head, averaged over a batch; each entry is a mean attention weight in [0, 1]
/// (attn::previous_token_score and its kin, common/attention/head_roles.hpp).
struct HeadScores {
  arma::mat previous_token;   ///< layers x heads
  arma::mat induction;        ///< layers x heads
  arma::mat duplicate_token;  ///< layers x heads
};

/// Scores of every head of the last forward pass over `batch` (run forward() on batch.tokens first;
/// B sequences of T tokens, one Block each).
HeadScores head_scores(const ForwardPass& pass, const RepeatBatch& batch);

/// Mean next-token losses (nats) of a pass, split by where the target sits (see Region).
struct RegionLosses {
  double overall = 0.0;  ///< every predicted position
  double first = 0.0;    ///< block tokens in the first copy
  double repeat = 0.0;   ///< block tokens in the repeat
};

/// Losses of `model` on `batch` (B x T tokens), optionally with heads ablated (keep: layers x heads
/// of 0/1 multipliers, see attn::fast::forward()).
RegionLosses region_losses(const Model& model, const RepeatBatch& batch, const arma::mat* keep = nullptr);

/// One ablation: which heads were zeroed and what the held-out losses became.
struct Ablation {
  std::string name;     ///< e.g. "L1.H0" or "all of layer 2"
  arma::mat keep;       ///< layers x heads, 0 for ablated heads
  RegionLosses losses;  ///< held-out losses with those heads zeroed
};

/// Zero-ablation of each head alone, then of all heads of each layer together (in that order):
/// layers x heads + layers rows.
std::vector<Ablation> ablation_study(const Model& model, const RepeatBatch& held_out);

using attn::head_name;

/// A head, by its layer and its index within the layer (both from 0).
struct HeadIndex {
  arma::uword layer = 0;  ///< 0 = the first layer (printed L1)
  arma::uword head = 0;   ///< within the layer (printed H0, H1, ...)
};

/// The head with the highest entry of a layers x heads score table (the first such head on ties).
HeadIndex top_head(const arma::mat& scores);

/// What the ablation table says about the circuit (section 3 and claim ind_03), from the held-out
/// losses without ablation (`base`) and the study of ablation_study() (layers x heads single heads,
/// then each layer).
struct AblationSummary {
  double advantage = 0.0;             ///< in-context advantage: base.first - base.repeat (nats)
  double last_layer_rise = 0.0;       ///< repeat-loss rise when all of the last layer is zeroed
  HeadIndex key_first_layer{};        ///< the first-layer head whose zeroing raises the repeat loss most
  double key_first_layer_rise = 0.0;  ///< that rise
};

/// The summary of an ablation study on a model with `layers` layers of `heads` heads.
AblationSummary summarize_ablations(const std::vector<Ablation>& ablations, const RegionLosses& base,
                                    arma::uword layers, arma::uword heads);

}  // namespace ch08
