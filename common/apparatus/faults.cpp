/// \file faults.cpp
/// \brief Reported runtime failures and the divergence rule (see faults.hpp).
#include "common/apparatus/faults.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace app {
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

namespace {

/// The length of the UTF-8 sequence starting at `at` (2 to 4) and its code point, or 0 if the bytes
/// there are not a valid, shortest-form sequence of a code point outside the surrogates.
std::size_t utf8_sequence(const std::string& text, std::size_t at, char32_t& code) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(at);
  const std::size_t length = lead >= 0xF0 && lead <= 0xF4 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 && lead <= 0xDF ? 2 : 0;
  if (length == 0 || at + length > text.size()) return 0;
  code = lead & (0x7F >> length);
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(at + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(at + k) & 0x3F);
  }
  const char32_t least = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000;
  if (code < least || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return length;
}

/// Code points a terminal may act on rather than show: the C1 controls (U+009B is an escape
/// introducer) and the marks that reorder the text around them (bidirectional overrides).
bool acts_on_terminal(char32_t code) {
  return (code >= 0x80 && code <= 0x9F) || code == 0x200E || code == 0x200F || (code >= 0x202A && code <= 0x202E) ||
         (code >= 0x2066 && code <= 0x2069) || code == 0x2028 || code == 0x2029;
}

}  // namespace

std::string one_line(const std::string& message) {
  std::string out;
  char hex[16];
  for (std::size_t at = 0; at < message.size();) {
    const char c = message[at];
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      out += c == '\n' ? std::string("\\n") : c == '\x1b' ? std::string("\\e") : std::string(hex);
      ++at;
    } else if (u < 0x80) {
      out += c;
      ++at;
    } else if (char32_t code = 0; const std::size_t length = utf8_sequence(message, at, code)) {
      if (acts_on_terminal(code)) {
        std::snprintf(hex, sizeof hex, "\\u%04x", static_cast<unsigned>(code));
        out += hex;
      } else {
        out.append(message, at, length);  // a readable character (an accented letter, a CJK one)
      }
      at += length;
    } else {
      std::snprintf(hex, sizeof hex, "\\x%02x", u);  // a byte that is not UTF-8 (0x9B alone: a C1 CSI)
      out += hex;
      ++at;
    }
  }
  constexpr std::size_t kMax = 300;
  if (out.size() > kMax) {
    std::size_t cut = kMax;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
    out = out.substr(0, cut) + "...";
  }
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

}  // namespace app
