/// \file chapters/09_real_heads/writes.hpp
/// \brief Chapter 09's tools that read what a head writes: a pass that keeps every head's output
/// apart (and can replace one, for ablation and patching), and direct logit attribution of a head's
/// output through the final norm and the unembedding.
///
/// Shapes: tokens are rows; a window of T tokens gives streams T x width, a head's output T x width,
/// logits T x vocab.
///
/// Throws: std::invalid_argument, from attn::forward(), for tokens outside the vocabulary, none or
/// more than the context, or weights whose scores are not finite, and what a hook throws for a
/// replacement that does not fit (trace, and head_writes and copying through it); for a sentence
/// that is empty or longer than the context, or a position outside it (head_writes); for a position
/// past the trace (direct_logits). The others throw nothing (beyond std::bad_alloc), given heads and
/// traces of the same model.
/// Sources: Elhage et al. 2021, "A Mathematical Framework for Transformer Circuits" (the residual
/// stream as a sum of head outputs, §2; direct logit attribution through a frozen final norm);
/// Olsson et al. 2022, §2 (induction heads); Meng et al. 2022 and Wang et al. 2022 (activation
/// patching).
#pragma once

#include <armadillo>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/attention/hooks.hpp"
#include "common/attention/inspect.hpp"
#include "heads.hpp"

namespace ch09 {

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
