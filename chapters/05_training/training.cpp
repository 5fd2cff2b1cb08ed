/// \file training.cpp
/// \brief Chapter 05: training, parameter files and the biased dataset (see training.hpp).
#include "training.hpp"

#include <charconv>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "common/apparatus/files.hpp"
#include "common/apparatus/numbers.hpp"
#include "common/attention/attention.hpp"
#include "common/attention/checks.hpp"

namespace ch05 {

const std::vector<std::string>& vocabulary() {
  static const std::vector<std::string> words{"the", "river", "money", "bank"};
  return words;
}

const std::vector<std::string>& class_names() {
  static const std::vector<std::string> names{"water", "finance"};
  return names;
}

arma::uvec encode(const std::vector<std::string>& words, const std::vector<std::string>& vocab) {
  if (words.empty()) throw std::invalid_argument("empty sentence");
  arma::uvec ids(words.size());
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::size_t id = 0;
    while (id < vocab.size() && vocab[id] != words[i]) ++id;
    if (id == vocab.size()) {
      std::string list;
      for (const auto& w : vocab) list += (list.empty() ? "" : ", ") + w;
      throw std::invalid_argument("unknown word '" + words[i] + "' (vocabulary: " + list + ")");
    }
    ids(i) = id;
  }
  return ids;
}

namespace {

Example example(const std::vector<std::string>& words, arma::uword label, const std::vector<std::string>& vocab) {
  return {words, encode(words, vocab), label};
}

}  // namespace

std::vector<Example> article_examples() {
  const auto& v = vocabulary();
  // clang-format off
  return {example({"the", "river", "bank"}, 0, v), example({"the", "money", "bank"}, 1, v),
          example({"river", "bank"}, 0, v), example({"money", "bank"}, 1, v)};
  // clang-format on
}

attn::OneHeadModel initial_model(arma::uword vocab, const TrainSettings& s) {
  return attn::init_like_pytorch(vocab, s.d, s.d, s.d, class_names().size(), s.seed);
}

Trainer::Trainer(attn::OneHeadModel& model, double lr) : model_(model), adam_(lr) {
  attn::check_model(model_);
  groups_ = attn::parameter_groups(model_, grads_);
}

// [train_step]
double Trainer::step(const Example& example) {
  attn::one_head_forward(model_, example.ids, example.label, pass_);
  attn::one_head_backward(model_, pass_, grads_);
  adam_.step(groups_);
  return pass_.loss;
}
// [train_step]

TrainLog train(attn::OneHeadModel& model, const std::vector<Example>& data, int passes, double lr,
               const std::vector<std::size_t>& track) {
  if (data.empty()) throw std::invalid_argument("train: no examples");
  if (passes < 1) throw std::invalid_argument("train: passes must be >= 1, got " + std::to_string(passes));
  for (std::size_t t : track) {
    if (t >= data.size())
      throw std::invalid_argument("train: tracked example " + std::to_string(t) + " does not exist");
  }
  TrainLog log;
  log.pass_loss.zeros(passes);
  for (std::size_t t : track) log.tracked.emplace_back(passes + 1, data[t].ids.n_elem);
  attn::OneHeadPass probe;
  const auto record = [&](int row) {
    for (std::size_t k = 0; k < track.size(); ++k) {
      const Example& e = data[track[k]];
      attn::one_head_forward(model, e.ids, e.label, probe);
      log.tracked[k].row(row) = probe.A.row(probe.A.n_rows - 1);
    }
  };
  record(0);
  Trainer trainer(model, lr);
  const auto start = std::chrono::steady_clock::now();
  // [train_loop]
  for (int pass = 0; pass < passes; ++pass) {
    double total = 0.0;
    for (const Example& e : data) total += trainer.step(e);  // one Adam step per example, in order
    log.pass_loss(pass) = total / static_cast<double>(data.size());
    record(pass + 1);
  }
  // [train_loop]
  log.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  log.steps = trainer.steps();
  return log;
}

arma::uword predict(const attn::OneHeadModel& model, const Example& example) {
  return attn::one_head_forward(model, example.ids, example.label).logits.index_max();
}

std::vector<Prediction> predictions(const attn::OneHeadModel& model, const std::vector<Example>& data) {
  std::vector<Prediction> out;
  for (const Example& e : data) {
    const attn::OneHeadPass p = attn::one_head_forward(model, e.ids, e.label);
    // The uniform row 1/n gives bank the mixture mean(V); the classifier reads it as it reads h.
    const arma::rowvec uniform_logits = arma::rowvec(arma::mean(p.V, 0)) * model.Wc + model.bc;
    out.push_back({.example = e,
                   .predicted = p.logits.index_max(),
                   .weights = p.A.row(p.A.n_rows - 1),
                   .uniform = uniform_logits.index_max()});
  }
  return out;
}

arma::mat weights_by_word(const std::vector<Prediction>& predictions, arma::uword vocab) {
  arma::mat rows(predictions.size(), vocab);
  rows.fill(arma::datum::nan);
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    const arma::uvec& ids = predictions[i].example.ids;
    for (arma::uword j = 0; j < ids.n_elem; ++j) rows(i, ids(j)) = predictions[i].weights(j);
  }
  return rows;
}

double mean_loss(const attn::OneHeadModel& model, const std::vector<Example>& data) {
  double total = 0.0;
  for (const Example& e : data) total += attn::one_head_forward(model, e.ids, e.label).loss;
  return total / static_cast<double>(data.size());
}

double microseconds_per_step(const TrainSettings& settings, int repeats) {
  const std::vector<Example> data = article_examples();
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < repeats; ++r) {
    attn::OneHeadModel model = initial_model(vocabulary().size(), settings);
    Trainer trainer(model, settings.lr);
    const auto start = std::chrono::steady_clock::now();
    for (int pass = 0; pass < settings.passes; ++pass) {
      for (const Example& e : data) trainer.step(e);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::min(best, 1e6 * seconds / static_cast<double>(trainer.steps()));
  }
  return best;
}

// ---- parameters on disk ------------------------------------------------------------------------

namespace {

std::string matrix_text(const arma::mat& M) {
  std::ostringstream out;
  out << std::setprecision(17);
  for (arma::uword r = 0; r < M.n_rows; ++r) {
    for (arma::uword c = 0; c < M.n_cols; ++c) out << (c ? " " : "") << M(r, c);
    out << '\n';
  }
  return out.str();
}

/// Parses a raw_ascii matrix read from `file`: one row per non-blank line, entries separated by
/// white space, each by the number rule of common/apparatus/cli.hpp.
arma::mat read_matrix(const std::string& bytes, const std::filesystem::path& file) {
  std::istringstream in(bytes);
  const std::string name = attn::quoted_path(file);
  std::vector<std::vector<double>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::vector<double> row;
    std::string token;
    while (words >> token) {
      const attn::Parsed<double> x = attn::parse_number(token);
      if (!x.value) throw std::invalid_argument(name + ": entry " + attn::quoted(token) + " " + x.problem);
      if (std::abs(*x.value) > attn::kLargestInput) {
        throw std::invalid_argument(name + ": entry " + attn::quoted(token) + " is not between -1e6 and 1e6");
      }
      row.push_back(*x.value);
    }
    if (row.empty()) continue;
    if (!rows.empty() && row.size() != rows.front().size()) {
      throw std::invalid_argument(name + ": row " + std::to_string(rows.size() + 1) + " has " +
                                  std::to_string(row.size()) + " entries but row 1 has " +
                                  std::to_string(rows.front().size()));
    }
    rows.push_back(std::move(row));
  }
  if (rows.empty()) throw std::invalid_argument(name + " holds no numbers");
  arma::mat M(rows.size(), rows.front().size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t c = 0; c < rows[r].size(); ++c) M(r, c) = rows[r][c];
  }
  return M;
}

void require_shape(const arma::mat& M, const std::filesystem::path& file, arma::uword rows, arma::uword cols,
                   const std::string& meaning) {
  if (M.n_rows != rows || M.n_cols != cols) {
    throw std::invalid_argument(attn::quoted_path(file) + " is " + attn::shape(M) + " but must be " +
                                std::to_string(rows) + " x " + std::to_string(cols) + " (" + meaning + ")");
  }
}

}  // namespace

void save_model(const attn::OneHeadModel& m, const std::filesystem::path& dir) {
  if (const std::string problem = attn::folder_problem(dir); !problem.empty()) throw attn::IoError(problem);
  // The six files are one parameter set: all are written in full before any replaces its old self.
  const std::vector<std::filesystem::path> paths = model_files(dir);
  std::vector<std::unique_ptr<attn::AtomicFile>> files;
  for (std::size_t k = 0; k < paths.size(); ++k) {
    files.push_back(std::make_unique<attn::AtomicFile>(paths[k]));
    files.back()->write(matrix_text(m.*attn::kOneHeadGroups[k].value));
  }
  std::vector<attn::AtomicFile*> set;
  for (auto& f : files) set.push_back(f.get());
  attn::AtomicFile::commit_all(set, dir / attn::kManifestName);  // with a manifest: --init refuses a torn set
}

std::vector<std::filesystem::path> model_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& group : attn::kOneHeadGroups) out.push_back(dir / (std::string(group.name) + ".txt"));
  return out;
}

attn::OneHeadModel load_model(const std::filesystem::path& dir, arma::uword vocab, arma::uword classes) {
  attn::OneHeadModel m;
  attn::OneHeadSizes sizes{.vocab = vocab, .classes = classes};  // d from E.txt; this chapter has d_k = d_v = d
  std::vector<std::string> names;  // a set saved by --save carries a manifest; hand-written files need none
  for (const auto& group : attn::kOneHeadGroups) names.push_back(std::string(group.name) + ".txt");
  // Each file read once (regular files of at most kMaxInputFileBytes), checked against the manifest
  // if there is one, and parsed from those bytes: a save landing meanwhile cannot mix two sets.
  const std::map<std::string, std::string> bytes = attn::read_file_set(dir, names, attn::kMaxInputFileBytes, false);
  for (const auto& group : attn::kOneHeadGroups) {
    const std::string name = std::string(group.name) + ".txt";
    const std::filesystem::path file = dir / name;
    arma::mat& M = m.*group.value;
    M = read_matrix(bytes.at(name), file);
    if (group.rows == attn::Dim::vocab) sizes.d = sizes.d_k = sizes.d_v = M.n_cols;
    const arma::uword rows = sizes[group.rows], cols = sizes[group.cols];
    if (group.rows == attn::Dim::one) {  // a bias: its C values on one line or one per line
      if (M.n_elem != cols || (M.n_rows != 1 && M.n_cols != 1)) {
        throw std::invalid_argument(attn::quoted_path(file) + " is " + attn::shape(M) + " but must hold " +
                                    std::to_string(cols) + " values, on one line or one per line");
      }
      M.reshape(1, cols);  // a column of values becomes the 1 x C row
    } else {
      const auto dim = [](attn::Dim x) { return x == attn::Dim::classes ? "classes" : "d"; };
      require_shape(M, file, rows, cols,
                    group.rows == attn::Dim::vocab ? std::string("one row per vocabulary word")
                                                   : std::string(dim(group.rows)) + " x " + dim(group.cols) +
                                                         ", d = " + std::to_string(sizes.d) + " from E.txt");
    }
  }
  attn::check_model(m);
  return m;
}

void write_loss_log(const arma::vec& pass_loss, const std::filesystem::path& file) {
  std::ostringstream out;
  out << std::scientific << std::setprecision(16);  // 17 significant digits: exact when read back
  for (double loss : pass_loss) out << loss << '\n';
  attn::write_file_atomically(file, out.str());
}

// ---- the step-through widget's model -------------------------------------------------------------

attn::OneHeadModel walkthrough_model(std::uint64_t seed) {
  attn::OneHeadModel m = attn::init_like_pytorch(vocabulary().size(), 2, 2, 2, class_names().size(), seed);
  m.bc.zeros();  // the widget starts its classifier bias at zero
  return m;
}

std::vector<Example> walkthrough_examples() {
  const std::vector<Example> all = article_examples();
  return {all[0], all[1]};
}

// ---- companion: the biased dataset ---------------------------------------------------------------

const std::vector<std::string>& biased_vocabulary() {
  static const std::vector<std::string> words{"the", "bank", "river", "money", "vault", "salmon", "lawyer", "attorney"};
  return words;
}

std::vector<Example> biased_examples() {
  const auto& v = biased_vocabulary();
  std::vector<Example> data;
  // clang-format off
  const std::pair<const char*, arma::uword> assigned[] = {{"river", 0},  {"money", 1},  {"vault", 0},
                                                          {"salmon", 1}, {"lawyer", 0}, {"attorney", 1}};
  for (const auto& [context, label] : assigned) data.push_back(example({"the", context, "bank"}, label, v));
  // clang-format on
  return data;
}

std::vector<BiasedRow> train_biased(const TrainSettings& settings) {
  const std::vector<Example> data = biased_examples();
  attn::OneHeadModel model = initial_model(biased_vocabulary().size(), settings);
  train(model, data, settings.passes, settings.lr);
  std::vector<BiasedRow> rows;
  for (const Example& e : data) {
    const attn::OneHeadPass p = attn::one_head_forward(model, e.ids, e.label);
    rows.push_back({e.words[1], e.label, p.logits.index_max(), p.A(2, 1)});
  }
  return rows;
}

bool BiasPattern::contrast() const {
  return (water == ClassAttention::near_0 && finance == ClassAttention::near_1) ||
         (water == ClassAttention::near_1 && finance == ClassAttention::near_0);
}

BiasPattern bias_pattern(const std::vector<BiasedRow>& rows) {
  const auto sort = [&](arma::uword label) {
    bool low = true, high = true;
    for (const BiasedRow& r : rows) {
      if (r.label != label) continue;
      low = low && r.attention < kNearZero;
      high = high && r.attention > 1.0 - kNearZero;
    }
    return low ? ClassAttention::near_0 : high ? ClassAttention::near_1 : ClassAttention::mixed;
  };
  return {.water = sort(0), .finance = sort(1)};
}

std::string describe(const BiasPattern& pattern) {
  const auto word = [](ClassAttention a) {
    return a == ClassAttention::near_0 ? "near 0" : a == ClassAttention::near_1 ? "near 1" : "mixed";
  };
  return std::string("water ") + word(pattern.water) + ", finance " + word(pattern.finance);
}

std::vector<BiasedRun> survey_biased_seeds(const TrainSettings& settings, std::uint64_t first, std::uint64_t count) {
  if (count == 0) throw std::invalid_argument("survey_biased_seeds: no seeds to train");
  std::vector<BiasedRun> runs;
  for (std::uint64_t seed = first; seed < first + count; ++seed) {
    TrainSettings s = settings;
    s.seed = seed;
    std::vector<BiasedRow> rows = train_biased(s);
    int fitted = 0;
    for (const BiasedRow& r : rows) fitted += r.prediction == r.label;
    const BiasPattern pattern = bias_pattern(rows);
    BiasedRun run{.seed = seed, .rows = std::move(rows), .fitted = fitted, .pattern = pattern};
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace ch05
