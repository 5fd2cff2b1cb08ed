/// \file plot.hpp
/// \brief Plots through gnuplot (PNG via pngcairo, or SVG for the book), each with its data beside it.
///
/// Every figure is written as `FOLDER/NAME.png` together with the data it plots, as
/// `FOLDER/NAME.dat` (plain text, one header comment naming the columns), so a reader can
/// re-plot it. When gnuplot or its pngcairo terminal is missing, the Plotter is disabled and says
/// why; chapters print their arithmetic anyway.
///
/// For the book (the environment variable ATTN_PLOT_FORMAT=svg, set by the docs build) every figure
/// is drawn twice in SVG instead, each sized in CSS pixels for the screen it is shown on:
/// `NAME.svg` for a desktop column (960 px wide) and `NAME.narrow.svg` for a phone (380 px wide,
/// side-by-side panels stacked), so the text is 11 px or more on both (Canvas). Graphviz diagrams
/// likewise: `NAME.svg` as drawn, `NAME.narrow.svg` laid out top to bottom.
///
/// How gnuplot is run (no user text reaches it as code):
/// - it is started directly (posix_spawn, process.hpp), never through a shell, with `-d` (no init
///   file: a reader's ~/.gnuplot neither runs nor restyles anything), in the plot folder; its
///   commands are streamed into its standard input through a gnuplot-iostream `Gnuplot` object
///   wrapped around the pipe (written only when the pipe has room, SIGPIPE held back). They name
///   only generated temporary data files (`.attn-tmp-<pid>-<n>.dat`); the folder's own name never
///   appears in them. Titles and labels are quoted with gnuplot_quote(), which leaves no
///   backquote, newline or control byte in the command text;
/// - gnuplot writes no file: it sends the PNG (or SVG) back on its standard output (at most 32 MiB), and
///   this program checks it (is_valid_png_bytes) and writes it, so a full disk or a file-size
///   limit is reported with the system's reason ("No space left on device", "File too large");
/// - each plot has a time limit (PlotSettings::timeout, 20 s unless ATTN_GNUPLOT_TIMEOUT says
///   otherwise); past it gnuplot is killed, one error line says so, and the remaining plots are
///   skipped;
/// - the data files and the PNG are renamed into place together, only when gnuplot sent a valid
///   PNG, so `NAME.png` and `NAME.dat` appear whole, together, or not at all, and concurrent runs
///   into one folder never read each other's files;
/// - a plot that cannot be drawn is reported by app::report_failure (one line, exit code 1 at the
///   end) and the chapter carries on.
///
/// Throws: PlotFolderError (a usage error, exit code 2) for an explicit plot folder that cannot be
/// created or written (the Plotter constructor); std::invalid_argument for a NAME outside
/// [A-Za-z0-9_.-] (every drawing call), for data whose shape disagrees with its labels (bars,
/// lines, heatmap), for a heatmap's outline outside the cells, a palette of fewer than 2 colours or
/// a kind index out of range (heatmap), for a figure vector_figure_data refuses (vectors,
/// vector_figure_data), and for labels or kinds that do not fit the values (heatmap_data).
/// A plot gnuplot or dot cannot draw is reported, as above, not thrown. The others throw nothing
/// (beyond std::bad_alloc).
/// Source: the article's figures, which keep one colour per token (word_colour).
#pragma once

#include <algorithm>
#include <armadillo>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace app {

/// An explicitly requested plot folder that cannot be created or written (a usage error, exit 2).
class PlotFolderError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Grouped bars: one group per category, one bar per series.
struct BarChart {
  std::string name{};                                 ///< file stem, e.g. "ch01_bank_weights"
  std::string title{};                                ///< plot title
  std::string xlabel{};                               ///< x axis label
  std::string ylabel{};                               ///< y axis label
  std::vector<std::string> categories{};              ///< one label per group (x axis)
  std::vector<std::string> series{};                  ///< one legend entry per bar within a group
  arma::mat values{};                                 ///< categories x series
  std::optional<std::pair<double, double>> yrange{};  ///< fixed y range, else from 0 (or the lowest value, if negative)
  bool value_labels = true;                           ///< print each bar's value beyond its end
  int precision = 2;                                  ///< digits of the value labels
  std::string key = "top left";                       ///< where the legend goes: gnuplot `set key` arguments
};

/// How one series of a LineChart is drawn (LineChart::styles). The default is a solid line in
/// gnuplot's next colour.
struct LineStyle {
  std::string colour{};     ///< a gnuplot colour such as "#1f77b4"; empty: gnuplot's next colour
  bool dashed = false;      ///< a dashed line (a theory line, or a second variant in the same colour)
  int dashtype = 0;         ///< a gnuplot dash type (2 dashed, 3 dotted, 4 dash-dot, ...); 0: solid, or 2 if dashed
  bool error_bars = false;  ///< points with vertical bars of +- LineChart::errors instead of a line
};

/// Lines (with points) against a shared x.
struct LineChart {
  std::string name{};                                     ///< file stem: writes `NAME.png` and `NAME.dat`
  std::string title{};                                    ///< plot title
  std::string xlabel{};                                   ///< x axis label
  std::string ylabel{};                                   ///< y axis label
  arma::vec x{};                                          ///< points x 1: the x of each point
  arma::mat y{};                                          ///< points x series
  std::vector<std::string> series{};                      ///< one legend entry per column of y
  bool logx = false;                                      ///< logarithmic x axis
  bool logy = false;                                      ///< logarithmic y axis
  bool points = false;                                    ///< mark every point
  std::vector<std::pair<double, std::string>> x_marks{};  ///< dashed vertical lines with labels
  std::optional<std::pair<double, double>> yrange{};      ///< fixed y range, else automatic
  std::string key = "below";  ///< where the legend goes: gnuplot `set key` arguments, e.g. "top left"

  std::vector<LineStyle> styles{};                    ///< empty (all solid lines), or one per series
  arma::mat errors{};                                 ///< points x series: bar half-heights (styles' error_bars)
  std::optional<std::pair<double, double>> xrange{};  ///< fixed x range, else the range of x
  int log_base = 10;  ///< base of the log axes: 10 labels decades as 10⁻¹, 10⁰, 10¹, another base labels plain numbers
};

/// One arrow of an ArrowChart, from (x0, y0) to (x1, y1) in data units.
struct Arrow {
  double x0 = 0.0;               ///< tail x
  double y0 = 0.0;               ///< tail y
  double x1 = 0.0;               ///< tip x
  double y1 = 0.0;               ///< tip y
  std::string colour = "black";  ///< a gnuplot colour such as "#1f77b4"
  std::string label{};           ///< legend entry; empty: none
  bool head = true;              ///< a filled head at the tip; false: a plain segment
  bool dashed = false;           ///< dashed (a guide line)
  int width = 3;                 ///< line width
};

/// Vectors drawn as arrows in the plane (a vector, its projection, a guide line).
struct ArrowChart {
  std::string name{};                                           ///< file stem: writes `NAME.png` and `NAME.dat`
  std::string title{};                                          ///< plot title
  std::string xlabel{};                                         ///< x axis label
  std::string ylabel{};                                         ///< y axis label
  std::vector<Arrow> arrows{};                                  ///< drawn in order, each one data line
  std::pair<double, double> xrange{-1.0, 1.0};                  ///< x range
  std::pair<double, double> yrange{-1.0, 1.0};                  ///< y range
  bool equal_scale = true;                                      ///< one unit is as long on both axes
  bool x_axis = true;                                           ///< draw the line y = 0
  std::string key = "outside right top vertical Left reverse";  ///< gnuplot `set key` arguments
};

/// One kind of cell in a Heatmap drawn as labelled boxes (see Heatmap::kinds).
struct CellKind {
  std::string label{};                ///< text printed in every cell of this kind, e.g. "-inf"
  std::string colour{};               ///< the box's fill, a gnuplot colour such as "#4d4d4d"
  std::string text_colour = "black";  ///< the label's colour ("black" or "white")
  std::string key{};                  ///< its legend entry
};

/// A block of cells outlined on a Heatmap (e.g. where a repeated block reads its first copy), with
/// a legend entry. Rows and columns are cell indices, both ends included.
struct CellOutline {
  arma::uword first_row = 0;       ///< top row of the block
  arma::uword last_row = 0;        ///< bottom row (>= first_row)
  arma::uword first_col = 0;       ///< left column
  arma::uword last_col = 0;        ///< right column (>= first_col)
  std::string colour = "#d62728";  ///< the outline's colour
  bool dashed = false;             ///< a dashed outline (to tell two outlines apart without colour)
  std::string key{};               ///< its legend entry; empty: none
};

/// A matrix drawn as coloured cells, row 0 at the top, each cell's value printed in it.
/// Cells holding NaN are drawn grey and labelled with `nan_label` (for masked entries).
/// With `kinds`, the cells are categories instead of numbers: values(r, c) = k draws a box
/// filled with kinds[k].colour and labelled kinds[k].label, and a key lists the kinds.
struct Heatmap {
  std::string name{};                                  ///< file stem: writes `NAME.png` and `NAME.dat`
  std::string title{};                                 ///< plot title
  std::string xlabel{};                                ///< x axis label
  std::string ylabel{};                                ///< y axis label
  std::vector<std::string> col_labels{};               ///< one per column of values
  std::vector<std::string> row_labels{};               ///< one per row of values
  arma::mat values{};                                  ///< rows x cols
  int precision = 2;                                   ///< digits printed in each cell
  std::optional<std::pair<double, double>> cbrange{};  ///< colour range, e.g. {0, 1} for weights
  std::string nan_label = "masked";                    ///< text shown in NaN cells
  bool cell_labels = true;                             ///< print each cell's value (or its kind's label) in it
  bool colorbox = true;                                ///< draw the colour scale (never drawn with kinds)
  int xtics_rotation = 0;               ///< degrees to turn the column labels by (e.g. -30 for long words)
  std::vector<CellKind> kinds{};        ///< non-empty: values are kind indices 0 .. kinds.size() - 1
  std::vector<CellOutline> outlines{};  ///< blocks outlined over the cells (numeric maps only), keyed below the plot
  /// Numeric maps: colours from low to high. The default, on values of both signs, becomes a
  /// diverging palette (red below zero, white at zero, blue above) over a range centred on zero.
  std::vector<std::string> palette{"#f7fbff", "#9ecae1", "#4292c6"};
  std::string cblabel{};  ///< colour-scale label (empty: none)
};

/// A set of points in a VectorFigure: one legend entry, one marker style, a label beside each point.
struct PointSet {
  std::string title{};                               ///< legend entry ("" for none)
  arma::mat points{};                                ///< points x dims (2 or 3 columns, the figure's dims)
  std::vector<std::string> labels{};                 ///< one per point, printed beside it (empty: no labels)
  std::string colour = "#2b8cbe";                    ///< marker colour, a gnuplot colour
  bool hollow = false;                               ///< open circles (e.g. for absent words) instead of filled dots
  bool stems = false;                                ///< 3-d only: a dashed line from each point down to the floor
  std::pair<double, double> label_offset{1.5, 0.8};  ///< where labels sit, centred, from their point (characters)
};

/// A set of arrows in a VectorFigure, each from `from.row(i)` to `to.row(i)`, one legend entry.
struct ArrowSet {
  std::string title{};                ///< legend entry ("" for none)
  arma::mat from{};                   ///< arrows x dims: tails
  arma::mat to{};                     ///< arrows x dims: heads
  std::vector<std::string> labels{};  ///< one per arrow, printed beyond its head (empty: no labels)
  std::string colour = "#e6550d";     ///< line colour
  int width = 3;                      ///< line width
  /// 0: labels up and right of the heads; > 0: each label centred on its arrow's line, this far (axis
  /// units) beyond the head, so arrows pointing down or left keep their labels clear of the heads
  /// (a zero-length arrow then has no label).
  double label_gap = 0;
};

/// A 3-d viewpoint: azimuth (degrees about the vertical axis, 0.360) and elevation (degrees above
/// the floor, -90.90; 90 looks straight down). gnuplot's `set view` is (90 - elevation, azimuth).
struct View3d {
  double azimuth = 35;    ///< degrees, 0..360
  double elevation = 28;  ///< degrees, -90..90
};

/// Points and arrows in a 2-d plane or a 3-d space, with equal axes. A 3-d figure has one panel per
/// view, side by side (several panels: no legend, so the title should say what the marks are); a
/// 2-d figure has one panel (`views` is ignored).
struct VectorFigure {
  std::string name{};                                ///< file stem: writes `NAME.png`, `NAME.dat`, `NAME_2.dat`, ...
  std::string title{};                               ///< figure title
  std::vector<std::string> axes{};                   ///< 2 or 3 axis labels; their count is the figure's dims
  std::vector<PointSet> points{};                    ///< drawn first (data files 1 .. points.size())
  std::vector<ArrowSet> arrows{};                    ///< drawn over the points (the data files after them)
  std::optional<std::pair<double, double>> range{};  ///< the same range on every axis, else from the data
  std::vector<View3d> views{View3d{}};               ///< 3-d only: one panel per view (1 to 3)
  std::string key = "top left";                      ///< where the legend goes: gnuplot `set key` arguments
};

/// The data files of a VectorFigure: one per point set (coordinates, quoted label), then one per
/// arrow set (tail coordinates, head minus tail, quoted label), 17 significant digits, each with a
/// comment naming its columns. A figure has 2 or 3 dims, sets of that many columns with one label
/// per row or none, and 1 to 3 views when it is 3-d.
std::vector<std::string> vector_figure_data(const VectorFigure& figure);

/// gnuplot commands that draw `figure` from its data files `dats` (gnuplot-quoted names, in the
/// order of vector_figure_data). Empty sets are left out of the plot command.
std::string vector_figure_commands(const VectorFigure& figure, const std::vector<std::string>& dats);

/// The canvas one drawing of a figure goes on. The tour's PNG is one 960 x 600 canvas. The book
/// draws each figure twice in SVG, whose units are CSS pixels: 960 px wide for a desktop column and
/// 380 px wide (narrow) for a phone, so a figure is shown at about its own size and its text, 12 px
/// (never under 11), stays readable on both.
struct Canvas {
  bool svg = false;     ///< gnuplot's svg terminal, else pngcairo
  bool narrow = false;  ///< the phone layout: panels stacked, titles wrapped
  int width = 960;      ///< pixels
  int height = 600;     ///< pixels

  /// gnuplot's `set terminal` and `set output` for a drawing of w x h pixels on this canvas.
  std::string terminal(int w, int h) const;
  /// A font size for text drawn at `points` on the PNG; in SVG never under 11 px.
  int font(int points) const { return svg ? std::max(points, 11) : points; }
  /// `text` broken into lines (gnuplot's \\n) of at most about `width` / 7 characters (or
  /// `columns`, when given) on a narrow canvas, at spaces; on a wide one only a title longer than
  /// that (no `columns`), else unchanged. For titles and key entries, which gnuplot never wraps.
  std::string wrap(const std::string& text, int columns = 0) const;
  /// The canvas of the drawing in progress (Plotter::draw sets it); the PNG canvas outside one.
  static const Canvas& current();
};

/// Where plots go, and whether they can be drawn at all.
struct PlotSettings {
  bool enabled = true;                                        ///< false: --no-plots
  std::optional<std::string> folder{};                        ///< explicit --plots DIR; empty: the repository's plots/
  std::chrono::milliseconds timeout{kDefaultGnuplotTimeout};  ///< per gnuplot run (the probe, each plot)

  /// gnuplot's time limit per plot unless the environment variable ATTN_GNUPLOT_TIMEOUT (seconds)
  /// sets another: drawing one of these PNGs takes well under a second.
  static constexpr std::chrono::milliseconds kDefaultGnuplotTimeout{20000};
};

/// One file another flag of the run writes (or reads), e.g. {"--save", "trained/E.txt"}.
struct OtherFile {
  std::string flag;            ///< the flag that names it, for the message
  std::filesystem::path path;  ///< the file
  bool read = false;           ///< the run reads it (an input) rather than writes it
};

/// Why the plot folder of `plots` (when plots are drawn: --plots DIR, or the repository's plots/)
/// and the files of other flags would meet: the folder is one of the `files`, or one of them lies
/// in the folder under a name the chapter's figures use (`figure_prefix`, e.g. "ch05_"). Empty if
/// they do not; compared after resolving links and `..`.
std::string plot_folder_clash(const PlotSettings& plots, const std::vector<OtherFile>& files,
                              const std::string& figure_prefix);

/// Draws figures into one folder. Chapters make one Plotter after parsing flags.
class Plotter {
 public:
  /// Decides where plots go and whether gnuplot can draw them.
  /// An explicit folder that cannot be created or written is an error; the default folder failing,
  /// gnuplot missing from PATH, or gnuplot lacking pngcairo disable the Plotter with a reason instead. A gnuplot that
  /// crashes, fails or hangs when probed disables it too, and is reported as a runtime failure (app::report_failure).
  explicit Plotter(const PlotSettings& settings);

  /// True if figures will be drawn.
  bool enabled() const { return enabled_; }
  /// Why plots are skipped (empty when enabled).
  const std::string& skip_reason() const { return reason_; }
  /// The folder figures go into (absolute when enabled).
  const std::filesystem::path& folder() const { return folder_; }
  /// True if figures are drawn in SVG for the book (ATTN_PLOT_FORMAT=svg), else in PNG.
  bool svg() const { return svg_; }
  /// Every figure written so far (its PNG, or its desktop SVG), in order.
  const std::vector<std::filesystem::path>& written() const { return written_; }

  /// Draws a BarChart. Each drawing call writes `NAME.dat` and `NAME.png`, and does nothing when disabled.
  /// If gnuplot fails, times out or a file cannot be written, it reports one line (with gnuplot's or
  /// the system's reason) through app::report_failure, leaves no file behind, and returns.
  void bars(const BarChart& chart);
  /// Draws a LineChart (see bars() for what is written).
  void lines(const LineChart& chart);
  /// Draws a Heatmap (see bars() for what is written).
  void heatmap(const Heatmap& map);
  /// Draws a VectorFigure (see bars() for what is written).
  void vectors(const VectorFigure& figure);
  /// Draws a Graphviz diagram: writes `NAME.dot` (the source) and `NAME.png`, rendered by `dot -Tpng`
  /// started directly (no shell), its source on standard input, within the plot time limit. For
  /// the book, `dot -Tsvg` writes `NAME.svg` as drawn and `NAME.narrow.svg` laid out top to bottom
  /// (`rankdir=TB` appended to the graph), for a phone's column. Does
  /// nothing when the Plotter is disabled; when `dot` is not on PATH the diagram is skipped and
  /// report() says so in one line. dot failing is reported like a gnuplot failure; after dot hangs
  /// once (the time limit), later diagrams are not tried and report() counts them. The source is
  /// the caller's generated text: user text must reach it only through graphviz_quote().
  void diagram(const std::string& name, const std::string& dot_source);
  /// The same, with the phone's drawing (`NAME.narrow.svg`) from its own source: a diagram that is
  /// already top to bottom gets a narrower layout of its own (wrapped labels, stacked groups).
  void diagram(const std::string& name, const std::string& dot_source, const std::string& narrow_source);
  /// Draws an ArrowChart (see bars() for what is written).
  void arrows(const ArrowChart& chart);

  /// Escape hatch for figures the helpers above do not cover (splot, several panels, ..).
  /// data: one text per data file, written to `NAME.dat`, `NAME_2.dat`, ..; `commands`
  /// receives their quoted (temporary, relative) names and returns gnuplot commands that draw the figure. The terminal,
  /// output and title are set before them. Failures are reported as bars() reports them.
  void figure(const std::string& name, const std::string& title, const std::vector<std::string>& data,
              const std::function<std::string(const std::vector<std::string>& dat_paths)>& commands);

  /// Prints one line saying where plots went, or why they were skipped.
  void report(std::ostream& out) const;

 private:
  void draw(const std::string& name, const std::vector<std::string>& data,
            const std::function<std::string(const std::vector<std::string>& dat_names)>& commands);

  bool enabled_ = false;
  bool svg_ = false;
  std::string reason_;
  std::filesystem::path folder_;
  std::filesystem::path gnuplot_;
  std::chrono::milliseconds timeout_{PlotSettings::kDefaultGnuplotTimeout};
  std::vector<std::filesystem::path> written_;
  int failed_ = 0;
  std::filesystem::path dot_;   // Graphviz's dot, found at the first diagram()
  int diagrams_skipped_ = 0;    // diagrams not drawn because dot is missing
  int diagrams_abandoned_ = 0;  // diagrams not tried after dot hung once (one time limit, not one per diagram)
  bool dot_hung_ = false;       // dot reached the time limit: later diagrams are not tried
};

/// True if `path` is a complete PNG: the 8-byte signature, an IHDR chunk first and an IEND chunk last.
/// An unreadable file is false.
bool is_valid_png(const std::filesystem::path& path);
/// is_valid_png() for bytes in memory (what gnuplot sent).
bool is_valid_png_bytes(const std::string& bytes);
/// True if `bytes` is a whole SVG document: an XML declaration or `<svg` first, `</svg>` last.
bool is_valid_svg_bytes(const std::string& bytes);
/// is_valid_svg_bytes() for a file. An unreadable file is false.
bool is_valid_svg(const std::filesystem::path& path);

/// The data file of a bar chart: a comment with the title and series, then one line per category
/// (quoted label, then one value per series, 17 significant digits); Plotter::bars checks the shape.
std::string bar_chart_data(const BarChart& chart);

/// gnuplot commands that draw `chart` as clustered bars from `dat` (a gnuplot-quoted file path):
/// its title, axis labels, y range (from 0 unless a bar is negative), one histogram per series
/// and, if asked, each bar's value in a font of `label_font` points (above a rising bar, below a
/// falling one; a value that rounds to zero reads "0.0", never "-0.0"). Shared by Plotter::bars and
/// the multi-panel figures of panels.hpp.
std::string bar_chart_commands(const BarChart& chart, const std::string& dat, int label_font = 9);

/// The data file of a heatmap: a comment with the title, then one line per cell (column, row,
/// value or kind, its printed label; with kinds also the label's colour as 0xRRGGBB), rows
/// separated by blank lines.
std::string heatmap_data(const Heatmap& map);

/// gnuplot commands that draw `map` from `dat` (a gnuplot-quoted file path): its title, axes,
/// cells and labels in a font of `label_font` points. Shared by Plotter::heatmap and heatmap_panels;
/// heatmap_data checks the labels.
std::string heatmap_commands(const Heatmap& map, const std::string& dat, int label_font = 11);

/// Quotes text for a Graphviz (DOT) label as a double-quoted string: backslashes and quotes
/// escaped, a newline written as DOT's centred line break `\n`, other control bytes as spaces, so
/// the text stays one label and cannot end the statement: `a "b"` -> `"a \"b\""`.
std::string graphviz_quote(const std::string& text);

/// Quotes text for a gnuplot command as a double-quoted string: backslashes and quotes escaped, a
/// backquote written as \\140 (gnuplot runs `..` as a shell command, even inside double quotes),
/// newlines as \\n, a tab as a space and other control bytes as visible text (`\\x1b`), so the
/// text can never end the command or run anything: "it's" -> "\"it's\"".
std::string gnuplot_quote(const std::string& text);

/// gnuplot_quote() for a tic label: gnuplot reads explicit tic labels as format strings, so a '%'
/// is doubled ("100%" shows as 100%, not a format error).
std::string gnuplot_tic_label(const std::string& text);

/// The colour a word of the toy vocabulary keeps in every plot of a chapter: the, river, money and
/// bank get four distinct colours (a gnuplot "#rrggbb"); any other word gets grey.
std::string word_colour(const std::string& word);

}  // namespace app
