/// \file cli.cpp
/// \brief Command lines for the chapter programs (see cli.hpp).
#include "common/cli.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <sstream>
#include <typeinfo>

#include "common/faults.hpp"
#include "common/files.hpp"

namespace attn::cli {

namespace po = boost::program_options;

namespace {

std::map<std::string, std::string>& typed_values() {
  static std::map<std::string, std::string> values;
  return values;
}

std::string bare(const std::string& flag) { return flag.rfind("--", 0) == 0 ? flag.substr(2) : flag; }

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// The syntax of the number rule: sign, digits with at most one point, exponent. Returns a reason
/// if `text` does not follow it.
std::string syntax_problem(std::string_view text, bool whole) {
  std::size_t i = 0;
  if (text.empty()) return "is empty, not a number";
  if (text[i] == '+' || text[i] == '-') ++i;
  const std::string_view body = text.substr(i);
  std::string lower;
  for (char c : body) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "inf" || lower == "infinity" || lower == "nan") return "is not a finite number";
  if (lower.rfind("0x", 0) == 0) return "is hexadecimal; write numbers in decimal";
  std::size_t digits = 0, points = 0;
  for (; i < text.size() && (is_digit(text[i]) || text[i] == '.'); ++i) {
    if (text[i] == '.') ++points;
    else ++digits;
  }
  if (digits == 0 || points > 1) return "is not a number";
  if (whole && points > 0) return "is not a whole number";
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    if (whole) return "is not a whole number (no exponent)";
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    std::size_t exp_digits = 0;
    for (; i < text.size() && is_digit(text[i]); ++i) ++exp_digits;
    if (exp_digits == 0) return "is not a number";
  }
  if (i != text.size()) return "is not a number";
  return {};
}

/// How parse() checks one numeric option: a real or a whole number of some range.
struct NumericKind {
  bool real = false;
  long long lo = 0, hi = 0;
  bool is_unsigned_64 = false;
};

std::optional<NumericKind> numeric_kind(const std::type_info& t) {
  if (t == typeid(double) || t == typeid(float)) return NumericKind{true, 0, 0, false};
  if (t == typeid(int)) return NumericKind{false, INT_MIN, INT_MAX, false};
  if (t == typeid(long)) return NumericKind{false, LONG_MIN, LONG_MAX, false};
  if (t == typeid(long long)) return NumericKind{false, LLONG_MIN, LLONG_MAX, false};
  if (t == typeid(unsigned)) return NumericKind{false, 0, UINT_MAX, false};
  if (t == typeid(unsigned long) || t == typeid(unsigned long long)) return NumericKind{false, 0, LLONG_MAX, true};
  return std::nullopt;
}

/// The number rule applied to every numeric option of a parsed command line, in place: the
/// value becomes a canonical text that Boost's own conversion reads exactly.
void check_numbers(po::parsed_options& parsed, const po::options_description& options) {
  for (po::option& o : parsed.options) {
    if (o.unregistered || o.value.empty()) continue;
    const po::option_description* d = options.find_nothrow(o.string_key, false);
    if (d == nullptr) continue;
    const auto* typed = dynamic_cast<const po::typed_value_base*>(d->semantic().get());
    if (typed == nullptr) continue;
    const auto kind = numeric_kind(typed->value_type());
    if (!kind) continue;
    for (std::string& text : o.value) {
      const std::string flag = "--" + o.string_key;
      if (kind->real) {
        const Parsed<double> p = parse_number(text);
        if (!p.value) throw UsageError(flag + " " + cli::quoted(text) + " " + p.problem);
        typed_values()[o.string_key] = text;
        text = quoted_number(*p.value);
      } else {
        const Parsed<long long> p = parse_integer(text, kind->lo, kind->hi);
        if (!p.value) throw UsageError(flag + " " + cli::quoted(text) + " " + p.problem);
        typed_values()[o.string_key] = text;
        text = std::to_string(*p.value);
      }
    }
  }
}

std::string flag_name(const std::string& name) { return "--" + bare(name); }

/// Control bytes escaped, length capped: what run() prints of any message.
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

std::string stdout_reason(int saved_errno) {
  if (::fcntl(STDOUT_FILENO, F_GETFL) < 0) return "standard output is closed";
  return saved_errno != 0 ? os_reason(saved_errno) : std::string("write error");
}

}  // namespace

// ---- quoting ------------------------------------------------------------------------------------

std::string printable(const std::string& text, std::size_t max_chars) {
  std::string out;
  for (std::size_t k = 0; k < text.size(); ++k) {
    if (out.size() >= max_chars) {
      return out + "... (" + std::to_string(text.size()) + " bytes)";
    }
    const auto c = static_cast<unsigned char>(text[k]);
    switch (c) {
      case 0x1b: out += "\\e"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\\': out += "\\\\"; break;
      default:
        if (c >= 0x20 && c < 0x7f) {
          out += static_cast<char>(c);
        } else {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\x%02x", c);
          out += hex;
        }
    }
  }
  return out;
}

std::string quoted(const std::string& text) {
  std::string out(1, '\'');
  out.append(printable(text)).push_back('\'');
  return out;
}

std::string quoted_number(double value) {
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  if (ec != std::errc()) return "?";
  return std::string(buffer, end);
}

// ---- numbers ------------------------------------------------------------------------------------

Parsed<double> parse_number(std::string_view text) {
  if (std::string why = syntax_problem(text, false); !why.empty()) return {std::nullopt, why};
  // The syntax is plain decimal now, so strtod (C locale) reads exactly what from_chars would, and
  // tells overflow (HUGE_VAL) from underflow (0 or a subnormal) through ERANGE.
  const std::string copy(text);
  errno = 0;
  char* end = nullptr;
  const double x = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return {std::nullopt, "is not a number"};
  if (errno == ERANGE) {
    if (std::isinf(x)) return {std::nullopt, "is out of range (beyond the largest double, about 1.8e308)"};
    if (x == 0.0) {
      bool nonzero = false;
      for (char c : copy) {
        if (c == 'e' || c == 'E') break;
        nonzero = nonzero || (c >= '1' && c <= '9');
      }
      if (nonzero) return {std::nullopt, "is out of range (too close to 0: it would round to 0)"};
    }
    // a subnormal: an exact double, accepted
  }
  return {x, {}};
}

Parsed<long long> parse_integer(std::string_view text, long long lo, long long hi) {
  if (std::string why = syntax_problem(text, true); !why.empty()) return {std::nullopt, why};
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  long long v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && (v < lo || v > hi))) {
    return {std::nullopt, "is out of range (" + std::to_string(lo) + " to " + std::to_string(hi) + ")"};
  }
  if (ec != std::errc() || end != digits.data() + digits.size()) return {std::nullopt, "is not a whole number"};
  return {v, {}};
}

double real_value(const std::string& flag, const std::string& text) {
  const Parsed<double> p = parse_number(text);
  if (!p.value) throw UsageError(flag + " " + cli::quoted(text) + " " + p.problem);
  return *p.value;
}

// ---- the command line ---------------------------------------------------------------------------

void add_common_options(po::options_description& options) {
  options.add_options()
      ("help,h", "print this help and exit")
      ("plots", po::value<std::string>()->value_name("DIR"),
       "write PNG plots and their .dat data into DIR (default: the repository's plots/)")
      ("no-plots", "print the arithmetic only; draw nothing");
}

bool parse(int argc, const char* const argv[], const po::options_description& options, const ProgramInfo& info,
           po::variables_map& vm) {
  typed_values().clear();
  // Stray words are collected into a hidden option so the error can quote the first one.
  po::options_description all;
  all.add(options);
  all.add_options()("attn-stray", po::value<std::vector<std::string>>());
  po::positional_options_description stray;
  stray.add("attn-stray", -1);
  try {
    po::parsed_options parsed = po::command_line_parser(argc, argv).options(all).positional(stray).run();
    check_numbers(parsed, all);
    po::store(parsed, vm);
    if (vm.count("attn-stray")) {
      throw UsageError("unexpected positional argument " + cli::quoted(vm["attn-stray"].as<std::vector<std::string>>()[0]) +
                       " (every value follows its --flag)");
    }
    if (vm.count("help")) {
      std::cout << info.name << " - " << info.summary << "\n\nFollows the article: " << info.article << "\n\n"
                << options << "\nExamples:\n" << info.examples << "\n";
      return false;
    }
    po::notify(vm);
  } catch (const po::unknown_option& e) {
    throw UsageError("unknown flag " + cli::quoted(e.get_option_name()));
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  return true;
}

std::optional<std::string> typed_text(const std::string& flag) {
  const auto it = typed_values().find(bare(flag));
  if (it == typed_values().end()) return std::nullopt;
  return it->second;
}

std::string as_typed(const std::string& flag, double value) {
  const auto text = typed_text(flag);
  return text ? cli::quoted(*text) : quoted_number(value);
}

PlotSettings plot_settings(const po::variables_map& vm) {
  PlotSettings settings;
  settings.enabled = vm.count("no-plots") == 0;
  if (vm.count("plots")) {
    settings.folder = vm["plots"].as<std::string>();
    if (settings.folder->empty()) throw UsageError("--plots needs a folder name");
    if (settings.folder->front() == '-') {
      throw UsageError("--plots " + cli::quoted(*settings.folder) +
                       " looks like a flag, not a folder (for a folder named so, write ./" +
                       printable(*settings.folder) + ")");
    }
    if (!settings.enabled) throw UsageError("--plots and --no-plots contradict each other");
  }
  if (const char* env = std::getenv("ATTN_GNUPLOT_TIMEOUT"); env != nullptr) {
    const Parsed<double> p = parse_number(env);
    if (!p.value) throw UsageError("ATTN_GNUPLOT_TIMEOUT " + cli::quoted(env) + " " + p.problem);
    if (!(*p.value >= 0.1 && *p.value <= 3600)) {
      throw UsageError("ATTN_GNUPLOT_TIMEOUT must be between 0.1 and 3600 seconds (got " + cli::quoted(env) + ")");
    }
    settings.timeout = std::chrono::milliseconds(static_cast<long long>(std::llround(*p.value * 1000)));
  }
  return settings;
}

// ---- flag readers -------------------------------------------------------------------------------

double finite(const std::string& flag, double value) {
  if (!std::isfinite(value)) throw UsageError(flag + " must be a finite number (got " + as_typed(flag, value) + ")");
  return value;
}

double bounded(const std::string& flag, double value, double limit) {
  if (!std::isfinite(value) || std::abs(value) > limit) {
    std::ostringstream message;
    message << flag << " must be a finite number between " << -limit << " and " << limit << " (got "
            << as_typed(flag, value) << ")";
    throw UsageError(message.str());
  }
  return value;
}

double real(const po::variables_map& vm, const std::string& name, double lo, double hi) {
  const std::string flag = flag_name(name);
  const double v = finite(flag, vm[bare(name)].as<double>());
  if (v < lo || v > hi) {
    throw UsageError(flag + " must be between " + quoted_number(lo) + " and " + quoted_number(hi) + " (got " +
                     as_typed(flag, v) + ")");
  }
  return v;
}

long long integer(const po::variables_map& vm, const std::string& name, long long lo, long long hi) {
  const std::string flag = flag_name(name);
  const po::variable_value& value = vm[bare(name)];
  long long v = 0;
  if (const int* i = boost::any_cast<int>(&value.value())) v = *i;
  else v = value.as<long long>();
  if (v < lo || v > hi) {
    const auto text = typed_text(flag);
    throw UsageError(flag + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) + " (got " +
                     (text ? cli::quoted(*text) : std::to_string(v)) + ")");
  }
  return v;
}

std::uint64_t seed(const po::variables_map& vm, const std::string& name, std::uint64_t max) {
  return static_cast<std::uint64_t>(integer(vm, name, 0, static_cast<long long>(max)));
}

std::string choice(const po::variables_map& vm, const std::string& name, const std::vector<std::string>& allowed) {
  const std::string v = vm[bare(name)].as<std::string>();
  for (const std::string& a : allowed) {
    if (v == a) return v;
  }
  std::string list;
  for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
  throw UsageError(flag_name(name) + " " + cli::quoted(v) + " is not one of: " + list);
}

std::optional<std::filesystem::path> path(const po::variables_map& vm, const std::string& name) {
  if (!vm.count(bare(name))) return std::nullopt;
  const std::string v = vm[bare(name)].as<std::string>();
  if (v.empty()) throw UsageError(flag_name(name) + " needs a non-empty path");
  if (v.front() == '-') {
    throw UsageError(flag_name(name) + " " + cli::quoted(v) + " looks like a flag, not a path (write ./" + printable(v) +
                     " for a file named so)");
  }
  return std::filesystem::path(v);
}

// ---- running a chapter ----------------------------------------------------------------------------

int run(const std::string& program, const std::function<int()>& body) {
  set_program_name(program);
  install_cleanup_handlers();
  std::cout.exceptions(std::ios::badbit);  // the first failed write to stdout stops the chapter
  const auto say = [&](const std::string& message, bool usage_hint) {
    std::cerr << program << ": error: " << one_line(message) << (usage_hint ? " (see --help)" : "") << "\n";
  };
  int code = ok;
  try {
    code = body();
    std::cout.flush();
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw std::ios_base::failure("stdout");
  } catch (const std::ios_base::failure& e) {
    const int saved = errno;
    if (!std::cout.good() || std::ferror(stdout)) {
      std::cout.exceptions(std::ios::goodbit);
      say("cannot write standard output: " + stdout_reason(saved), false);
    } else {
      say(e.what(), false);
    }
    return failure;
  } catch (const UsageError& e) {
    say(e.what(), true);
    return usage;
  } catch (const std::invalid_argument& e) {
    say(e.what(), false);
    return usage;
  } catch (const PlotFolderError& e) {
    say(e.what(), false);
    return usage;
  } catch (const std::exception& e) {
    say(e.what(), false);
    return failure;
  }
  if (code == ok && failure_count() > 0) code = failure;
  return code;
}

}  // namespace attn::cli
