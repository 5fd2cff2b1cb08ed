/// \file chapters/09_real_heads/interventions.hpp
/// \brief Chapter 09's interventions a reader can trust: zero and mean ablation of each head side by
/// side, activation patching from one sentence into another (a head's output, or the stream at one
/// position and layer), and the findings a reader should not miss (a head that compensates, a head
/// whose removal helps, an unnamed head that matters); then the induction circuit, shown: the
/// induction head's QK and OV circuits through the embedding and the unembedding, its Q-, K- and
/// V-composition with every first-layer head, and a patch that breaks the circuit.
///
/// Shapes: W_QK = W_Q^h W_K^h^T and W_OV = W_V^h W_O^h are width x width (tokens are rows, so a
/// score is x_q W_QK x_k^T and a write is x W_OV).
///
/// Throws: std::invalid_argument for sentences of different lengths, empty or longer than the
/// context (patching); for fewer than two candidates, or one empty or longer than the context
/// (pick_patch_pair); from trace(), for a model whose scores are not finite (compare_ablations,
/// pick_patch_pair, patching, circuit); std::out_of_range for an index in `together` past the last
/// head (patching). The others throw nothing (beyond std::bad_alloc), given results of the same
/// model.
/// Sources: the article, "Watch real heads" (test a proposed role with interventions); Olsson et al.
/// 2022 and Wang et al. 2022, §3 (mean ablation over a reference distribution); Meng et al. 2022 and
/// Heimersheim & Nanda 2024, "How to use and interpret activation patching"; Elhage et al. 2021, §3
/// (QK and OV circuits) and §4 (composition scores, ||A B||_F / (||A||_F ||B||_F)).
#pragma once

#include <armadillo>
#include <string>
#include <vector>

#include "common/attention/inspect.hpp"
#include "heads.hpp"

namespace ch09 {

/// Zero against mean ablation of every head, on the same windows.
struct AblationCompare {
  std::vector<std::string> heads;  ///< "L1.H0" .. in layer-major order
  double held_out = 0.0;           ///< plain held-out loss, nothing ablated
  double repeat = 0.0;             ///< random-repeat loss (second copy), nothing ablated
  arma::mat zero;                  ///< heads x 2: rise of (held-out, random repeat) when the head is zeroed
  arma::mat mean;                  ///< heads x 2: the same when its output is replaced by its mean on held-out text
  arma::uword windows = 0;         ///< windows of each kind measured
};

/// Zero and mean ablation of every head on `windows` plain held-out and `windows` random-repeat
/// probes (the mean of a head's output is taken over every position of the plain ones).
AblationCompare compare_ablations(const Model& model, const Probes& probes, arma::uword windows = 32);

/// What a reader should not miss in the ablations.
struct Finding {
  /// A head whose removal lowers a loss; a layer whose heads cover for each other; a head without a
  /// measured role that matters; a head whose zero and mean ablations differ.
  enum class Kind { helps, compensated, unnamed_matters, methods_disagree };
  Kind kind = Kind::helps;  ///< which finding
  std::string subject;      ///< a head, or "layer 1"
  double a = 0.0;           ///< helps: the loss rise (negative); compensated: single rises summed;
                            ///< unnamed_matters: the repeat rise; methods_disagree: zero's rise
  double b = 0.0;           ///< compensated: the rise all together; methods_disagree: mean's rise
  std::string what;         ///< which loss: "held-out text" or "random repeat"
};

/// The findings of the zero ablations (section 5's table) and of the comparison with mean ablation:
/// a head whose removal lowers a loss by more than 0.005, a layer whose heads removed together cost
/// more than 0.1 above their single costs summed, a head without a measured role whose removal
/// costs the repeats more than 0.1, and a head whose zero and mean rises differ by more than 0.1.
std::vector<Finding> findings(const std::vector<Ablation>& ablations, const AblationCompare& compare,
                              const std::vector<std::string>& names);

/// One patch from sentence B into sentence A and what it did to A's prediction at its last
/// character (common/attention/inspect.hpp, shared with the GPT-2 tools).
using attn::PatchRow;

/// The two sentences of the patching example, picked from candidates by a rule.
struct PatchPair {
  std::string a;               ///< the clean sentence: the first candidate the model copies
  std::string b;               ///< the sentence patched from: the next candidate the model copies
  arma::uword copied = 0;      ///< candidates whose repeat the model copies
  arma::uword candidates = 0;  ///< candidates tried
};

/// The character a sentence "P. Q" asks to copy: the one after Q's earlier occurrence at the
/// start of P ("the cat sat. the cat s" -> 'a'); '\0' when the sentence has no such repeat.
char copy_target(const std::string& sentence);

/// Picks the patching pair by a rule: A is the first of `candidates` (all of one length, 1 to the
/// context) whose last character the model predicts to be its copy_target(), B the next such one;
/// when fewer than two are copied, the first two candidates.
PatchPair pick_patch_pair(const Model& model, const Vocabulary& vocab, const std::vector<std::string>& candidates);

/// Activation patching between two sentences of the same length.
struct PatchingSection {
  std::string a;            ///< the clean sentence
  std::string b;            ///< the sentence patched from
  std::string predicted_a;  ///< A's likeliest next character, clean
  std::string predicted_b;  ///< B's
  double clean_p_a = 0.0;   ///< p(predicted_a) in A, clean
  double clean_p_b = 0.0;   ///< p(predicted_b) in A, clean
  /// Every head's output, then the stream at the last position entering each layer and at the end.
  std::vector<PatchRow> rows;
};

/// Runs A, patches each head's output (all positions) and the stream at A's last position (entering
/// each layer, and the final stream) from a run on B, and reports A's prediction at its last character.
/// With two or more heads in `together` (indices l heads + h), a last row patches their outputs at once
/// (induction heads that share the job).
PatchingSection patching(const Model& model, const Vocabulary& vocab, const std::string& a, const std::string& b,
                         const std::vector<arma::uword>& together = {});

// ---- the induction circuit ----------------------------------------------------------------------

/// The induction circuit, read off the weights and tested by patching.
struct CircuitSection {
  std::string induction;          ///< the induction head studied, in the last layer (induction_head())
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
