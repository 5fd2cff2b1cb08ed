/// \file support.hpp
/// \brief Test helpers: run a chapter program as a reader would and capture what it prints.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <armadillo>
#include <array>
#include <boost/test/unit_test.hpp>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "common/apparatus/plot.hpp"

namespace attn::test {

/// What a program printed and how it exited.
struct Run {
  int code = -1;    ///< exit code (128 + signal if it was killed)
  std::string out;  ///< stdout
  std::string err;  ///< stderr
};

/// Runs `command` through the shell with stdin closed; stdout and stderr are captured separately.
inline Run run(const std::string& command) {
  const auto err_file =
      std::filesystem::temp_directory_path() / ("attn-test-" + std::to_string(::getpid()) + "-stderr.txt");
  Run result;
  FILE* pipe = ::popen((command + " </dev/null 2>'" + err_file.string() + "'").c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.out.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  result.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(err_file);
  std::stringstream err;
  err << in.rdbuf();
  result.err = err.str();
  std::filesystem::remove(err_file);
  return result;
}

/// Number of lines in `text` (a last line without a newline counts).
inline std::size_t line_count(const std::string& text) {
  std::size_t lines = 0;
  for (char c : text) lines += (c == '\n');
  return lines + (!text.empty() && text.back() != '\n');
}

/// Single-quotes `text` for the shell.
inline std::string quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// Every entry of `got` within half a unit of the article's last printed digit.
inline void check_printed(const arma::rowvec& got, const std::vector<double>& article, double half_unit) {
  BOOST_REQUIRE_EQUAL(got.n_elem, article.size());
  for (std::size_t k = 0; k < article.size(); ++k) {
    BOOST_TEST(std::abs(got(k) - article[k]) <= half_unit, "entry " << k << ": " << got(k) << " vs " << article[k]);
  }
}

/// True if `text` holds "nan" as a word, in any case (a NaN that reached the output).
inline bool has_nan_word(const std::string& text) {
  const auto letter = [&](std::size_t i) { return std::isalpha(static_cast<unsigned char>(text[i])) != 0; };
  for (std::size_t i = 0; i + 3 <= text.size(); ++i) {
    const bool word = std::tolower(static_cast<unsigned char>(text[i])) == 'n' &&
                      std::tolower(static_cast<unsigned char>(text[i + 1])) == 'a' &&
                      std::tolower(static_cast<unsigned char>(text[i + 2])) == 'n';
    if (word && (i == 0 || !letter(i - 1)) && (i + 3 == text.size() || !letter(i + 3))) return true;
  }
  return false;
}

/// Joins the parts into one string through a stream: any mix of strings and numbers.
template <typename... Parts>
std::string cat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

/// Runs `command` with `--plots DIR` into an emptied `dir`, as a reader's full run that draws every plot.
inline Run run_with_plots(const std::string& command, const std::filesystem::path& dir) {
  std::filesystem::remove_all(dir);
  return run(cat(command, " --plots ", quote(dir.string())));
}

/// Checks that `text` holds each of `parts` (printed values the article states), naming any it lacks.
inline void check_contains(const std::string& text, std::initializer_list<const char*> parts) {
  for (const char* part : parts) BOOST_TEST(text.find(part) != std::string::npos, "output lacks " << part);
}

/// Checks the error rule on one bad command line: exit code 2, one stderr line that starts with
/// "<program>: error: ", and nothing on stdout.
inline void check_usage_error(const std::string& command, const std::string& program) {
  const Run r = run(command);
  BOOST_TEST(r.code == 2, command);
  BOOST_TEST(line_count(r.err) == 1u, command << ": " << r.err);
  BOOST_TEST(r.err.rfind(program + ": error: ", 0) == 0u, command << ": " << r.err);
  BOOST_TEST(r.out == "", command);
}

/// Checks that every figure in `names` was drawn into `dir`: NAME.png a complete PNG and its data
/// NAME.dat beside it (how every chapter writes a plot).
inline void check_plots(const std::filesystem::path& dir, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    BOOST_TEST(app::is_valid_png(dir / (std::string(name) + ".png")), name << ".png is missing or incomplete");
    BOOST_TEST(std::filesystem::exists(dir / (std::string(name) + ".dat")), name << ".dat is missing");
  }
}

/// Checks that every row of `A` is a distribution: no negative entry, and the row sums to 1 within `tolerance`.
inline void check_distributions(const arma::mat& A, double tolerance = 1e-12) {
  BOOST_TEST(A.min() >= 0.0, "a negative weight: " << A.min());
  BOOST_TEST(arma::abs(arma::sum(A, 1) - 1.0).max() <= tolerance, "a row does not sum to 1");
}

/// `text` with every run of spaces folded into one space (columns padded for alignment compare simply).
inline std::string squeeze_spaces(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c != ' ' || out.empty() || out.back() != ' ') out += c;
  }
  return out;
}

}  // namespace attn::test
