/// \file chapters/09_real_heads/corpus.cpp
/// \brief Reading and cutting the fortunes corpus (see lab.hpp).
#include "lab.hpp"

#include "common/apparatus/files.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ch09 {

namespace fs = std::filesystem;

/// The largest fortune file read (Debian's largest is about 600 kB) and the most text in all.
constexpr std::size_t kMaxCorpusFileBytes = std::size_t{16} << 20;
constexpr std::size_t kMaxCorpusBytes = std::size_t{256} << 20;

Vocabulary::Vocabulary(const std::string& text) : chars_("\n"), table_(256, 0) {
  std::vector<bool> seen(256, false);
  for (const char c : text) seen[static_cast<unsigned char>(c)] = true;
  for (int c = 32; c < 127; ++c) {
    if (seen[c]) chars_ += static_cast<char>(c);
  }
  std::fill(table_.begin(), table_.end(), chars_.size());  // the unknown token
  for (std::size_t t = 0; t < chars_.size(); ++t) table_[static_cast<unsigned char>(chars_[t])] = t;
}

char Vocabulary::character(arma::uword token) const { return token < chars_.size() ? chars_[token] : '?'; }

std::string Vocabulary::label(arma::uword token) const {
  if (token >= chars_.size()) return "UNK";
  const char c = chars_[token];
  if (c == '\n') return "NL";
  if (c == ' ') return "_";
  return std::string(1, c);
}

arma::urowvec Vocabulary::encode(const std::string& text) const {
  arma::urowvec out(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) out(i) = token(text[i]);
  return out;
}

namespace {

/// Splits the entries (in reading order) into c's training and held-out text: every 20th entry
/// held out, or, with fewer than 20 entries (a text without '%' lines is one entry), the last 5%
/// of the text from the start of a line (from where the 5% begins, in one long line).
void hold_out(const std::vector<std::string>& texts, Corpus& c) {
  c.entries = texts.size();
  if (c.entries >= 20) {
    for (std::size_t k = 0; k < texts.size(); ++k)
      (k % 20 == 0 ? (++c.held_entries, c.held_text) : c.train_text) += texts[k];
  } else {
    std::string all;
    for (const std::string& e : texts) all += e;
    const std::size_t at = all.size() - all.size() / 20;
    std::size_t cut = at;
    while (cut > at / 2 && all[cut - 1] != '\n') --cut;
    if (cut == at / 2) cut = at;  // no line starts in the second half: one long line, cut where it falls
    c.held_tail = true;
    c.train_text = all.substr(0, cut);
    c.held_text = all.substr(cut);
  }
}

/// The fortune files in `folder`, sorted: every regular file, or link to one, but strfile's .dat
/// indexes, Debian's .u8 links and empty files. Refuses a folder in /dev, /proc or /sys, one it
/// cannot list, and one without a fortune file (std::runtime_error naming it).
std::vector<std::string> fortune_files(const std::string& folder) {
  std::error_code ec;
  if (const char* system = app::system_folder(folder)) {
    throw std::runtime_error(
        "the fortunes folder " + app::quoted_path(folder) + " is in " + system +
        ", the system's folder of devices and streams, not of text; name a folder of fortune files");
  }
  std::vector<std::string> files;
  fs::directory_iterator entries(folder, ec);
  if (ec) throw std::runtime_error("cannot read the fortunes folder " + app::quoted_path(folder) + ": " + ec.message());
  for (const fs::directory_entry& e : entries) {
    // strfile's .dat indexes are not text, and Debian's .u8 names link to a file already read; any
    // other regular file (or link to one) is a fortune file, whatever its name.
    const std::string ext = e.path().extension().string();
    if (ext == ".dat" || ext == ".u8" || !e.is_regular_file(ec)) continue;
    // An empty file holds no entries; files in /proc also say 0 bytes, and some block when read.
    if (e.file_size(ec) == 0 || ec) continue;
    files.push_back(e.path().filename().string());
  }
  if (files.empty()) {
    throw std::runtime_error("the fortunes folder " + app::quoted_path(folder) +
                             " holds no fortune file (a regular file of text, other than the .dat indexes and .u8 "
                             "links; empty files are skipped)");
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

Corpus read_corpus(const std::string& folder) {
  // How to get the text, for Debian's folder only: a folder the reader chose is theirs to fill.
  const std::string install =
      folder == kFortuneFolder ? " (Debian: apt-get install fortunes, or scripts/install-deps.sh)" : "";
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    const bool there = fs::exists(fs::symlink_status(folder, ec));
    throw std::runtime_error(
        "the fortunes folder " + app::quoted_path(folder) +
        (there ? " is not a folder (name the folder that holds the fortune files)" : " is missing") + install);
  }
  Corpus c;
  c.files = fortune_files(folder);
  std::size_t total = 0;
  std::vector<std::string> texts;  // the entries, in reading order
  for (const std::string& name : c.files) {
    // The checked reader: a regular file of bounded size, opened without waiting (a FIFO that
    // took a file's name after the listing is refused, not waited on).
    std::string text;
    try {
      text = app::read_input_file(fs::path(folder) / name, kMaxCorpusFileBytes);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(e.what());
    }
    total += text.size();
    if (total > kMaxCorpusBytes) {
      throw std::runtime_error("the fortunes folder " + app::quoted_path(folder) + " holds more than " +
                               std::to_string(kMaxCorpusBytes >> 20) + " MiB of text");
    }
    std::istringstream in(text);
    std::string line, entry;
    const auto finish = [&] {
      if (!entry.empty()) texts.push_back(std::move(entry));
      entry.clear();
    };
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();  // a file written with CRLF line ends
      if (!line.empty() && line.front() == '%' && line.find_first_not_of(" \t", 1) == std::string::npos)
        finish();
      else
        entry += line + '\n';
    }
    finish();
  }
  hold_out(texts, c);
  if (c.train_text.size() < 10000 || c.held_text.size() < 256) {
    throw std::runtime_error("the fortunes folder " + app::quoted_path(folder) + " holds too little text (" +
                             std::to_string(c.train_text.size()) + " training characters)" + install);
  }
  c.checksum = app::checksum(c.train_text + '\0' + c.held_text);
  return c;
}

void validate(const WindowSpec& s) {
  if (s.min_snippet < 2 || s.min_snippet > s.max_snippet || 2 * s.max_snippet > s.context) {
    throw std::invalid_argument("snippets of " + std::to_string(s.min_snippet) + " to " +
                                std::to_string(s.max_snippet) + " characters and their repeats do not fit in " +
                                std::to_string(s.context));
  }
  if (!(s.repeat_share >= 0.0 && s.repeat_share <= 1.0))
    throw std::invalid_argument("the repeat share must be in [0, 1]");
}

namespace {

/// A snippet at a uniform length and start, copied right after itself in window row b.
attn::Block repeat_snippet(attn::Random& rng, arma::umat& tokens, arma::uword b, const WindowSpec& spec) {
  attn::Block block;
  block.length = spec.min_snippet + rng.below(spec.max_snippet - spec.min_snippet + 1);
  block.start = rng.below(spec.context - 2 * block.length + 1);
  for (arma::uword j = 0; j < block.length; ++j) {
    tokens(b, block.start + block.length + j) = tokens(b, block.start + j);
  }
  return block;
}

}  // namespace

Windows sample_windows(attn::Random& rng, const arma::urowvec& tokens, arma::uword count, const WindowSpec& spec) {
  validate(spec);
  if (tokens.n_elem <= spec.context) throw std::invalid_argument("sample_windows: the text is shorter than a window");
  Windows w{arma::umat(count, spec.context), std::vector<attn::Block>(count)};
  for (arma::uword b = 0; b < count; ++b) {
    const arma::uword at = rng.below(tokens.n_elem - spec.context + 1);
    w.tokens.row(b) = tokens.cols(at, at + spec.context - 1);
    if (rng.uniform() < spec.repeat_share) w.blocks[b] = repeat_snippet(rng, w.tokens, b, spec);
  }
  return w;
}

Windows random_repeats(attn::Random& rng, const arma::urowvec& alphabet, arma::uword count, const WindowSpec& spec) {
  validate(spec);
  if (alphabet.n_elem < 2) throw std::invalid_argument("random_repeats: the alphabet needs at least 2 tokens");
  Windows w{arma::umat(count, spec.context), std::vector<attn::Block>(count)};
  for (arma::uword b = 0; b < count; ++b) {
    for (arma::uword t = 0; t < spec.context; ++t) w.tokens(b, t) = alphabet(rng.below(alphabet.n_elem));
    w.blocks[b] = repeat_snippet(rng, w.tokens, b, spec);
  }
  return w;
}

}  // namespace ch09
