/// \file plot.cpp
/// \brief Plots through gnuplot-iostream (see plot.hpp).
#include <armadillo>  // before gnuplot-iostream.h, which enables its Armadillo support only then

#include "common/plot.hpp"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <gnuplot-iostream.h>
#include <sstream>

#include "common/print.hpp"
#include "attn/config.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

std::optional<fs::path> find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::istringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const fs::path candidate = fs::path(dir) / program;
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate;
  }
  return std::nullopt;
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// Runs a shell command, returning its exit status and everything it printed.
std::pair<int, std::string> run_capture(const std::string& command) {
  std::string output;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return {-1, "could not start: " + command};
  std::array<char, 256> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) output += buffer.data();
  return {::pclose(pipe), output};
}

/// Why `folder` cannot hold plots, or an empty string if it can.
std::string folder_problem(const fs::path& folder) {
  std::error_code ec;
  if (fs::exists(folder, ec) && !fs::is_directory(folder, ec)) {
    return "plot folder '" + folder.string() + "' is a file, not a folder";
  }
  fs::create_directories(folder, ec);
  const std::string why = ec ? ": " + ec.message() : "";
  if (!fs::is_directory(folder, ec)) return "cannot create plot folder '" + folder.string() + "'" + why;
  const fs::path probe = folder / (".write-test-" + std::to_string(::getpid()));
  {
    std::ofstream out(probe);
    if (!(out << "ok")) return "plot folder '" + folder.string() + "' is not writable";
  }
  fs::remove(probe, ec);
  return {};
}

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
    if (c == '"' || c == '\\') out += '\\';
    out += c;
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

Plotter::Plotter(const PlotSettings& settings) {
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
  const auto [status, output] = run_capture(shell_quote(gnuplot->string()) + " -e 'set terminal pngcairo'");
  if (status != 0 || !output.empty()) {
    reason_ = "gnuplot has no pngcairo terminal (install gnuplot-nox)";
    return;
  }
  enabled_ = true;
}

void Plotter::report(std::ostream& out) const {
  if (enabled_) {
    // Inside the repository, say "plots/" rather than an absolute path that differs per clone.
    const fs::path relative = folder_.lexically_relative(config::source_dir);
    const bool inside = !relative.empty() && *relative.begin() != "..";
    out << "plots: " << written_.size() << " written into " << (inside ? relative : folder_).string() << "/\n";
  } else {
    out << "plots: skipped (" << reason_ << ")\n";
  }
}

std::string Plotter::write_data(const std::string& file, const std::string& text) const {
  const fs::path path = folder_ / file;
  std::ofstream out(path);
  if (!(out << text)) throw std::runtime_error("cannot write " + path.string());
  return gnuplot_quote(path.string());
}

void Plotter::draw(const std::string& name, const std::string& script) {
  const fs::path png = folder_ / (name + ".png");
  const fs::path log =
      fs::temp_directory_path() / ("attn-gnuplot-" + std::to_string(::getpid()) + "-" + name + ".log");
  std::error_code ec;
  fs::remove(png, ec);
  {
    // The PNG is complete only once gnuplot exits, which the Gnuplot destructor waits for.
    Gnuplot gp("gnuplot 2>" + shell_quote(log.string()));
    gp << "set terminal pngcairo noenhanced size 960,600 font 'DejaVu Sans,11'\n"
       << "set output " << gnuplot_quote(png.string()) << "\n"
       << script << "\nunset output\n";
  }
  if (!is_valid_png(png)) {
    std::ifstream in(log);
    std::string message, line;
    while (std::getline(in, line)) {
      if (!line.empty()) message = line;  // gnuplot's last words name the error
    }
    fs::remove(log, ec);
    throw std::runtime_error("gnuplot did not write a valid " + png.string() + (message.empty() ? "" : ": " + message));
  }
  fs::remove(log, ec);
  written_.push_back(png);
}

void Plotter::bars(const BarChart& chart) {
  if (chart.values.n_rows != chart.categories.size() || chart.values.n_cols != chart.series.size()) {
    throw std::invalid_argument("Plotter::bars(" + chart.name + "): values are " + std::to_string(chart.values.n_rows) +
                                " x " + std::to_string(chart.values.n_cols) + " for " +
                                std::to_string(chart.categories.size()) + " categories x " +
                                std::to_string(chart.series.size()) + " series");
  }
  if (!enabled_) return;
  const std::string dat = write_data(chart.name + ".dat", bar_chart_data(chart));
  draw(chart.name, bar_chart_commands(chart, dat));
}

std::string bar_chart_data(const BarChart& chart) {
  std::ostringstream data;
  data << "# " << chart.title << "\n# category";
  for (const auto& s : chart.series) data << '\t' << s;
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
  data << "# " << chart.title << "\n# " << chart.xlabel;
  for (const auto& s : chart.series) data << '\t' << s;
  data << '\n';
  for (arma::uword r = 0; r < chart.x.n_elem; ++r) {
    data << number(chart.x(r));
    for (arma::uword c = 0; c < chart.y.n_cols; ++c) data << '\t' << number(chart.y(r, c));
    data << '\n';
  }
  const std::string dat = write_data(chart.name + ".dat", data.str());

  std::ostringstream gp;
  gp << axis_labels(chart.title, chart.xlabel, chart.ylabel) << "set grid\nset key " << chart.key << "\n";
  // A legend below the plot gets a line of space between it and the x label (gnuplot packs them tight).
  if (chart.key.rfind("below", 0) == 0) gp << "set key height 1.5\n";
  // Log axes label their decades as powers of ten (10^-8, not 0.000000010; the terminal is not enhanced, so no braces).
  if (chart.logx) gp << "set logscale x\nset format x '10^%L'\n";
  if (chart.x.n_elem > 1) gp << "set xrange " << range({chart.x.min(), chart.x.max()}) << "\n";
  if (chart.logy) gp << "set logscale y\nset format y '10^%L'\n";
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
  draw(chart.name, gp.str());
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
  data << "# " << map.title << "\n# column\trow\tvalue (NaN: " << map.nan_label << ")\tlabel\n";
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
  const std::string dat = write_data(map.name + ".dat", data.str());

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
  draw(map.name, gp.str());
}

void Plotter::figure(const std::string& name, const std::string& title, const std::vector<std::string>& data,
                     const std::function<std::string(const std::vector<std::string>&)>& commands) {
  if (!enabled_) return;
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < data.size(); ++i) {
    paths.push_back(write_data(name + (i ? "_" + std::to_string(i + 1) : "") + ".dat", data[i]));
  }
  draw(name, "set title " + gnuplot_quote(title) + "\n" + commands(paths));
}

}  // namespace attn
