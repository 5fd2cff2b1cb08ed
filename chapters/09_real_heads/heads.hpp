/// \file chapters/09_real_heads/heads.hpp
/// \brief Chapter 09 measurements, one result struct per section: baselines, the head view,
/// contributions (weights vs ||a_ij v_j W_O||), what each head writes (a pass that keeps every
/// head's output apart, and can replace one, read through the final norm and the unembedding:
/// direct logit attribution), measured roles, ablations, names as summaries and the induction
/// heads' writes decoded (the claims they support are in claims.hpp).
///
/// Shapes: tokens are rows; a window of T tokens gives streams T x width, a head's output T x width,
/// a pattern T x T, logits T x vocab.
///
/// Throws: std::invalid_argument if the held-out text is no longer than a window (make_probes, from
/// held_out_windows() and sample_windows()); for a sentence that is empty or longer than the context
/// (head_view, head_writes) or a position outside it (head_writes); for a position past the trace
/// (direct_logits); from attn::fast::forward() and attn::forward(), for a probe token outside the
/// model's vocabulary or parameters that give non-finite scores (baselines, head_view, roles,
/// ablate, ablations, induction_ablation, trace, head_writes, copying), and what a hook throws for a
/// replacement that does not fit (trace). The others throw nothing (beyond std::bad_alloc), given
/// results of the same model.
/// Sources: the article, "Watch real heads" (inspect where a head gathers and what it contributes;
/// compare two uses of "bank" across heads and layers; treat a role as a hypothesis tested across
/// inputs and with interventions) and "Reverse-engineer a head you trained"; Kobayashi et al.
/// 2020, "Attention is Not Only a Weight: Analyzing Transformers with Vector Norms", §3
/// (||alpha_ij f(x_j)||); Elhage et al. 2021, "A Mathematical Framework for Transformer Circuits"
/// (the residual stream as a sum of head outputs, §2; direct logit attribution through a frozen
/// final norm); Olsson et al. 2022, §2 (induction and in-context scores).
#pragma once

#include <armadillo>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/attention/head_roles.hpp"
#include "common/attention/hooks.hpp"
#include "common/attention/inspect.hpp"
#include "corpus.hpp"
#include "lab.hpp"

namespace ch09 {

/// The inputs every measurement reads, fixed by a seed apart from training's.
struct Probes {
  arma::umat plain;  ///< 64 x T plain held-out windows
  Windows natural;   ///< 64 held-out windows, each with a snippet repeated
  Windows random;    ///< 64 windows of random lowercase letters, each with a snippet repeated
};

/// The probes of a vocabulary and corpus (deterministic; context = T, the model's context).
Probes make_probes(const Corpus& corpus, const Vocabulary& vocab, arma::uword context);

/// Section 1: held-out cross-entropies (nats/char).
struct Baselines {
  double uniform = 0.0;        ///< ln(vocab)
  double unigram = 0.0;        ///< training character frequencies (add-one), on the held-out text
  double bigram = 0.0;         ///< p(c | previous c) from training counts (add-one), on the held-out text
  double model = 0.0;          ///< the model on the plain held-out windows
  arma::uword held_chars = 0;  ///< characters of held-out text the n-grams were scored on
};

/// Section 1 from the corpus, the vocabulary and the model (the model scored on probes.plain).
Baselines baselines(const Corpus& corpus, const Vocabulary& vocab, const Model& model, const Probes& probes);

/// Section 2: every head's attention on one sentence.
struct HeadView {
  std::string sentence;                  ///< what was read
  std::vector<std::string> labels;       ///< one axis label per character
  arma::uword layers = 0;                ///< rows of the grid
  arma::uword heads = 0;                 ///< columns of the grid
  std::vector<arma::mat> weights;        ///< layers x heads patterns (index l heads + h), each n x n
  std::vector<arma::mat> contributions;  ///< the same grid of ||a_ij v_j W_O^h|| (section 3)
};

/// Reads `sentence` (1 to context characters; the window is padded with spaces after it, which
/// causal attention cannot see) and keeps every head's n x n weights and contribution norms.
HeadView head_view(const Model& model, const Vocabulary& vocab, const std::string& sentence);

/// Section 3: where the largest weight and the largest contribution disagree.
struct ContributionCase {
  arma::uword layer = 0;             ///< the head's layer
  arma::uword head = 0;              ///< the head within its layer
  arma::uword query = 0;             ///< the receiving position
  arma::uword top_weight = 0;        ///< source with the largest weight a_ij
  arma::uword top_contribution = 0;  ///< source with the largest ||a_ij v_j W_O^h||
  arma::rowvec weights;              ///< a_ij over sources j <= query
  arma::rowvec norms;                ///< ||a_ij v_j W_O^h|| over the same sources
};

/// Section 3 on a head view.
struct Contributions {
  arma::uword cases = 0;     ///< (head, query) pairs examined (queries from position 1 on)
  arma::uword disagree = 0;  ///< of them, where the two arg-maxes differ
  ContributionCase example;  ///< the disagreement where the top weight's contribution is smallest
                             ///< relative to the top contribution
  bool found = false;        ///< whether any disagreement exists
};

/// Section 3 from the head view of section 2; a view without disagreements gives found = false.
Contributions contributions(const HeadView& view);

/// A saved single-precision parameter (rows x columns as stored) in double precision, for the
/// analyses, which sum many small terms.
inline arma::mat to_double(const arma::fmat& M) { return arma::conv_to<arma::mat>::from(M); }

/// Head h's slice of a layer's projections: columns h d_k .. h d_k + d_k - 1 of Wq, Wk, Wv (rows
/// of Wo), where every head has width d_k.
inline arma::span head_span(arma::uword h, arma::uword dk) { return arma::span(h * dk, h * dk + dk - 1); }

/// One window read in double precision, every head's output kept apart.
struct Trace {
  std::vector<arma::mat> streams;  ///< layers + 1 entries, each T x width: X_0 (embedding) .. X_L
  std::vector<arma::mat> writes;   ///< layers x heads (index l heads + h), each T x width: A_h V_h W_O^h
  std::vector<arma::mat> weights;  ///< the same index, each T x T: A_h
  arma::vec inv_std;               ///< T: the final norm's 1 / sqrt(var + eps) per position
  arma::mat logits;                ///< T x vocab
};

/// attn::forward() on one window (1 x T tokens, T <= context) in double, with `hooks` applied
/// (attn::replacing_head, attn::replacing_stream), keeping what the hooks leave.
Trace trace(const Model& model, const arma::urowvec& tokens, const attn::Hooks& hooks = {});

/// -ln p(next token) at every position of a trace: 1 x (T - 1), entry t for target t + 1.
arma::rowvec trace_losses(const Trace& trace, const arma::urowvec& tokens);

/// Direct logit attribution: the logits that `write` (1 x width), added to the final stream at
/// position t, adds through the final norm with its scale frozen at the pass's value,
/// ((w - mean w) / std_t) gain U (1 x vocab). Summed over the embedding and every head's write, plus
/// bias U, it gives the logits exactly.
arma::rowvec direct_logits(const Model& model, const Trace& trace, arma::uword t, const arma::rowvec& write);

/// One head's write at one position, decoded (common/attention/inspect.hpp, shared with GPT-2's tools):
/// its top source and weight, ||write||, its effect on the predicted character and the 3 it raises
/// and lowers most.
using attn::HeadWrite;

/// What each head writes at one position of one sentence (the contribution view, decoded).
struct WritesSection {
  std::string sentence;             ///< what was read
  std::vector<std::string> labels;  ///< one label per character
  arma::uword position = 0;         ///< the position shown
  std::string predicted;            ///< the model's likeliest next character there
  std::vector<HeadWrite> heads;     ///< every head (index l heads + h)
  arma::uword sharpest = 0;         ///< the head with the largest top weight at `position`
  arma::uword strongest = 0;        ///< the head with the largest |effect| on the predicted character
  arma::uword positions = 0;        ///< positions examined (1 .. T - 1)
  arma::uword disagree = 0;         ///< of them, where the sharpest head is not the strongest
};

/// Section 3b on `sentence` at `position` (its last character when absent).
WritesSection head_writes(const Model& model, const Vocabulary& vocab, const std::string& sentence,
                          std::optional<arma::uword> position = std::nullopt);

/// Next-token losses split by where the target sits in a window with a repeated snippet.
struct RegionLosses {
  double first = 0.0;   ///< targets inside the snippet's first copy
  double repeat = 0.0;  ///< the same characters in the repeat (predictable by copying)
};

/// Section 4: measured roles, each layers x heads.
struct Roles {
  arma::mat previous_token;     ///< mean weight on i - 1, plain held-out text
  arma::mat induction_random;   ///< induction score on repeated random letters
  arma::mat induction_natural;  ///< induction score on repeated held-out text
  arma::mat duplicate_token;    ///< weight on earlier copies of the same character, plain text
  RegionLosses natural;         ///< losses on repeated natural text
  RegionLosses random;          ///< losses on repeated random letters
  double early = 0.0;           ///< plain-text loss at positions 1 .. 16
  double late = 0.0;            ///< plain-text loss at positions T - 32 .. T - 1
  double in_context = 0.0;      ///< late - early (negative: later characters are predicted better)
};

/// Section 4 on the probes.
Roles roles(const Model& model, const Probes& probes);

/// Section 5: one intervention and what it changed.
struct Ablation {
  std::string name;       ///< "L1.H2" or "all of layer 2"
  double held_out = 0.0;  ///< plain held-out loss with it
  RegionLosses natural;   ///< repeated natural text
  RegionLosses random;    ///< repeated random letters
};

/// One intervention: the probes measured with `keep` (layers x heads, 0 zeroes a head's output).
Ablation ablate(const Model& model, const Probes& probes, const std::string& name, const arma::mat& keep);

/// Section 5: zero each head alone, then each layer, on the probes; index 0 is nothing zeroed
/// (1 + layers x heads + layers entries).
std::vector<Ablation> ablations(const Model& model, const Probes& probes);

using attn::head_name;

/// The head this chapter studies as the induction head, an index within the last layer: among the
/// last layer's heads whose induction score on random letters passes 0.3 (the naming threshold),
/// the one whose zeroing raises the random-repeat loss most; when none passes, the highest score.
/// Two heads can share the job (they do at some seeds): the one the repeats depend on more is the
/// one studied. `a` is ablations() of the same model.
arma::uword induction_head(const Roles& r, const std::vector<Ablation>& a);

/// The induction heads: the last layer's heads whose induction score on random letters passes 0.3
/// (indices within the layer, in order), or the highest-scoring head alone when none does. At some
/// seeds two heads share the job; the claims (claims.hpp) treat them together.
std::vector<arma::uword> induction_heads(const Roles& r);

/// "L2.H0 + L2.H3": the names of heads `heads` of `layer`.
std::string head_list(arma::uword layer, const std::vector<arma::uword>& heads);

/// Zeroes the induction heads (induction_heads()) together and measures the probes as ablations()
/// does.
Ablation induction_ablation(const Model& model, const Probes& probes, const Roles& r);

/// Section 7: a summary name of each head from its measured scores (layers x heads, index l heads + h).
/// Thresholds: previous-token above 0.5, induction (random letters) above 0.3, duplicate-token above
/// 0.3, the claims' thresholds; "no measured role" otherwise.
std::vector<std::string> head_names(const Roles& roles);

/// The induction heads' writes decoded on repeated random letters (claim real_06).
struct CopyingSection {
  std::string head;        ///< the heads decoded together, e.g. "L2.H1" or "L2.H0 + L2.H3"
  arma::uword cases = 0;   ///< repeat positions examined (targets in the second copy)
  arma::uword copies = 0;  ///< of them, where the character the heads raise most is the repeating one
  double share = 0.0;      ///< copies / cases
};

/// Decodes heads `heads` of `layer` together (the sum of their writes) on the random-repeat probes:
/// at each target in the second copy, is the character they raise most the one that repeats the
/// first copy?
CopyingSection copying(const Model& model, const Probes& probes, arma::uword layer,
                       const std::vector<arma::uword>& heads);

}  // namespace ch09
