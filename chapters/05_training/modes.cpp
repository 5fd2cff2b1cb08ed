/// \file chapters/05_training/modes.cpp
/// \brief The modes' flag rules (see modes.hpp).
#include "modes.hpp"

#include "common/attention/checks.hpp"

namespace ch05 {

Mode mode_of(bool walkthrough, bool bench) {
  return walkthrough ? Mode::walkthrough : bench ? Mode::bench : Mode::train;
}

std::string mode_problem(Mode mode, const std::function<bool(const std::string&)>& given) {
  const bool walk = mode == Mode::walkthrough, bench = mode == Mode::bench;
  if (walk && given("bench")) return "--walkthrough and --bench are separate modes";
  for (const std::string flag : {"init", "save", "loss-log", "no-companions"}) {
    if ((bench || (walk && flag != "save")) && given(flag)) {
      return "--" + flag + " applies to training, not to --" + (walk ? "walkthrough" : "bench");
    }
  }
  if (walk && given("passes")) return "--passes applies to training and --bench; the walkthrough counts --updates";
  if (bench && given("plots")) return "--bench draws no plots, so --plots has nothing to write";
  for (const std::string flag : {"updates", "pause", "sentence", "follow"}) {
    if (!walk && given(flag)) return "--updates, --sentence, --follow and --pause need --walkthrough";
  }
  return "";
}

app::Parsed<std::vector<int>> follow_list(const std::string& text) {
  app::Parsed<std::vector<std::string>> items = app::split_list(text);  // the list rule: "1, 2" too
  if (!items.value) return {.value = std::nullopt, .problem = "--follow " + attn::quoted(text) + " " + items.problem};
  std::vector<int> numbers;
  for (const std::string& item : *items.value) {
    const app::Parsed<long long> k = app::parse_integer(item, 1, kLastFollowed);
    if (!k.value || (!numbers.empty() && *k.value <= numbers.back())) {
      return {.value = std::nullopt,
              .problem = "--follow " + attn::quoted(text) + ": " + attn::quoted(item) +
                         " is not an update number in 1.." + std::to_string(kLastFollowed) +
                         " after the previous one (ascending, separated by commas)"};
    }
    numbers.push_back(static_cast<int>(*k.value));
  }
  return {.value = std::move(numbers), .problem = ""};
}

}  // namespace ch05
