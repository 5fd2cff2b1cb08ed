/// \file common/gpt2/lab.hpp
/// \brief Chapter 09's tools on GPT-2 (its `--gpt2 DIR` mode), token by token: the head view, what each head
/// writes decoded to tokens (direct logit attribution), measured previous-token and induction
/// heads, zero and mean ablation of every head, activation patching from one sentence into
/// another, and "bank" in two senses against a matched control word.
///
/// Shapes: tokens are rows; a pass over n tokens has streams n x d, patterns n x n, logits
/// n x vocab (common/gpt2/model.hpp), all float32 as the model runs; what the sections report
/// (losses, scores, probabilities) is summed in double. Heads are indexed layer-major,
/// k = layer * heads + head, and named as in the rest of the chapter, L<layer from 1>.H<head from 0>
/// (the GPT-2 literature counts layers from 0: its head 5.1 is L6.H1 here).
///
/// Throws: std::invalid_argument for a text the tokenizer refuses, not UTF-8 or holding a byte
/// vocab.json has no token for (read_text, context_needed, patching, bank, run_lab); for a token id
/// outside the vocabulary (token_label); for a sentence of no tokens or more than the context
/// (run_lab, and patching through forward()); for a position past the sentence's tokens, naming
/// their count (run_lab); for a layer past the model's, a clean pass of another model or a
/// replacement whose shape does not fit (patched_head, with_head_output, through resume() and the
/// hooks); NoHeldOutWindow, a std::runtime_error, when no window of 8 tokens can be cut from the
/// held-out text (make_probes, run_lab). The others throw nothing (beyond std::bad_alloc), given
/// positions and rows inside the pass they read.
/// Sources: the article, "Watch real heads"; Elhage et al. 2021, "A Mathematical Framework for
/// Transformer Circuits" (heads' writes into the residual stream; direct logit attribution through a
/// frozen final norm); Olsson et al. 2022, "In-context Learning and Induction Heads", §2
/// (previous-token and induction scores on repeated random tokens); Wang et al. 2022,
/// "Interpretability in the Wild", §3 (mean ablation; GPT-2 small's heads); Meng et al. 2022 and
/// Heimersheim & Nanda 2024 (activation patching).
#pragma once

#include <armadillo>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/attention/inspect.hpp"
#include "common/gpt2/checkpoint.hpp"

namespace gpt2 {

/// A text read as GPT-2 tokens.
struct TokenText {
  std::string text;                 ///< what was read
  std::vector<arma::uword> tokens;  ///< its n token ids
  std::vector<std::string> labels;  ///< n printable labels, token_label() of each
};

/// Token `id` as a table shows it: its bytes between single quotes, spaces kept, bytes that are not
/// printable ASCII as escapes (\\n, \\xe2), cut to `width` characters with a final '~'.
std::string token_label(const Tokenizer& tokenizer, arma::uword id, std::size_t width = 12);

/// `text` tokenized, with labels.
TokenText read_text(const Tokenizer& tokenizer, const std::string& text);

/// The held-out sequences every measurement reads, fixed by a seed.
struct Probes {
  bool bos = false;                               ///< whether each starts with <|endoftext|>
  std::vector<std::vector<arma::uword>> held;     ///< windows of held-out text
  std::vector<std::vector<arma::uword>> repeats;  ///< [bos] r r: L random tokens, then the same L again
  arma::uword repeat_length = 0;                  ///< L
};

/// Held-out text the vocabulary cannot cut a window of 8 tokens from (every part holds a byte it
/// has no token for), so no mean ablation or held-out loss can be measured on it.
struct NoHeldOutWindow : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Up to 8 windows cut from `held_text` at evenly spaced lines, each of at most min(32, context)
/// tokens and at least 8 besides <|endoftext|> (a part the tokenizer refuses is skipped), and 8
/// sequences of L = min(20, (context - b) / 2) random tokens repeated, drawn with `seed`;
/// <|endoftext|> first when the vocabulary has it (then b = 1, else b = 0), as GPT-2 saw documents
/// begin.
Probes make_probes(const Gpt2& model, const std::string& held_text, std::uint64_t seed = 9);

/// Mean next-token loss of `logits` (k x vocab) against `targets` (k ids), nats per token.
double mean_loss(const arma::fmat& logits, const std::vector<arma::uword>& targets);

/// A write (1 x d) added to the final stream at position t, through the final norm with its scale
/// frozen at the pass's value: ((w - mean w) / sqrt(var(x_t) + eps)) % gain, 1 x d (the norm's bias
/// belongs to no write).
arma::frowvec through_final_norm(const Weights& weights, const Pass& pass, arma::uword t, const arma::frowvec& write);

/// Direct logit attribution: the logits `write` (1 x d), added to the final stream at position t of
/// `pass`, adds through the final norm with its scale frozen at the pass's value:
/// ((w - mean w) / sqrt(var(x_t) + eps)) % gain * W_E^T, 1 x vocab (W_E the tied unembedding).
/// Summed over the embedding, every head's write, every b_O and every MLP, plus the norm's bias
/// times W_E^T, it gives the logits exactly.
arma::frowvec direct_logits(const Weights& weights, const Pass& pass, arma::uword t, const arma::frowvec& write);

/// Every head's attention at one position of the sentence.
struct HeadView {
  TokenText sentence;           ///< the sentence
  arma::uword position = 0;     ///< the position shown
  arma::umat top_source;        ///< layers x heads: the source each head weighs most there
  arma::mat top_weight;         ///< layers x heads: that weight
  arma::uword to_first = 0;     ///< heads whose top source is position 0 (where GPT-2 parks unused weight)
  arma::uword to_self = 0;      ///< heads whose top source is the position itself
  arma::uword to_previous = 0;  ///< heads whose top source is the position before
};

/// One head's write at one position, decoded (common/attention/inspect.hpp, shared with the
/// attention-only model's tools): the 2 tokens it raises and lowers most.
using attn::HeadWrite;

/// What each head writes at one position of the sentence.
struct Writes {
  std::string predicted;         ///< label of the likeliest next token there
  double logit = 0.0;            ///< its logit
  double parts = 0.0;            ///< the direct effects of every part on it, summed (equals logit)
  std::vector<HeadWrite> heads;  ///< every head, layer-major
  arma::uword sharpest = 0;      ///< the head with the largest top weight at the position
  arma::uword strongest = 0;     ///< the head with the largest |effect| on the predicted token
};

/// Measured roles (layers x heads), and what the held-out windows give the other sections.
struct Roles {
  arma::mat previous_token;        ///< attn::previous_token_score of the held-out text after <|endoftext|>,
                                   ///< every read of every window counted once
  arma::mat induction;             ///< attn::induction_score on the repeats, mean over the sequences
  double previous_uniform = 0.0;   ///< previous_token's score for a head that weighs every visible token equally
  double induction_uniform = 0.0;  ///< induction's score for that head: what a score must pass to mean a role
  double first = 0.0;              ///< loss predicting the first copy of the random tokens (nats/token)
  double repeat = 0.0;             ///< loss predicting their repeat
  double held_loss = 0.0;          ///< mean loss over every held-out window (nats/token)
  arma::uword held_tokens = 0;     ///< tokens predicted there
  arma::fmat mean_output;          ///< heads x d: each head's mean output over the held-out windows' text
};

/// Zero against mean ablation of every head, as loss rises (nats/token).
struct Ablations {
  double held_out = 0.0;  ///< loss on the first held-out window, nothing ablated
  double repeat = 0.0;    ///< loss on the first random repeat's second copy, nothing ablated
  arma::mat zero;         ///< heads x 2: rise of (held-out, repeat) with the head's output zeroed
  arma::mat mean;         ///< heads x 2: the same with it replaced by its mean over the held-out windows
};

/// One patch from sentence B into sentence A, and A's prediction at its last token after it
/// (common/attention/inspect.hpp, shared with the attention-only model's tools).
using attn::PatchRow;

/// Activation patching between two sentences of the same length in tokens.
struct Patching {
  TokenText a;                    ///< the clean sentence
  TokenText b;                    ///< the sentence patched from
  bool matched = false;           ///< same length in tokens (else nothing was patched)
  std::string predicted_a;        ///< A's likeliest next token, clean
  std::string predicted_b;        ///< B's
  double clean_p_a = 0.0;         ///< p(predicted_a) in A, clean
  double clean_p_b = 0.0;         ///< p(predicted_b) in A, clean
  std::vector<PatchRow> heads;    ///< every head's output from B (all positions), layer-major
  std::vector<PatchRow> streams;  ///< the stream at the last position entering each layer, then the final one
};

/// The patching example: A's repeat predicts " mat", B's " rug"; the same length.
inline const std::string kPatchA = "the cat sat on the mat. the cat sat on the";
/// The sentence patched from (see kPatchA).
inline const std::string kPatchB = "the cat sat on the rug. the cat sat on the";

/// "bank" after a river word and after a money word, against a control word in the same frames.
struct Bank {
  std::vector<std::string> frames;  ///< the sentences' beginnings; a sense word and the word follow
  std::vector<std::string> senses;  ///< the two sense words, " river" and " money"
  std::vector<std::string> words;   ///< " bank", then the control " house"
  bool matched = false;             ///< each frame's two senses give the same token count
  std::vector<std::string> stages;  ///< "embedding", "after layer 1", ...
  arma::mat within;                 ///< stages x words: mean centred cosine within a sense (NaN: no
                                    ///< direction left once centred, degenerate weights)
  arma::mat across;                 ///< stages x words: mean centred cosine across senses
  arma::mat gap;                    ///< stages x words: within - across
  arma::uword beyond_control = 0;   ///< stages where bank's gap exceeds the control word's by > 0.01
  arma::uword largest = 0;          ///< the stage where it exceeds it most
  bool measured = false;            ///< some stage has both gaps (else every stream is one vector)
  /// Per sense, the five likeliest tokens after "the <sense> bank", with their probabilities.
  std::vector<std::vector<std::pair<std::string, double>>> next;
};

/// The fixed texts the tools read (the patching pair, the bank sentences, a held-out window of 8
/// tokens after <|endoftext|>) and the most tokens one of them takes: a model whose context is
/// shorter cannot run every section.
struct ContextNeed {
  arma::uword tokens = 0;  ///< the longest fixed text's tokens
  std::string what;        ///< which text that is
};
/// The context the sections need (see ContextNeed).
ContextNeed context_needed(const Gpt2& model);

/// The bank comparison's frames, sense words and words, in the order bank() reads them.
inline const std::vector<std::string> kBankFrames{"the", "she walked to the", "we met at the"};
/// The two sense words.
inline const std::vector<std::string> kBankSenses{" river", " money"};
/// "bank" and its control word.
inline const std::vector<std::string> kBankWords{" bank", " house"};

/// Every section of the --gpt2 mode, computed once.
struct Lab {
  Config config;               ///< the model's sizes
  arma::uword parameters = 0;  ///< its parameter count
  Probes probes;               ///< what the measurements read
  HeadView view;               ///< the head view at the position
  Writes writes;               ///< what each head writes there
  Roles roles;                 ///< previous-token and induction scores
  Ablations ablations;         ///< zero and mean ablation of every head
  Patching patching;           ///< kPatchB into kPatchA
  arma::uword overlap = 0;     ///< of the 5 heads whose patch raises B's prediction most, those among
                               ///< the 5 highest induction scores
  Bank bank;                   ///< the bank comparison
};

/// Runs every section on `sentence` (decoded at token `position`, the last when absent), the
/// probes from `held_text`, telling `progress` what it starts (a line, for a long run on GPT-2
/// small; may be empty).
Lab run_lab(const Gpt2& model, const std::string& sentence, std::optional<arma::uword> position,
            const std::string& held_text, const std::function<void(const std::string&)>& progress = {});

/// The sections one by one (run_lab() calls them in this order).
HeadView head_view(const Gpt2& model, const Pass& pass, const TokenText& sentence, arma::uword position);
/// What each head writes at `position` of the sentence's pass.
Writes head_writes(const Gpt2& model, const Pass& pass, const HeadView& view);
/// Previous-token scores, the loss and the heads' mean outputs on the held-out windows; induction
/// scores and losses on the repeats.
Roles roles(const Gpt2& model, const Probes& probes);
/// Zero and mean ablation (to `mean_output`, heads x d) of every head on the first held-out
/// window and the first repeat.
Ablations ablations(const Gpt2& model, const Probes& probes, const arma::fmat& mean_output,
                    const std::function<void(const std::string&)>& progress = {});
/// Patches every head's output and the last position's stream from `b` into `a`.
Patching patching(const Gpt2& model, const std::string& a, const std::string& b);
/// The bank comparison.
Bank bank(const Gpt2& model);
/// Of the `count` heads whose patch raises B's prediction most, how many are among the `count`
/// highest `induction` scores (layers x heads); 0 when nothing was patched.
arma::uword patch_overlap(const Patching& patching, const arma::mat& induction, arma::uword count);

/// `clean`'s pass again with head (layer, head)'s output replaced at every position by
/// `replacement` (1 x d: zero or mean ablation; n x d: patching from another pass), recomputed
/// from that layer on; its logits are left empty (0 x 0): final_normed() and one product with
/// W_E^T for many passes together are much faster than one product per pass.
Pass patched_head(const Weights& weights, const Pass& clean, arma::uword layer, arma::uword head,
                  const arma::fmat& replacement);

/// The final norm of `pass`'s stream at positions `rows`: k x d, the rows the unembedding reads.
arma::fmat final_normed(const Weights& weights, const Pass& pass, const arma::uvec& rows);

/// The same for a final stream (n x d) of resume_streams().
arma::fmat final_normed(const Weights& weights, const arma::fmat& stream, const arma::uvec& rows);

/// The logits (k x vocab) at positions `rows` of patched_head(): one intervention, read out.
arma::fmat with_head_output(const Weights& weights, const Pass& clean, arma::uword layer, arma::uword head,
                            const arma::fmat& replacement, const arma::uvec& rows);

}  // namespace gpt2
