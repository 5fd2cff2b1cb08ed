/// \file plot.cpp
/// \brief Plots through gnuplot, started directly with a time limit, and Graphviz diagrams (see
/// plot.hpp). The charts' commands are built in plot_charts.cpp, their phone layout in plot_layout.cpp.
#include <armadillo>  // before gnuplot-iostream.h, which enables its Armadillo support only then

#include "common/apparatus/plot.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <gnuplot-iostream.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

#include "attn/config.hpp"
#include "common/apparatus/faults.hpp"
#include "common/apparatus/files.hpp"
#include "common/apparatus/print.hpp"
#include "common/apparatus/process.hpp"
#include "common/attention/checks.hpp"

namespace app {

using attn::printable;
using attn::quoted;
namespace {

namespace fs = std::filesystem;

std::optional<fs::path> find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::istringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const fs::path candidate = fs::absolute(fs::path(dir) / program);
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate;
  }
  return std::nullopt;
}

bool safe_name(const std::string& name) {
  if (name.empty() || name.front() == '.') return false;
  for (char c : name) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

/// Text of gnuplot's or another program's message, made safe to echo in one error line.
std::string cli_safe(const std::string& text) { return printable(text, 200); }

/// The largest PNG gnuplot may send back (a 960 x 600 figure is well under 1 MiB).
constexpr std::size_t kMaxPngBytes = std::size_t{32} << 20;

/// How one gnuplot run went: the process's end, and whether every command reached it.
struct GnuplotRun {
  ProcessResult process;
  bool sent_all = false;
};

/// Runs gnuplot in `folder` and streams `commands` into its standard input through a
/// gnuplot-iostream Gnuplot object wrapped around the pipe. `-d` skips every init file, so a
/// reader's ~/.gnuplot neither runs commands nor restyles the figures. Each chunk is written only
/// when the pipe has room for it (ChildProcess::wait_writable), so a gnuplot that stops reading
/// costs at most the time limit; SIGPIPE from a gnuplot that exited early is held back.
GnuplotRun run_gnuplot(const fs::path& gnuplot, const std::string& commands, const fs::path& folder,
                       std::chrono::milliseconds limit) {
  GnuplotRun run;
  ChildProcess child(gnuplot, {"gnuplot", "-d"}, folder, limit, kMaxPngBytes);
  if (child.started()) {
    // A duplicate of the pipe's write end for the Gnuplot object, which fcloses it when destroyed.
    const int fd = ::fcntl(child.input_fd(), F_DUPFD_CLOEXEC, 3);
    std::FILE* pipe = fd >= 0 ? ::fdopen(fd, "w") : nullptr;
    if (pipe == nullptr && fd >= 0) ::close(fd);
    if (pipe != nullptr) {
      const SigpipeGuard guard;
      Gnuplot gp(pipe);
      // 1024 bytes fit both the stream's 4096-byte buffer and PIPE_BUF: each flush is one write
      // that a pipe with room (POLLOUT) takes whole, so the non-blocking write never comes short.
      constexpr std::size_t kChunk = 1024;
      std::size_t done = 0;
      while (done < commands.size() && gp.good() && child.wait_writable()) {
        const std::size_t n = std::min(kChunk, commands.size() - done);
        gp.write(commands.data() + done, static_cast<std::streamsize>(n));
        gp.flush();
        if (gp.good()) done += n;
      }
      run.sent_all = done == commands.size();
    }  // gp closes its end here; finish() closes the last one, and gnuplot reads to the end
  }
  run.process = child.finish();
  return run;
}

/// What gnuplot said that names the problem: its first error line ("line 3: ..."; it carries on
/// after an error in commands read from a pipe), else its last line.
std::string gnuplot_said(const ProcessResult& run) {
  std::istringstream lines(run.stderr_text);
  for (std::string line; std::getline(lines, line);) {
    const auto first = line.find_first_not_of(' ');
    if (first != std::string::npos && line.compare(first, 5, "line ") == 0) return line.substr(first);
  }
  return run.last_stderr_line();
}

}  // namespace

std::string gnuplot_tic_label(const std::string& text) {
  std::string doubled;
  for (const char c : text) doubled += c == '%' ? std::string("%%") : std::string(1, c);
  return gnuplot_quote(doubled);
}

std::string gnuplot_quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '`') {
      out += "\\140";  // gnuplot expands `...` even in double quotes; the octal escape shows a backquote
    } else if (c == '\t') {
      out += ' ';
    } else if (u < 0x20 || u == 0x7f) {
      char shown[8];  // a control byte is drawn as its escape text (cairo would draw it as a black box)
      std::snprintf(shown, sizeof shown, "\\\\x%02x", u);
      out += shown;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

bool is_valid_png(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return is_valid_png_bytes(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
}

bool is_valid_png_bytes(const std::string& bytes) {
  static const std::string signature("\x89PNG\r\n\x1a\n", 8);
  static const std::string iend("\0\0\0\0IEND\xae\x42\x60\x82", 12);
  return bytes.size() >= 8 + 25 + 12 && bytes.compare(0, 8, signature) == 0 && bytes.compare(12, 4, "IHDR") == 0 &&
         bytes.compare(bytes.size() - 12, 12, iend) == 0;
}

bool is_valid_svg_bytes(const std::string& bytes) {
  const std::size_t end = bytes.find_last_not_of(" \t\r\n");
  return (bytes.rfind("<?xml", 0) == 0 || bytes.rfind("<svg", 0) == 0) && end != std::string::npos && end >= 5 &&
         bytes.compare(end - 5, 6, "</svg>") == 0;
}

bool is_valid_svg(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return is_valid_svg_bytes(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
}

namespace {
thread_local const Canvas* current_canvas = nullptr;

/// Makes `canvas` Canvas::current() for as long as it lives.
class CanvasScope {
 public:
  explicit CanvasScope(const Canvas& canvas) : previous_(current_canvas) { current_canvas = &canvas; }
  ~CanvasScope() { current_canvas = previous_; }
  CanvasScope(const CanvasScope&) = delete;
  CanvasScope& operator=(const CanvasScope&) = delete;

 private:
  const Canvas* previous_;
};

/// The drawings of one figure: the PNG's canvas, or the book's desktop and phone canvases with the
/// file name each is written under.
std::vector<std::pair<Canvas, std::string>> canvases(bool svg, const std::string& name) {
  if (!svg) return {{Canvas{}, name + ".png"}};
  return {{Canvas{.svg = true, .narrow = false, .width = 960, .height = 600}, name + ".svg"},
          {Canvas{.svg = true, .narrow = true, .width = 380, .height = 420}, name + ".narrow.svg"}};
}
}  // namespace

const Canvas& Canvas::current() {
  static const Canvas png{};
  return current_canvas != nullptr ? *current_canvas : png;
}

std::string Canvas::terminal(int w, int h) const {
  const std::string size = " size " + std::to_string(w) + "," + std::to_string(h);
  // 12 px text on the book's canvases (SVG units are CSS pixels), 11 points on the PNG.
  return svg ? "set terminal svg noenhanced" + size + " font 'DejaVu Sans,12' background '#ffffff'\nset output\n"
             : "set terminal pngcairo noenhanced" + size + " font 'DejaVu Sans,11'\nset output\n";
}

std::string Canvas::wrap(const std::string& text, int columns) const {
  // A desktop canvas wraps only a title too long for its width (12 px text is about 7 px a character).
  if (!narrow && (columns > 0 || text.size() <= static_cast<std::size_t>(width / 7))) return text;
  const std::size_t limit = static_cast<std::size_t>(columns > 0 ? columns : std::max(width / 7, 20));
  std::string out, line;
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    if (!line.empty() && line.size() + 1 + word.size() > limit) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line;
}

Plotter::Plotter(const PlotSettings& settings) : timeout_(settings.timeout) {
  if (!settings.enabled) {
    reason_ = "--no-plots was given";
    return;
  }
  folder_ = settings.folder ? fs::path(*settings.folder) : fs::path(attn::config::default_plots_dir);
  if (const std::string problem = folder_problem(folder_); !problem.empty()) {
    if (settings.folder) throw PlotFolderError(problem);
    reason_ = problem;
    return;
  }
  folder_ = fs::absolute(folder_);
  const auto gnuplot = find_on_path("gnuplot");
  if (!gnuplot) {
    reason_ = "gnuplot is not on PATH; scripts/install-deps.sh installs gnuplot";
    return;
  }
  gnuplot_ = *gnuplot;
  const char* format = std::getenv("ATTN_PLOT_FORMAT");
  svg_ = format != nullptr && std::string(format) == "svg";
  const std::string terminal = svg_ ? "svg" : "pngcairo";
  const GnuplotRun asked = run_gnuplot(gnuplot_, "set terminal " + terminal + "\n", folder_, timeout_);
  const ProcessResult& probe = asked.process;
  if (probe.ok() && asked.sent_all && probe.stderr_text.empty()) {
    enabled_ = true;
    return;
  }
  const std::string said = gnuplot_said(probe);
  if (probe.started && !probe.timed_out && probe.signal == 0 && said.find("terminal") != std::string::npos) {
    reason_ = "gnuplot has no " + terminal + " terminal; install gnuplot-nox";  // not an error: like gnuplot missing
    return;
  }
  // Present but broken (crashed, hung, failed otherwise): skip the plots and fail the run.
  reason_ = "gnuplot " + probe.describe(timeout_) + " when asked for its " + terminal + " terminal" +
            (said.empty() ? std::string() : ": " + cli_safe(said));
  report_failure(reason_ + "; plots are skipped");
}

void Plotter::report(std::ostream& out) const {
  if (enabled_ || failed_ > 0) {
    // Inside the repository, say "plots/" rather than an absolute path that differs per clone.
    const fs::path relative = folder_.lexically_relative(attn::config::source_dir);
    const bool inside = !relative.empty() && *relative.begin() != "..";
    out << "plots: " << written_.size() << " written into " << printable((inside ? relative : folder_).string(), 200)
        << "/";
    if (failed_ > 0) out << " (" << failed_ << " not drawn: see the errors above)";
    if (!enabled_) out << " (" << reason_ << ")";
    out << "\n";
  } else {
    out << "plots: skipped (" << reason_ << ")\n";
  }
  if (diagrams_skipped_ > 0) {
    out << "diagrams: " << diagrams_skipped_
        << " skipped (Graphviz's dot is not on PATH; scripts/install-deps.sh installs graphviz)\n";
  }
  if (diagrams_abandoned_ > 0) {
    out << "diagrams: " << diagrams_abandoned_ << " more not tried (dot did not finish within its time limit)\n";
  }
}

void Plotter::draw(const std::string& name, const std::vector<std::string>& data,
                   const std::function<std::string(const std::vector<std::string>&)>& commands) {
  if (!safe_name(name)) {
    throw std::invalid_argument("Plotter: plot name '" + cli_safe(name) + "' may hold only A-Z a-z 0-9 _ . -");
  }
  if (!enabled_) return;
  try {
    // gnuplot runs in the plot folder and sees only generated names: nothing a user typed. It
    // reads the data files and sends the PNG or SVG back on its standard output; this program writes it.
    std::vector<std::unique_ptr<AtomicFile>> dats;
    std::vector<std::string> names;
    for (std::size_t i = 0; i < data.size(); ++i) {
      const std::string file = name + (i ? "_" + std::to_string(i + 1) : "") + ".dat";
      dats.push_back(std::make_unique<AtomicFile>(folder_ / file));
      dats.back()->write(data[i]);
      dats.back()->close();
      names.push_back(gnuplot_quote(dats.back()->temp_path().filename().string()));
    }
    // One drawing per canvas (the PNG, or the book's two SVGs); files appear only if all succeed.
    std::vector<std::unique_ptr<AtomicFile>> drawings;
    for (const auto& [canvas, file] : canvases(svg_, name)) {
      const CanvasScope scope(canvas);
      const GnuplotRun drawn =
          run_gnuplot(gnuplot_, canvas.terminal(canvas.width, canvas.height) + commands(names) + "\nunset output\n",
                      folder_, timeout_);
      const ProcessResult& run = drawn.process;
      const bool valid = svg_ ? is_valid_svg_bytes(run.stdout_bytes) : is_valid_png_bytes(run.stdout_bytes);
      if (!run.ok() || !drawn.sent_all || !valid) {
        ++failed_;
        const std::string said = gnuplot_said(run);
        std::string message = "plot " + name + " not drawn: gnuplot " +
                              (!run.ok()         ? run.describe(timeout_)
                               : !drawn.sent_all ? std::string("stopped reading its commands")
                                                 : std::string("sent no valid ") + (svg_ ? "SVG (" : "PNG (") +
                                                       std::to_string(run.stdout_bytes.size()) + " bytes)");
        if (!said.empty() && !run.timed_out) message += ": " + cli_safe(said);
        if (run.timed_out) {
          enabled_ = false;  // a gnuplot that hangs once would hang on every plot
          reason_ = "gnuplot timed out";
          message += "; the remaining plots are skipped (ATTN_GNUPLOT_TIMEOUT sets the limit in seconds)";
        }
        report_failure(message);
        return;
      }
      drawings.push_back(std::make_unique<AtomicFile>(folder_ / file));
      drawings.back()->write(run.stdout_bytes);
    }
    std::vector<AtomicFile*> all;
    for (auto& dat : dats) all.push_back(dat.get());
    for (auto& drawing : drawings) all.push_back(drawing.get());
    AtomicFile::commit_all(all);  // the figure and its data appear together
    written_.push_back(folder_ / (name + (svg_ ? ".svg" : ".png")));
  } catch (const IoError& e) {
    ++failed_;
    report_failure("plot " + name + " not drawn: " + e.what());
  }
}

void Plotter::figure(const std::string& name, const std::string& title, const std::vector<std::string>& data,
                     const std::function<std::string(const std::vector<std::string>&)>& commands) {
  if (!enabled_) return;
  draw(name, data, [&](const std::vector<std::string>& dats) {
    return "set title " + gnuplot_quote(Canvas::current().wrap(title)) + "\n" + commands(dats);
  });
}

std::string plot_folder_clash(const PlotSettings& plots, const std::vector<OtherFile>& files,
                              const std::string& figure_prefix) {
  if (!plots.enabled) return "";
  std::error_code ec;
  const fs::path folder =
      fs::weakly_canonical(plots.folder ? fs::path(*plots.folder) : attn::config::default_plots_dir, ec);
  const std::string given = plots.folder ? "--plots " + quoted_path(*plots.folder) : "the plot folder (plots/)";
  for (const OtherFile& f : files) {
    const fs::path file = fs::weakly_canonical(f.path, ec);
    if (file == folder) {
      const bool same_text = plots.folder && fs::path(*plots.folder).lexically_normal() == f.path.lexically_normal();
      return given + " is " + (same_text ? std::string() : quoted_path(f.path) + ", ") + "a file " + f.flag +
             (f.read ? " reads" : " writes") + ": name another folder";
    }
    const std::string name = file.filename().string();
    if (file.parent_path() == folder && name.rfind(figure_prefix, 0) == 0) {
      return f.flag + " " + quoted_path(f.path) + " lies in " + given + " under a name its figures use (" +
             figure_prefix + "*): a figure would replace it";
    }
  }
  return "";
}

// ---- Graphviz diagrams --------------------------------------------------------------------------

std::string graphviz_quote(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

void Plotter::diagram(const std::string& name, const std::string& dot_source) {
  // For a phone, the same graph laid out top to bottom (a graph attribute set last wins in DOT).
  const std::size_t close = dot_source.rfind('}');
  diagram(name, dot_source,
          close == std::string::npos ? dot_source
                                     : dot_source.substr(0, close) + "  rankdir=TB;\n" + dot_source.substr(close));
}

void Plotter::diagram(const std::string& name, const std::string& dot_source, const std::string& narrow_source) {
  if (!safe_name(name)) {
    throw std::invalid_argument("Plotter: diagram name '" + cli_safe(name) + "' may hold only A-Z a-z 0-9 _ . -");
  }
  if (!enabled_) return;
  if (dot_hung_) {
    ++diagrams_abandoned_;
    return;
  }
  if (dot_.empty()) {
    const auto dot = find_on_path("dot");
    if (!dot) {
      ++diagrams_skipped_;
      return;
    }
    dot_ = *dot;
  }
  try {
    AtomicFile source(folder_ / (name + ".dot"));
    source.write(dot_source);
    source.close();
    // The PNG; or for the book the SVG as drawn and the phone's drawing.
    std::vector<std::pair<std::string, std::string>> drawings;  // file, source
    if (svg_) {
      drawings = {{name + ".svg", dot_source}, {name + ".narrow.svg", narrow_source}};
    } else {
      drawings = {{name + ".png", dot_source}};
    }
    std::vector<std::unique_ptr<AtomicFile>> files;
    for (const auto& [file, text] : drawings) {
      const ProcessResult run =
          run_process(dot_, {"dot", svg_ ? "-Tsvg" : "-Tpng"}, folder_, timeout_, text, kMaxPngBytes);
      if (!run.ok() || !(svg_ ? is_valid_svg_bytes(run.stdout_bytes) : is_valid_png_bytes(run.stdout_bytes))) {
        ++failed_;
        dot_hung_ = run.timed_out;
        const std::string said = run.last_stderr_line();
        report_failure("diagram " + name + " not drawn: dot " +
                       (run.ok() ? std::string("sent no valid ") + (svg_ ? "SVG" : "PNG") : run.describe(timeout_)) +
                       (said.empty() ? std::string() : ": " + cli_safe(said)));
        return;
      }
      files.push_back(std::make_unique<AtomicFile>(folder_ / file));
      files.back()->write(run.stdout_bytes);
    }
    std::vector<AtomicFile*> all{&source};
    for (auto& f : files) all.push_back(f.get());
    AtomicFile::commit_all(all);  // the drawings and their source appear together
    written_.push_back(folder_ / (name + (svg_ ? ".svg" : ".png")));
  } catch (const IoError& e) {
    ++failed_;
    report_failure("diagram " + name + " not drawn: " + e.what());
  }
}

std::string word_colour(const std::string& word) {
  // clang-format off
  static const std::vector<std::pair<std::string, std::string>> colours{
      {"the", "#9467bd"}, {"river", "#1f77b4"}, {"money", "#2ca02c"}, {"bank", "#d62728"}};
  // clang-format on
  for (const auto& [w, colour] : colours) {
    if (w == word) return colour;
  }
  return "#7f7f7f";
}

}  // namespace app
