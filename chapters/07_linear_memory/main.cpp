/// \file chapters/07_linear_memory/main.cpp
/// \brief Chapter 07 program: learned matching as a bilinear form, attention as kernel smoothing,
/// and causal linear attention as a fixed-size memory, with its generation cost measured (--bench).
///
/// Follows the article's "Learned matching, kernel smoothing, and memory". Run
/// `ch07_linear_memory --help`.
#include <armadillo>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include "common/apparatus/attn.hpp"
#include "common/apparatus/cli.hpp"
#include "linear_memory.hpp"

namespace po = boost::program_options;
using attn::format_number;
using attn::format_vector;

namespace {

constexpr int kPrecision = 2;
constexpr std::size_t kBenchDk = 64;  // the width for the cost measurement (d_v = d_k)

using ch07::scientific;

std::vector<std::string> numbered(const std::string& prefix, arma::uword n) {
  std::vector<std::string> labels;
  for (arma::uword i = 0; i < n; ++i) labels.push_back(prefix + std::to_string(i));
  return labels;
}

void print_matching(const ch07::RandomHead& h, const ch07::BilinearSection& b, unsigned seed) {
  attn::print_heading(std::cout, "1. The score is a learned bilinear form (random head, seed " + std::to_string(seed) +
                                     ", d = " + std::to_string(h.X.n_cols) + ", d_k = " + std::to_string(h.Wq.n_cols) +
                                     ")");
  std::cout << "  M = Wq Wk^T (" << attn::shape(b.M) << "):\n";
  attn::print_matrix(std::cout, numbered("row ", b.M.n_rows), b.M, kPrecision);
  std::cout << "  X M X^T equals (X Wq)(X Wk)^T: largest difference " << scientific(b.largest_difference) << '\n'
            << "  rank(M) = " << b.rank << " <= d_k = " << h.Wq.n_cols
            << "; largest |M - M^T| = " << format_number(b.asymmetry, kPrecision) << " (not symmetric)\n";
  attn::print_claim(std::cout, ch07::claim_bilinear_form(b, h.Wq.n_cols));
  std::cout << "  A bilinear compatibility, not a distance: it need not be symmetric or zero on the diagonal.\n";
}

void print_not_unique(const ch07::RandomHead& h, const ch07::FactorSection& f) {
  attn::print_heading(std::cout, "2. The factorization is not unique: Wq R and Wk R^-T");
  std::cout << "  R (" << attn::shape(h.R) << "), det " << format_number(arma::det(h.R), 3) << ":\n";
  attn::print_matrix(std::cout, {"", ""}, h.R, 3);
  attn::print_claim(std::cout, ch07::claim_factors_not_unique(f));
  std::cout << "  (Wq R)(Wk R^-T)^T = Wq R R^-1 Wk^T = M: only M is pinned down, not its factors.\n";
}

void print_kernel(const ch07::KernelSection& k) {
  attn::print_heading(std::cout, "3. Softmax attention is normalized exp-kernel smoothing of the values");
  const std::string root = "sqrt(" + std::to_string(k.pass.K.n_cols) + ")";
  std::cout << "  H = softmax(Q K^T / " << root << ") V (" << attn::shape(k.pass.H) << "):\n";
  attn::print_matrix(std::cout, numbered("token ", k.pass.H.n_rows), k.pass.H, 4);
  attn::print_claim(std::cout, ch07::claim_kernel_smoothing(k));
}

void print_memory(const ch07::MemorySection& m) {
  attn::print_heading(std::cout, "4. Remove softmax: causal linear attention is a running memory");
  const auto& words = m.words;
  const arma::uword d = m.masked.n_cols;
  const std::string dims = std::to_string(d);
  std::cout << "  \"" << attn::join_words(words) << "\", Q = K = V = X (identity projections, d_k = d_v = " << dims
            << ")\n"
            << "  tril(Q K^T) V, the masked product:\n";
  attn::print_matrix(std::cout, words, m.masked, kPrecision);
  std::cout << "  y_i = S_i q_i with S_i = S_(i-1) + v_i k_i^T, token by token:\n";
  attn::print_matrix(std::cout, words, m.recurrent, kPrecision);
  attn::print_claim(std::cout, ch07::claim_running_memory(m));

  std::cout << "\n  What each method holds while generating (doubles):\n";
  attn::Table t({"step", "token", "S (d_v x d_k)", "numbers in S", "key/value cache", "numbers in cache"});
  for (std::size_t i = 0; i < words.size(); ++i) {
    const arma::mat& S = m.memories[i];
    t.add({std::to_string(i + 1), words[i], attn::shape(S), std::to_string(S.n_elem),
           std::to_string(i + 1) + " x (" + dims + " + " + dims + ")", std::to_string((i + 1) * 2 * d)});
  }
  t.print(std::cout);
  attn::print_claim(std::cout, ch07::claim_memory_fixed_size(m));
  attn::print_claim(std::cout, ch07::claim_memory_at_scale());

  const arma::uword last = m.recurrent.n_rows - 1;
  std::cout << "\n  Removing softmax changes the operation: the causal softmax head's " << words[last] << " row is\n  "
            << format_vector(arma::rowvec(m.softmax.H.row(last)), kPrecision)
            << " (a weighted average), the linear row is "
            << format_vector(arma::rowvec(m.recurrent.row(last)), kPrecision)
            << "\n  (unnormalized sum). Softmax needs every past key at every step; only the linear form folds\n"
               "  them into S.\n";
}

void bench(std::size_t max_position, attn::Plotter& plots) {
  attn::print_heading(std::cout, "5. The cost, measured: one generation step at each position (d_k = d_v = 64)");
  const std::vector<ch07::CostRow> rows = ch07::benchmark_generation(kBenchDk, kBenchDk, max_position, 0.002);
  attn::Table t(
      {"position", "softmax+cache us", "linear memory us", "time ratio", "cache bytes", "S bytes", "bytes ratio"});
  arma::vec x(rows.size());
  arma::mat time(rows.size(), 2), bytes(rows.size(), 2);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const ch07::CostRow& c = rows[r];
    t.add({std::to_string(c.position), format_number(c.softmax_seconds * 1e6, 3),
           format_number(c.linear_seconds * 1e6, 3), format_number(c.softmax_seconds / c.linear_seconds, 2),
           std::to_string(c.softmax_bytes), std::to_string(c.linear_bytes),
           format_number(static_cast<double>(c.softmax_bytes) / static_cast<double>(c.linear_bytes), 2)});
    x(r) = static_cast<double>(c.position);
    time.row(r) = arma::rowvec{c.softmax_seconds * 1e6, c.linear_seconds * 1e6};
    bytes.row(r) = arma::rowvec{static_cast<double>(c.softmax_bytes), static_cast<double>(c.linear_bytes)};
  }
  t.print(std::cout);
  const ch07::CostRow& last = rows.back();
  const auto ratio = [](double r) { return format_number(r, r < 10.0 ? 2 : 0); };
  std::cout << "  at position " << last.position << ": softmax with a cache takes "
            << ratio(last.softmax_seconds / last.linear_seconds) << "x the linear memory's time per token\n  and holds "
            << ratio(static_cast<double>(last.softmax_bytes) / static_cast<double>(last.linear_bytes))
            << "x its bytes\n  (times are wall clock on this machine and vary from run to run; the bytes do not)\n";
  plots.lines(
      {.name = "ch07_cost_time",
       .title = "Time per generated token (d_k = d_v = 64)",
       .xlabel = "position (tokens so far, log scale)",
       .ylabel = "microseconds per token (log scale)",
       .x = x,
       .y = time,
       .series = {"softmax attention over a key/value cache", "linear attention memory S"},
       .logx = true,
       .logy = true,
       .points = true,
       .key = "top left Left reverse box opaque"});  // the softmax line climbs to the right; top left stays empty
  plots.lines({.name = "ch07_cost_memory",
               .title = "Bytes held while generating (d_k = d_v = 64, doubles)",
               .xlabel = "position (tokens so far, log scale)",
               .ylabel = "bytes (log scale)",
               .x = x,
               .y = bytes,
               .series = {"key/value cache", "linear attention memory S"},
               .logx = true,
               .logy = true,
               .points = true});
}

void draw_memory(attn::Plotter& plots, const ch07::MemorySection& m, const attn::EmbeddingTable& table) {
  std::vector<std::string> v_axes, k_axes;
  for (const auto& a : table.axes()) {
    v_axes.push_back("v " + a);
    k_axes.push_back("k " + a);
  }
  plots.heatmap({.name = "ch07_memory",
                 .title = "The memory S after " + std::to_string(m.words.size()) + " tokens (\"" +
                          attn::join_words(m.words) + "\"): S = sum of v_i k_i^T",
                 .xlabel = "key coordinate (read by q)",
                 .ylabel = "value coordinate (written out)",
                 .col_labels = k_axes,
                 .row_labels = v_axes,
                 .values = m.memories.back(),
                 .precision = 2});
}

const attn::cli::ProgramInfo kProgram{
    "ch07_linear_memory",
    "the score as a bilinear form, attention as kernel smoothing, linear attention as a fixed-size memory",
    "\"Learned matching, kernel smoothing, and memory\" (optional mathematics)",
    "  ch07_linear_memory\n  ch07_linear_memory --seed 3\n  ch07_linear_memory --bench\n"
    "  ch07_linear_memory --bench --bench-max 65536 --no-plots"};

/// What the reader asked for on the command line.
struct Flags {
  unsigned seed = 7;              ///< --seed of the random head
  bool bench = false;             ///< --bench
  std::size_t bench_max = 16384;  ///< --bench-max
  attn::PlotSettings plots;       ///< --plots, --no-plots
};

/// The flags, or nothing after --help.
std::optional<Flags> read_flags(int argc, char** argv) {
  po::options_description options("Options");
  attn::cli::add_common_options(options);
  // clang-format off
  options.add_options()
      ("seed", po::value<long long>()->value_name("N")->default_value(7),
       "seed of the random head in sections 1-3 (0 to 4294967295)")
      ("bench", "measure the per-token cost of both mechanisms up to --bench-max positions")
      ("bench-max", po::value<long long>()->value_name("POS")->default_value(16384),
       "longest position the benchmark measures (1 to 1048576)");
  // clang-format on
  po::variables_map vm;
  if (!attn::cli::parse(argc, argv, options, kProgram, vm)) return std::nullopt;
  Flags f;
  f.bench = vm.count("bench") > 0;
  if (!vm["bench-max"].defaulted() && !f.bench) throw attn::cli::UsageError("--bench-max only applies with --bench");
  f.bench_max = static_cast<std::size_t>(attn::cli::integer(vm, "bench-max", 1, 1LL << 20));
  f.seed = static_cast<unsigned>(attn::cli::seed(vm, "seed"));
  f.plots = attn::cli::plot_settings(vm);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  return attn::cli::run(kProgram.name, [&] {
    const std::optional<Flags> flags = read_flags(argc, argv);
    if (!flags) return 0;
    attn::Plotter plots(flags->plots);

    const ch07::RandomHead head = ch07::random_head(flags->seed);
    const ch07::BilinearSection matching = ch07::learned_matching(head);
    const ch07::FactorSection factors = ch07::not_unique(head);
    const ch07::KernelSection kernel = ch07::kernel_view(head);
    const ch07::MemorySection memory = ch07::running_memory(attn::toy_embeddings());

    std::cout << "Chapter 07 - Learned matching, kernel smoothing, and memory\n";
    print_matching(head, matching, flags->seed);
    print_not_unique(head, factors);
    print_kernel(kernel);
    print_memory(memory);
    if (flags->bench) {
      bench(flags->bench_max, plots);
    } else {
      std::cout << "\n  (run with --bench to measure the per-token cost up to position " << flags->bench_max << ")\n";
    }

    std::cout << '\n';
    draw_memory(plots, memory, attn::toy_embeddings());
    plots.report(std::cout);
    return 0;
  });
}
