/// \file chapters/08_induction/skip_trigrams.hpp
/// \brief Chapter 08's worked example after the lab: the skip-trigram bug of one attention layer.
///
/// A one-layer, one-head attention-only model learns four skip-trigrams: "keep ... in mind",
/// "keep ... at bay", "stay ... in touch" and "stay ... at home". At the query word (in, at) the head
/// reads the source word (keep, stay) further back. What it reads is the source's value through Wo,
/// computed from the source's own stream, so no query can change it: the message read from keep
/// raises mind and bay together, after "in" and after "at" alike, and "keep ... in bay" gets a share.
/// The query chooses only where to read. Two layers use exactly that freedom: in the lab's circuit
/// the query finds its position by the token before it, and the message is only the token there.
///
/// Throws: std::invalid_argument for a context below 5 or a count of 0 (sample_skip_trigrams); for a
/// context below 5 or above 64, a width of 0 or above 256, zero steps or batch, or a learning rate
/// that is not finite and positive (train_skip_trigrams); the others throw nothing beyond
/// std::bad_alloc.
/// Sources: the article, "Reverse-engineer a head you trained" (its pointer to the worked example
/// "skip-trigram bugs and induction heads"); Elhage et al. 2021, "A Mathematical Framework for
/// Transformer Circuits", one-layer attention-only models (skip-trigrams, "keep ... in mind",
/// "keep ... at bay").
#pragma once

#include <armadillo>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model.hpp"

namespace ch08 {

/// The example's words: tokens 0 to 9 are the skip-trigrams' words (fact and last follow a query
/// that has no source before it), the rest fillers.
namespace word {
inline constexpr arma::uword keep = 0;   ///< a source
inline constexpr arma::uword stay = 1;   ///< the other source
inline constexpr arma::uword in = 2;     ///< a query
inline constexpr arma::uword at = 3;     ///< the other query
inline constexpr arma::uword mind = 4;   ///< keep ... in mind
inline constexpr arma::uword bay = 5;    ///< keep ... at bay
inline constexpr arma::uword touch = 6;  ///< stay ... in touch
inline constexpr arma::uword home = 7;   ///< stay ... at home
inline constexpr arma::uword fact = 8;   ///< in fact (no source)
inline constexpr arma::uword last = 9;   ///< at last (no source)
}  // namespace word

/// The vocabulary's names, token id order: the ten words, then 16 fillers.
const std::vector<std::string>& skip_vocabulary();

/// One skip-trigram: "source ... query next".
struct SkipTrigram {
  arma::uword source;  ///< keep or stay
  arma::uword query;   ///< in or at
  arma::uword next;    ///< what follows the query
};

/// The four skip-trigrams, in table order: keep-in-mind, keep-at-bay, stay-in-touch, stay-at-home.
/// The continuations are listed in the same order (mind, bay, touch, home).
inline constexpr std::array<SkipTrigram, 4> kSkipTrigrams{{{word::keep, word::in, word::mind},
                                                           {word::keep, word::at, word::bay},
                                                           {word::stay, word::in, word::touch},
                                                           {word::stay, word::at, word::home}}};

/// "keep ... in", a row label.
std::string skip_name(const SkipTrigram& s);

/// The run: sizes, data and training.
struct SkipTrigramOptions {
  arma::uword context = 12;    ///< tokens per sequence
  arma::uword width = 32;      ///< residual stream width (one head of d_k = width)
  arma::uword steps = 600;     ///< Adam steps
  arma::uword batch = 32;      ///< fresh sequences per step
  arma::uword held_out = 512;  ///< held-out sequences, 128 per skip-trigram
  double lr = 1e-2;            ///< Adam learning rate
  std::uint64_t seed = 1;      ///< seeds the weights, the batches and the held-out set
};

/// Sequences of fillers, each holding one skip-trigram or a query with no source ("in fact", "at
/// last": without them, a head could tell keep from stay by looking for stay alone, and would never
/// read keep). tokens: count x context (row = a sequence). In row b the source sits at
/// source_at[b], the query at query_at[b] (at least two positions later, and before the last
/// position) and the continuation right after the query.
struct SkipBatch {
  arma::umat tokens;                   ///< count x context token ids
  std::vector<arma::uword> which;      ///< an index into kSkipTrigrams; 4 or 5: "in fact" or "at last", no source
  std::vector<arma::uword> source_at;  ///< the source's position (no source: the query's)
  std::vector<arma::uword> query_at;   ///< the query's position
};

/// Draws `count` sequences: fillers uniform, then one skip-trigram. balanced: row b holds skip-trigram
/// b mod 4 (the held-out set); otherwise each row holds one of the four or one of the two sourceless
/// pairs, each of the six equally likely.
SkipBatch sample_skip_trigrams(attn::Random& rng, arma::uword count, arma::uword context, bool balanced);

/// A trained one-layer model and its held-out set.
struct SkipTrigramRun {
  Model model;            ///< vocabulary 26, one layer of one head, no final norm
  SkipBatch held_out;     ///< the held-out set
  arma::uword steps = 0;  ///< Adam steps taken
  double seconds = 0;     ///< wall time of training
};

/// Trains the one-layer model with attn::AttnOnlyTrainer on fresh batches (the next-token loss at
/// every position).
SkipTrigramRun train_skip_trigrams(const SkipTrigramOptions& options);

/// What the example measures, each a mean over the held-out sequences of one skip-trigram (rows:
/// kSkipTrigrams order; columns: the four continuations mind, bay, touch, home).
struct SkipTrigramFindings {
  SkipTrigramRun run;     ///< the trained model and its held-out set
  arma::mat probability;  ///< 4 x 4: the model's probability of each continuation after the query
  arma::vec attention;    ///< 4: the head's weight from the query on the source
  arma::mat message;  ///< 4 x 4: what the head reads from the source, in logits: A[query, source] (x_source Wv Wo) U
  arma::mat direct;   ///< 4 x 4: the direct path, (E[query] + P[position]) U, in logits
};

/// The findings of a trained run (the readable forward pass in double over its held-out set).
SkipTrigramFindings measure_skip_trigrams(SkipTrigramRun run);

}  // namespace ch08
