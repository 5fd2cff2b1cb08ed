/// \file chapters/09_real_heads/gpt2_report.hpp
/// \brief The program's --gpt2 mode: GPT-2 read from a folder in the Hugging Face layout, every
/// section of common/gpt2/lab.hpp computed once, then printed (the printers compute nothing).
///
/// Throws: from run_gpt2, each before anything is printed on `out`: FileError (session.hpp; a usage
/// error, exit code 2, through usage_errors()) naming --gpt2 for a folder argument that cannot be
/// used (missing, a file, a required file missing, a file that is a folder or not a regular file),
/// and naming --gpt2 and the file for a file that is there but broken (wrong shapes, truncated,
/// invalid JSON, a NaN weight), a vocab.json that cannot read the chapter's fixed texts, or a
/// context shorter than they need; FlagError (a usage error, exit code 2) naming --sentence or
/// --position for a sentence the tokenizer refuses or longer than the model's context, and for a
/// position past the sentence's tokens; FileError naming --corpus for a fortunes folder
/// read_corpus() refuses or whose held-out text gives no window; std::runtime_error (exit code 1)
/// when Debian's own fortunes folder cannot be used, saying how to install it when it is missing.
/// The others (print_gpt2) throw nothing (beyond std::bad_alloc).
/// Sources: the article, "Watch real heads".
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "common/gpt2/lab.hpp"

namespace ch09 {

/// What --gpt2 reads besides the folder.
struct Gpt2Request {
  std::string dir;                      ///< --gpt2 DIR
  std::string sentence;                 ///< --sentence: the head view's text
  std::optional<arma::uword> position;  ///< --position: the token decoded (default: the last)
  std::optional<std::string> corpus;    ///< --corpus: the fortunes' folder whose held-out text is read
};

/// Loads GPT-2 from request.dir, runs gpt2::run_lab() (progress lines on `progress`) and prints
/// every section on `out`. Returns the exit code, 0.
int run_gpt2(std::ostream& out, std::ostream& progress, const Gpt2Request& request);

/// Prints every section of `lab` (GPT-2 read from `dir`).
void print_gpt2(std::ostream& out, const std::string& dir, const gpt2::Lab& lab);

}  // namespace ch09
