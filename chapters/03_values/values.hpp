/// \file values.hpp
/// \brief Chapter 03: values carry the content, queries and keys set the weights; counting the
/// matrices of a multi-head sublayer; the residual addition.
///
/// Tokens are rows: X is n x d, Q and K are n x d_k, V is n x d_v, A is n x n.
/// Throws: std::invalid_argument for a choice other than raw or swap, naming the text (parse_choice);
/// for an extra token that is not 1 x 2 or not finite (add_another_key); for a size n, h or N that is
/// not positive or exceeds kMaxTokens, kMaxHeads or kMaxBlocks (count_objects, counting_table,
/// counting_section; build_sublayer, from the sublayer, when n or h is 0); for a combination missing
/// from `combos` (combination); for an unknown word or an empty sentence (example_sublayer). The
/// others throw nothing beyond std::bad_alloc.
/// Sources: the article, "When raw similarity asks the wrong question" (chapter 02's sentence), "The
/// embedding table and the projection matrices are separate", "How many tables and vectors are
/// there?", "Three roles: matching and carrying information", "What the weight actually measures" and
/// "Where this leaves us"; Vaswani et al. 2017, §3.2.2.
#pragma once

#include <armadillo>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/attention/attention.hpp"
#include "common/attention/multihead.hpp"

namespace ch03 {

/// A projection in the two-dimensional teaching space: the identity (raw) or the swap [[0, 1], [1, 0]].
enum class Choice { raw, swap };

/// "raw" or "swap" as a Choice.
Choice parse_choice(const std::string& text);
/// "raw" or "swap".
std::string choice_name(Choice choice);
/// The 2 x 2 matrix of a choice: I or swap.
arma::mat choice_matrix(Choice choice);

/// "the Eiffel tower" in the teaching space (axes structure, Paris identity): 3 x 2, one word per
/// row.
arma::mat eiffel_sentence();

/// The teaching head with Wq and Wv chosen and Wk = I: X2 3 x 2 -> HeadPass (A 3 x 3, H 3 x 2).
/// Row 2 is tower, the receiving token of the article's widget.
attn::HeadPass tower_head(Choice query, Choice values);

/// One receiving token's score and weight for one source, before and after another key joins the row.
struct AnotherKey {
  arma::rowvec q_before{};   ///< 1 x d_k: the receiver's query without the extra token
  arma::rowvec q_after{};    ///< 1 x d_k: the same query with it (unchanged)
  arma::rowvec k_before{};   ///< 1 x d_k: the source's key without the extra token
  arma::rowvec k_after{};    ///< 1 x d_k: the same key with it (unchanged)
  double score_before = 0;   ///< s_ij = q_i . k_j / sqrt(d_k), without the extra token
  double score_after = 0;    ///< the same score with it (unchanged)
  double weight_before = 0;  ///< a_ij over the original row
  double weight_after = 0;   ///< a_ij once the extra key competes in the softmax
};

/// Appends `extra` (1 x 2) as a fourth token to "the Eiffel tower" and follows tower's (i = 2) weight on
/// Eiffel (j = 1) under the swap query with Wk = Wv = I.
AnotherKey add_another_key(const arma::rowvec& extra);

/// Counts of the objects in a stack of N blocks of h-head self-attention on n tokens.
struct Counts {
  std::uint64_t qkv_projections_per_block = 0;    ///< 3h learned Wq, Wk, Wv in one sublayer
  std::uint64_t qkv_matrices_per_block = 0;       ///< 3h computed Q, K, V matrices on one pass
  std::uint64_t qkv_vectors_per_block = 0;        ///< 3nh computed query, key and value vectors
  std::uint64_t qkv_projections_in_stack = 0;     ///< 3Nh learned projections in N blocks
  std::uint64_t output_projections_in_stack = 0;  ///< N output projections Wo
  std::uint64_t queries_per_token = 0;            ///< h queries (and h keys, h values) per token per block
};

/// Largest number of tokens n that count_objects() accepts.
inline constexpr std::uint64_t kMaxTokens = 1000000;
/// Largest number of heads h that count_objects() accepts.
inline constexpr std::uint64_t kMaxHeads = 1024;
/// Largest number of blocks N that count_objects() accepts.
inline constexpr std::uint64_t kMaxBlocks = 1024;

/// The article's counts for n tokens, h heads and N blocks.
Counts count_objects(long long n, long long h, long long N);

/// One row of the article's counting table.
struct CountRow {
  std::string object{};  ///< e.g. "Query projections Wq"
  std::string kind{};    ///< "learned" or "computed"
  std::string count{};   ///< e.g. "2, one per head"
  std::string shape{};   ///< shape of each matrix, e.g. "3 x d_k"
};

/// The article's table for one sublayer with n tokens and h heads (sizes substituted; d, d_k, d_v symbolic).
std::vector<CountRow> counting_table(long long n, long long h);

/// A small hand-set sublayer on the toy table (d = 4): head 1 asks bank's water question, head 2 its
/// finance question (Wq as chapter 02's presets, Wk = Wv keeping finance, water, structure; d_k = d_v = 3),
/// and Wo (6 x 4) adds half of each head's mixture back onto finance, water and structure.
attn::MultiHeadWeights river_bank_sublayer();

// ---- the program's sections, computed once --------------------------------------------------------

/// tower's head under one query/value choice (section 2 and its figure).
struct Combination {
  Choice query = Choice::raw;   ///< tower's query projection
  Choice values = Choice::raw;  ///< the value projection
  attn::HeadPass pass{};        ///< the head on "the Eiffel tower"
};

/// Section 2: the four combinations, in the order raw/raw, raw/swap, swap/raw, swap/swap.
std::vector<Combination> three_roles();

/// The pass of the combination (query, values) among `combos`.
const attn::HeadPass& combination(const std::vector<Combination>& combos, Choice query, Choice values);

/// Section 1's hand-set two-head sublayer on a sentence (words from the toy table).
struct ExampleSublayer {
  std::vector<std::string> words{};  ///< the sentence
  arma::mat X{};                     ///< n x 4
  attn::MultiHeadWeights weights{};  ///< river_bank_sublayer()
  attn::MultiHeadPass pass{};        ///< the sublayer on X
};
/// Runs river_bank_sublayer() on `words` (X: n x 4, one word per row).
ExampleSublayer example_sublayer(const std::vector<std::string>& words);

/// One row of the article's table "The embedding table and the projection matrices are separate".
struct SeparateObject {
  std::string object{};   ///< e.g. "Wq, Wk, Wv"
  std::string purpose{};  ///< what it is for
  bool learned = false;   ///< a learned parameter (true) or computed on each forward pass (false)
  std::string here{};     ///< its shape(s) in the example sublayer's head 1, e.g. "4 x 3 each"
};

/// The article's four rows (E; Wq, Wk, Wv; X, Q, K, V; A, H), each with its shape in `example`'s
/// head 1 (the toy table's E is vocabulary x d = 4 x 4).
std::vector<SeparateObject> separate_objects(const ExampleSublayer& example);

/// A score and its reverse in one head whose query and key projections differ.
struct Asymmetry {
  std::vector<std::string> words{};  ///< the sentence ("the river bank")
  arma::uword i = 0;                 ///< the receiver i (bank)
  arma::uword j = 0;                 ///< the source j (river)
  arma::mat M{};                     ///< d x d: Wq Wk^T, so s_ij = x_i M x_j^T / sqrt(d_k)
  double forward = 0;                ///< s_ij = q_i . k_j / sqrt(d_k)
  double backward = 0;               ///< s_ji = q_j . k_i / sqrt(d_k)
  double weight_forward = 0;         ///< a_ij
  double weight_backward = 0;        ///< a_ji
};

/// Head 1 of river_bank_sublayer() (Wq asks along water from structure, Wk keeps finance, water,
/// structure) on "the river bank": the score from bank to river and from river to bank.
/// The article's "the score from i to j can differ from the score from j to i".
Asymmetry asymmetric_scores();

/// Section 1's random sublayer built with the counting table's n and h, run to confirm the counts.
struct BuiltSublayer {
  arma::uword d = 8;                 ///< the model width it is built with
  arma::uword d_k = 4;               ///< its query/key width
  arma::uword d_v = 2;               ///< its value width
  attn::MultiHeadWeights weights{};  ///< h random heads and Wo
  attn::MultiHeadPass pass{};        ///< run on n random tokens
  arma::uword qkv_rows = 0;          ///< rows of every head's Q, K and V together (3 n h)
};
/// Builds and runs it with attn::Random (seed 3) when n <= 64 and h <= 16; nothing when larger.
/// X: n x d random tokens; Q, K n x d_k and V n x d_v per head. n and h must have passed
/// count_objects() (positive).
std::optional<BuiltSublayer> build_sublayer(long long n, long long h);

/// Section 1, "How many tables and vectors are there?": the counting table for n tokens and h heads,
/// the counts in a stack of N blocks, and a sublayer built with those shapes when small enough.
struct CountingSection {
  long long n = 0;                       ///< tokens
  long long h = 0;                       ///< heads per sublayer
  long long N = 0;                       ///< blocks in the stack
  std::vector<CountRow> table{};         ///< counting_table(n, h)
  Counts counts{};                       ///< count_objects(n, h, N)
  std::optional<BuiltSublayer> built{};  ///< build_sublayer(n, h): nothing when too large to run
};
/// Computes section 1.
CountingSection counting_section(long long n, long long h, long long N);

}  // namespace ch03
