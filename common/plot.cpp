/// \file plot.cpp
/// \brief Plots through gnuplot, started directly with a time limit (see plot.hpp).
#include "common/plot.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

#include "attn/config.hpp"
#include "common/faults.hpp"
#include "common/files.hpp"
#include "common/print.hpp"
#include "common/process.hpp"
#include "common/cli.hpp"

namespace attn {
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
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

/// Text for a `#` comment line of a data file: line breaks become spaces.
std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

/// Text of gnuplot's or another program's message, made safe to echo in one error line.
std::string cli_safe(const std::string& text) { return cli::printable(text, 200); }

std::string axis_labels(const std::string& title, const std::string& xlabel, const std::string& ylabel) {
  return "set title " + gnuplot_quote(title) + "\nset xlabel " + gnuplot_quote(xlabel) + "\nset ylabel " +
         gnuplot_quote(ylabel) + "\n";
}

std::string tics(const std::vector<std::string>& labels) {
  std::string out = "(";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    out += (i ? ", " : "") + gnuplot_quote(labels[i]) + " " + std::to_string(i);
  }
  return out + ")";
}

std::string number(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}

std::string range(const std::pair<double, double>& r) { return "[" + number(r.first) + ":" + number(r.second) + "]"; }

}  // namespace

std::string gnuplot_quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '`' || u < 0x20 || u == 0x7f) {
      char octal[8];
      std::snprintf(octal, sizeof octal, "\\%03o", u);  // gnuplot expands `...` even in double quotes
      out += octal;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

bool is_valid_png(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  static const std::string signature("\x89PNG\r\n\x1a\n", 8);
  static const std::string iend("\0\0\0\0IEND\xae\x42\x60\x82", 12);
  return bytes.size() >= 8 + 25 + 12 && bytes.compare(0, 8, signature) == 0 && bytes.compare(12, 4, "IHDR") == 0 &&
         bytes.compare(bytes.size() - 12, 12, iend) == 0;
}

Plotter::Plotter(const PlotSettings& settings) : timeout_(settings.timeout) {
  if (!settings.enabled) {
    reason_ = "--no-plots was given";
    return;
  }
  folder_ = settings.folder ? fs::path(*settings.folder) : fs::path(config::default_plots_dir);
  if (const std::string problem = folder_problem(folder_); !problem.empty()) {
    if (settings.folder) throw PlotFolderError(problem);
    reason_ = problem;
    return;
  }
  folder_ = fs::absolute(folder_);
  const auto gnuplot = find_on_path("gnuplot");
  if (!gnuplot) {
    reason_ = "gnuplot is not on PATH (scripts/install-deps.sh installs it)";
    return;
  }
  gnuplot_ = *gnuplot;
  const ProcessResult probe = run_process(gnuplot_, {"gnuplot", "-e", "set terminal pngcairo"}, folder_, timeout_);
  if (probe.ok() && probe.stderr_text.empty()) {
    enabled_ = true;
    return;
  }
  const std::string said = probe.last_stderr_line();
  if (probe.started && !probe.timed_out && probe.signal == 0 && said.find("terminal") != std::string::npos) {
    reason_ = "gnuplot has no pngcairo terminal (install gnuplot-nox)";  // not an error: like gnuplot missing
    return;
  }
  // Present but broken (crashed, hung, failed otherwise): skip the plots and fail the run.
  reason_ = "gnuplot " + probe.describe(timeout_) + " when asked for its pngcairo terminal" +
            (said.empty() ? std::string() : ": " + cli_safe(said));
  report_failure(reason_ + "; plots are skipped");
}

void Plotter::report(std::ostream& out) const {
  if (enabled_ || failed_ > 0) {
    // Inside the repository, say "plots/" rather than an absolute path that differs per clone.
    const fs::path relative = folder_.lexically_relative(config::source_dir);
    const bool inside = !relative.empty() && *relative.begin() != "..";
    out << "plots: " << written_.size() << " written into " << cli::printable((inside ? relative : folder_).string(), 200)
        << "/";
    if (failed_ > 0) out << " (" << failed_ << " not drawn: see the errors above)";
    if (!enabled_) out << " (" << reason_ << ")";
    out << "\n";
  } else {
    out << "plots: skipped (" << reason_ << ")\n";
  }
}

void Plotter::draw(const std::string& name, const std::vector<std::string>& data,
                   const std::function<std::string(const std::vector<std::string>&)>& commands) {
  if (!safe_name(name)) {
    throw std::invalid_argument("Plotter: plot name '" + cli_safe(name) + "' may hold only A-Z a-z 0-9 _ . -");
  }
  if (!enabled_) return;
  try {
    // gnuplot runs in the plot folder and sees only generated names: nothing a user typed.
    std::vector<std::unique_ptr<AtomicFile>> dats;
    std::vector<std::string> names;
    for (std::size_t i = 0; i < data.size(); ++i) {
      const std::string file = name + (i ? "_" + std::to_string(i + 1) : "") + ".dat";
      dats.push_back(std::make_unique<AtomicFile>(folder_ / file));
      dats.back()->write(data[i]);
      dats.back()->close();
      names.push_back(gnuplot_quote(dats.back()->temp_path().filename().string()));
    }
    TempPath png(folder_, ".png"), script(folder_, ".gp");
    script.write_all("set terminal pngcairo noenhanced size 960,600 font 'DejaVu Sans,11'\nset output " +
                         gnuplot_quote(png.name()) + "\n" + commands(names) + "\nunset output\n",
                     "the gnuplot script for " + name);
    const ProcessResult run = run_process(gnuplot_, {"gnuplot", script.name()}, folder_, timeout_);
    if (!run.ok() || !is_valid_png(png.path())) {
      ++failed_;
      const std::string said = run.last_stderr_line();
      std::string message = "plot " + name + " not drawn: gnuplot " +
                            (run.ok() ? std::string("wrote no valid PNG") : run.describe(timeout_));
      if (!said.empty() && !run.timed_out) message += ": " + cli_safe(said);
      if (run.timed_out) {
        enabled_ = false;  // a gnuplot that hangs once would hang on every plot
        reason_ = "gnuplot timed out";
        message += "; the remaining plots are skipped (ATTN_GNUPLOT_TIMEOUT sets the limit in seconds)";
      }
      report_failure(message);
      return;
    }
    for (auto& dat : dats) dat->commit();
    png.commit(folder_ / (name + ".png"));
    written_.push_back(folder_ / (name + ".png"));
  } catch (const IoError& e) {
    ++failed_;
    report_failure("plot " + name + " not drawn: " + e.what());
  }
}

void Plotter::bars(const BarChart& chart) {
  if (chart.values.n_rows != chart.categories.size() || chart.values.n_cols != chart.series.size()) {
    throw std::invalid_argument("Plotter::bars(" + chart.name + "): values are " + std::to_string(chart.values.n_rows) +
                                " x " + std::to_string(chart.values.n_cols) + " for " +
                                std::to_string(chart.categories.size()) + " categories x " +
                                std::to_string(chart.series.size()) + " series");
  }
  draw(chart.name, {bar_chart_data(chart)},
       [&](const std::vector<std::string>& dat) { return bar_chart_commands(chart, dat[0]); });
}

std::string bar_chart_data(const BarChart& chart) {
  std::ostringstream data;
  data << "# " << one_line(chart.title) << "\n# category";
  for (const auto& s : chart.series) data << '\t' << one_line(s);
  data << '\n';
  for (arma::uword r = 0; r < chart.values.n_rows; ++r) {
    data << gnuplot_quote(chart.categories[r]);
    for (arma::uword c = 0; c < chart.values.n_cols; ++c) data << '\t' << number(chart.values(r, c));
    data << '\n';
  }
  return data.str();
}

std::string bar_chart_commands(const BarChart& chart, const std::string& dat, int label_font) {
  const double lo = chart.values.is_empty() ? 0.0 : std::min(0.0, chart.values.min());
  const double hi = chart.values.is_empty() ? 1.0 : std::max(0.0, chart.values.max());
  // Bars start at 0: room below is added only for negative bars (and their labels).
  const auto yr = chart.yrange.value_or(std::make_pair(lo < 0.0 ? lo - 0.12 * (hi - lo) : 0.0, hi + 0.15 * (hi - lo)));
  const double n_series = static_cast<double>(chart.series.size());
  std::ostringstream gp;
  gp << axis_labels(chart.title, chart.xlabel, chart.ylabel)
     << "set style data histograms\nset style histogram clustered gap 1\n"
        "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset grid ytics\n"
     << "set key " << chart.key << "\nset yrange " << range(yr) << "\nset xtics nomirror\nset xzeroaxis\n"
     << "plot ";
  for (std::size_t s = 0; s < chart.series.size(); ++s) {
    gp << (s ? ", " : "") << dat << " using " << s + 2 << (s == 0 ? ":xtic(1)" : "") << " title "
       << gnuplot_quote(chart.series[s]);
  }
  if (chart.value_labels) {
    for (std::size_t s = 0; s < chart.series.size(); ++s) {
      const double offset = (static_cast<double>(s) - (n_series - 1) / 2) / (n_series + 1);
      gp << ", " << dat << " using ($0 + " << number(offset) << "):" << s + 2 << ":(sprintf('%." << chart.precision
         << "f', $" << s + 2 << ")) with labels offset 0, 0.7 font '," << label_font << "' notitle";
    }
  }
  return gp.str() + "\n";
}

void Plotter::lines(const LineChart& chart) {
  if (chart.y.n_rows != chart.x.n_elem || chart.y.n_cols != chart.series.size()) {
    throw std::invalid_argument("Plotter::lines(" + chart.name + "): y is " + std::to_string(chart.y.n_rows) + " x " +
                                std::to_string(chart.y.n_cols) + " for " + std::to_string(chart.x.n_elem) +
                                " points x " + std::to_string(chart.series.size()) + " series");
  }
  if (!enabled_) return;
  std::ostringstream data;
  data << "# " << one_line(chart.title) << "\n# " << one_line(chart.xlabel);
  for (const auto& s : chart.series) data << '\t' << one_line(s);
  data << '\n';
  for (arma::uword r = 0; r < chart.x.n_elem; ++r) {
    data << number(chart.x(r));
    for (arma::uword c = 0; c < chart.y.n_cols; ++c) data << '\t' << number(chart.y(r, c));
    data << '\n';
  }
  draw(chart.name, {data.str()}, [&](const std::vector<std::string>& dats) {
  const std::string& dat = dats[0];
  std::ostringstream gp;
  gp << axis_labels(chart.title, chart.xlabel, chart.ylabel) << "set grid\nset key " << chart.key << "\n";
  // A legend below the plot gets a line of space between it and the x label (gnuplot packs them tight).
  if (chart.key.rfind("below", 0) == 0) gp << "set key height 1.5\n";
  if (chart.logx) gp << "set logscale x\n";
  if (chart.x.n_elem > 1) gp << "set xrange " << range({chart.x.min(), chart.x.max()}) << "\n";
  if (chart.logy) gp << "set logscale y\n";
  if (chart.yrange) gp << "set yrange " << range(*chart.yrange) << "\n";
  for (const auto& [x, label] : chart.x_marks) {
    gp << "set arrow from " << number(x) << ", graph 0 to " << number(x)
       << ", graph 1 nohead dashtype 2 linecolor rgb 'gray40'\n"
       << "set label " << gnuplot_quote(label) << " at " << number(x) << ", graph 0.96 offset 0.4, 0 textcolor rgb 'gray30'\n";
  }
  gp << "plot ";
  for (std::size_t s = 0; s < chart.series.size(); ++s) {
    gp << (s ? ", " : "") << dat << " using 1:" << s + 2 << " with " << (chart.points ? "linespoints" : "lines")
       << " linewidth 2 title " << gnuplot_quote(chart.series[s]);
  }
  return gp.str();
  });
}

void Plotter::heatmap(const Heatmap& map) {
  if (map.values.n_rows != map.row_labels.size() || map.values.n_cols != map.col_labels.size()) {
    throw std::invalid_argument("Plotter::heatmap(" + map.name + "): values are " + std::to_string(map.values.n_rows) +
                                " x " + std::to_string(map.values.n_cols) + " for " +
                                std::to_string(map.row_labels.size()) + " row labels x " +
                                std::to_string(map.col_labels.size()) + " column labels");
  }
  if (!enabled_) return;
  std::ostringstream data;
  data << "# " << one_line(map.title) << "\n# column\trow\tvalue (NaN: " << one_line(map.nan_label) << ")\tlabel\n";
  for (arma::uword r = 0; r < map.values.n_rows; ++r) {
    for (arma::uword c = 0; c < map.values.n_cols; ++c) {
      // The cell's text is written out here: gnuplot 5.4 compares NaN equal to itself, so it
      // cannot tell a masked cell from the value column alone.
      const double x = map.values(r, c);
      data << c << '\t' << r << '\t' << (std::isnan(x) ? "NaN" : number(x)) << '\t'
           << gnuplot_quote(std::isnan(x) ? map.nan_label : format_number(x, map.precision)) << '\n';
    }
    data << '\n';
  }
  draw(map.name, {data.str()}, [&](const std::vector<std::string>& dats) {
  const std::string& dat = dats[0];
  const double rows = static_cast<double>(map.values.n_rows), cols = static_cast<double>(map.values.n_cols);
  std::ostringstream gp;
  gp << axis_labels(map.title, map.xlabel, map.ylabel) << "set size ratio " << number(rows / cols) << "\n"
     << "set xrange [-0.5:" << number(cols - 0.5) << "]\nset yrange [" << number(rows - 0.5) << ":-0.5]\n"  // row 0 at the top
     << "set xtics " << tics(map.col_labels) << " nomirror\nset ytics " << tics(map.row_labels) << " nomirror\n"
     << "set palette defined (0 '#f7fbff', 1 '#9ecae1', 2 '#4292c6')\nunset key\n"
     << "set object 1 rectangle from -0.5, -0.5 to " << number(cols - 0.5) << ", " << number(rows - 0.5)
     << " behind fillcolor rgb 'gray75' fillstyle solid noborder\n";
  if (map.cbrange) gp << "set cbrange " << range(*map.cbrange) << "\n";
  gp << "plot " << dat << " using 1:2:3 with image, " << dat << " using 1:2:4 with labels font ',11'\n";
  return gp.str();
  });
}

void Plotter::figure(const std::string& name, const std::string& title, const std::vector<std::string>& data,
                     const std::function<std::string(const std::vector<std::string>&)>& commands) {
  if (!enabled_) return;
  draw(name, data, [&](const std::vector<std::string>& dats) {
    return "set title " + gnuplot_quote(title) + "\n" + commands(dats);
  });
}

}  // namespace attn
