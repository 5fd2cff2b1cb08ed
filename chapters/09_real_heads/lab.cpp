/// \file chapters/09_real_heads/lab.cpp
/// \brief Training, saving and loading a run (see lab.hpp).
#include "lab.hpp"

#include "common/apparatus/files.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
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
  if (o.shape.context != o.windows.context)
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
  Run run{o, vocab.characters(), attn::init_model<Real>(o.shape, rng), {}, 0.0};
  const arma::urowvec text = vocab.encode(corpus.train_text);
  const arma::umat held = held_out_windows(vocab.encode(corpus.held_text), 32, o.shape.context);
  const double limit = 2.0 * std::log(static_cast<double>(o.shape.vocab));
  attn::AttnOnlyTrainer<Real> trainer(o.lr);
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto last_report = start;
  double recent = 0.0;
  arma::uword in_recent = 0;
  run.curve.push_back({0, std::log(static_cast<double>(o.shape.vocab)), held_out_loss(run.model, held)});
  for (arma::uword step = 1; step <= o.steps; ++step) {
    const Windows batch = sample_windows(rng, text, o.batch, o.windows);
    double loss = std::numeric_limits<double>::quiet_NaN();
    try {
      loss = trainer.step(run.model, batch.tokens);  // forward, loss, backward, Adam
    } catch (const std::invalid_argument&) {
      // a non-finite score: the parameters already hold NaN or inf, reported as divergence below
    }
    if (!std::isfinite(loss) || loss > limit) throw Divergence(step, loss);
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

namespace {

std::string hex(const std::string& s) {
  std::ostringstream out;
  for (const unsigned char c : s) out << std::hex << std::setw(2) << std::setfill('0') << static_cast<int>(c);
  return out.str();
}

std::string unhex(const std::string& s) {
  if (s.size() % 2 != 0) throw std::runtime_error("odd hex string");
  std::string out;
  for (std::size_t i = 0; i < s.size(); i += 2) out += static_cast<char>(std::stoi(s.substr(i, 2), nullptr, 16));
  return out;
}

}  // namespace

void save_run(const Run& run, const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir, ec)) throw std::runtime_error("cannot create the folder " + dir);
  attn::save_model(run.model, (fs::path(dir) / "model.txt").string());
  std::ostringstream out;
  out.precision(17);
  const TrainOptions& o = run.options;
  out << "ch09-run 1\nsteps " << o.steps << "\nbatch " << o.batch << "\nlr " << o.lr << "\nseed " << o.seed
      << "\nrepeat_share " << o.windows.repeat_share << "\neval_every " << o.eval_every << "\nseconds " << run.seconds
      << "\ncharacters " << hex(run.characters) << "\ncurve " << run.curve.size() << '\n';
  for (const CurvePoint& p : run.curve) out << p.step << ' ' << p.train << ' ' << p.held_out << '\n';
  attn::write_file_atomically(fs::path(dir) / "run.txt", out.str());
}

Run load_run(const std::string& dir, const Vocabulary& vocab) {
  const fs::path path = fs::path(dir) / "run.txt";
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot read " + path.string() + " (train and save a model first: --save " + dir + ")");
  const auto fail = [&](const std::string& what) { return std::runtime_error(path.string() + ": " + what); };
  Run run;
  std::string magic, word, chars;
  int version = 0;
  std::size_t points = 0;
  TrainOptions& o = run.options;
  if (!(in >> magic >> version) || magic != "ch09-run" || version != 1)
    throw fail("not a run saved by ch09_real_heads");
  const auto expect = [&](const char* name) {
    if (!(in >> word) || word != name) throw fail(std::string("expected '") + name + "'");
    return true;
  };
  if (!(expect("steps") && in >> o.steps && expect("batch") && in >> o.batch && expect("lr") && in >> o.lr &&
        expect("seed") && in >> o.seed && expect("repeat_share") && in >> o.windows.repeat_share &&
        expect("eval_every") && in >> o.eval_every && expect("seconds") && in >> run.seconds && expect("characters") &&
        in >> chars && expect("curve") && in >> points) ||
      points > 100000) {
    throw fail("malformed header");
  }
  try {
    run.characters = unhex(chars);
  } catch (const std::exception&) {
    throw fail("malformed vocabulary");
  }
  if (run.characters != vocab.characters()) throw fail("its vocabulary differs from the corpus read now; train again");
  for (std::size_t i = 0; i < points; ++i) {
    CurvePoint p;
    if (!(in >> p.step >> p.train >> p.held_out) || !std::isfinite(p.train) || !std::isfinite(p.held_out)) {
      throw fail("malformed curve");
    }
    run.curve.push_back(p);
  }
  run.model = attn::load_model<Real>((fs::path(dir) / "model.txt").string());
  o.shape = run.model.shape;
  o.windows.context = o.shape.context;
  if (o.shape.vocab != vocab.size()) throw fail("the model's vocabulary size differs from the corpus");
  try {
    validate(o);
  } catch (const std::invalid_argument& e) {
    throw fail(e.what());
  }
  return run;
}

}  // namespace ch09
