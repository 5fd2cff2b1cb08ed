/// \file test_ch09_loading.cpp
/// \brief Chapter 09's saved runs read back while another save lands in the same folder: each file
/// is read once, and the bytes checked against the manifest are the bytes parsed, so a reader gets
/// one whole set or a refusal, never the run record of one save with the weights of another.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "lab.hpp"

namespace fs = std::filesystem;

namespace {

/// A short run (2 steps of the quick options) seeded by `seed`, saved into `dir`.
void save_short_run(const ch09::Corpus& corpus, const ch09::Vocabulary& vocab, std::uint64_t seed,
                    const fs::path& dir) {
  ch09::TrainOptions options = ch09::quick_options({});
  options.steps = 2;
  options.seed = seed;
  ch09::save_run(ch09::train(corpus, vocab, options), dir.string());
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_save_landing_while_a_run_is_read_never_mixes_two_saves) {
  const fs::path base = fs::temp_directory_path() / ("attn-ch09-loading-" + std::to_string(::getpid()));
  fs::remove_all(base);
  const ch09::Corpus corpus = ch09::read_corpus();
  const ch09::Vocabulary vocab(corpus.train_text);
  save_short_run(corpus, vocab, 1, base / "a");
  save_short_run(corpus, vocab, 2, base / "b");
  std::istringstream a_text(slurp(base / "a" / "model.txt"));
  const ch09::Model a = app::read_model<ch09::Real>(a_text, "a");
  const ch09::Model b = ch09::load_run((base / "b").string(), vocab).model;
  BOOST_REQUIRE(!arma::approx_equal(a.E, b.E, "absdiff", 0.0f));  // two saves, two models

  // The whole of save b lands in folder a (manifest first, as a save renames) once the set is read.
  const auto land_b = [&] {
    for (const char* name : {"manifest.txt", "model.txt", "run.txt"})
      fs::copy_file(base / "b" / name, base / "a" / name, fs::copy_options::overwrite_existing);
  };
  const ch09::Run read = ch09::load_run((base / "a").string(), vocab, land_b);
  BOOST_TEST(arma::approx_equal(read.model.E, a.E, "absdiff", 0.0f));  // save a's weights, with save a's run
  BOOST_TEST(read.options.seed == 1u);
  // Read again, the folder holds save b whole.
  const ch09::Run again = ch09::load_run((base / "a").string(), vocab);
  BOOST_TEST(arma::approx_equal(again.model.E, b.E, "absdiff", 0.0f));
  BOOST_TEST(again.options.seed == 2u);
  fs::remove_all(base);
}
