/// \file chapters/09_real_heads/compare.hpp
/// \brief Chapter 09's comparisons of hidden representations: the stream at one marked position of
/// a sentence (bank's final 'k') after the embedding and after each layer, compared with the same
/// position of another sentence by a centred cosine and set against matched controls. The reader's
/// own pair (`--compare A B`), and the chapter's bank study of matched sentences.
///
/// Shapes: a reading is (layers + 1) x width, row 0 the stream after the embedding, row l the stream
/// after layer l; a sentence of n characters gives streams n x width (tokens are rows).
///
/// Throws: std::invalid_argument, naming the sentence and the reason, for a bracket out of place,
/// an empty or non-printable sentence, one longer than `context` characters, no shared word, or a
/// marked span the other sentence lacks (mark_pair); for a position outside the text (reading); for
/// no texts (mean_reading); for held-out text no longer than a sentence (compare); for no items
/// (tally_bank); as trace() does, for a sentence that is empty or longer than the model's context,
/// or weights whose scores are not finite (reading, mean_reading, compare, bank_study). The others
/// throw nothing (beyond std::bad_alloc).
/// Sources: the article, "Watch real heads" (try two sentences with different uses of bank and
/// compare the corresponding hidden representations); Ethayarajh 2019, "How Contextual are
/// Contextualized Word Representations?", §3-4 (raw cosines between contextual representations are
/// inflated by directions every representation shares, so a baseline is taken out first).
#pragma once

#include <armadillo>
#include <optional>
#include <string>
#include <vector>

#include "heads.hpp"

namespace ch09 {

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

}  // namespace ch09
