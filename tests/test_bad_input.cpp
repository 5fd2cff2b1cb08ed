/// \file test_bad_input.cpp
/// \brief Bad input across every chapter, as one table (listed in docs/bad_input.md).
///
/// Each case must print exactly one line on stderr, `<program>: error: ...`, naming the problem,
/// print nothing on stdout and exit with code 2. Missing gnuplot is not an error: every chapter
/// prints all its arithmetic, says in one line why plots were skipped, and exits 0. None may
/// crash, hang or print NaN.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "support.hpp"

namespace {

/// Chapter name -> program path, from the build's chapters.txt (path, tab, tour flags).
std::map<std::string, std::string> programs() {
  std::map<std::string, std::string> out;
  std::ifstream in(CHAPTER_LIST);
  for (std::string line; std::getline(in, line);) {
    const std::string path = line.substr(0, line.find('\t'));
    out[std::filesystem::path(path).filename().string()] = path;
  }
  return out;
}

struct Case {
  const char* chapter;
  const char* args;      ///< shell words after the program name
  const char* mentions;  ///< a word the error line must contain
};

using attn::test::cat;

}  // namespace

BOOST_AUTO_TEST_CASE(every_bad_input_is_one_line_and_exit_2) {
  const auto exe = programs();
  const std::string bad_dir = "/tmp/attn-bad-params";
  std::filesystem::create_directories(bad_dir);
  std::ofstream(cat(bad_dir, "/E.txt")) << "1 2\n3 x\n";  // a malformed parameter file

  const std::vector<Case> cases{
      {"ch01_mixing", "--bogus", "bogus"},                                       // unknown flag
      {"ch01_mixing", "--scale", "scale"},                                       // missing value
      {"ch01_mixing", "--scale abc", "scale"},                                   // non-numeric
      {"ch01_mixing", "--scale nan", "finite"},                                  // non-finite
      {"ch01_mixing", "--sentence 'the lake bank'", "lake"},                     // unknown word
      {"ch01_mixing", "--sentence '   '", "empty"},                              // empty sentence
      {"ch01_mixing", "stray", "positional"},                                    // stray argument
      {"ch02_swap_query", "--wq '1 2 3; 4 5 6'", "4 x 3"},                        // wrong matrix shape
      {"ch02_swap_query", "--wq '1 2 3; 4 5 6; 7 8 9; 1 2 inf'", "finite"},       // non-finite entry
      {"ch02_swap_query", "--preset lake", "lake"},                              // unknown choice
      {"ch03_values", "--heads 0", "heads"},                                     // zero size
      {"ch03_values", "--tokens -3", "tokens"},                                  // negative size
      {"ch03_values", "--tokens 1000000000000", "tokens"},                       // absurdly large size
      {"ch04_scaling", "--length -1", "length"},                                 // negative length
      {"ch04_scaling", "--angle inf", "angle"},                                  // non-finite
      {"ch05_training", "--init /nonexistent", "/nonexistent/E.txt"},            // unreadable parameter file
      {"ch05_training", "--init /tmp/attn-bad-params", "E.txt"},               // malformed parameter file
      {"ch05_training", "--passes 0", "passes"},                                 // zero size
      {"ch05_training", "--lr -1", "lr"},                                        // negative rate
      {"ch06_masking", "--causal --bidirectional", "causal"},                    // contradictory flags
      {"ch06_masking", "--sentence ''", "empty"},                                // empty sentence
      {"ch07_linear_memory", "--bench --bench-max 0", "bench-max"},              // zero size
      {"ch07_linear_memory", "--bench-max 100", "only applies with --bench"},    // flag without its mode
      {"ch07_linear_memory", "--seed -5", "seed"},                               // negative seed
      {"ch08_induction", "--heads 0", "heads"},                                  // zero size
      {"ch08_induction", "--width 100000000", "width"},                          // absurdly large size
      {"ch08_induction", "--steps -5", "-5"},                                    // negative, not wrapped
      {"ch08_induction", "--lr 100", "lr"},                                      // learning rate out of range
      {"ch08_induction", "--heads 3", "multiple"},                               // width not divisible
      {"ch08_induction", "--width 256 --steps 100000", "at most 4e7"},          // hours of training
      {"ch01_mixing", "--scale 1e308", "between -1000 and 1000"},                // huge finite number
      {"ch04_scaling", "--scores 1e308,1e308", "between -1e+06 and 1e+06"},      // huge finite scores
      {"ch04_scaling", "--scores '1,,2'", "empty entry"},                        // empty list entry
      {"ch02_swap_query", "--wq '1e308 0 0; 0 1 0; 0 0 1; 1 1 1'", "--wq"},      // huge matrix entry
      {"ch05_training", "--init ''", "non-empty path"},                          // empty path
      {"ch05_training", "--lr 1e308", "got '1e308'"},                             // huge number, quoted short
      {"ch05_training", "--walkthrough --passes 5", "--passes"},                 // flag outside its mode
      {"ch05_training", "--bench --plots /tmp/attn-bench", "no plots"},         // plots where none are drawn
      {"ch01_mixing", "--sentence \"$(printf 'the\\001bank')\"", "'the\\x01bank'"},   // control byte in a word
      {"ch01_mixing", "--sentence \"$(printf 'bank %.0s' $(seq 100))\"", "at most 64"},  // too long
  };
  BOOST_TEST(cases.size() >= 20u);
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.chapter << " " << c.args) {
      BOOST_REQUIRE(exe.count(c.chapter));
      const attn::test::Run r = attn::test::run(cat("timeout 60 ", exe.at(c.chapter), " --no-plots ", c.args));
      BOOST_TEST(r.code == 2);
      BOOST_TEST(attn::test::line_count(r.err) == 1u, r.err);
      BOOST_TEST(r.err.rfind(cat(c.chapter, ": error: "), 0) == 0u, r.err);
      BOOST_TEST(r.err.find(c.mentions) != std::string::npos, r.err);
      BOOST_TEST(r.out == "");
    }
  }
}

BOOST_AUTO_TEST_CASE(an_unwritable_or_file_plot_folder_is_an_error_in_every_chapter) {
  for (const auto& [name, path] : programs()) {
    BOOST_TEST_CONTEXT(name) {
      const attn::test::Run r = attn::test::run(cat("timeout 60 ", path, " --plots /dev/null/plots"));
      BOOST_TEST(r.code == 2);
      BOOST_TEST(attn::test::line_count(r.err) == 1u, r.err);
      BOOST_TEST(r.err.find("/dev/null/plots") != std::string::npos, r.err);
      const attn::test::Run file = attn::test::run(cat("timeout 60 ", path, " --plots ", __FILE__));  // a regular file
      BOOST_TEST(file.code == 2);
      BOOST_TEST(attn::test::line_count(file.err) == 1u, file.err);
      BOOST_TEST(file.err.find("is a file, not a folder") != std::string::npos, file.err);
    }
  }
}

BOOST_AUTO_TEST_CASE(without_gnuplot_every_chapter_prints_its_arithmetic) {
  std::ifstream in(CHAPTER_LIST);
  for (std::string line; std::getline(in, line);) {
    // Run each chapter with its tour flags (e.g. the lab's --quick), with no gnuplot on PATH.
    std::string command = "timeout 120 env PATH=/nonexistent";
    std::stringstream words(line);
    for (std::string w; std::getline(words, w, '\t');) {
      if (!w.empty()) command = cat(command, " ", attn::test::quote(w));
    }
    const std::string name = std::filesystem::path(line.substr(0, line.find('\t'))).filename().string();
    BOOST_TEST_CONTEXT(name) {
      const attn::test::Run r = attn::test::run(cat(command, " --plots ", attn::test::quote(cat(TEST_PLOTS, "/", name))));
      BOOST_TEST(r.code == 0, r.err);
      BOOST_TEST(r.out.find("plots: skipped (gnuplot is not on PATH") != std::string::npos);
      BOOST_TEST(attn::test::line_count(r.out) > 10u);
      BOOST_TEST(!attn::test::has_nan_word(r.out));
    }
  }
}
