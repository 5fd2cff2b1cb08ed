/// \file chapters/09_real_heads/lab.cpp
/// \brief Training, saving and loading a run (see lab.hpp).
#include "lab.hpp"

#include <fmt/format.h>

#include "common/apparatus/files.hpp"
#include "common/apparatus/numbers.hpp"
#include "common/apparatus/print.hpp"
#include "common/attention/checks.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>

namespace ch09 {

namespace fs = std::filesystem;

TrainOptions quick_options(TrainOptions o) {
  o.steps = 300;
  o.batch = 16;
  o.eval_every = 50;
  return o;
}

void validate(const TrainOptions& o) {
  attn::validate(o.shape);
  validate(o.windows);
  validate(o.long_windows);
  if (o.shape.context != o.windows.context || o.shape.context != o.long_windows.context)
    throw std::invalid_argument("the model and the windows disagree on the context");
  const auto in_range = [](arma::uword v, arma::uword most, const char* what) {
    if (v == 0 || v > most) {
      throw std::invalid_argument(std::string(what) + " must be in [1, " + std::to_string(most) + "], got " +
                                  std::to_string(v));
    }
  };
  in_range(o.steps, 1000000, "the number of steps");
  in_range(o.batch, 4096, "the batch size");
  in_range(o.eval_every, 1000000, "the evaluation interval");
  if (!(std::isfinite(o.lr) && o.lr > 0 && o.lr <= 1))
    throw std::invalid_argument("the learning rate must be in (0, 1]");
}

#ifndef CH09_RECIPE
#define CH09_RECIPE "unknown"
#endif

std::string training_recipe() { return CH09_RECIPE; }

std::string run_mismatch(const Run& run, const TrainOptions& o) {
  const TrainOptions& r = run.options;
  std::vector<std::string> differ;
  const auto differs = [&](bool same, const std::string& what, const std::string& saved, const std::string& wanted) {
    if (!same) differ.push_back(what + " " + saved + ", not " + wanted);
  };
  const auto number = [](double v) { return app::format_plain(v); };
  differs(run.recipe == training_recipe(), "recipe", run.recipe, training_recipe());
  differs(r.steps == o.steps, "steps", std::to_string(r.steps), std::to_string(o.steps));
  differs(r.batch == o.batch, "batch", std::to_string(r.batch), std::to_string(o.batch));
  differs(r.lr == o.lr, "lr", number(r.lr), number(o.lr));
  differs(r.seed == o.seed, "seed", std::to_string(r.seed), std::to_string(o.seed));
  differs(r.windows.repeat_share == o.windows.repeat_share, "repeat share", number(r.windows.repeat_share),
          number(o.windows.repeat_share));
  differs(r.eval_every == o.eval_every, "evaluation interval", std::to_string(r.eval_every),
          std::to_string(o.eval_every));
  return fmt::format("{}", fmt::join(differ, ", "));
}

Divergence::Divergence(arma::uword at, double value)
    : std::runtime_error("training diverged at step " + std::to_string(at) + " (batch loss " +
                         (std::isfinite(value) ? std::to_string(value) : std::string("not finite")) + ")"),
      step(at),
      loss(value) {}

arma::umat held_out_windows(const arma::urowvec& held, arma::uword count, arma::uword context) {
  if (held.n_elem <= context || count == 0) throw std::invalid_argument("held_out_windows: too little held-out text");
  arma::umat out(count, context);
  const arma::uword span = held.n_elem - context;
  for (arma::uword b = 0; b < count; ++b) {
    const arma::uword at = span * b / count;
    out.row(b) = held.cols(at, at + context - 1);
  }
  return out;
}

namespace {

double held_out_loss(const Model& model, const arma::umat& windows) {
  Pass pass;
  attn::fast::forward(model, windows, pass);
  return attn::fast::next_token_loss(pass, windows, static_cast<arma::fmat*>(nullptr));
}

}  // namespace

// [train]
Run train(const Corpus& corpus, const Vocabulary& vocab, TrainOptions o,
          const std::function<void(const Progress&)>& progress) {
  o.shape.vocab = vocab.size();
  validate(o);
  attn::Random rng(o.seed);
  Run run{o, training_recipe(), vocab.characters(), corpus.checksum, attn::init_model<Real>(o.shape, rng), {}, 0.0};
  const arma::urowvec text = vocab.encode(corpus.train_text);
  const arma::umat held = held_out_windows(vocab.encode(corpus.held_text), 32, o.shape.context);
  const double limit = 2.0 * std::log(static_cast<double>(o.shape.vocab));
  attn::AttnOnlyTrainer<Real> trainer(o.lr);
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto last_report = start;
  double recent = 0.0;
  arma::uword in_recent = 0;
  const double held_at_start = held_out_loss(run.model, held);
  for (arma::uword step = 1; step <= o.steps; ++step) {
    const WindowSpec& spec = step <= o.long_steps ? o.long_windows : o.windows;  // long repeats first
    const Windows batch = sample_windows(rng, text, o.batch, spec);
    double loss = std::numeric_limits<double>::quiet_NaN();
    try {
      loss = trainer.step(run.model, batch.tokens);  // forward, loss, backward, Adam
    } catch (const std::invalid_argument&) {
      // a non-finite score: the parameters already hold NaN or inf, reported as divergence below
    }
    if (!std::isfinite(loss) || loss > limit) throw Divergence(step, loss);
    if (step == 1) run.curve.push_back({0, loss, held_at_start});  // the untrained model on the first batch
    recent += loss, ++in_recent;
    const bool point = step % o.eval_every == 0 || step == o.steps;
    if (point) run.curve.push_back({step, recent / static_cast<double>(in_recent), held_out_loss(run.model, held)});
    const auto now = clock::now();
    if (progress && (point || now - last_report > std::chrono::seconds(2))) {
      const double elapsed = std::chrono::duration<double>(now - start).count();
      progress({step, o.steps, recent / static_cast<double>(in_recent), elapsed,
                elapsed / static_cast<double>(step) * static_cast<double>(o.steps - step)});
      last_report = now;
    }
    if (point) recent = 0.0, in_recent = 0;
  }
  run.seconds = std::chrono::duration<double>(clock::now() - start).count();
  return run;
}
// [train]

StepTiming time_training_steps(const TrainOptions& o, arma::uword steps) {
  attn::Random rng(o.seed);
  attn::AttnOnlyShape shape = o.shape;
  shape.vocab = 97;
  Model model = attn::init_model<Real>(shape, rng);
  attn::AttnOnlyTrainer<Real> trainer(o.lr);
  arma::umat tokens(o.batch, shape.context);
  for (auto& t : tokens) t = rng.below(shape.vocab);
  for (int i = 0; i < 3; ++i) trainer.step(model, tokens);  // warm up
  const auto start = std::chrono::steady_clock::now();
  for (arma::uword i = 0; i < steps; ++i) trainer.step(model, tokens);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return {ms / static_cast<double>(steps),
          steps,
          o.batch,
          shape.context,
          static_cast<unsigned>(trainer.threads()),
          attn::training_step_flops(shape, o.batch) / 1e9};
}

namespace {

/// The largest file of a saved run read back: model.txt of the full model is about 1.3 MB.
constexpr std::size_t kMaxRunFileBytes = std::size_t{32} << 20;
/// The longest training recorded in run.txt, in seconds (a year).
constexpr double kMaxSeconds = 3.2e7;
/// The largest loss a curve point may hold, in nats per character (ln 97 is about 4.6).
constexpr double kMaxCurveLoss = 1000.0;

std::string hex(const std::string& s) {
  std::ostringstream out;
  for (const unsigned char c : s) out << std::hex << std::setw(2) << std::setfill('0') << static_cast<int>(c);
  return out.str();
}

std::string unhex(const std::string& s) {
  if (s.size() % 2 != 0) throw std::invalid_argument("odd length");
  std::string out;
  for (std::size_t i = 0; i < s.size(); i += 2) {
    const auto digit = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      throw std::invalid_argument("not hexadecimal");
    };
    out += static_cast<char>(digit(s[i]) * 16 + digit(s[i + 1]));
  }
  return out;
}

/// The text of model.txt for `model`, as app::save_model writes it (through a temporary file
/// beside the set, removed afterwards), so the model joins the set's single commit.
std::string model_text(const Model& model, const fs::path& dir) {
  app::TempPath scratch(dir, ".txt");
  app::save_model(model, scratch.path().string());
  return app::read_input_file(scratch.path(), kMaxRunFileBytes);
}

/// The curve points a run of `o` records: step 0, every eval_every steps and the last step.
std::vector<arma::uword> curve_steps(const TrainOptions& o) {
  std::vector<arma::uword> steps{0};
  for (arma::uword s = 1; s <= o.steps; ++s) {
    if (s % o.eval_every == 0 || s == o.steps) steps.push_back(s);
  }
  return steps;
}

/// run.txt read line by line, every field checked for form and range.
class RunFile {
 public:
  RunFile(const std::string& text, fs::path path) : in_(text), path_(std::move(path)) {}

  std::runtime_error fail(const std::string& what) const {
    return std::runtime_error(app::quoted_path(path_) + " line " + std::to_string(line_) + ": " + what);
  }
  /// The next line, which must be `key` and one value; returns the value.
  std::string field(const std::string& key) {
    std::string line;
    if (!std::getline(in_, line)) throw fail("ends before '" + key + "' (truncated)");
    ++line_;
    std::istringstream words(line);
    std::string name, value, extra;
    if (!(words >> name >> value) || name != key || (words >> extra)) {
      throw fail("expected '" + key + " VALUE', got " + attn::quoted(line));
    }
    return value;
  }
  long long whole(const std::string& key, long long lo, long long hi) {
    const std::string text = field(key);
    const app::Parsed<long long> p = app::parse_integer(text, lo, hi);
    if (!p.value) throw fail(key + " " + attn::quoted(text) + " " + p.problem);
    return *p.value;
  }
  double real(const std::string& key, double lo, double hi) { return real_text(key, field(key), lo, hi); }
  double real_text(const std::string& what, const std::string& text, double lo, double hi) {
    const app::Parsed<double> p = app::parse_number(text);
    if (!p.value) throw fail(what + " " + attn::quoted(text) + " " + p.problem);
    if (*p.value < lo || *p.value > hi) {
      throw fail(what + " " + attn::quoted(text) + " is outside [" + app::format_plain(lo) + ", " +
                 app::format_plain(hi) + "]");
    }
    return *p.value;
  }
  /// A curve point: "STEP TRAIN HELD_OUT".
  CurvePoint point(arma::uword expected_step) {
    std::string line;
    if (!std::getline(in_, line)) throw fail("the curve ends early (truncated)");
    ++line_;
    std::istringstream words(line);
    std::string step, train, held, extra;
    if (!(words >> step >> train >> held) || (words >> extra)) {
      throw fail("expected a curve point 'STEP TRAIN HELD_OUT', got " + attn::quoted(line));
    }
    const app::Parsed<long long> s = app::parse_integer(step, 0, 1000000);
    if (!s.value || static_cast<arma::uword>(*s.value) != expected_step) {
      throw fail("curve point at step " + attn::quoted(step) + " where the run's steps and eval_every put step " +
                 std::to_string(expected_step));
    }
    return {expected_step, real_text("training loss", train, 0, kMaxCurveLoss),
            real_text("held-out loss", held, 0, kMaxCurveLoss)};
  }
  void end() {
    std::string rest;
    while (std::getline(in_, rest)) {
      ++line_;
      if (rest.find_first_not_of(" \t\r") != std::string::npos) throw fail("unexpected text after the curve");
    }
  }

 private:
  std::istringstream in_;
  fs::path path_;
  int line_ = 0;
};

/// Throws std::runtime_error naming `path` unless `s` is this chapter's shape over `vocab` tokens:
/// the report reads fixed layers and heads.
void require_chapter_shape(const attn::AttnOnlyShape& s, arma::uword vocab, const fs::path& path) {
  TrainOptions expected;
  expected.shape.vocab = vocab;
  const attn::AttnOnlyShape& e = expected.shape;
  if (s.vocab == e.vocab && s.context == e.context && s.width == e.width && s.heads == e.heads && s.d_k == e.d_k &&
      s.layers == e.layers && s.final_norm == e.final_norm) {
    return;
  }
  const auto describe = [](const attn::AttnOnlyShape& x) {
    return "vocabulary " + std::to_string(x.vocab) + ", context " + std::to_string(x.context) + ", width " +
           std::to_string(x.width) + ", " + std::to_string(x.heads) + " heads of " + std::to_string(x.d_k) + ", " +
           std::to_string(x.layers) + " layers";
  };
  throw std::runtime_error(app::quoted_path(path) + ": the model's shape (" + describe(s) +
                           ") is not this chapter's (" + describe(e) + ")");
}

/// Refuses a run.txt of another format: an earlier version's (EarlierRun) or not a saved run at all.
void check_run_format(const fs::path& path) {
  const std::string text = app::read_input_file(path, kMaxRunFileBytes);
  if (text.rfind("ch09-run 1\n", 0) == 0 || text.rfind("ch09-run 2\n", 0) == 0)
    throw EarlierRun(app::quoted_path(path) + ": saved by an earlier version of this chapter; train again");
  if (text.rfind("ch09-run 3\n", 0) != 0)
    throw std::runtime_error(app::quoted_path(path) + ": not a run saved by ch09_real_heads");
}

/// Why a saved vocabulary `saved` is not the corpus's `now`: the sizes and the first token that differs.
std::string vocabulary_difference(const std::string& saved, const std::string& now) {
  const auto at =
      static_cast<std::size_t>(std::mismatch(saved.begin(), saved.end(), now.begin(), now.end()).first - saved.begin());
  const auto character = [](const std::string& chars, std::size_t k) {
    return k < chars.size() ? attn::quoted(std::string(1, chars[k])) : std::string("none");
  };
  return "its vocabulary (" + std::to_string(saved.size()) + " characters) differs from the " +
         std::to_string(now.size()) + " of the corpus read now from token " + std::to_string(at) + " on (saved " +
         character(saved, at) + ", now " + character(now, at) +
         "): the model was trained on another corpus; train again, or give that corpus with --corpus";
}

/// run.txt's fields (`text`, read from `path`) checked and parsed: the options, recipe, vocabulary
/// (OtherCorpus unless it is `vocab`'s), corpus checksum and curve. Throws std::runtime_error naming
/// the file and line.
Run parse_run(const std::string& text, const fs::path& path, const Vocabulary& vocab) {
  RunFile in(text, path);
  Run run;
  TrainOptions& o = run.options;
  in.field("ch09-run");
  run.recipe = in.field("recipe");
  o.steps = static_cast<arma::uword>(in.whole("steps", 1, 1000000));
  o.batch = static_cast<arma::uword>(in.whole("batch", 1, 4096));
  o.lr = in.real("lr", 0, 1);
  if (!(o.lr > 0)) throw in.fail("lr must be in (0, 1]");
  o.seed = static_cast<std::uint64_t>(in.whole("seed", 0, 4294967295LL));
  o.windows.repeat_share = o.long_windows.repeat_share = in.real("repeat_share", 0, 1);
  o.eval_every = static_cast<arma::uword>(in.whole("eval_every", 1, 1000000));
  run.seconds = in.real("seconds", 0, kMaxSeconds);
  const std::string chars = in.field("characters");
  try {
    run.characters = unhex(chars);
  } catch (const std::invalid_argument& e) {
    throw in.fail(std::string("the vocabulary is malformed (") + e.what() + ")");
  }
  if (run.characters != vocab.characters()) {
    throw OtherCorpus(app::quoted_path(path) + ": " + vocabulary_difference(run.characters, vocab.characters()));
  }
  run.corpus = in.field("corpus");
  if (run.corpus.size() != 16 || run.corpus.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw in.fail("the corpus checksum is not 16 hexadecimal digits");
  const std::vector<arma::uword> steps = curve_steps(o);
  const long long points = in.whole("curve", 0, 1000001);
  if (static_cast<std::size_t>(points) != steps.size()) {
    throw in.fail("curve " + std::to_string(points) + ": a run of " + std::to_string(o.steps) +
                  " steps evaluated every " + std::to_string(o.eval_every) + " records " +
                  std::to_string(steps.size()) + " points");
  }
  for (const arma::uword step : steps) run.curve.push_back(in.point(step));
  in.end();
  return run;
}

}  // namespace

std::vector<std::string> run_files() { return {"run.txt", "model.txt"}; }

void save_run(const Run& run, const std::string& dir) {
  if (const std::string problem = app::folder_problem(dir); !problem.empty()) throw app::IoError(problem);
  std::ostringstream out;
  out.precision(17);
  const TrainOptions& o = run.options;
  out << "ch09-run 3\nrecipe " << run.recipe << "\nsteps " << o.steps << "\nbatch " << o.batch << "\nlr " << o.lr
      << "\nseed " << o.seed << "\nrepeat_share " << o.windows.repeat_share << "\neval_every " << o.eval_every
      << "\nseconds " << run.seconds << "\ncharacters " << hex(run.characters) << "\ncorpus " << run.corpus
      << "\ncurve " << run.curve.size() << '\n';
  for (const CurvePoint& p : run.curve) out << p.step << ' ' << p.train << ' ' << p.held_out << '\n';
  // One set: model.txt and run.txt in full under temporary names, a manifest of their checksums
  // renamed first, then the two files; --load refuses a pair that does not match the manifest.
  app::AtomicFile model(fs::path(dir) / "model.txt");
  model.write(model_text(run.model, dir));
  app::AtomicFile record(fs::path(dir) / "run.txt");
  record.write(out.str());
  app::AtomicFile::commit_all({&model, &record}, fs::path(dir) / app::kManifestName);
}

Run load_run(const std::string& dir, const Vocabulary& vocab, const std::function<void()>& after_reading) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    throw std::runtime_error(app::quoted_path(dir) + " is a file; name the folder a model was saved into");
  }
  const fs::path path = fs::path(dir) / "run.txt";
  if (struct stat st{}; ::lstat(path.c_str(), &st) != 0 && errno == ENOENT) {
    throw std::runtime_error("cannot read " + attn::printable(path.string(), 200) + " (" + app::os_reason(ENOENT) +
                             ": no model is saved there; train and save one first with --save)");
  }
  check_run_format(path);
  // Each file is read once, and what was read is checked against the manifest and parsed: a save
  // landing in this folder meanwhile can make the set refused, never mixed.
  std::map<std::string, std::string> files = app::read_file_set(dir, run_files(), kMaxRunFileBytes, true);
  if (after_reading) after_reading();
  Run run = parse_run(files["run.txt"], path, vocab);
  TrainOptions& o = run.options;
  const fs::path model_path = fs::path(dir) / "model.txt";
  std::istringstream model_bytes(files["model.txt"]);
  run.model = app::read_model<Real>(model_bytes, app::quoted_path(model_path));
  require_chapter_shape(run.model.shape, vocab.size(), model_path);
  o.shape = run.model.shape;
  o.windows.context = o.long_windows.context = o.shape.context;
  try {
    validate(o);
  } catch (const std::invalid_argument& err) {
    throw std::runtime_error(app::quoted_path(path) + ": " + err.what());
  }
  return run;
}

}  // namespace ch09
