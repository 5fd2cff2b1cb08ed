/// \file chapters/05_training/modes.hpp
/// \brief Chapter 05's program modes and the rules of their flags, kept apart from the command-line
/// library: main.cpp reads the flags and turns each problem found here into a usage error (exit 2).
///
/// The program trains (the article's sections), steps through one update (--walkthrough, the
/// article's widget in "Follow one sentence through training") or times the training (--bench).
/// Throws: nothing beyond std::bad_alloc (follow_list reports a refusal in its result).
/// Sources: the article, "Follow one sentence through training" (its widget).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/apparatus/numbers.hpp"

namespace ch05 {

/// What the program does: train (the article's sections), step through one update, or time steps.
enum class Mode { train, walkthrough, bench };

/// The mode the flags choose: --walkthrough, --bench or neither (both: walkthrough, and
/// mode_problem() refuses the pair).
Mode mode_of(bool walkthrough, bool bench);

/// The first flag that `mode` does not use, as the usage error says it ("--walkthrough and --bench
/// are separate modes", "--init applies to
/// training, not to --walkthrough", "--updates, --sentence, --follow and --pause need
/// --walkthrough", ..), or "" if there is none. `given(name)`: the flag `--name` was typed (not a
/// default).
std::string mode_problem(Mode mode, const std::function<bool(const std::string&)>& given);

/// The largest update number --follow accepts: 1 + the largest --updates.
inline constexpr long long kLastFollowed = 100001;

/// --follow's list: update numbers 1 . kLastFollowed, ascending, separated by commas by the list
/// rule ("1,2", "1, 2", "21"). A refusal is Parsed::problem, the whole message naming the flag and
/// the entry.
app::Parsed<std::vector<int>> follow_list(const std::string& text);

}  // namespace ch05
