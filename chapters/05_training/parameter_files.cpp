/// \file parameter_files.cpp
/// \brief Chapter 05's parameter files and loss log (see parameter_files.hpp).
#include "parameter_files.hpp"

#include <cmath>
#include <iomanip>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "common/apparatus/files.hpp"
#include "common/apparatus/numbers.hpp"
#include "common/attention/checks.hpp"

namespace ch05 {

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
  const std::string name = app::quoted_path(file);
  std::vector<std::vector<double>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::vector<double> row;
    std::string token;
    while (words >> token) {
      const app::Parsed<double> x = app::parse_number(token);
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
    throw std::invalid_argument(app::quoted_path(file) + " is " + attn::shape(M) + " but must be " +
                                std::to_string(rows) + " x " + std::to_string(cols) + " (" + meaning + ")");
  }
}

}  // namespace

void save_model(const attn::OneHeadModel& m, const std::filesystem::path& dir) {
  if (const std::string problem = app::folder_problem(dir); !problem.empty()) throw app::IoError(problem);
  // The six files are one parameter set: all are written in full before any replaces its old self.
  const std::vector<std::filesystem::path> paths = model_files(dir);
  std::vector<std::unique_ptr<app::AtomicFile>> files;
  for (std::size_t k = 0; k < paths.size(); ++k) {
    files.push_back(std::make_unique<app::AtomicFile>(paths[k]));
    files.back()->write(matrix_text(m.*attn::kOneHeadGroups[k].value));
  }
  std::vector<app::AtomicFile*> set;
  for (auto& f : files) set.push_back(f.get());
  app::AtomicFile::commit_all(set, dir / app::kManifestName);  // with a manifest: --init refuses a torn set
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
  const std::map<std::string, std::string> bytes = app::read_file_set(dir, names, app::kMaxInputFileBytes, false);
  for (const auto& group : attn::kOneHeadGroups) {
    const std::string name = std::string(group.name) + ".txt";
    const std::filesystem::path file = dir / name;
    arma::mat& M = m.*group.value;
    M = read_matrix(bytes.at(name), file);
    if (group.rows == attn::Dim::vocab) sizes.d = sizes.d_k = sizes.d_v = M.n_cols;
    const arma::uword rows = sizes[group.rows], cols = sizes[group.cols];
    if (group.rows == attn::Dim::one) {  // a bias: its C values on one line or one per line
      if (M.n_elem != cols || (M.n_rows != 1 && M.n_cols != 1)) {
        throw std::invalid_argument(app::quoted_path(file) + " is " + attn::shape(M) + " but must hold " +
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
  app::write_file_atomically(file, out.str());
}

}  // namespace ch05
