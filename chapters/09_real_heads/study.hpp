/// \file chapters/09_real_heads/study.hpp
/// \brief Chapter 09's study of the trained model, one result struct per section, in the order the
/// program shows them:
/// 1. baselines: the model against n-gram predictors on held-out text;
/// 2. the head view: every head's attention on one sentence;
/// 3. contributions: weights against ||a_ij v_j W_O||, and what each head writes, read through the
///    final norm and the unembedding (direct logit attribution);
/// 4. measured roles;
/// 5. interventions: zeroing each head and layer, zero and mean ablation side by side with the
///    findings a reader should not miss, activation patching from one sentence into another, and the
///    induction circuit (its QK and OV circuits, its compositions with the first layer, a patch that
///    breaks it);
/// 6. hidden representations compared: two uses of "bank", centred, against letter controls, and
///    the reader's own pair (what `--compare A B` computes; program.hpp runs the mode);
/// 7. names as summaries of what was measured.
/// Then the Report holding every section, computed once for the printers and the figures, and for the
/// article's claims checked on it (program.hpp). heads.cpp computes sections 1 to 5 and 7,
/// compare.cpp section 6, study.cpp the Report.
///
/// Shapes: tokens are rows; a window of T tokens gives streams T x width, a head's output T x width,
/// a pattern T x T, logits T x vocab. W_QK = W_Q^h W_K^h^T and W_OV = W_V^h W_O^h are width x width
/// (a score is x_q W_QK x_k^T, a write x W_OV). A reading is (layers + 1) x width: row 0 the stream
/// after the embedding, row l the stream after layer l.
///
/// Throws: std::invalid_argument for held-out text no longer than a window (make_probes,
/// make_report) or than a sentence (compare, bank_study), or a context too short for the probes'
/// windows (make_probes); for a sentence that is empty or longer than the
/// context (head_view, head_writes, patching, pick_patch_pair, reading, make_report), of another
/// length than its partner (patching), or a position outside it (head_writes, reading,
/// direct_logits, make_report); for fewer than two patch candidates (pick_patch_pair), no texts
/// (mean_reading) or no items (tally_bank); naming the sentence and the reason, for a bracket out of
/// place, an empty or non-printable sentence, one longer than `context`, no shared word, or a marked
/// span the other sentence lacks (mark_pair); from attn::forward() and attn::fast::forward(), for a
/// probe token outside the model's vocabulary or parameters that give non-finite scores (every
/// function that runs the model), and what a hook throws for a replacement that does not fit
/// (trace). std::out_of_range for an index in `together` past the last head (patching). The others
/// throw nothing (beyond std::bad_alloc), given results of the same model.
/// Sources: the article, "Watch real heads" (inspect where a head gathers and what it contributes;
/// compare two uses of "bank" across heads and layers; treat a role as a hypothesis tested across
/// inputs and with interventions) and "Reverse-engineer a head you trained"; Kobayashi et al.
/// 2020, "Attention is Not Only a Weight: Analyzing Transformers with Vector Norms", §3
/// (||alpha_ij f(x_j)||); Elhage et al. 2021, "A Mathematical Framework for Transformer Circuits"
/// (the residual stream as a sum of head outputs, §2; direct logit attribution through a frozen
/// final norm; QK and OV circuits, §3; composition scores ||A B||_F / (||A||_F ||B||_F), §4);
/// Olsson et al. 2022, §2 (induction and in-context scores); Wang et al. 2022, §3 (mean ablation over
/// a reference distribution); Meng et al. 2022 and Heimersheim & Nanda 2024, "How to use and
/// interpret activation patching"; Ethayarajh 2019, "How Contextual are Contextualized Word
/// Representations?", §3-4 (raw cosines between contextual representations are inflated by
/// directions every representation shares, so a baseline is taken out first).
#pragma once

#include <armadillo>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/attention/head_roles.hpp"
#include "common/attention/hooks.hpp"
#include "common/attention/inspect.hpp"
#include "lab.hpp"

namespace ch09 {

// ---- sections 1 to 5: what the heads do, and zeroing them (heads.cpp) ---------------------------

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

/// Section 3, decoded: what each head writes on `sentence` at `position` (its last character when absent).
WritesSection head_writes(const Model& model, const Vocabulary& vocab, const std::string& sentence,
                          std::optional<arma::uword> position = std::nullopt);

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
/// seeds two heads share the job; the claims treat them together.
std::vector<arma::uword> induction_heads(const Roles& r);

/// "L2.H0 + L2.H3": the names of heads `heads` of `layer`.
std::string head_list(arma::uword layer, const std::vector<arma::uword>& heads);

/// Zeroes the induction heads (induction_heads()) together and measures the probes as ablations()
/// does.
Ablation induction_ablation(const Model& model, const Probes& probes, const Roles& r);

// ---- section 5, further interventions: mean ablation, patching (heads.cpp) ----------------------

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

// ---- the induction circuit (heads.cpp) ----------------------------------------------------------

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

// ---- section 6 and --compare: hidden representations compared (compare.cpp) ---------------------

/// A sentence with the span whose representation is read: the stream at the span's last character
/// (under causal attention the only one that has seen the whole span).
struct Marked {
  std::string text;       ///< the sentence, markers removed
  arma::uword first = 0;  ///< the span's first character (from 0)
  arma::uword last = 0;   ///< its last character: the position read
};

/// The marked span's characters, text[first .. last].
std::string span_of(const Marked& m);

/// Two marked sentences, A and B.
struct MarkedPair {
  Marked a;  ///< sentence A
  Marked b;  ///< sentence B
};

/// Whether A and B have the same length and the same position read (a matched pair: the embedding
/// and the position's learned vector are the same, only the context differs).
bool is_matched(const MarkedPair& p);

/// Reads two sentences in the marker syntax of `--compare`:
/// - square brackets around a span mark it, "the river [bank]": the brackets are removed and the
///   position read is the span's last character ('k'); at most one span per sentence, not empty,
///   no other bracket;
/// - a sentence without brackets takes the last occurrence of the other sentence's marked span;
/// - with no brackets at all, the word (a run of letters and digits, case kept) both sentences
///   contain whose last occurrence in A ends last, at its last occurrence in each.
/// Each sentence must have 1 to `context` printable ASCII characters.
MarkedPair mark_pair(const std::string& a, const std::string& b, arma::uword context);

/// The stream at position `at` of `text` after the embedding and each layer: (layers + 1) x width,
/// from trace().
arma::mat reading(const Model& model, const Vocabulary& vocab, const std::string& text, arma::uword at);

/// cos(x - cx, y - cy) of two readings (1 x width), NaN when no direction is left once centred
/// (common/attention/inspect.hpp, shared with GPT-2's bank comparison).
using attn::centred_cosine;
using attn::cosine;

/// `count` sentences as long as `m.text` with m's span at the same place, the rest held-out text:
/// stretches of `held` at evenly spaced offsets, taken in an order that spreads them over the whole
/// text, whose character just before the span matches m's
/// (a space before a word stays a space), the span written over them; when fewer than `count` match,
/// the rest are taken without that match. What follows the span cannot reach its last character
/// (causal attention). Fewer than `count` only when `held` has fewer stretches (at most 4096 are
/// tried); none when it is not longer than the sentence.
std::vector<Marked> matched_controls(const Marked& m, const std::string& held, arma::uword count);

/// The mean reading of `texts` (at least one) at position `at`: (layers + 1) x width.
arma::mat mean_reading(const Model& model, const Vocabulary& vocab, const std::vector<Marked>& texts, arma::uword at);

/// Where A and B's centred cosine falls among the controls' at one stage.
struct ControlRank {
  /// closer: above at least 95% of the controls' cosines; further: below at least 95% of them;
  /// among: in between; undefined: no cosine (after the embedding, or no controls).
  enum class Standing { closer, among, further, undefined };
  arma::uword below = 0;                    ///< controls whose centred cosine with their sentence is below A vs B's
  arma::uword count = 0;                    ///< controls compared (A's and B's together)
  Standing standing = Standing::undefined;  ///< what `below` of `count` says
};

/// The rank of `cosine` among `controls` (their NaNs left out) and its standing.
ControlRank rank_among(double cosine, const arma::vec& controls);

/// What `--compare A B` shows: both head views, then the readings compared stage by stage.
struct Comparison {
  MarkedPair pair;                 ///< the sentences and positions read
  HeadView view_a;                 ///< every head's weights on A (head_view())
  HeadView view_b;                 ///< the same on B
  arma::rowvec raw;                ///< stages: cos(A, B) of the raw streams
  arma::rowvec centred;            ///< stages: cos(A - A's centre, B - B's centre); NaN after the embedding
  std::vector<Marked> centre_a;    ///< the held-out contexts whose mean reading is A's centre
  std::vector<Marked> centre_b;    ///< the same for B
  std::vector<Marked> controls_a;  ///< other held-out contexts with A's span at A's position
  std::vector<Marked> controls_b;  ///< the same for B
  arma::mat control_a;             ///< controls x stages: centred cos(A, each of A's controls)
  arma::mat control_b;             ///< controls x stages: centred cos(B, each of B's controls)
  std::vector<ControlRank> ranks;  ///< stages: A vs B among the controls
};

/// Held-out contexts whose mean reading is a sentence's centre (the bank study's, and --compare's).
constexpr arma::uword kCentre = 64;
/// Further held-out contexts a --compare sentence is ranked against, its controls.
constexpr arma::uword kControls = 16;

/// Compares A and B's readings at their marked positions. Each reading is centred on the mean
/// reading of its span at its position in kCentre held-out contexts (the first of
/// matched_controls()), which takes out what every sentence with that span there shares (the
/// character, its position); the kControls contexts after them are the controls it is ranked against.
/// `held` must be longer than each sentence.
Comparison compare(const Model& model, const Vocabulary& vocab, const MarkedPair& pair, const std::string& held);

/// One matched item of the bank study: four sentences of one frame, the same length, bank's final
/// 'k' at the same position; they differ only in the word of the slot.
struct BankItem {
  std::string frame;      ///< the sentence with "{}" where the word goes, e.g. "the {} bank"
  std::string river;      ///< a word of the river sense, "river"
  std::string money;      ///< a word of the money sense, "money"
  std::string river_ctl;  ///< the river word with one letter changed, no sense of bank: "rover"
  std::string money_ctl;  ///< the money word with one letter changed, no sense of bank: "honey"
};

/// The frame with `word` in its slot (the frame unchanged when it has no "{}").
std::string fill(const std::string& frame, const std::string& word);

/// The eight items of the chapter's bank study (short and longer frames, eight word quadruples).
std::vector<BankItem> bank_items();

/// One sentence ending in "bank", read by every head at bank's final 'k'.
struct BankReading {
  std::string text;                                  ///< the sentence
  std::string sense;                                 ///< "river", "money" or "control"
  arma::mat stream;                                  ///< (layers + 1) x width: the final 'k' after each stage
  std::vector<std::string> reads;                    ///< per head (l heads + h): the character it weighs most there
  std::vector<std::pair<std::string, double>> next;  ///< the five likeliest next characters
};

/// The four readings of one item at bank's final 'k', each (layers + 1) x width, and the held-out
/// mean at that position, the centre (layers + 1) x width.
struct BankItemReadings {
  arma::mat river;      ///< the river-sense sentence
  arma::mat money;      ///< the money-sense sentence
  arma::mat river_ctl;  ///< the river word's letter control
  arma::mat money_ctl;  ///< the money word's letter control
  arma::mat centre;     ///< the centre: the mean reading of " bank" there in held-out contexts
};

/// Section 6: the sense pair of each item against its letter controls, stage by stage.
struct BankStudy {
  std::vector<BankItem> items;     ///< the matched items
  arma::mat sense;                 ///< items x stages: centred cos(river sentence, money sentence)
  arma::mat control;               ///< items x stages: mean of centred cos(river, money control) and
                                   ///< centred cos(money, river control): the same letters changed, no sense
  arma::mat excess;                ///< items x stages: control - sense, what the sense pair is further apart
                                   ///< than its letter controls (negative: closer)
  arma::urowvec apart;             ///< stages: items whose sense pair is further apart (excess > 0)
  arma::rowvec p_value;            ///< stages: one-sided sign test, P(X >= apart), X ~ Binomial(items, 1/2)
  arma::rowvec raw_sense;          ///< stages: mean raw cos(river, money) over the items, for comparison
  arma::rowvec raw_control;        ///< stages: the same for the control pairs
  double letters = 0.0;            ///< mean centred distance 1 - control over the items after the last
                                   ///< layer: how far a changed word moves the reading
  std::vector<BankReading> first;  ///< the first item's four sentences: what the heads read, what comes next
  arma::uword contexts = 0;        ///< held-out contexts behind each item's centre
};

/// The study's numbers from readings alone (sense, control, excess, raws, apart, p_value, letters; the
/// items, the first item's readings and the context count are left empty): what bank_study() does
/// after reading the model, and what a test feeds representations it built. `items`: at least one.
BankStudy tally_bank(const std::vector<BankItemReadings>& items);

/// Section 6 on `model`: each item's readings centred on the mean reading of " bank" at the same
/// position in kCentre contexts of `held`, the held-out text.
BankStudy bank_study(const Model& model, const Vocabulary& vocab, const std::string& held);

/// The sign test's level: sense shows at a stage when p_value < kSenseLevel.
constexpr double kSenseLevel = 0.05;
/// The letter controls must move the reading: mean centred distance 1 - cos after the last layer.
constexpr double kLettersSeen = 0.05;

/// P(X >= k) for X ~ Binomial(n, 1/2): the one-sided sign test (1 for k = 0).
double sign_test(arma::uword k, arma::uword n);

// ---- section 7: names as summaries of what was measured (heads.cpp) -----------------------------

/// Section 7: a summary name of each head from its measured scores (layers x heads, index l heads + h).
/// Thresholds: previous-token above 0.5, induction (random letters) above 0.3, duplicate-token above
/// 0.3, the claims' thresholds; "no measured role" otherwise.
std::vector<std::string> head_names(const Roles& roles);

// ---- every section, computed once (study.cpp) ---------------------------------------------------

/// The head view's sentence unless --sentence gives another: a phrase and its repeat, so both the
/// previous-token and the induction heads have something to do.
inline const std::string kDefaultSentence = "the cat sat. the cat sat.";

/// The patching candidates: one frame, one vowel changed, so a model that copies predicts a
/// different vowel at the end of each. pick_patch_pair() takes A and B from them by a rule. The
/// repeated prefix is 21 characters long: every model of the robustness study copies all five,
/// where after the 9 of "the cat s?t. the cat s" several copied fewer than two.
inline const std::vector<std::string> kPatchCandidates = {"one day the big dog sat on a mat. one day the big dog s",
                                                          "one day the big dog sit on a mat. one day the big dog s",
                                                          "one day the big dog sot on a mat. one day the big dog s",
                                                          "one day the big dog set on a mat. one day the big dog s",
                                                          "one day the big dog sut on a mat. one day the big dog s"};

/// Everything the program shows, computed once (sections 1-7).
struct Report {
  Baselines baselines;                       ///< section 1
  HeadView view;                             ///< sections 2 and 3
  Contributions contributions;               ///< section 3
  WritesSection writes;                      ///< section 3, decoded: what each head writes at one position
  CopyingSection copying;                    ///< section 3, decoded: the induction heads on repeated random letters
  Roles roles;                               ///< section 4
  std::vector<Ablation> ablations;           ///< section 5
  std::vector<arma::uword> induction_heads;  ///< section 4: the last layer's induction heads (induction_heads())
  arma::uword induction = 0;                 ///< section 5: the one the circuit section studies (induction_head())
  Ablation induction_zeroed;                 ///< section 5: the induction heads zeroed together
  AblationCompare zero_vs_mean;              ///< section 5: zero against mean ablation
  std::vector<Finding> findings;             ///< section 5: what the ablations show that a table hides
  PatchPair patch_pair;                      ///< section 5: the two sentences of the patching example, by its rule
  PatchingSection patch;                     ///< section 5: activation patching from patch_pair.b into patch_pair.a
  CircuitSection circuit;          ///< section 5: the induction circuit, its compositions and the patch that breaks it
  BankStudy bank;                  ///< section 6: matched sentences, centred on held-out text
  std::vector<std::string> names;  ///< section 7
  bool quick = false;              ///< the model is a --quick run's: its claims are printed, not judged
};

/// Computes every section on a trained run's model (a few seconds), the decoded writes at
/// `position` of `sentence` (its last character when absent); `quick` is set from the run's options.
Report make_report(const Corpus& corpus, const Vocabulary& vocab, const Run& run, const std::string& sentence,
                   std::optional<arma::uword> position = std::nullopt);

/// Whether `options` are those of a --quick run (its claims are shown, not judged).
bool is_quick(const TrainOptions& options);

}  // namespace ch09
