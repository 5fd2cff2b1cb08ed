/// \file chapters/09_real_heads/compare_session.hpp
/// \brief The program's `--compare A B` mode: its two sentences checked as the flags were typed,
/// then a model loaded (--load, --cached) or trained, and the comparison printed and drawn.
///
/// Part of the program (compiled into ch09_real_heads beside main.cpp, not into the lesson), like
/// session.hpp: an unusable value throws FlagError naming the flag (usage error, exit code 2).
/// Source: the article, "Watch real heads" (compare two uses of bank in your own sentences).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/apparatus/plot.hpp"
#include "compare.hpp"
#include "session.hpp"

namespace ch09 {

/// What `--help` says of --compare.
inline const char* const kCompareHelp =
    "compare two sentences' streams at a marked position after the embedding and each layer, centred and "
    "against held-out controls, instead of the report. Brackets mark the span read at its last character: "
    "--compare \"the river [bank]\" \"the money [bank]\"; without them, the last word both sentences share";

/// The --compare flag's value: absent, or the two marked sentences.
using CompareFlag = std::optional<MarkedPair>;

/// --compare's two values in the marker syntax of mark_pair(), for this chapter's model (its
/// context of TrainOptions{}.shape.context characters, loaded or trained); `typed` holds the flags
/// given. Throws FlagError for other than two values, a value that starts with "--" (a flag typed
/// where a sentence should be), an unusable sentence (mark_pair()'s reason), or a flag given beside
/// it that the mode would ignore: --sentence, --position, --bench.
MarkedPair compare_flag(const std::vector<std::string>& values, const std::set<std::string>& typed);

/// The --compare mode: the model from `folders` (loaded, or trained with `options` on the corpus in
/// `corpus_folder` and saved when asked), then compare() printed on standard output and drawn with
/// `plots`; a --quick run's model (is_quick()) adds its note. Throws FlagError for a folder
/// load_run() refuses or weights that overflow; training's own failures as train_or_explain() does.
/// Returns exit code 0.
int run_compare(const MarkedPair& pair, const ModelFolders& folders, const std::optional<std::string>& corpus_folder,
                const TrainOptions& options, const attn::PlotSettings& plots);

}  // namespace ch09
