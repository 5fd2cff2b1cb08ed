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
#include <sstream>

#include "common/attn.hpp"
#include "linear_memory.hpp"

namespace po = boost::program_options;
using attn::format_number;
using attn::format_vector;

namespace {

constexpr int kPrecision = 2;
constexpr std::size_t kBenchDk = 64;  // the width for the cost measurement (d_v = d_k)

std::string sci(double x) {
  std::ostringstream s;
  s << std::scientific << std::setprecision(1) << x;
  return s.str();
}

std::vector<std::string> numbered(const std::string& prefix, arma::uword n) {
  std::vector<std::string> labels;
  for (arma::uword i = 0; i < n; ++i) labels.push_back(prefix + std::to_string(i));
  return labels;
}

/// A random head with d = 6, d_k = 2 (the article's setting for mem_01), from a fixed seed.
struct RandomHead {
  arma::mat X, Wq, Wk, Wv;
};

RandomHead random_head(unsigned seed) {
  arma::arma_rng::set_seed(seed);
  RandomHead h;
  h.X = arma::randn(4, 6);   // 4 tokens, d = 6
  h.Wq = arma::randn(6, 2);  // d_k = 2
  h.Wk = arma::randn(6, 2);
  h.Wv = arma::randn(6, 3);  // d_v = 3
  return h;
}

void learned_matching(const RandomHead& h, unsigned seed) {
  attn::print_heading(std::cout, "1. The score is a learned bilinear form (random head, seed " + std::to_string(seed) +
                                     ", d = 6, d_k = 2)");
  const arma::mat M = ch07::bilinear_matrix(h.Wq, h.Wk);
  std::cout << "  M = Wq Wk^T (6 x 6):\n";
  attn::print_matrix(std::cout, numbered("row ", 6), M, kPrecision);
  const arma::mat S = ch07::bilinear_scores(h.X, M);
  const arma::mat QK = (h.X * h.Wq) * (h.X * h.Wk).t();
  std::cout << "  X M X^T equals (X Wq)(X Wk)^T: largest difference " << sci(arma::abs(S - QK).max()) << '\n'
            << "  rank(M) = " << arma::rank(M) << " <= d_k = 2; largest |M - M^T| = "
            << format_number(arma::abs(M - M.t()).max(), kPrecision) << " (not symmetric)\n"
            << "  s_01 = " << format_number(S(0, 1), 4) << " but s_10 = " << format_number(S(1, 0), 4)
            << ": how token 0 matches token 1 is not how 1 matches 0   [mem_01]\n"
            << "  A bilinear compatibility, not a distance: it need not be symmetric or zero on the diagonal.\n";
}

void not_unique(const RandomHead& h) {
  attn::print_heading(std::cout, "2. The factorization is not unique: Wq R and Wk R^-T");
  arma::mat R;
  do R = arma::randn(2, 2); while (std::abs(arma::det(R)) < 0.1);  // comfortably invertible
  std::cout << "  R (2 x 2), det " << format_number(arma::det(R), 3) << ":\n";
  attn::print_matrix(std::cout, {"", ""}, R, 3);
  const arma::mat Wq2 = h.Wq * R, Wk2 = h.Wk * arma::inv(R).t();
  const arma::mat before = (h.X * h.Wq) * (h.X * h.Wk).t(), after = (h.X * Wq2) * (h.X * Wk2).t();
  std::cout << "  Wq changed by up to " << format_number(arma::abs(Wq2 - h.Wq).max(), kPrecision)
            << ", yet the scores differ by at most " << sci(arma::abs(after - before).max()) << "   [mem_02]\n"
            << "  (Wq R)(Wk R^-T)^T = Wq R R^-1 Wk^T = M: only M is pinned down, not its factors.\n";
}

void kernel_view(const RandomHead& h) {
  attn::print_heading(std::cout, "3. Softmax attention is normalized exp-kernel smoothing of the values");
  const attn::HeadPass pass = attn::attention(h.X, h.Wq, h.Wk, h.Wv);
  const arma::mat smooth = ch07::kernel_smoothing(pass.Q, pass.K, pass.V);
  std::cout << "  H = softmax(Q K^T / sqrt(2)) V (4 x 3):\n";
  attn::print_matrix(std::cout, numbered("token ", 4), pass.H, 4);
  std::cout << "  sum_j exp(q_i.k_j / sqrt(2)) v_j / sum_j exp(q_i.k_j / sqrt(2)):\n  largest difference "
            << sci(arma::abs(smooth - pass.H).max()) << "   [mem_03]\n";
}

void running_memory(const attn::EmbeddingTable& table) {
  attn::print_heading(std::cout, "4. Remove softmax: causal linear attention is a running memory");
  const auto words = attn::split_sentence("the river money bank");
  const arma::mat X = table.lookup(words);  // identity projections: q = k = v = x, d_k = d_v = 4
  std::vector<arma::mat> memories;
  const arma::mat masked = ch07::causal_linear_attention_masked(X, X, X);
  const arma::mat recurrent = ch07::causal_linear_attention_recurrent(X, X, X, &memories);
  std::cout << "  \"the river money bank\", Q = K = V = X (identity projections, d_k = d_v = 4)\n"
            << "  tril(Q K^T) V, the masked product:\n";
  attn::print_matrix(std::cout, words, masked, kPrecision);
  std::cout << "  y_i = S_i q_i with S_i = S_(i-1) + v_i k_i^T, token by token:\n";
  attn::print_matrix(std::cout, words, recurrent, kPrecision);
  std::cout << "  largest difference: " << sci(arma::abs(masked - recurrent).max()) << "   [mem_04]\n";

  std::cout << "\n  What each method holds while generating (doubles):\n";
  attn::Table t({"step", "token", "S (d_v x d_k)", "numbers in S", "key/value cache", "numbers in cache"});
  for (std::size_t i = 0; i < words.size(); ++i) {
    t.add({std::to_string(i + 1), words[i], std::to_string(memories[i].n_rows) + " x " + std::to_string(memories[i].n_cols),
           std::to_string(memories[i].n_elem), std::to_string(i + 1) + " x (4 + 4)", std::to_string((i + 1) * 8)});
  }
  t.print(std::cout);
  std::cout << "  S stays 4 x 4 while the cache grows by one key and one value per token   [mem_05]\n"
            << "  At d_k = d_v = 64 and position 16384: S holds " << ch07::linear_memory_bytes(64, 64)
            << " bytes, the cache " << ch07::kv_cache_bytes(16384, 64, 64) << " bytes   [mem_05]\n";

  const attn::HeadPass soft = attn::attention(X, arma::eye(4, 4), arma::eye(4, 4), arma::eye(4, 4), {.causal = true});
  std::cout << "\n  Removing softmax changes the operation: the causal softmax head's bank row is\n  "
            << format_vector(arma::rowvec(soft.H.row(3)), kPrecision) << " (a weighted average), the linear row is "
            << format_vector(arma::rowvec(recurrent.row(3)), kPrecision)
            << "\n  (unnormalized sum). Softmax needs every past key at every step; only the linear form folds\n"
               "  them into S.\n";
}

void bench(std::size_t max_position, attn::Plotter& plots) {
  attn::print_heading(std::cout, "5. The cost, measured: one generation step at each position (d_k = d_v = 64)");
  const std::vector<ch07::CostRow> rows = ch07::benchmark_generation(kBenchDk, kBenchDk, max_position, 0.002);
  attn::Table t({"position", "softmax+cache us", "linear memory us", "time ratio", "cache bytes", "S bytes", "bytes ratio"});
  arma::vec x(rows.size());
  arma::mat time(rows.size(), 2), bytes(rows.size(), 2);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const ch07::CostRow& c = rows[r];
    t.add({std::to_string(c.position), format_number(c.softmax_seconds * 1e6, 3), format_number(c.linear_seconds * 1e6, 3),
           format_number(c.softmax_seconds / c.linear_seconds, 2), std::to_string(c.softmax_bytes),
           std::to_string(c.linear_bytes),
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
  plots.lines({.name = "ch07_cost_time",
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

void draw_memory(attn::Plotter& plots, const attn::EmbeddingTable& table) {
  const arma::mat X = table.lookup(attn::split_sentence("the river money bank"));
  std::vector<arma::mat> memories;
  ch07::causal_linear_attention_recurrent(X, X, X, &memories);
  std::vector<std::string> v_axes, k_axes;
  for (const auto& a : table.axes()) {
    v_axes.push_back("v " + a);
    k_axes.push_back("k " + a);
  }
  plots.heatmap({.name = "ch07_memory",
                 .title = "The memory S after 4 tokens (\"the river money bank\"): S = sum of v_i k_i^T",
                 .xlabel = "key coordinate (read by q)",
                 .ylabel = "value coordinate (written out)",
                 .col_labels = k_axes,
                 .row_labels = v_axes,
                 .values = memories.back(),
                 .precision = 2});
}

}  // namespace

int main(int argc, char** argv) {
  return attn::cli::run("ch07_linear_memory", [&] {
    po::options_description options("Options");
    attn::cli::add_common_options(options);
    options.add_options()
        ("seed", po::value<long long>()->value_name("N")->default_value(7), "seed of the random head in sections 1-3")
        ("bench", "measure the per-token cost of both mechanisms up to --bench-max positions")
        ("bench-max", po::value<long long>()->value_name("POS")->default_value(16384),
         "longest position the benchmark measures (1 .. 1048576)");
    po::variables_map vm;
    const attn::cli::ProgramInfo info{
        "ch07_linear_memory",
        "the score as a bilinear form, attention as kernel smoothing, linear attention as a fixed-size memory",
        "\"Learned matching, kernel smoothing, and memory\" (optional mathematics)",
        "  ch07_linear_memory\n  ch07_linear_memory --seed 3\n  ch07_linear_memory --bench\n"
        "  ch07_linear_memory --bench --bench-max 65536 --no-plots"};
    if (!attn::cli::parse(argc, argv, options, info, vm)) return 0;
    // Read signed, so that "-5" is reported as -5 rather than wrapping around.
    const long long bench_max_arg = vm["bench-max"].as<long long>(), seed_arg = vm["seed"].as<long long>();
    if (!vm["bench-max"].defaulted() && !vm.count("bench")) {
      throw attn::cli::UsageError("--bench-max only applies with --bench");
    }
    if (bench_max_arg < 1 || bench_max_arg > (1LL << 20)) {
      throw attn::cli::UsageError("--bench-max must be between 1 and 1048576, got " + std::to_string(bench_max_arg));
    }
    if (seed_arg < 0 || seed_arg > 4294967295LL) {
      throw attn::cli::UsageError("--seed must be between 0 and 4294967295, got " + std::to_string(seed_arg));
    }
    const auto bench_max = static_cast<std::size_t>(bench_max_arg);
    const auto seed = static_cast<unsigned>(seed_arg);
    attn::Plotter plots(attn::cli::plot_settings(vm));

    std::cout << "Chapter 07 - Learned matching, kernel smoothing, and memory\n";
    const RandomHead h = random_head(seed);
    learned_matching(h, seed);
    not_unique(h);
    kernel_view(h);
    running_memory(attn::toy_embeddings());
    if (vm.count("bench")) {
      bench(bench_max, plots);
    } else {
      std::cout << "\n  (run with --bench to measure the per-token cost up to position " << bench_max << ")\n";
    }

    std::cout << '\n';
    draw_memory(plots, attn::toy_embeddings());
    plots.report(std::cout);
    return 0;
  });
}
