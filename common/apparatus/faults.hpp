/// \file faults.hpp
/// \brief Runtime failures a chapter reports and survives (a plot gnuplot could not draw), and
/// training that diverged.
///
/// A chapter carries on past a failed plot, but the program must not then exit 0: report_failure()
/// prints the one-line error at once and counts it, and cli::run() turns a non-zero count into
/// exit code 1 (runtime failure).
///
/// Throws: TrainingDiverged (exit code 1) when the losses break the divergence rule
/// (require_converging, DivergenceWatch::observe), and always from DivergenceWatch::refused;
/// std::invalid_argument for no losses (first_divergence). The others throw nothing (beyond
/// std::bad_alloc).
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace app {

/// Sets the name error lines start with (cli::run sets it to the chapter's executable name).
void set_program_name(const std::string& name);
/// The name error lines start with ("attn" until set).
const std::string& program_name();

/// `message` made one line for stderr: newline and ESC shown as `\\n` and `\\e`, other control
/// bytes and bytes that are not UTF-8 as `\\xHH`, the C1 controls and the bidirectional marks
/// (U+0080 to U+009F, U+202A to U+202E, ...) as `\\uHHHH`; other UTF-8 characters are kept. Cut after
/// 300 bytes (never inside a character) with "..". Every error line goes through it.
std::string one_line(const std::string& message);

/// Prints "<program>: error: <message>" as one line (one_line) on stderr and counts a runtime failure.
void report_failure(const std::string& message);
/// How many runtime failures were reported so far.
int failure_count();

/// Training whose loss became non-finite or grew far past its start (a runtime failure, exit 1).
class TrainingDiverged : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The divergence rule of every training chapter: the loss at a step diverged if it is NaN or
/// infinite, or larger than 10 x max(first loss, 1 nat). The 1-nat floor keeps a run that starts
/// from trained parameters (first loss near 0) from being called diverged over a small bump; a
/// cross-entropy over a vocabulary of V words starts near ln V nats, so 10x is far past any start.
inline constexpr double kDivergenceFactor = 10.0;

/// The index of the first loss in `losses` (at least one) that breaks the divergence rule (against
/// `losses[0]`), or nothing if none does.
std::optional<std::size_t> first_divergence(const std::vector<double>& losses);

/// Checks `losses` (one per `unit`, e.g.\ "step" or "pass", counted from 1) against the divergence
/// rule. A divergence's message names the unit and its number, the loss there, the limit, the
/// learning rate `lr` and suggests a smaller --lr; claims are not evaluated on it.
void require_converging(const std::vector<double>& losses, const std::string& unit, double lr);

/// The divergence rule applied while training runs, one loss at a time, so a run can stop at the
/// first bad step: `observe(step, loss)` fails, worded as require_converging words it, once the
/// loss breaks the rule against the first loss observed.
class DivergenceWatch {
 public:
  /// `lr`: the learning rate the message quotes; `unit`: what a step is called ("step", "pass").
  explicit DivergenceWatch(double lr, std::string unit = "step") : lr_(lr), unit_(std::move(unit)) {}
  /// Records the loss at `step` and checks it against the rule.
  void observe(long long step, double loss);
  /// Turns a non-finite value that a library function refused mid-training (softmax refuses NaN
  /// scores) into a divergence at the last step observed, with `why`.
  [[noreturn]] void refused(const std::string& why) const;

 private:
  double lr_;
  std::string unit_;
  std::optional<double> first_;
  long long last_step_ = 0;
};

}  // namespace app
