/// \file test_output_width.cpp
/// \brief Every line a chapter program prints fits in 100 characters, in every run a reader is
/// pointed to: the default run, `--help`, the runs the book captures, and every command line of the
/// book's "Try this" blocks (docs/ch*.md, indented lines that start with a chapter program).
///
/// Wider lines are clipped in a terminal and on the book's pages, hiding claim tags. The runs
/// execute in a scratch folder (some save files) with `--no-plots`, as plots do not change the text.
///
/// A chapter whose tour run is `--quick` (chapter 09) trains for minutes by default. Its default and
/// documented training runs are checked with `--quick --steps 30` added (the same lines, fewer
/// steps), and the full model's lines by reading the model the ch09_train fixture saved (`--load`,
/// as the book does; the book's own `--load DIR` examples read that model too).
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "support.hpp"

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxWidth = 100;

/// Chapter name -> program path and the book's flags for it, from the build's chapters.txt.
std::map<std::string, std::pair<std::string, std::string>> programs() {
  std::map<std::string, std::pair<std::string, std::string>> out;
  std::ifstream in(CHAPTER_LIST);
  for (std::string line; std::getline(in, line);) {
    const std::size_t tab = line.find('\t');
    const std::string path = line.substr(0, tab);
    std::string flags = tab == std::string::npos ? "" : line.substr(tab + 1);
    for (char& c : flags) c = c == '\t' ? ' ' : c;
    out[fs::path(path).filename().string()] = {path, flags};
  }
  return out;
}

/// The command lines of the book's "Try this" blocks: indented lines starting with a program name,
/// without their trailing comment.
std::vector<std::pair<std::string, std::string>> documented_runs(const std::set<std::string>& names) {
  std::vector<std::pair<std::string, std::string>> runs;
  for (const auto& entry : fs::directory_iterator(DOCS_DIR)) {
    if (entry.path().extension() != ".md") continue;
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("    ", 0) != 0) continue;
      std::istringstream words(line);
      std::string program;
      words >> program;
      if (names.count(program) == 0) continue;
      std::string args = line.substr(line.find(program) + program.size());
      if (const std::size_t hash = args.find(" #"); hash != std::string::npos) args.resize(hash);
      runs.emplace_back(program, args);
    }
  }
  return runs;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_printed_line_fits_in_100_characters) {
  const auto exe = programs();
  BOOST_REQUIRE(!exe.empty());
  std::set<std::string> names;
  for (const auto& [name, _] : exe) names.insert(name);

  std::vector<std::pair<std::string, std::string>> runs;
  std::set<std::string> slow;  // chapters whose default run trains for minutes
  for (const auto& [name, program] : exe) {
    if (program.second == "--quick") slow.insert(name);
    runs.emplace_back(name, "");
    runs.emplace_back(name, "--help");
    if (!program.second.empty()) runs.emplace_back(name, program.second);
  }
  auto documented = documented_runs(names);
  BOOST_TEST(documented.size() > 20u);  // the book's "Try this" blocks were found
  // --gpt2 reads GPT-2's weights, which no machine here has: test_ch09_gpt2 checks that mode's line
  // widths on the suite's tiny checkpoint.
  std::erase_if(documented, [](const auto& run) { return run.second.find("--gpt2") != std::string::npos; });
  runs.insert(runs.end(), documented.begin(), documented.end());
  for (auto& [name, args] : runs) {
    if (slow.count(name) == 0) continue;
    const bool trains = args.find("--help") == std::string::npos && args.find("--load") == std::string::npos &&
                        args.find("--cached") == std::string::npos && args.find("--bench") == std::string::npos &&
                        args.find("--quick") == std::string::npos && args.find("--steps") == std::string::npos;
    if (trains) args += " --quick --steps 30";  // the same lines as a longer run, in a second
#ifdef CH09_MODEL
    // The book's --load examples name a folder of the reader's; here the fixture's model stands in.
    if (const std::size_t at = args.find("--load "); at != std::string::npos) {
      const std::size_t from = at + 7, to = std::min(args.find(' ', from), args.size());
      args.replace(from, to - from, attn::test::quote(CH09_MODEL));
    }
#endif
  }
#ifdef CH09_MODEL
  BOOST_TEST(slow.count("ch09_real_heads") == 1u);
  runs.emplace_back("ch09_real_heads", "--load " + attn::test::quote(CH09_MODEL));
  runs.emplace_back("ch09_real_heads", "--load " + attn::test::quote(CH09_MODEL) + " --sentence \"the money bank\"");
#endif

  // A command line given in several places (or with other padding) runs once.
  for (auto& [name, args] : runs) {
    args.erase(0, std::min(args.find_first_not_of(' '), args.size()));
    args.erase(args.find_last_not_of(' ') + 1);
  }
  std::set<std::pair<std::string, std::string>> seen;
  std::erase_if(runs, [&](const auto& run) { return !seen.insert(run).second; });

  // A run that reads a folder another run saves (ch05's --init trained after --save trained) goes
  // last, in a second round, so the two never race.
  const auto folder_after = [](const std::string& args, const std::string& flag) {
    const std::size_t at = args.find(flag);
    if (at == std::string::npos) return std::string();
    const std::size_t from = at + flag.size();
    return args.substr(from, args.find(' ', from) - from);
  };
  std::set<std::string> saved;
  for (const auto& run : runs) saved.insert(folder_after(run.second, "--save "));
  const auto second_round = std::stable_partition(runs.begin(), runs.end(), [&](const auto& run) {
    const std::string read = folder_after(run.second, "--init ") + folder_after(run.second, "--load ");
    return read.empty() || saved.count(read) == 0;
  });

  // Two runs at a time in one scratch folder (some save files, each under its own name, written
  // whole); assertions on this thread.
  const fs::path scratch = fs::temp_directory_path() / ("attn-width-" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  std::vector<attn::test::Run> results(runs.size());
  std::atomic<std::size_t> next{0};
  const auto worker = [&](std::size_t end) {
    for (std::size_t i = next++; i < end; i = next++) {
      const auto& [name, args] = runs[i];
      const bool quiet = args.find("--help") != std::string::npos || args.find("--no-plots") != std::string::npos;
      // stderr joins stdout inside the subshell (its lines must fit too); the helper's own stderr
      // file stays empty, so two threads sharing its name do not matter.
      results[i] =
          attn::test::run("(cd " + attn::test::quote(scratch.string()) + " && " +
                          attn::test::quote(exe.at(name).first) + " " + args + (quiet ? "" : " --no-plots") + " 2>&1)");
    }
  };
  const std::size_t first_end = static_cast<std::size_t>(second_round - runs.begin());
  { std::jthread a(worker, first_end), b(worker, first_end); }
  next = first_end;
  { std::jthread a(worker, runs.size()), b(worker, runs.size()); }
  BOOST_TEST(first_end < runs.size());  // the book's --init example was found and runs after its --save
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& [name, args] = runs[i];
    const attn::test::Run& r = results[i];
    BOOST_TEST_CONTEXT(name << " " << args) {
      BOOST_TEST(r.code == 0, "exit code " << r.code << ": " << r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1));
      std::istringstream lines(r.out);
      std::size_t number = 0;
      for (std::string line; std::getline(lines, line);) {
        ++number;
        // Width in characters, not bytes: UTF-8 continuation bytes do not count.
        std::size_t width = 0;
        for (unsigned char c : line) width += (c & 0xC0) != 0x80;
        BOOST_TEST(width <= kMaxWidth, "line " << number << " has " << width << " characters: " << line);
      }
    }
  }
  fs::remove_all(scratch);
}
