/// \file faults.cpp
/// \brief Reported runtime failures and the divergence rule (see faults.hpp).
#include "common/apparatus/faults.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace attn {
namespace {

std::string& name_storage() {
  static std::string name = "attn";
  return name;
}
std::atomic<int> g_failures{0};

std::string nats(double x) {
  std::ostringstream out;
  out.precision(4);
  out << x;
  return out.str();
}

}  // namespace

void set_program_name(const std::string& name) { name_storage() = name; }
const std::string& program_name() { return name_storage(); }

std::string one_line(const std::string& message) {
  std::string out;
  for (char c : message) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      out += c == '\n' ? std::string("\\n") : c == '\x1b' ? std::string("\\e") : std::string(hex);
    } else {
      out += c;
    }
  }
  constexpr std::size_t kMax = 300;
  if (out.size() > kMax) out = out.substr(0, kMax) + "...";
  return out;
}

void report_failure(const std::string& message) {
  ++g_failures;
  std::cerr << program_name() << ": error: " << one_line(message) << std::endl;
}

int failure_count() { return g_failures.load(); }

std::optional<std::size_t> first_divergence(const std::vector<double>& losses) {
  if (losses.empty()) throw std::invalid_argument("first_divergence: no losses");
  const double limit = kDivergenceFactor * std::max(losses.front(), 1.0);
  for (std::size_t k = 0; k < losses.size(); ++k) {
    if (!std::isfinite(losses[k]) || losses[k] > limit) return k;
  }
  return std::nullopt;
}

namespace {

[[noreturn]] void diverged(const std::string& unit, long long at, long long of, double loss, double first, double lr) {
  std::ostringstream message;
  message << "training diverged at " << unit << " " << at;
  if (of > 0) message << " of " << of;
  message << ": the loss is " << nats(loss) << " nats";
  if (std::isfinite(loss)) {
    message << ", past the limit of " << nats(kDivergenceFactor * std::max(first, 1.0)) << " (10 x max(first loss "
            << nats(first) << ", 1))";
  }
  message << "; try a smaller --lr (this run: " << nats(lr) << "); no results are reported for it";
  throw TrainingDiverged(message.str());
}

}  // namespace

void require_converging(const std::vector<double>& losses, const std::string& unit, double lr) {
  const auto bad = first_divergence(losses);
  if (!bad) return;
  diverged(unit, static_cast<long long>(*bad) + 1, static_cast<long long>(losses.size()), losses[*bad], losses.front(),
           lr);
}

void DivergenceWatch::observe(long long step, double loss) {
  if (!first_) first_ = loss;
  last_step_ = step;
  if (!std::isfinite(loss) || loss > kDivergenceFactor * std::max(*first_, 1.0)) {
    diverged(unit_, step, 0, loss, std::isfinite(*first_) ? *first_ : loss, lr_);
  }
}

void DivergenceWatch::refused(const std::string& why) const {
  std::ostringstream message;
  message << "training diverged after " << unit_ << " " << last_step_ << " (" << why
          << "); try a smaller --lr (this run: " << nats(lr_) << "); no results are reported for it";
  throw TrainingDiverged(message.str());
}

}  // namespace attn
