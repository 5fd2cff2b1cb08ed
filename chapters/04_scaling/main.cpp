/// \file chapters/04_scaling/main.cpp
/// \brief Chapter 04 program: dot products, cosine similarity, and why scores are divided by sqrt(d_k).
///
/// Follows the article's "Dot products, cosine similarity, and scaling" and its subsections, with
/// the "Rotate a. Watch its shadow." explorer as flags. Run `ch04_scaling --help` for the flags.
#include <armadillo>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>

#include "common/attn.hpp"
#include "common/cli.hpp"
#include "figures.hpp"
#include "scaling.hpp"

namespace po = boost::program_options;
using attn::format_number;
using attn::format_vector;

namespace {

constexpr arma::uword kMaxSamples = 200000;  // 512-wide pairs: about a second and a half of draws at most
constexpr double kMaxLength = 1000.0;        // keeps the explorer's picture readable
constexpr std::size_t kMaxScores = 10;

/// "a" and 3 -> "a3" (built by appending: GCC 12 misreports "literal" + std::string as an overflow).
std::string numbered(std::string prefix, arma::uword n) {
  prefix += std::to_string(n);
  return prefix;
}

/// Three significant digits, in scientific form once the value is small: 0.213, 3.55e-02, 1.13e-07.
std::string small(double x) {
  char text[32];
  std::snprintf(text, sizeof text, std::abs(x) >= 0.1 || x == 0.0 ? "%.4f" : "%.2e", x);
  return text;
}

std::string percents(const arma::rowvec& w) {
  std::string out = "[";
  for (arma::uword j = 0; j < w.n_elem; ++j) out += (j ? ", " : "") + format_number(100.0 * w(j), 1) + "%";
  return out + "]";
}

std::string side_words(ch04::Side side) {
  switch (side) {
    case ch04::Side::positive:
      return "positive: part of a points along b";
    case ch04::Side::negative:
      return "negative: part of a points against b";
    case ch04::Side::zero:
      break;
  }
  return "zero: a is perpendicular to b (or has no length)";
}

/// "4,2,0" or "4 2 0" -> 1 x m; throws UsageError for anything that is not 1..kMaxScores numbers
/// within +-kLargestInput, or for an empty entry between commas ("1,,2").
arma::rowvec parse_scores(const std::string& text) {
  std::vector<double> values;
  std::istringstream entries(text);
  for (std::string entry; std::getline(entries, entry, ',');) {
    std::istringstream in(entry);
    std::size_t words = 0;
    for (std::string word; in >> word; ++words) {
      const attn::cli::Parsed<double> x = attn::cli::parse_number(word);  // the one number rule
      if (!x.value) throw attn::cli::UsageError("--scores: entry " + attn::cli::quoted(word) + " " + x.problem);
      if (std::abs(*x.value) > attn::cli::kLargestInput) {
        throw attn::cli::UsageError("--scores entries must be between -1e+06 and 1e+06 (got " +
                                    attn::cli::quoted(word) + ")");
      }
      values.push_back(*x.value);
    }
    if (words == 0 && text.find(',') != std::string::npos) {
      throw attn::cli::UsageError("--scores has an empty entry between commas");
    }
  }
  if (values.empty() || values.size() > kMaxScores) {
    throw attn::cli::UsageError("--scores needs 1 to " + std::to_string(kMaxScores) + " numbers, got " +
                                std::to_string(values.size()));
  }
  return arma::rowvec(values);
}

/// Section 1: the dot product carries both lengths; cosine similarity keeps only the angle.
void dot_versus_cosine() {
  attn::print_heading(std::cout, "1. A dot product includes length; cosine similarity removes it");
  std::cout << "  q . k = |q| |k| cos(theta);   cosSim(q, k) = q . k / (|q| |k|) = cos(theta)\n";
  attn::Table t({"query q", "key k", "dot product", "cosine similarity", ""});
  const std::pair<arma::vec, arma::vec> pairs[] = {
      {{1, 0}, {1, 0}}, {{10, 0}, {10, 0}}, {{1, 0}, {0, 1}}, {{1, 0}, {-1, 0}}};
  for (const auto& [q, k] : pairs) {
    t.add({format_vector(q, 0), format_vector(k, 0), attn::format_plain(ch04::dot(q, k)),
           attn::format_plain(ch04::cosine_similarity(q, k)), "[scale_01]"});
  }
  t.print(std::cout);
  std::cout << "  Ten times longer in the same direction: the dot product grows 100-fold, the cosine stays 1.\n";
}

/// Section 2: the explorer, "Rotate a. Watch its shadow."
void explorer(const ch04::Shadow& s) {
  attn::print_heading(std::cout, "2. Rotate a. Watch its shadow. (a at " + format_number(s.angle_degrees, 2) +
                                     " degrees, length " + attn::format_plain(s.length) + "; b = (1, 0))");
  const bool article = s.angle_degrees == 20.0 && s.length == 10.0;
  const std::string tag = article ? "   [scale_02]" : "";
  std::cout << "  a = " << format_vector(s.a, 2) << ", |a| = " << attn::format_plain(s.length)
            << ";   b = " << format_vector(s.b, 0) << ", |b| = 1\n"
            << "  signed projection  |a| cos(theta)      = " << format_number(s.projection, 2) << tag << '\n'
            << "  dot product        projection x |b|    = " << format_number(s.dot, 2) << tag << '\n'
            << "  projection vector  (on b's line)       = " << format_vector(s.shadow, 2) << '\n'
            << "  cosine similarity  cos(theta)          = "
            << (s.cosine ? format_number(*s.cosine, 2) : std::string("undefined (a is the zero vector)")) << '\n'
            << "  The projection is " << side_words(s.side) << ".\n"
            << "  b is a unit vector, so the dot product equals the signed projection. Same angle, other lengths:\n";
  attn::Table t({"|a|", "dot product", "cosine"});
  for (double length : {1.0, 5.0, 10.0}) {
    const ch04::Shadow other = ch04::shadow_of(s.angle_degrees, length);
    t.add({attn::format_plain(length), format_number(other.dot, 2), format_number(*other.cosine, 2)});
  }
  t.print(std::cout);
  std::cout << "  Length multiplies the angle's signed contribution: positive dots grow, negative dots fall,\n"
               "  perpendicular vectors stay at 0. A longer key does not automatically score higher.\n";
}

/// Section 3: one fixed divisor per head.
void fixed_divisor() {
  attn::print_heading(std::cout, "3. Scaling keeps the lengths: a head with d_k = 64 divides every dot product by 8");
  attn::Table t({"dot product", "scaled dot product", ""});
  for (double d : {1.0, 8.0, 40.0, 100.0})
    t.add({attn::format_plain(d), attn::format_plain(ch04::scaled_dot(d, 64)), "[scale_03]"});
  t.print(std::cout);
  std::cout << "  Make one vector ten times longer: 40 becomes 400 and its scaled score 5 becomes "
            << attn::format_plain(ch04::scaled_dot(10 * 40.0, 64))
            << ".\n"
               "  One positive divisor keeps the order of the scores; it does not bound them to [-1, 1].\n";
}

/// Section 4: the variance argument, measured by Monte Carlo.
void variance_argument(const std::vector<ch04::VarianceEstimate>& estimates, arma::uword samples, std::uint64_t seed) {
  attn::print_heading(std::cout, "4. Why divide by sqrt(d_k)? The spread of q . k, measured");
  std::cout << "  q, k: d_k independent components, mean 0, variance 1. Then Var(q_r k_r) = 1 and\n"
               "  Var(q . k) = d_k, SD = sqrt(d_k); Var(q . k / sqrt(d_k)) = d_k / d_k = 1.\n"
            << "  Monte Carlo: " << samples << " pairs per width, std::mt19937_64 seed " << seed
            << " (+ index); +- is one standard error.\n";
  attn::Table t({"d_k", "mean of q.k", "Var(q.k)", "expected", "Var(q.k / sqrt(d_k))", "expected", "within 3 SE"});
  for (const auto& e : estimates) {
    const bool ok = ch04::within_three_standard_errors(e);
    t.add({std::to_string(e.d_k), format_number(e.mean, 2),
           format_number(e.var_raw, 2) + " +- " + format_number(e.se_raw, 2), std::to_string(e.d_k),
           format_number(e.var_scaled, 3) + " +- " + format_number(e.se_scaled, 3), "1", ok ? "yes" : "NO"});
  }
  t.print(std::cout);
  std::cout << "  The mean stays near 0; the spread grows like sqrt(d_k). At d_k = 64 the SD is 8, and dividing\n"
               "  by 8 brings it back to 1.   [scale_04]\n"
               "  (Vaswani et al. 2017, §3.2.1. Learned queries and keys need not stay independent or\n"
               "  unit-variance.)\n";
}

/// Section 5: softmax responds to score differences.
void softmax_sharpness() {
  attn::print_heading(std::cout, "5. Scaling changes how sharply softmax chooses (d_k = 4: divide by 2)");
  const arma::rowvec raw{4, 2, 0}, scaled = raw / 2.0;
  const arma::rowvec a_raw = ch04::softmax(raw), a_scaled = ch04::softmax(scaled);
  std::cout << "  raw    [4, 2, 0] -> " << percents(a_raw) << "   [scale_05]\n"
            << "  scaled [2, 1, 0] -> " << percents(a_scaled) << "   [scale_05]\n"
            << "  Key 1 still wins, with a smaller share.\n\n"
            << "  Two keys: a1 / a2 = exp(s1 - s2)\n"
            << "    raw:    a1 / a2 = " << format_number(a_raw(0) / a_raw(1), 6)
            << ",  exp(2) = " << format_number(std::exp(2.0), 6) << "   [scale_06]\n"
            << "    scaled: a1 / a2 = " << format_number(a_scaled(0) / a_scaled(1), 6)
            << ",  exp(1) = " << format_number(std::exp(1.0), 6) << "   [scale_06]\n";
  double worst = 0.0;
  for (double shift : {-50.0, 3.0, 1000.0})
    worst = std::max(worst, arma::abs(ch04::softmax(raw + shift) - a_raw).max());
  std::cout << "  Adding -50, 3 or 1000 to every score: the largest change in any weight is "
            << (worst < 1e-12 ? std::string("below 1e-12") : format_number(worst, 15)) << "   [scale_06]\n";
}

/// Section 6: near one-hot, the derivatives of softmax with respect to its scores shrink.
void learning_signal(const arma::rowvec& scores, bool article) {
  attn::print_heading(std::cout, "6. Near one-hot, softmax passes back little signal");
  std::cout << "  J = d a / d s = diag(a) - a^T a  (row i: how a_i moves with each score)\n";
  std::vector<std::string> keys;
  for (arma::uword j = 0; j < scores.n_elem; ++j) keys.push_back(numbered("a", j + 1));
  for (double c : {0.5, 1.0}) {
    const arma::rowvec s = c * scores, a = ch04::softmax(s);
    const arma::mat J = ch04::softmax_jacobian(a);
    std::cout << "  at scores " << format_vector(s, 2) << ", a = " << format_vector(a, 3)
              << ", |J| = " << format_number(arma::norm(J, "fro"), 4) << ":\n";
    attn::print_matrix(std::cout, keys, J, 4);
  }

  std::cout << "\n  Multiply the scores " << format_vector(scores, 2) << " by c:\n";
  const arma::vec cs{0.25, 0.5, 1, 2, 4, 8, 16};
  const arma::mat W = ch04::sharpness_sweep(scores, cs);
  const arma::vec norms = ch04::jacobian_norm_sweep(scores, cs);
  std::vector<std::string> header{"c"};
  for (const auto& k : keys) header.push_back(k);
  header.push_back("largest weight");
  header.push_back("|J| (Frobenius)");
  attn::Table t(header);
  for (arma::uword r = 0; r < cs.n_elem; ++r) {
    std::vector<std::string> row{attn::format_plain(cs(r))};
    for (arma::uword j = 0; j < scores.n_elem; ++j) row.push_back(format_number(W(r, j), 4));
    row.push_back(format_number(W.row(r).max(), 4));
    row.push_back(small(norms(r)));
    t.add(row);
  }
  t.print(std::cout);
  if (scores.max() == scores.min()) {
    std::cout << "  Equal scores stay equal for every c: the weights stay uniform and |J| stays " << small(norms(0))
              << ".\n";
  } else if (arma::accu(scores == scores.max()) > 1) {
    std::cout << "  The top scores are tied, so the weights never near one-hot: |J| goes from " << small(norms(0))
              << " to " << small(norms.back()) << ".\n";
  } else {
    const bool falls = arma::all(arma::diff(norms) < 0.0);
    std::cout << "  As c grows the weights near one-hot and |J| " << (falls ? "falls" : "does not fall at every step")
              << ": from " << small(norms(0)) << " to " << small(norms.back()) << "."
              << (article ? "   [scale_07]" : "") << "\n";
  }
  std::cout << "  Small derivatives weaken the learning signal through the weights; the sqrt(d_k) divisor keeps\n"
               "  wide heads from starting there. It does not stop training from learning sharp attention.\n";
}

const attn::cli::ProgramInfo kProgram{
    "ch04_scaling", "dot products, cosine similarity, and why attention divides scores by sqrt(d_k)",
    "\"Dot products, cosine similarity, and scaling\" and its subsections",
    "  ch04_scaling\n  ch04_scaling --angle 120 --length 5\n  ch04_scaling --angle=-90\n"
    "  ch04_scaling --scores \"3,1,1,0\"\n  ch04_scaling --samples 50000 --seed 7 --no-plots"};

/// What the reader asked for on the command line.
struct Flags {
  double angle = 20.0;           ///< --angle, degrees
  double length = 10.0;          ///< --length
  arma::rowvec scores{4, 2, 0};  ///< --scores (default the article's 4, 2, 0)
  bool own_scores = false;       ///< --scores was given
  arma::uword samples = 10000;   ///< --samples
  std::uint64_t seed = 4;        ///< --seed
  attn::PlotSettings plots;      ///< --plots, --no-plots
};

po::options_description options() {
  po::options_description options("Options");
  attn::cli::add_common_options(options);
  // clang-format off
  options.add_options()
      ("angle", po::value<double>()->value_name("DEG")->default_value(20.0),
       "explorer: the angle of a from b, in degrees (-360 to 360)")
      ("length", po::value<double>()->value_name("L")->default_value(10.0),
       "explorer: the length of a (0 to 1000)")
      ("scores", po::value<std::string>()->value_name("LIST"),
       "softmax sections: your own scores instead of 4,2,0 (1 to 10 numbers, e.g. \"3,1,1,0\")")
      ("samples", po::value<long long>()->value_name("N")->default_value(10000),
       "Monte Carlo: (q, k) pairs per width (100 to 200000)")
      ("seed", po::value<long long>()->value_name("S")->default_value(4),
       "Monte Carlo: seed of std::mt19937_64 (>= 0)");
  // clang-format on
  return options;
}

/// The flags, or nothing after --help.
std::optional<Flags> read_flags(int argc, char** argv) {
  po::variables_map vm;
  if (!attn::cli::parse(argc, argv, options(), kProgram, vm)) return std::nullopt;
  Flags f;
  f.angle = attn::cli::real(vm, "angle", -360.0, 360.0);
  f.length = attn::cli::real(vm, "length", 0.0, kMaxLength);
  f.samples = static_cast<arma::uword>(attn::cli::integer(vm, "samples", 100, static_cast<long long>(kMaxSamples)));
  f.seed = attn::cli::seed(vm, "seed", std::numeric_limits<long long>::max());
  f.own_scores = vm.count("scores") > 0;
  if (f.own_scores) f.scores = parse_scores(vm["scores"].as<std::string>());
  f.plots = attn::cli::plot_settings(vm);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  return attn::cli::run(kProgram.name, [&] {
    const std::optional<Flags> flags = read_flags(argc, argv);
    if (!flags) return 0;
    const ch04::Shadow shadow = ch04::shadow_of(flags->angle, flags->length);
    attn::Plotter plots(flags->plots);
    const std::vector<ch04::VarianceEstimate> estimates =
        ch04::variance_sweep(ch04::variance_widths(), flags->samples, flags->seed);

    std::cout << "Chapter 04 - Scaling: dot products, cosine similarity, and why divide by sqrt(d_k)\n";
    dot_versus_cosine();
    explorer(shadow);
    fixed_divisor();
    variance_argument(estimates, flags->samples, flags->seed);
    softmax_sharpness();
    learning_signal(flags->scores, !flags->own_scores);

    std::cout << '\n';
    ch04::draw_variance(plots, estimates);
    ch04::draw_softmax_sweeps(plots, flags->scores);
    ch04::draw_dot_vs_angle(plots, shadow);
    ch04::draw_shadow(plots, shadow);
    plots.report(std::cout);
    return 0;
  });
}
