/// \file chapters/09_real_heads/report.hpp
/// \brief Chapter 09 printers and plotters: each takes a section's result and computes nothing.
///
/// Source: the article, "Watch real heads" (the printed sections follow its questions in order).
/// Printers write to a stream and throw nothing of their own (stream errors are the stream's
/// state, checked by attn::cli::run); draw_report() hands each figure to the Plotter, which
/// reports a figure it could not draw (attn::report_failure, exit code 1) and goes on; it throws
/// std::invalid_argument only for data whose shape disagrees with its labels.
#pragma once

#include <ostream>
#include <string>

#include "common/apparatus/plot.hpp"
#include "heads.hpp"

namespace ch09 {

/// The head view's sentence unless --sentence gives another: a phrase and its repeat, so both the
/// previous-token and the induction heads have something to do.
inline const std::string kDefaultSentence = "the cat sat. the cat sat.";

/// Everything the program shows, computed once (sections 1-7 and the claims).
struct Report {
  Baselines baselines;              ///< section 1
  HeadView view;                    ///< sections 2 and 3
  Contributions contributions;      ///< section 3
  Roles roles;                      ///< section 4
  std::vector<Ablation> ablations;  ///< section 5
  BankStudy bank;                   ///< section 6
  std::vector<std::string> names;   ///< section 7
  std::vector<Claim> claims;        ///< real_01 .. real_05
  bool quick = false;               ///< the model is a --quick run's: its claims are printed, not judged
};

/// Computes every section on a trained model (about a second). Throws std::invalid_argument for a
/// sentence head_view() refuses (empty or longer than the context) or non-finite scores.
Report make_report(const Corpus& corpus, const Vocabulary& vocab, const Model& model, const std::string& sentence);

/// One claim on one line: "  <statement>: <numbers> (holds)   [tag]". On a --quick run's model
/// (`quick`) a claim that fails reads "(not judged: a --quick run is too short)" instead of
/// "(does NOT hold)": the claims are about the full run.
void print_claim(std::ostream& out, const Claim& claim, bool quick = false);

/// The data and the model: files, entries, characters, vocabulary, shape, training.
void print_data(std::ostream& out, const Corpus& corpus, const Vocabulary& vocab, const Run& run);

/// Sections 1 to 7 with their claims.
void print_report(std::ostream& out, const Report& report, const Run& run);

/// Every figure: the training curve, the head view, the contributions, the roles, the ablations, bank.
void draw_report(attn::Plotter& plots, const Report& report, const Run& run);

}  // namespace ch09
