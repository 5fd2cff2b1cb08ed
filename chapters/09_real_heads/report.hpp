/// \file chapters/09_real_heads/report.hpp
/// \brief Chapter 09 printers: each takes a section's result (study.hpp, lab.hpp) and computes nothing.
///
/// Throws: nothing beyond std::bad_alloc, given results of study.hpp and lab.hpp (stream errors are
/// the stream's state, checked by app::cli::run).
/// Sources: the article, "Watch real heads" (the printed sections follow its questions in order).
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "study.hpp"

namespace ch09 {

/// One claim, wrapped: "  <statement>: <numbers> (holds)   [tag]". On a --quick run's model
/// (`quick`) a claim that fails reads "(not judged: a --quick run is too short)" instead of
/// "(does NOT hold)": the claims are about the full run.
void print_claim(std::ostream& out, const app::ClaimCheck& claim, bool quick = false);

/// The chapter's title line, then why a --cached run is trained again (`stale`, when not empty),
/// then "Loaded the model saved in DIR." when `loaded` names the folder read, else the line said
/// before training starts.
void print_start(std::ostream& out, const std::optional<std::string>& loaded, const std::string& stale = "");

/// One progress report of training (the program sends it to stderr): a line of its own, or with
/// `one_line` (a terminal) the same line rewritten, ended at the last step.
void print_progress(std::ostream& out, const Progress& progress, bool one_line = false);

/// The note after a --quick run: too short for the induction head, and how to train the full run.
void print_quick_note(std::ostream& out);

/// The data and the model: files, entries, characters, vocabulary, shape, training.
void print_data(std::ostream& out, const Corpus& corpus, const Vocabulary& vocab, const Run& run);

/// Sections 1 to 7 with their claims.
void print_report(std::ostream& out, const Report& report, const Run& run);

/// The wall time of training; `loaded`: the run was read back, so the time is the saved run's.
void print_wall_time(std::ostream& out, const Run& run, bool loaded);

/// --bench: "ch09 model step: X ms (N steps, batch B x T, K threads, float)".
void print_step_timing(std::ostream& out, const StepTiming& timing);

// --compare A B (compare.hpp's Comparison): the two marked sentences, where every head reads at
// the marked positions side by side, and the readings compared stage by stage against their controls.

/// `m`'s sentence with its span in brackets, a newline shown as "\\n" and any other unprintable byte
/// as '?', cut to at most `width` characters around the span ("..." where cut; `width` >= 12).
std::string shown(const Marked& m, std::size_t width);

/// The comparison: the sentences and positions, the heads side by side, the table of cosines
/// (raw and centred, with the controls' lowest, mean and highest) and what each stage's rank says.
void print_comparison(std::ostream& out, const Comparison& c);

}  // namespace ch09
