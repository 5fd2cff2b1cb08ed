/// \file sections.hpp
/// \brief Chapter 04's sections as results: each lesson function computes one section of the
/// program once; the claims (claims.hpp), the printers (report.hpp) and the figures (figures.hpp)
/// only read these results.
///
/// Throws: std::invalid_argument for an angle or a length shadow_of refuses (explorer); for fewer than
/// 2 samples (variance_section); for empty or non-finite scores or d_k of 0 (softmax_scaling); for
/// scores softmax() refuses (learning_signal, sharpness_curves). The others throw nothing beyond
/// std::bad_alloc (scores_from_text reports a refusal in its result).
/// Sources: the article, "Dot products, cosine similarity, and scaling" and its subsections "A dot
/// product includes vector length" (its explorer), "Cosine similarity removes the lengths", "Scaling
/// preserves the influence of lengths", "Why divide by the square root of the dimension?", "Scaling
/// changes how sharply softmax chooses" and "Why not use cosine similarity instead?".
#pragma once

#include <armadillo>
#include <cstdint>
#include <string>
#include <vector>

#include "common/apparatus/numbers.hpp"
#include "scaling.hpp"

namespace ch04 {

/// The most scores a reader may give (sections 5 and 6).
inline constexpr std::size_t kMaxScores = 10;

/// A reader's own scores from text: "4,2,0" or "4, 2, 0" -> 1 x m, by the list rule
/// (app::split_list: entries separated by commas) and the number rule (app::parse_number: one
/// number an entry, so "4 2 0" and an entry of a lone carriage return are refused), 1 to kMaxScores numbers within
/// +-attn::kLargestInput. `name` is what the messages call the text ("--scores"). A refusal is
/// Parsed::problem, a whole message ("--scores needs 1 to 10 numbers, got 11").
app::Parsed<arma::rowvec> scores_from_text(const std::string& name, const std::string& text);

/// `x` with four decimals, or in scientific form with three significant digits below 0.1
/// (0.2130, 3.55e-02, 1.13e-07): how the chapter prints the size of the softmax Jacobian.
std::string small_number(double x);

/// Section 2: one row of the dot product / cosine table.
struct DotCosineRow {
  arma::vec q{};        ///< 2 x 1 query
  arma::vec k{};        ///< 2 x 1 key
  double dot = 0.0;     ///< q . k
  double cosine = 0.0;  ///< cosSim(q, k)
};

/// Section 2: the article's four pairs (claim scale_01 is checked on all of them).
struct DotCosineTable {
  double growth = 0.0;               ///< row 2's dot product over row 1's: 100 (ten times both lengths)
  std::vector<DotCosineRow> rows{};  ///< (1,0).(1,0), (10,0).(10,0), (1,0).(0,1), (1,0).(-1,0)
};

/// Section 2, "Cosine similarity removes the lengths".
DotCosineTable dot_cosine_table();

/// Section 1's figure data: a .\ b as a rotates through 0.360 degrees for three lengths of a.
struct AngleSweep {
  arma::vec angles{};        ///< 361 x 1, degrees
  arma::vec lengths{};       ///< 3 x 1: the lengths of a, 1, 5, 10
  arma::mat dots{};          ///< 361 x 3: a . b at each angle and length
  double shown_angle = 0.0;  ///< the explorer's angle brought into [0, 360)
  double b_length = 1.0;     ///< |b|
};

/// Section 1: the explorer at the reader's angle and lengths.
struct Explorer {
  Shadow shadow{};                      ///< a, b, the projection and the dot product
  std::vector<Shadow> other_lengths{};  ///< the same angle and |b| with |a| = 1, 5, 10
  AngleSweep sweep{};                   ///< the dot product against the angle
  bool article = false;                 ///< the article's setting (20 degrees, |a| = 10, |b| = 1): claims tagged
};

/// Section 1, "A dot product includes vector length". angle: finite degrees; length >= 0; b_length > 0
/// (both finite).
Explorer explorer(double angle_degrees, double length, double b_length);

/// Section 3: one fixed divisor for a head's every score.
struct FixedDivisor {
  arma::uword d_k = 0;          ///< the head's query/key width (64)
  double divisor = 0.0;         ///< sqrt(d_k)
  double base_dot = 40.0;       ///< the dot product made ten times larger below
  arma::vec dots{};             ///< the article's dot products 1, 8, 40, 100
  arma::vec scaled{};           ///< each divided by sqrt(d_k)
  double longer_dot = 0.0;      ///< 40 with one vector ten times longer: 400
  double longer_scaled = 0.0;   ///< its scaled score
  double shorter_scaled = 0.0;  ///< the scaled score of 40
};

/// Section 3, "Scaling preserves the influence of lengths".
FixedDivisor fixed_divisor();

/// Section 4: the Monte Carlo run (claim scale_04 is checked on its estimates).
struct VarianceSection {
  std::vector<VarianceEstimate> estimates{};  ///< one per width of variance_widths()
  arma::uword samples = 0;                    ///< pairs per width
  std::vector<bool> within{};                 ///< per width: within_three_standard_errors
  std::uint64_t seed = 0;                     ///< first seed (width i uses seed + i)
};

/// Section 4, "Why divide by the square root of the dimension?".
VarianceSection variance_section(arma::uword samples, std::uint64_t seed);

/// Section 5: raw and scaled weights of one score row.
struct SoftmaxScaling {
  arma::uword d_k = 0;      ///< the head width whose sqrt divides the scores
  double divisor = 0.0;     ///< sqrt(d_k)
  arma::rowvec raw{};       ///< 1 x m scores sent to softmax unscaled
  arma::rowvec scaled{};    ///< raw / sqrt(d_k)
  arma::rowvec a_raw{};     ///< softmax(raw)
  arma::rowvec a_scaled{};  ///< softmax(scaled)
  std::string winner{};     ///< what the division did to the top key, in words
  bool article = false;     ///< the article's [4, 2, 0] with d_k = 4: its claims are tagged
};

/// Section 5. scores: 1 x m finite (m >= 1), d_k >= 1; `article`: these are the article's [4, 2, 0]
/// with d_k = 4, so the claims are tagged.
SoftmaxScaling softmax_scaling(const arma::rowvec& scores, arma::uword d_k, bool article);

/// Section 6: the Jacobian at one multiple of the scores.
struct JacobianAt {
  arma::rowvec scores{};  ///< c x scores
  arma::rowvec a{};       ///< softmax of them
  arma::mat J{};          ///< m x m, diag(a) - a^T a
  double norm = 0.0;      ///< its Frobenius norm
};

/// Section 6: near one-hot, the softmax Jacobian shrinks.
struct LearningSignal {
  arma::rowvec scores{};            ///< 1 x m, the reader's or the article's scores
  std::vector<std::string> keys{};  ///< "a1", "a2", ...
  std::vector<JacobianAt> at{};     ///< at c = 1 / sqrt(d_k) and c = 1
  arma::vec cs{};                   ///< the table's multipliers 0.25 .. 16
  arma::mat weights{};              ///< cs x m: softmax(c x scores)
  arma::vec norms{};                ///< cs x 1: |J| at each c
  arma::vec largest{};              ///< cs x 1: the largest weight at each c
  bool article = false;             ///< the article's scores: the claim on |J| (scale_07) is tagged
};

/// Section 6. scores: 1 x m finite; divisor > 0 (the section 5 divisor); `article` as for
/// softmax_scaling.
LearningSignal learning_signal(const arma::rowvec& scores, double divisor, bool article);

/// Section 5 and 6's figure data: softmax(c x scores) and |J| for c from 0.05 to 20.
struct SharpnessCurves {
  arma::rowvec scores{};                                ///< 1 x m
  arma::vec cs{};                                       ///< 161 x 1, log-spaced
  arma::mat weights{};                                  ///< 161 x m
  arma::vec norms{};                                    ///< 161 x 1
  std::vector<std::string> keys{};                      ///< "key 1 (score 4)", ...
  std::vector<std::pair<double, std::string>> marks{};  ///< c = 1 / sqrt(d_k) and c = 1
};

/// The curves for the figures.
SharpnessCurves sharpness_curves(const arma::rowvec& scores, double divisor);

/// Section 7: one row of the longer-query table.
struct QueryScaleRow {
  double c = 0.0;                 ///< the query's length factor
  arma::rowvec scores{};          ///< (c q) K^T / sqrt(d_k)
  arma::rowvec weights{};         ///< softmax of them
  double largest = 0.0;           ///< the largest weight
  arma::rowvec cosine_weights{};  ///< softmax of the cosine scores of c q
};

/// Section 7: one row of the longer-key table.
struct KeyScaleRow {
  arma::uword key = 0;         ///< which key (0-based) was made longer
  double c = 0.0;              ///< its length factor
  double score = 0.0;          ///< its scaled score
  double weight = 0.0;         ///< its weight
  double cosine_weight = 0.0;  ///< its weight under cosine scores
};

/// Section 7's figure data: weights as the query's or one key's length factor sweeps 0.1 . 10.
struct LengthCurves {
  arma::vec cs{};                   ///< 121 x 1, log-spaced factors
  arma::mat query_weights{};        ///< 121 x 2m: dot-product weights of each key, then cosine weights
  arma::mat key_weights{};          ///< 121 x 4: the grown key's weight, dot product then cosine, k1 then k3
  std::vector<std::string> keys{};  ///< "k1 (score 2)", ...
};

/// Section 7: what the lengths of queries and keys do to scaled dot-product and cosine attention.
struct CosineComparison {
  LengthExample example{};                  ///< q and the three keys
  arma::rowvec scores{};                    ///< q K^T / sqrt(d_k) = [2, 1, -1]
  arma::rowvec cosines{};                   ///< cosSim(q, k_j) = [0.8, 0.4, -0.63]
  std::vector<QueryScaleRow> query_rows{};  ///< c = 0.5, 1, 2, 4
  std::vector<KeyScaleRow> key_rows{};      ///< k1 and then k3, each at c = 1, 2, 4
  LengthCurves curves{};                    ///< for the figures
};

/// Section 7, "Why not use cosine similarity instead?".
CosineComparison cosine_comparison();

}  // namespace ch04
