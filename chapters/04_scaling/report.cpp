/// \file report.cpp
/// \brief Chapter 04's printed sections (see report.hpp).
#include "report.hpp"

#include <string>

#include <fmt/format.h>

#include "claims.hpp"
#include "common/apparatus/print.hpp"

namespace ch04 {
namespace {

using app::format_number;
using app::format_plain;
using app::format_vector;

/// A table cell holding a claim's tag: "[scale_01]", or a warning when it does not hold.
std::string tag(const app::ClaimCheck& claim) {
  return (claim.holds ? "" : "(does not hold here) ") + std::string("[") + claim.id + "]";
}

std::string side_words(Side side) {
  switch (side) {
    case Side::positive:
      return "positive: part of a points along b";
    case Side::negative:
      return "negative: part of a points against b";
    case Side::zero:
      break;
  }
  return "zero: a is perpendicular to b (or has no length)";
}

/// "[1, 0]" for b: its entries in their shortest form.
std::string plain_pair(const arma::vec& v) { return fmt::format("[{}, {}]", format_plain(v(0)), format_plain(v(1))); }

}  // namespace

void print_line(std::ostream& out, const app::ClaimCheck& claim, bool tagged) {
  if (tagged) {
    app::print_claim(out, claim);
  } else {
    out << claim.evidence << '\n';
  }
}

void print_dot_cosine(std::ostream& out, const DotCosineTable& t) {
  app::print_heading(out, "2. A dot product includes length; cosine similarity removes it");
  out << "  q . k = |q| |k| cos(theta);   cosSim(q, k) = q . k / (|q| |k|) = cos(theta)\n";
  app::Table table({"query q", "key k", "dot product", "cosine similarity", ""});
  const app::ClaimCheck claim = claim_dot_cosine(t);
  for (const DotCosineRow& r : t.rows) {
    table.add({format_vector(r.q, 0), format_vector(r.k, 0), format_plain(r.dot), format_plain(r.cosine), tag(claim)});
  }
  table.print(out);
  out << "  Ten times longer in the same direction: the dot product grows " << format_plain(t.growth)
      << "-fold, the cosine stays " << format_plain(t.rows[1].cosine) << ".\n";
}

void print_explorer(std::ostream& out, const Explorer& e) {
  const Shadow& s = e.shadow;
  app::print_heading(out, "1. Rotate a. Watch its shadow. (a at " + format_number(s.angle_degrees, 2) +
                              " degrees, length " + format_plain(s.length) + "; b = (" + format_plain(s.b_length) +
                              ", 0))");
  out << "  a = " << format_vector(s.a, 2) << ", |a| = " << format_plain(s.length) << ";   b = " << plain_pair(s.b)
      << ", |b| = " << format_plain(s.b_length) << '\n';
  print_line(out, claim_projection(e), e.article);
  print_line(out, claim_shadow_dot(e), e.article);
  out << "  projection vector  (on b's line)       = " << format_vector(s.shadow, 2) << '\n'
      << "  cosine similarity  cos(theta)          = "
      << (s.cosine ? format_number(*s.cosine, 2) : std::string("undefined (a is the zero vector)")) << '\n'
      << "  The projection is " << side_words(s.side) << ".\n";
  if (s.b_length == 1.0) {
    out << "  b is a unit vector, so the dot product equals the signed projection. Same angle, other lengths:\n";
  } else {
    out << "  |b| = " << format_plain(s.b_length) << ", so the dot product is " << format_plain(s.b_length)
        << " times the signed projection. Other lengths of a:\n";
  }
  app::Table t({"|a|", "dot product", "cosine"});
  for (const Shadow& other : e.other_lengths) {
    t.add({format_plain(other.length), format_number(other.dot, 2), format_number(*other.cosine, 2)});
  }
  t.print(out);
  out << "  Length multiplies the angle's signed contribution: positive dots grow, negative dots fall,\n"
         "  perpendicular vectors stay at 0. A longer key does not automatically score higher.\n";
}

void print_fixed_divisor(std::ostream& out, const FixedDivisor& f) {
  app::print_heading(out, "3. Scaling keeps the lengths: a head with d_k = " + std::to_string(f.d_k) +
                              " divides every dot product by " + format_plain(f.divisor));
  app::Table t({"dot product", "scaled dot product", ""});
  const app::ClaimCheck claim = claim_fixed_divisor(f);
  for (arma::uword i = 0; i < f.dots.n_elem; ++i) {
    t.add({format_plain(f.dots(i)), format_plain(f.scaled(i)), tag(claim)});
  }
  t.print(out);
  out << "  Make one vector ten times longer: " << format_plain(f.base_dot) << " becomes " << format_plain(f.longer_dot)
      << " and its scaled score " << format_plain(f.shorter_scaled) << " becomes " << format_plain(f.longer_scaled)
      << ".\n"
         "  One positive divisor keeps the order of the scores; it does not bound them to [-1, 1].\n";
}

void print_variance(std::ostream& out, const VarianceSection& v) {
  app::print_heading(out, "4. Why divide by sqrt(d_k)? The spread of q . k, measured");
  out << "  q, k: d_k independent components, mean 0, variance 1. Then Var(q_r k_r) = 1 and\n"
         "  Var(q . k) = d_k, SD = sqrt(d_k); Var(q . k / sqrt(d_k)) = d_k / d_k = 1.\n"
      << "  Monte Carlo: " << v.samples << " pairs per width, random stream seed " << v.seed
      << " (+ index); +- is one standard error.\n";
  app::Table t({"d_k", "mean of q.k", "Var(q.k)", "expected", "Var(q.k / sqrt(d_k))", "expected", "within 3 SE"});
  for (std::size_t i = 0; i < v.estimates.size(); ++i) {
    const VarianceEstimate& e = v.estimates[i];
    t.add({std::to_string(e.d_k), format_number(e.mean, 2),
           format_number(e.var_raw, 2) + " +- " + format_number(e.se_raw, 2), std::to_string(e.d_k),
           format_number(e.var_scaled, 3) + " +- " + format_number(e.se_scaled, 3), "1", v.within[i] ? "yes" : "NO"});
  }
  t.print(out);
  out << "  The mean stays near 0; the spread grows like sqrt(d_k). At d_k = 64 the SD is 8, and dividing\n";
  app::print_claim(out, claim_scaled_variance(v.estimates));
  out << "  (Vaswani et al. 2017, §3.2.1. Learned queries and keys need not stay independent or\n"
         "  unit-variance.)\n";
}

void print_softmax_scaling(std::ostream& out, const SoftmaxScaling& r) {
  app::print_heading(out, "5. Scaling changes how sharply softmax chooses (d_k = " + std::to_string(r.d_k) +
                              ": divide by " + format_plain(r.divisor) + ")");
  print_line(out, claim_raw_weights(r), r.article);
  print_line(out, claim_scaled_weights(r), r.article);
  out << r.winner << "\n\n";
  if (r.raw.n_elem >= 2) {
    out << "  Two keys: a1 / a2 = exp(s1 - s2)\n";
    print_line(out, claim_raw_ratio(r), r.article);
    print_line(out, claim_scaled_ratio(r), r.article);
  } else {
    out << "  One key: its weight is 1 whatever its score, so there is no ratio to compare.\n";
  }
  print_line(out, claim_shift(r), r.article);
}

void print_learning_signal(std::ostream& out, const LearningSignal& r) {
  app::print_heading(out, "6. Near one-hot, softmax passes back little signal");
  out << "  J = d a / d s = diag(a) - a^T a  (row i: how a_i moves with each score)\n";
  for (const JacobianAt& at : r.at) {
    out << "  at scores " << format_vector(at.scores, 2) << ", a = " << format_vector(at.a, 3)
        << ", |J| = " << format_number(at.norm, 4) << ":\n";
    app::print_matrix(out, r.keys, at.J, 4);
  }
  out << "\n  Multiply the scores " << format_vector(r.scores, 2) << " by c:\n";
  std::vector<std::string> header{"c"};
  for (const auto& k : r.keys) header.push_back(k);
  header.push_back("largest weight");
  header.push_back("|J| (Frobenius)");
  app::Table t(header);
  for (arma::uword i = 0; i < r.cs.n_elem; ++i) {
    std::vector<std::string> row{format_plain(r.cs(i))};
    for (arma::uword j = 0; j < r.weights.n_cols; ++j) row.push_back(format_number(r.weights(i, j), 4));
    row.push_back(format_number(r.largest(i), 4));
    row.push_back(small_number(r.norms(i)));
    t.add(row);
  }
  t.print(out);
  print_line(out, claim_jacobian_falls(r), r.article);
  out << "  Small derivatives weaken the learning signal through the weights; the sqrt(d_k) divisor keeps\n"
         "  wide heads from starting there. It does not stop training from learning sharp attention.\n";
}

namespace {

/// "k1 = [2, 1, 0, 0]" for each key, on one line.
std::string key_list(const arma::mat& K) {
  std::string out;
  for (arma::uword j = 0; j < K.n_rows; ++j) {
    out.append(j ? ", k" : "k").append(std::to_string(j + 1)).append(" = ");
    out += format_vector(arma::rowvec(K.row(j)), 0);
  }
  return out;
}

void print_query_rows(std::ostream& out, const CosineComparison& r) {
  out << "\n  A longer query, keys fixed: q -> c q\n";
  app::Table t({"c", "scores of c q", "weights", "largest weight", "weights from cosine scores"});
  for (const QueryScaleRow& row : r.query_rows) {
    t.add({format_plain(row.c), format_vector(row.scores, 2), format_vector(row.weights, 3),
           format_number(row.largest, 3), format_vector(row.cosine_weights, 3)});
  }
  t.print(out);
  app::print_claim(out, claim_query_length(r.example, r.query_rows));
}

void print_key_rows(std::ostream& out, const CosineComparison& r) {
  out << "\n  A longer key, query fixed: one key k -> c k, the others as they were\n";
  app::Table t({"key", "c", "its score", "its weight", "its weight from cosine scores"});
  for (const KeyScaleRow& row : r.key_rows) {
    t.add({std::string("k").append(std::to_string(row.key + 1)), format_plain(row.c), format_number(row.score, 2),
           format_number(row.weight, 3), format_number(row.cosine_weight, 3)});
  }
  t.print(out);
  app::print_claim(out, claim_key_length(r.example, r.key_rows));
}

}  // namespace

void print_cosine_comparison(std::ostream& out, const CosineComparison& r) {
  const LengthExample& ex = r.example;
  app::print_heading(out, "7. Why not use cosine similarity instead? Lengths steer dot products, not cosines");
  out << "  q = " << format_vector(ex.q, 0) << ";   " << key_list(ex.K) << '\n'
      << "  scores q . k / sqrt(" << ex.q.n_elem << ") = " << format_vector(r.scores, 2)
      << ";   cosine scores cosSim(q, k) = " << format_vector(r.cosines, 2) << '\n'
      << "  Both rows go through one softmax over the keys (a cosine needs no divisor: it lies in [-1, 1]).\n";
  print_query_rows(out, r);
  print_key_rows(out, r);
  out << "\n  Cosine attention is a possible design, but it drops what lengths can say. Scaled dot-product\n"
         "  attention keeps them; its fixed divisor sqrt(d_k) only sets the expected size of the scores as\n"
         "  the head widens. Softmax then normalizes each row of weights, not the vectors: neither step\n"
         "  needs unit-length queries or keys.\n";
}

}  // namespace ch04
