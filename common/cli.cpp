/// \file cli.cpp
/// \brief Command lines for the chapter programs (see cli.hpp).
#include "common/cli.hpp"

#include <cmath>
#include <iostream>
#include <sstream>

namespace attn::cli {

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

}  // namespace

void add_common_options(po::options_description& options) {
  options.add_options()
      ("help,h", "print this help and exit")
      ("plots", po::value<std::string>()->value_name("DIR"),
       "write PNG plots and their .dat data into DIR (default: the repository's plots/)")
      ("no-plots", "print the arithmetic only; draw nothing");
}

bool parse(int argc, const char* const argv[], const po::options_description& options, const ProgramInfo& info,
           po::variables_map& vm) {
  try {
    po::store(po::command_line_parser(argc, argv).options(options).positional({}).run(), vm);
    if (vm.count("help")) {
      std::cout << wrap(info.name + " - " + info.summary) << "\n\n" << wrap("Follows the article: " + info.article) << "\n\n"
                << options << "\nExamples:\n" << info.examples << "\n";
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  return true;
}

PlotSettings plot_settings(const po::variables_map& vm) {
  PlotSettings settings;
  settings.enabled = vm.count("no-plots") == 0;
  if (vm.count("plots")) {
    if (!settings.enabled) throw UsageError("--plots and --no-plots contradict each other");
    settings.folder = vm["plots"].as<std::string>();
    if (settings.folder->empty()) throw UsageError("--plots needs a folder name");
  }
  return settings;
}

double finite(const std::string& flag, double value) {
  if (!std::isfinite(value)) throw UsageError(flag + " must be a finite number");
  return value;
}

double bounded(const std::string& flag, double value, double limit) {
  if (!std::isfinite(value) || std::abs(value) > limit) {
    std::ostringstream message;
    message << flag << " must be a finite number between " << -limit << " and " << limit;
    if (std::isfinite(value)) message << " (got " << quoted_number(value) << ")";
    throw UsageError(message.str());
  }
  return value;
}

std::string quoted_number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

std::string printable(const std::string& text, std::size_t max_chars) {
  std::string out;
  for (std::size_t k = 0; k < text.size() && k < max_chars; ++k) {
    const auto c = static_cast<unsigned char>(text[k]);
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  return text.size() > max_chars ? out + "..." : out;
}

int run(const std::string& program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::cerr << program << ": error: " << e.what() << " (see --help)\n";
  } catch (const std::invalid_argument& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
  } catch (const PlotFolderError& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return failure;
  }
  return usage;
}

}  // namespace attn::cli
