/// \file cli.cpp
/// \brief Command lines for the chapter programs (see cli.hpp).
#include "common/apparatus/cli.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <map>
#include <new>
#include <sstream>
#include <system_error>
#include <thread>
#include <typeinfo>
#include <utility>

#include "common/apparatus/faults.hpp"
#include "common/apparatus/files.hpp"
#include "common/apparatus/print.hpp"
#include "common/apparatus/process.hpp"

namespace app::cli {

namespace po = boost::program_options;

namespace {

/// `text` broken at spaces into lines of at most 100 characters, continuation lines indented by 2.
std::string wrap(const std::string& text) {
  std::istringstream words(text);
  std::string out, line;
  for (std::string word; words >> word;) {
    if (!line.empty() && line.size() + 1 + word.size() > 100) {
      out += line + "\n";
      line = "  ";
    }
    line += (line.empty() || line == "  " ? "" : " ") + word;
  }
  return out + line;
}

std::map<std::string, std::string>& typed_values() {
  static std::map<std::string, std::string> values;
  return values;
}

std::string bare(const std::string& flag) { return flag.rfind("--", 0) == 0 ? flag.substr(2) : flag; }

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

/// A reader of standard output that went away (`| head`) ends the program as it ends coreutils:
/// quietly, by SIGPIPE (the cleanup handler removes temporary files first). Returns only if
/// SIGPIPE is ignored (the caller's choice), when the error is reported like any other.
void end_quietly_on_closed_pipe(int saved_errno) {
  if (saved_errno != EPIPE) return;
  struct sigaction now {};
  if (::sigaction(SIGPIPE, nullptr, &now) != 0 || now.sa_handler == SIG_IGN) return;
  sigset_t pipe_only;
  ::sigemptyset(&pipe_only);
  ::sigaddset(&pipe_only, SIGPIPE);
  ::pthread_sigmask(SIG_UNBLOCK, &pipe_only, nullptr);
  ::raise(SIGPIPE);
}

/// A system error as its line says it: a thread that cannot start (its stack is address space
/// too) under a memory or process limit says so.
std::string system_error_text(const std::system_error& e) {
  if (e.code() != std::errc::resource_unavailable_try_again) return e.what();
  return "out of memory or processes: cannot start a thread (" + e.code().message() + "; see ulimit -v and ulimit -u)";
}

std::string stdout_reason(int saved_errno) {
  if (::fcntl(STDOUT_FILENO, F_GETFL) < 0) return "standard output is closed";
  return saved_errno != 0 ? os_reason(saved_errno) : std::string("write error");
}

/// What ends the program when an exception escapes where none may (a destructor, a noexcept
/// function): a std::bad_alloc is still "out of memory", one line and exit 1, with the
/// temporaries removed; anything else aborts as the bug it is.
[[noreturn]] void end_on_escaped_exception() {
  if (const std::exception_ptr escaped = std::current_exception()) {
    try {
      std::rethrow_exception(escaped);
    } catch (const std::bad_alloc&) {
      clean_up_now();
      static constexpr char kLine[] =
          ": error: out of memory (the sizes asked for need more memory than this process may use; try smaller ones)\n";
      const std::string& name = program_name();  // written without allocating: memory is what ran out
      [[maybe_unused]] ssize_t wrote = ::write(STDERR_FILENO, name.data(), name.size());
      wrote = ::write(STDERR_FILENO, kLine, sizeof kLine - 1);
      ::_exit(failure);
    } catch (...) {
    }
  }
  std::abort();
}

}  // namespace

// ---- numbers ------------------------------------------------------------------------------------

double real_value(const std::string& flag, const std::string& text) {
  const Parsed<double> p = parse_number(text);
  if (!p.value) throw UsageError(flag + " " + cli::quoted(text) + " " + p.problem);
  return *p.value;
}

std::vector<std::string> sentence(const po::variables_map& vm, const std::string& name, const std::string& fallback,
                                  const attn::EmbeddingTable& table) {
  const std::string text = vm.count(bare(name)) ? vm[bare(name)].as<std::string>() : fallback;
  try {
    std::vector<std::string> words = attn::split_sentence(text);
    table.lookup(words);  // every word must be in the vocabulary
    return words;
  } catch (const std::invalid_argument& e) {
    throw UsageError(flag_name(name) + ": " + e.what());
  }
}

std::vector<std::string> list(const std::string& flag, const std::string& text) {
  Parsed<std::vector<std::string>> p = split_list(text);
  if (!p.value) throw UsageError(flag + " " + cli::quoted(text) + " " + p.problem);
  return std::move(*p.value);
}

// ---- the command line ---------------------------------------------------------------------------

void add_common_options(po::options_description& options) {
  // clang-format off
  options.add_options()
      ("help,h", "print this help and exit")
      ("plots", po::value<std::string>()->value_name("DIR"),
       "write PNG plots and their .dat data into DIR (default: the repository's plots/)")
      ("no-plots", "print the arithmetic only; draw nothing");
  // clang-format on
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
      throw UsageError("unexpected positional argument " +
                       cli::quoted(vm["attn-stray"].as<std::vector<std::string>>()[0]) +
                       " (every value follows its --flag)");
    }
    if (vm.count("help")) {
      std::cout << wrap(info.name + " - " + info.summary) << "\n\n"
                << wrap("Follows the article: " + info.article) << "\n\n"
                << options << "\nExamples:\n"
                << info.examples << "\n";
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

double positive_real(const po::variables_map& vm, const std::string& name, double hi) {
  const std::string flag = flag_name(name);
  const double v = finite(flag, vm[bare(name)].as<double>());
  if (!(v > 0 && v <= hi))
    throw UsageError(flag + " must be in (0, " + app::format_plain(hi) + "], got " + as_typed(flag, v));
  return v;
}

long long integer(const po::variables_map& vm, const std::string& name, long long lo, long long hi) {
  const std::string flag = flag_name(name);
  const po::variable_value& value = vm[bare(name)];
  long long v = 0;
  if (const int* i = boost::any_cast<int>(&value.value()))
    v = *i;
  else
    v = value.as<long long>();
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
  throw UsageError(flag_name(name) + " " + cli::quoted(v) +
                   " is not one of: " + fmt::format("{}", fmt::join(allowed, ", ")));
}

std::set<std::string> typed(const po::variables_map& vm) {
  std::set<std::string> names;
  for (const auto& [name, value] : vm)
    if (!value.defaulted()) names.insert(name);
  return names;
}

std::optional<std::filesystem::path> path(const po::variables_map& vm, const std::string& name) {
  if (!vm.count(bare(name))) return std::nullopt;
  const std::string v = vm[bare(name)].as<std::string>();
  if (v.empty()) throw UsageError(flag_name(name) + " needs a non-empty path");
  if (v.front() == '-') {
    throw UsageError(flag_name(name) + " " + cli::quoted(v) + " looks like a flag, not a path (write ./" +
                     printable(v) + " for a file named so)");
  }
  return std::filesystem::path(v);
}

// ---- running a chapter ----------------------------------------------------------------------------

int run(const std::string& program, const std::function<int()>& body, const std::vector<std::string>& args) {
  exec_without_blas_thread_pool(args);  // first: OpenBLAS's pool would hang under a memory limit
  set_program_name(program);
  // Closed standard descriptors get /dev/null first: no later file (a plot's data) takes their number.
  const int closed = reserve_standard_descriptors();
  install_cleanup_handlers();
  std::set_terminate(end_on_escaped_exception);
  std::cout.exceptions(std::ios::badbit);  // the first failed write to stdout stops the chapter
  // ... but not at exit, whose flush must not throw (std::terminate) on unwritable output.
  struct QuietAtExit {
    ~QuietAtExit() {
      std::cout.exceptions(std::ios::goodbit);
      std::cout.clear();
    }
  } quiet_at_exit;
  const auto say = [&](const std::string& message, bool usage_hint) {
    // std::cerr flushes std::cout first (tie); a failing stdout must not throw out of here.
    std::cout.exceptions(std::ios::goodbit);
    std::cerr << program << ": error: " << one_line(message) << (usage_hint ? " (see --help)" : "") << "\n";
  };
  if (closed & 2) {  // nothing can be shown: do no work at all
    say("cannot write standard output: standard output is closed", false);
    return failure;
  }
  int code = ok;
  try {
    reserve_blas_buffers(std::thread::hardware_concurrency());  // before any work: a trainer's threads
    code = call_with_large_stack(body);                         // a small ulimit -s would crash the BLAS kernels
    std::cout.flush();
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw std::ios_base::failure("stdout");
  } catch (const std::ios_base::failure& e) {
    const int saved = errno;
    end_quietly_on_closed_pipe(saved);
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
  } catch (const std::bad_alloc&) {
    say("out of memory (the sizes asked for need more memory than this process may use; try smaller ones)", false);
    return failure;
  } catch (const std::exception& e) {
    const auto* system = dynamic_cast<const std::system_error*>(&e);
    say(system != nullptr ? system_error_text(*system) : e.what(), false);
    return failure;
  }
  if (code == ok && failure_count() > 0) code = failure;
  return code;
}

}  // namespace app::cli
