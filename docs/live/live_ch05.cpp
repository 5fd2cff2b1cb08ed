/// \file live_ch05.cpp
/// \brief Chapter 05's training step-through: ch05::run_walk (the two-coordinate model, SGD) with
/// every stage as the chapter prints it (ch05::print_walk) and the numbers to draw.
#include <emscripten/bind.h>

#include <sstream>
#include <string>
#include <vector>

#include "chapters/05_training/report.hpp"
#include "chapters/05_training/training.hpp"
#include "docs/live/convert.hpp"

namespace {

/// One parameter group as rows: E (4 x 2), Wq, Wk, Wv, Wc (2 x 2), bc (1 x 2).
live::val parameters(const attn::OneHeadModel& m) {
  live::val out = live::val::object();
  out.set("E", live::rows(m.E));
  out.set("Wq", live::rows(m.Wq));
  out.set("Wk", live::rows(m.Wk));
  out.set("Wv", live::rows(m.Wv));
  out.set("Wc", live::rows(m.Wc));
  out.set("bc", live::rows(m.bc));
  return out;
}

/// Update number `done + 1` of the step-through whose first update is on sentence `first` (0: the
/// river bank, 1: the money bank), after `done` updates from walkthrough_model(seed) with SGD at
/// `lr`: what `ch05_training --walkthrough --sentence S --updates done --follow done+1` prints,
/// split into its eight stages (stages: 8 texts, the header first in `intro`), and the numbers
/// drawn: the sentence, A, H's last row, probabilities, loss, and the parameters before and after.
live::val step(int first, int done, double seed, double lr) {
  return live::guarded([&] {
    ch05::WalkSettings settings;
    settings.seed = static_cast<std::uint64_t>(seed);
    settings.lr = lr;
    settings.first = static_cast<std::size_t>(first);
    settings.updates = done;
    settings.follow = {done + 1};
    const ch05::Walk walk = ch05::run_walk(settings);
    std::ostringstream text;
    ch05::print_walk(text, walk, {});
    const ch05::WalkUpdate& u = walk.followed.front();
    live::val out = live::val::object();
    out.set("text", text.str());
    out.set("number", u.number);
    out.set("words", live::strings(u.example.words));
    out.set("A", live::rows(u.pass.A));
    out.set("X", live::rows(u.pass.X));
    out.set("H", live::rows(u.pass.H));
    out.set("probabilities", live::numbers(u.pass.probs));
    out.set("loss", u.pass.loss);
    out.set("before", parameters(u.before));
    out.set("after", parameters(u.after));
    return out;
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(ch05) { emscripten::function("ch05_step", &step); }
