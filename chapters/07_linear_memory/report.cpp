/// \file report.cpp
/// \brief Chapter 07's printed sections (see report.hpp).
#include "report.hpp"

#include <string>

#include <fmt/ostream.h>

#include "common/apparatus/print.hpp"
#include "common/attention/toy.hpp"

namespace ch07 {
namespace {

constexpr int kPrecision = 2;

using app::format_number;
using app::format_vector;

/// "row 0", "row 1", ...: labels for a matrix's rows.
std::vector<std::string> numbered(const std::string& prefix, arma::uword n) {
  std::vector<std::string> labels;
  for (arma::uword i = 0; i < n; ++i) labels.push_back(fmt::format("{}{}", prefix, i));
  return labels;
}

}  // namespace

void print_matching(std::ostream& out, const RandomHead& h, const BilinearSection& b, unsigned seed) {
  app::print_heading(
      out, fmt::format("1. The score is a learned bilinear form (random head, seed {}, d = {}, d_k = {})", seed,
                       h.X.n_cols, h.Wq.n_cols));
  fmt::print(out, "  M = Wq Wk^T ({}):\n", attn::shape(b.M));
  app::print_matrix(out, numbered("row ", b.M.n_rows), b.M, kPrecision);
  fmt::print(out, "  X M X^T equals (X Wq)(X Wk)^T: largest difference {}\n", scientific(b.largest_difference));
  fmt::print(out, "  rank(M) = {} <= d_k = {}; largest |M - M^T| = {} (not symmetric)\n", b.rank, h.Wq.n_cols,
             format_number(b.asymmetry, kPrecision));
  app::print_claim(out, claim_bilinear_form(b, h.Wq.n_cols));
  out << "  A bilinear compatibility, not a distance: it need not be symmetric or zero on the diagonal.\n";
}

void print_not_unique(std::ostream& out, const RandomHead& h, const FactorSection& f) {
  app::print_heading(out, "2. The factorization is not unique: Wq R and Wk R^-T");
  fmt::print(out, "  R ({}), det {}:\n", attn::shape(h.R), format_number(f.det_R, 3));
  app::print_matrix(out, {"", ""}, h.R, 3);
  app::print_claim(out, claim_factors_not_unique(f));
  out << "  (Wq R)(Wk R^-T)^T = Wq R R^-1 Wk^T = M: only M is pinned down, not its factors.\n";
}

void print_kernel(std::ostream& out, const KernelSection& k) {
  app::print_heading(out, "3. Softmax attention is normalized exp-kernel smoothing of the values");
  fmt::print(out, "  H = softmax(Q K^T / sqrt({})) V ({}):\n", k.pass.K.n_cols, attn::shape(k.pass.H));
  app::print_matrix(out, numbered("token ", k.pass.H.n_rows), k.pass.H, 4);
  app::print_claim(out, claim_kernel_smoothing(k));
}

void print_memory(std::ostream& out, const MemorySection& m) {
  app::print_heading(out, "4. Remove softmax: causal linear attention is a running memory");
  const auto& words = m.words;
  const arma::uword d = m.masked.n_cols;
  fmt::print(out, "  \"{}\", Q = K = V = X (identity projections, d_k = d_v = {})\n", attn::join_words(words), d);
  out << "  tril(Q K^T) V, the masked product:\n";
  app::print_matrix(out, words, m.masked, kPrecision);
  out << "  y_i = S_i q_i with S_i = S_(i-1) + v_i k_i^T, token by token:\n";
  app::print_matrix(out, words, m.recurrent, kPrecision);
  app::print_claim(out, claim_running_memory(m));

  out << "\n  What each method holds while generating (doubles):\n";
  app::Table t({"step", "token", "S (d_v x d_k)", "numbers in S", "key/value cache", "numbers in cache"});
  for (std::size_t i = 0; i < words.size(); ++i) {
    const arma::mat& S = m.memories[i];
    t.add({std::to_string(i + 1), words[i], attn::shape(S), std::to_string(S.n_elem),
           fmt::format("{} x ({} + {})", i + 1, d, d), std::to_string(m.cache_numbers[i])});
  }
  t.print(out);
  app::print_claim(out, claim_memory_fixed_size(m));
  app::print_claim(out, claim_memory_at_scale());

  const arma::uword last = m.recurrent.n_rows - 1;
  fmt::print(out,
             "\n  Removing softmax changes the operation: the causal softmax head's {} row is\n  {} (a weighted "
             "average), the linear row is {}\n",
             words[last], format_vector(arma::rowvec(m.softmax.H.row(last)), kPrecision),
             format_vector(arma::rowvec(m.recurrent.row(last)), kPrecision));
  out << "  (unnormalized sum). Softmax needs every past key at every step; only the linear form folds\n"
         "  them into S.\n";
}

void print_cost(std::ostream& out, const CostSection& c) {
  app::print_heading(
      out, fmt::format("5. The cost, measured: one generation step at each position (d_k = d_v = {})", c.width));
  app::Table t(
      {"position", "softmax+cache us", "linear memory us", "time ratio", "cache bytes", "S bytes", "bytes ratio"});
  for (std::size_t r = 0; r < c.rows.size(); ++r) {
    const CostRow& row = c.rows[r];
    t.add({std::to_string(row.position), format_number(row.softmax_seconds * 1e6, 3),
           format_number(row.linear_seconds * 1e6, 3), format_number(c.time_ratios[r], 2),
           std::to_string(row.softmax_bytes), std::to_string(row.linear_bytes), format_number(c.byte_ratios[r], 2)});
  }
  t.print(out);
  const auto ratio = [](double r) { return format_number(r, r < 10.0 ? 2 : 0); };
  fmt::print(out,
             "  at position {}: softmax with a cache takes {}x the linear memory's time per token\n  and holds {}x "
             "its bytes\n  (times are wall clock on this machine and vary from run to run; the bytes do not)\n",
             c.rows.back().position, ratio(c.time_ratios.back()), ratio(c.byte_ratios.back()));
}

}  // namespace ch07
