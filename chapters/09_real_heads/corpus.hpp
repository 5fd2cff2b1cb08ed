/// \file chapters/09_real_heads/corpus.hpp
/// \brief Chapter 09 data: the English text of Debian's `fortunes` package, read at run time,
/// split into entries, held out by entry, turned into character tokens, and cut into windows
/// (plain text, or a snippet followed by itself).
///
/// Nothing from the corpus is stored in the repository: the folder is read when the program runs
/// (scripts/install-deps.sh installs the package).
///
/// The windows that hold a snippet followed by itself are what forms the induction circuit at this
/// scale (measured: plain text alone gave no induction head in 10,000 steps).
///
/// Throws: std::runtime_error naming the folder if it is missing, not a folder, in /dev, /proc or
/// /sys, cannot be read, holds no fortune file, a fortune file that cannot be read or exceeds
/// 16 MiB, more than 256 MiB of text or too little fortune text; for Debian's folder
/// (kFortuneFolder) missing or too small the message also says how to install it (read_corpus).
/// std::invalid_argument for a spec validate() refuses (validate, sample_windows, random_repeats), a
/// text no longer than a window (sample_windows) or an alphabet of fewer than 2 tokens
/// (random_repeats). The others throw nothing (beyond std::bad_alloc).
/// Sources: the article, "Watch real heads" (a model trained on real text).
#pragma once

#include <armadillo>
#include <string>
#include <vector>

#include "common/attention/head_roles.hpp"
#include "common/attention/random.hpp"

namespace ch09 {

/// Where Debian installs the fortune files.
inline const std::string kFortuneFolder = "/usr/share/games/fortunes";

/// Characters as tokens: token 0 is the newline, then every printable ASCII character found in
/// the text in code order, then one token for anything else (tabs, bytes of UTF-8 characters,
/// backspaces of overstruck text).
class Vocabulary {
 public:
  /// The vocabulary of `text`: newline, the printable characters that occur, unknown (2 to 97
  /// tokens).
  explicit Vocabulary(const std::string& text);
  /// Number of tokens (characters + 2).
  arma::uword size() const { return chars_.size() + 1; }
  /// The token of byte `c` (the unknown token for anything not in the vocabulary).
  arma::uword token(char c) const { return table_[static_cast<unsigned char>(c)]; }
  /// The character of a token ('\n' for the newline, '?' for the unknown token and for any
  /// token >= size()).
  char character(arma::uword token) const;
  /// A printable label of a token for tables and axes: "\n" as "NL", space as "_", unknown as "UNK".
  std::string label(arma::uword token) const;
  /// The unknown token.
  arma::uword unknown() const { return chars_.size(); }
  /// The characters in token order (without the unknown token); saved with a model, compared on load.
  const std::string& characters() const { return chars_; }
  /// Tokens of `text`: a 1 x text.size() row, one token per byte.
  arma::urowvec encode(const std::string& text) const;

 private:
  std::string chars_;
  std::vector<arma::uword> table_;
};

/// The corpus: training and held-out text, split by entry.
struct Corpus {
  std::vector<std::string> files;  ///< fortune files read, in name order
  arma::uword entries = 0;         ///< entries (text between '%' lines) over all files
  arma::uword held_entries = 0;    ///< entries held out
  bool held_tail = false;          ///< fewer than 20 entries: the text's last 5% is held out instead
  std::string train_text;          ///< the training entries, concatenated
  std::string held_text;           ///< the held-out entries, concatenated
  std::string checksum;            ///< app::checksum of both texts: a saved run records what it learned from
};

/// Reads every fortune file in `folder` (every regular file, or link to one, but strfile's `.dat`
/// indexes and Debian's `.u8` links, and empty files), splits each at lines holding only '%' (and spaces;
/// CRLF line ends read as LF), and holds out every 20th entry in reading order (5%, deterministic),
/// or, with fewer than 20 entries, the text's last 5% from the start of a line. A file may hold
/// at most 16 MiB, all of them 256 MiB; a corpus needs at least 10,000 training and 256 held-out
/// characters.
Corpus read_corpus(const std::string& folder = kFortuneFolder);

/// A batch of windows and, for windows with a repeat, where the snippet sits.
struct Windows {
  arma::umat tokens;                ///< count x context token ids, row = window
  std::vector<attn::Block> blocks;  ///< one per window; length 0 for a plain window
};

/// How training windows are drawn.
struct WindowSpec {
  arma::uword context = 128;     ///< tokens per window, T
  double repeat_share = 1.0;     ///< share of windows that hold a snippet followed by itself
  arma::uword min_snippet = 10;  ///< shortest snippet
  arma::uword max_snippet = 64;  ///< longest snippet (2 max_snippet <= context)
};

/// Refuses a spec unless 2 <= min_snippet <= max_snippet, 2 max_snippet <= context and
/// 0 <= repeat_share <= 1.
void validate(const WindowSpec& spec);

/// `count` windows of real text from `tokens` (a 1 x n row, n > context), each starting at a
/// uniform offset. With probability spec.repeat_share a window holds a snippet of uniform length
/// in [min_snippet, max_snippet] at a uniform start, its next `length` characters overwritten by
/// the same snippet again (the window keeps real text before and after). Result: count x context
/// tokens and count blocks.
Windows sample_windows(attn::Random& rng, const arma::urowvec& tokens, arma::uword count, const WindowSpec& spec);

/// `count` windows of uniformly random tokens drawn from `alphabet`, each with a snippet of
/// length in [min_snippet, max_snippet] repeated right after itself (the induction test on text
/// that means nothing). Result: count x context tokens and count blocks; `alphabet`: 1 x k, k >= 2.
Windows random_repeats(attn::Random& rng, const arma::urowvec& alphabet, arma::uword count, const WindowSpec& spec);

}  // namespace ch09
