/// \file swap_query.hpp
/// \brief Chapter 02: a learned query (the swap), what a query map ignores (its null space), and
/// hand-set matching directions for bank.
///
/// Tokens are rows: X is n x d, Q = X Wq. The null-space section uses the article's column form
/// M = Wq^T, so q^T = M x^T.
/// Throws: std::invalid_argument for an empty or non-finite M (null_space); for d or d_k of 0
/// (width_example); for an unknown preset name, listing the choices (parse_preset); for a custom Wq
/// that is not rows x cols numbers within +-attn::kLargestInput, an empty entry as in "1,,0" or
/// "1,0,0," included (parse_matrix, by app::split_list's list rule); for an x without one entry per
/// row of Wq (query_terms); for an empty sentence, an unknown word or a Wq or Wk of the wrong shape
/// (match_last, combined_query, matching_section, matching_widget, preset_weights); for features
/// outside 3 .. 12 (superposition); for any input attn::attention refuses (teaching_head). The others
/// throw nothing beyond std::bad_alloc.
/// Sources: the article, "When raw similarity asks the wrong question", "Producing a query", "What is
/// query/key space, and how does it relate to subspaces?", "What information does the query map
/// lose?", "One head maps the full representation into a smaller matching space", "What could this
/// query match?", "Try three hypothetical matching directions" (its "Adjust Wq coefficients" widget),
/// "One query can combine several matching criteria"; Vaswani et al. 2017, §3.2.1; Elhage et al. 2022,
/// "Toy Models of Superposition".
#pragma once

#include <armadillo>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/attention/attention.hpp"

namespace ch02 {

/// "the Eiffel tower" in the two-dimensional teaching space (axes structure, Paris identity): 3 x 2,
/// one word per row.
arma::mat eiffel_sentence();

/// The swap matrix [[0, 1], [1, 0]] (2 x 2): as Wq it turns tower = [1, 0] into the query [0, 1].
arma::mat swap_matrix();

/// The head on the teaching sentence X2 (3 x 2) with the given query projection Wq (2 x 2) and
/// Wk = Wv = I: raw similarity when Wq = I, the article's swap query when Wq = swap_matrix().
attn::HeadPass teaching_head(const arma::mat& X2, const arma::mat& Wq);

/// The article's 3-d -> 2-d query map in column form, M = Wq^T = [[1, 0, 1], [0, 1, 1]] (2 x 3).
arma::mat small_query_map();

/// What Armadillo finds about a query map M (outputs x inputs, column form).
struct NullSpace {
  arma::uword rank = 0;     ///< rank(M): how many independent input directions M reads
  arma::uword nullity = 0;  ///< inputs - rank: the dimension of the null space (rank–nullity)
  arma::mat basis{};        ///< inputs x nullity, orthonormal columns spanning {x : M x = 0}
};

/// rank(M) and an orthonormal basis of M's null space (rank–nullity), from arma::rank and arma::null
/// (SVD). M: outputs x inputs.
NullSpace null_space(const arma::mat& M);

/// The width example: a random d x d_k query projection Wq, its rank and null-space dimension.
struct WidthExample {
  arma::uword d = 0;             ///< input width (rows of Wq)
  arma::uword d_k = 0;           ///< query width (columns of Wq)
  std::uint64_t seed = 0;        ///< the seed Wq was drawn with
  arma::uword rank = 0;          ///< rank(Wq) = rank(M), from the singular values
  arma::uword nullity = 0;       ///< d - rank: input directions this query map ignores
  arma::uword null_samples = 0;  ///< null-space vectors checked (0 when the null space is {0})
  double null_query_max = 0;     ///< max |n Wq| over sampled null-space vectors n (about 1e-15)
  double query_change_max = 0;   ///< max |(x + n) Wq - x Wq| for a random input x
  double seconds = 0;            ///< wall time of the whole computation
};

/// Largest input width d of the program's width example.
inline constexpr arma::uword kMaxWidth = 100000;
/// Largest query width d_k of the program's width example.
inline constexpr arma::uword kMaxDk = 2048;
/// Largest d x d_k of the program's width example (2e7 entries, 160 MB of doubles).
inline constexpr arma::uword kMaxEntries = 20000000;
/// The seed of the program's width example.
inline constexpr std::uint64_t kWidthSeed = 2017;

/// Draws Wq (d x d_k, standard normal entries from one attn::Random stream seeded by `seed`), computes
/// its rank from the singular values (arma::rank), the null-space dimension d - rank, and checks
/// `samples` null-space vectors, built by removing from random inputs their part in the column
/// space of Wq (economy QR; the full null-space basis would be d x (d - d_k)). When d <= d_k the
/// null space is {0} and nothing is sampled.
WidthExample width_example(arma::uword d, arma::uword d_k, std::uint64_t seed, arma::uword samples = 4);

/// The three hand-set matching directions of "What could this query match?".
enum class Preset { water, finance, structure };

/// The preset a name gives: "water" -> Preset::water, ...
Preset parse_preset(const std::string& name);
/// "water", "finance" or "structure".
std::string preset_name(Preset preset);
/// The question a preset asks, e.g. "which positions carry water-related evidence?".
std::string preset_question(Preset preset);

/// A preset's Wq: 4 x 3 (rows finance, water, structure, generic of the toy table; columns the
/// matching axes finance, water, structure). Only the structure row is non-zero: 3.75 on the
/// preset's axis, so bank's query is 0.8 x 3.75 = 3 along it.
arma::mat preset_wq(Preset preset);

/// The matching widget's query projection: one of the presets, or the reader's own Wq.
struct QueryChoice {
  Preset preset = Preset::water;      ///< the preset, used when there is no custom Wq
  std::optional<arma::mat> custom{};  ///< the reader's Wq (4 x 3), instead of the preset
  /// 4 x 3: the custom Wq, else the preset's.
  arma::mat Wq() const { return custom.value_or(preset_wq(preset)); }
  /// How the widget names it: "custom" or "find water evidence".
  std::string label() const { return custom ? "custom" : "find " + preset_name(preset) + " evidence"; }
  /// The question the preset asks, "" for a custom Wq.
  std::string question() const { return custom ? "" : preset_question(preset); }
};

/// The fixed key projection Wk (4 x 3): keeps finance, water and structure, drops generic.
arma::mat fixed_wk();

/// Parses a custom Wq written as rows separated by ';', entries by spaces or commas:
/// "0 0 0; 0 0 0; 0 3.75 0; 0 0 0" or "0, 0, 0; ..". Returns rows x cols.
/// The reader's Wq of the "Adjust Wq coefficients" widget, typed in.
arma::mat parse_matrix(const std::string& text, arma::uword rows, arma::uword cols);

/// One receiving token's matching table: every token's query and key, and the receiver's scores and weights.
struct MatchTable {
  std::vector<std::string> words{};  ///< the sentence, one word per token
  arma::uword receiver = 0;          ///< index of the receiving token
  arma::mat Q{};                     ///< n x d_k: every token's query x Wq
  arma::mat K{};                     ///< n x d_k: every token's key x Wk
  arma::rowvec scores{};             ///< 1 x n: q_receiver . k_j / sqrt(d_k)
  arma::rowvec weights{};            ///< 1 x n: softmax of scores
  arma::mat X{};                     ///< n x 4: the sentence's toy embeddings, one word per row
};

/// One term x_r Wq_r of the receiver's query q = x Wq = sum_r x_r Wq_r (row r of Wq scaled by input r).
struct QueryTerm {
  arma::uword input = 0;  ///< r: the input coordinate (row of Wq)
  double x = 0;           ///< x_r: the receiver's input along it
  arma::rowvec row{};     ///< 1 x d_k: row r of Wq
};

/// The non-zero terms of q = x Wq for a 1 x d input x and a d x d_k Wq: the rows whose input and
/// coefficients are both non-zero, in row order (empty when q is built from nothing).
/// The article's "q_bank = 0.8 x [0.00, 3.75, 0.00]", term by term.
std::vector<QueryTerm> query_terms(const arma::rowvec& x, const arma::mat& Wq);

/// Matches the last word of `words` (looked up in attn::toy_embeddings()) against every key.
/// Wq, Wk: 4 x d_k. The article's token table of "What could this query match?".
MatchTable match_last(const std::vector<std::string>& words, const arma::mat& Wq, const arma::mat& Wk);

/// "One query can combine several matching criteria": bank's query asking for water and structure
/// at once, and each coordinate pair's share of every score.
struct CombinedQuery {
  MatchTable table{};            ///< bank in the sentence, under combined_wq() and fixed_wk()
  arma::mat shares{};            ///< n x 3: q_receiver,r k_j,r / sqrt(d_k), one row per source j
  arma::rowvec water{};          ///< 1 x n: the scores under the water preset alone
  arma::rowvec structure{};      ///< 1 x n: the scores under the structure preset alone
  double largest_gap = 0;        ///< max_j |sum_r shares(j, r) - scores(j)|
  double largest_split_gap = 0;  ///< max_j |water(j) + structure(j) - scores(j)|
};

/// The water preset's Wq plus the structure preset's (4 x 3): the structure row [0, 3.75, 3.75].
arma::mat combined_wq();

/// bank's combined query on `words` (last word receives; toy vocabulary), its shares and the two
/// single-preset score rows.
CombinedQuery combined_query(const std::vector<std::string>& words);

/// More feature directions than dimensions, after Elhage et al. 2022, "Toy Models of Superposition":
/// a representational possibility, not a claim about what a trained head holds.
struct Superposition {
  arma::mat W{};                   ///< features x dims: unit feature directions, 360/features degrees apart
  arma::uword rank = 0;            ///< rank(W): at most dims
  arma::mat overlaps{};            ///< features x features: W W^T (off the diagonal: interference)
  double max_interference = 0;     ///< the largest |off-diagonal overlap|
  arma::rowvec one_active{};       ///< 1 x features: every feature read (x W^T) when x = w_1
  arma::rowvec two_active{};       ///< 1 x features: read when x = w_1 + w_3
  double bias = 0;                 ///< -(largest positive overlap): the ReLU read's bias
  arma::rowvec one_active_relu{};  ///< max(0, x W^T + bias) for x = w_1
  arma::rowvec two_active_relu{};  ///< the same for x = w_1 + w_3
};

/// `features` unit directions in `dims` = 2 dimensions at angles 2 pi i / features, and their reads.
/// Elhage et al.'s pentagon of 5 features in 2-d, read through a ReLU with a bias.
Superposition superposition(arma::uword features = 5);

// ---- the program's sections, computed once --------------------------------------------------------

/// Sections 1 and 2: "the Eiffel tower" in the teaching space under the raw and the swap query.
struct TeachingSection {
  arma::mat X2{};             ///< 3 x 2: eiffel_sentence()
  arma::rowvec tower_dots{};  ///< 1 x 3: tower . the, tower . Eiffel, tower . tower (raw similarity)
  attn::HeadPass raw{};       ///< Wq = I
  attn::HeadPass swapped{};   ///< Wq = swap_matrix()
};
/// Computes both passes.
TeachingSection teaching_section();

/// What a query map and a key map read and reach, in column form (M = W^T): the article's remarks
/// that a map of rank below d_k reaches only a subspace of the matching space, and that Wq and Wk
/// can read different input directions, measured on the matching widget's water preset and fixed Wk.
struct ReadingDirections {
  arma::mat Wq{};                ///< d x d_k (4 x 3): preset_wq(Preset::water)
  arma::mat Wk{};                ///< d x d_k (4 x 3): fixed_wk()
  arma::uword rank_q = 0;        ///< rank of Wq: the dimension of the queries it can produce
  arma::uword rank_k = 0;        ///< rank of Wk
  arma::mat reachable{};         ///< d_k x rank_q: orthonormal basis of the queries Wq can produce
  arma::rowvec target{};         ///< 1 x d_k: a query to aim for, [1, 0, 0] (pure finance)
  double target_distance = 0.0;  ///< its distance from every query Wq can produce
  arma::mat read_share{};        ///< 2 x d: per input axis r, |P e_r|^2 with P the projection onto the
                                 ///< input directions Wq (row 0) or Wk (row 1) reads; 1 read, 0 ignored
  arma::rowvec nudge{};          ///< 1 x d: [0, 1, 0, 0], more water added to an input
  arma::rowvec query_change{};   ///< 1 x d_k: nudge Wq, how the query moves
  arma::rowvec key_change{};     ///< 1 x d_k: nudge Wk, how the key moves
};
/// Computes the above (Armadillo's SVD on 4 x 3 matrices). The article's remarks: "a smaller subspace
/// if the map's rank is below 128"; "the input directions read by Wq and Wk can also differ".
ReadingDirections reading_directions();

/// Section 3's small example: the 3-d -> 2-d map, its null space, and the article's n and e.
struct SmallNullSpace {
  arma::mat M{};                ///< 2 x 3: small_query_map()
  NullSpace ns{};               ///< null_space(M)
  arma::vec n{};                ///< 3 x 1: the article's n = (1, 1, -1)
  arma::vec e{};                ///< 3 x 1: the article's e = (1, 2, 3)
  arma::vec far_query{};        ///< 2 x 1: M (e + 2.5 n), the same query as M e
  ReadingDirections reading{};  ///< a rank-deficient query map, and Wq and Wk reading different directions
};
/// M, its null space and the article's n and e.
SmallNullSpace small_null_space();

/// The article's two sentences, "the river bank" and "the money bank", as words.
std::vector<std::vector<std::string>> article_sentences();

/// Section 4: the matching widget's tables, one per sentence, under one query projection.
struct MatchingSection {
  arma::mat Wq{};                    ///< 4 x 3: the preset's or the reader's
  std::vector<MatchTable> tables{};  ///< one per sentence, in order
};
/// match_last() of every sentence under `Wq` (4 x 3) and fixed_wk(); one table per sentence.
MatchingSection matching_section(const arma::mat& Wq, const std::vector<std::vector<std::string>>& sentences);
/// The matching widget as the program shows it: matching_section() of the reader's `sentence` if
/// given, else of both article_sentences().
MatchingSection matching_widget(const arma::mat& Wq, const std::optional<std::vector<std::string>>& sentence);

/// bank's weights under every preset (and the reader's Wq) in both article sentences, for the
/// presets figure.
struct PresetWeights {
  std::vector<std::vector<std::string>> sentences{};  ///< "the river bank", "the money bank"
  std::vector<std::string> series{};                  ///< "find water", ..., and "your --wq" when given
  std::vector<arma::mat> weights{};                   ///< per sentence: n x series, column s = series s
};
/// match_last() of both article sentences under the three presets and `custom` (4 x 3) if given.
PresetWeights preset_weights(const std::optional<arma::mat>& custom);

/// Every section's result, computed once by the program; the printers and the figures read them.
struct Sections {
  TeachingSection teaching{};     ///< sections 1 and 2
  SmallNullSpace small{};         ///< section 3's 3-d example
  WidthExample width{};           ///< section 3's width example
  MatchingSection matching{};     ///< section 4
  PresetWeights presets{};        ///< section 4's figure: bank's weights under every preset
  CombinedQuery combined{};       ///< section 5, first part
  Superposition superposition{};  ///< section 5, second part
};

}  // namespace ch02
