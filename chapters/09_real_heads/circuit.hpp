/// \file chapters/09_real_heads/circuit.hpp
/// \brief Chapter 09's induction circuit, shown: the induction head's QK and OV circuits through
/// the embedding and the unembedding, its Q-, K- and V-composition with every first-layer head, and
/// a patch that breaks the circuit.
///
/// Shapes: W_QK = W_Q^h W_K^h^T and W_OV = W_V^h W_O^h are width x width (tokens are rows, so a
/// score is x_q W_QK x_k^T and a write is x W_OV). Source: Elhage et al. 2021, "A Mathematical
/// Framework for Transformer Circuits", §3 (QK and OV circuits) and §4 (composition scores,
/// ||A B||_F / (||A||_F ||B||_F)); Olsson et al. 2022, §2. Throws std::invalid_argument, from
/// trace(), for a model whose scores are not finite.
#pragma once

#include <armadillo>
#include <string>

#include "writes.hpp"

namespace ch09 {

/// The induction circuit, read off the weights and tested by patching.
struct CircuitSection {
  std::string induction;          ///< the second-layer head with the top induction score
  std::string previous;           ///< the first-layer head with the top previous-token score
  arma::uword previous_head = 0;  ///< its index within the first layer
  arma::rowvec k_composition;     ///< 1 x heads: K-composition of the induction head with each first-layer head
  arma::rowvec q_composition;     ///< 1 x heads: Q-composition, for comparison
  arma::rowvec v_composition;     ///< 1 x heads: V-composition, for comparison
  double random_baseline = 0.0;   ///< the K-composition of random matrices of the same shapes (mean of 20)
  double qk_diagonal = 0.0;     ///< share of the 26 letters whose own key through the previous head wins its query row
  double ov_diagonal = 0.0;     ///< share of the 26 letters the OV circuit copies (own logit highest)
  double clean_repeat = 0.0;    ///< random-repeat loss, clean
  double patched_repeat = 0.0;  ///< the same with the previous-token head's output taken from shuffled windows
  double first = 0.0;           ///< the first-copy loss (clean), for the in-context advantage
};

/// The circuit of the induction head (`induction`, its index in the last layer: induction_head()):
/// QK and OV circuits through the embedding and unembedding, its Q-, K- and V-composition with
/// every first-layer head, and a patch that replaces the previous-token head's output with its
/// output on the same windows shuffled.
CircuitSection circuit(const Model& model, const Vocabulary& vocab, const Probes& probes, const Roles& roles,
                       arma::uword induction);


}  // namespace ch09
