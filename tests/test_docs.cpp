/// \file test_docs.cpp
/// \brief The generated book: every local link and image resolves, every image is a valid PNG or SVG
/// (each figure with its phone drawing, NAME.narrow.svg, beside it), MathJax
/// is copied in and referenced relatively, every part of every captured output is on its page,
/// and every chapter has a page showing its captured output and its plots.
///
/// Runs after the ctest test `docs_build` (fixture docs_html) has built the HTML.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/apparatus/plot.hpp"

namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The local target of an href/src, or an empty path for remote links and in-page anchors.
fs::path local_target(const fs::path& page, std::string link) {
  link = link.substr(0, link.find_first_of("#?"));
  if (link.empty()) return {};
  for (const char* remote : {"http://", "https://", "mailto:", "javascript:", "ftp://"}) {
    if (link.rfind(remote, 0) == 0) return {};
  }
  if (link.rfind("file://", 0) == 0) return fs::path(link.substr(7));
  return page.parent_path() / link;
}

std::vector<std::string> chapters() {
  std::vector<std::string> out;
  std::stringstream list(CHAPTERS);
  for (std::string c; std::getline(list, c, ',');) out.push_back(c);
  return out;
}

/// Every value of an href="..." or src="..." attribute in `html`, in order.
std::vector<std::string> attribute_values(const std::string& html) {
  std::vector<std::string> values;
  for (const std::string attribute : {"href=\"", "src=\""}) {
    for (std::size_t at = html.find(attribute); at != std::string::npos; at = html.find(attribute, at + 1)) {
      const std::size_t start = at + attribute.size(), end = html.find('"', start);
      if (end == std::string::npos) break;
      if (end > start) values.push_back(html.substr(start, end - start));
    }
  }
  return values;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_local_link_and_image_resolves) {
  const fs::path html = DOCS_HTML;
  BOOST_REQUIRE(fs::exists(html / "index.html"));
  std::size_t pages = 0, links = 0;
  std::set<fs::path> images;
  for (const auto& entry : fs::recursive_directory_iterator(html)) {
    if (entry.path().extension() != ".html") continue;
    ++pages;
    const std::string text = read(entry.path());
    for (const std::string& ref : attribute_values(text)) {
      const fs::path target = local_target(entry.path(), ref);
      if (target.empty()) continue;
      ++links;
      BOOST_TEST(fs::exists(target), entry.path().filename().string() << " links to missing " << ref);
      if (target.extension() == ".png" || target.extension() == ".svg") images.insert(target);
    }
  }
  BOOST_TEST(pages > 10u);
  BOOST_TEST(links > 100u);
  std::size_t figures = 0;
  for (const auto& image : images) {
    if (image.extension() == ".png") {
      BOOST_TEST(app::is_valid_png(image), image.string() << " is not a valid PNG");
      continue;
    }
    BOOST_TEST(app::is_valid_svg(image), image.string() << " is not a whole SVG");
    const std::string stem = image.stem().string();
    if (stem.rfind("ch", 0) != 0 || stem.find(".narrow") != std::string::npos) continue;
    ++figures;
    const fs::path narrow = image.parent_path() / (stem + ".narrow.svg");
    BOOST_TEST(app::is_valid_svg(narrow), narrow.string() << " (the phone's drawing) is missing or not a whole SVG");
  }
  BOOST_TEST(figures > 40u);  // the chapters' figures, each drawn for the page
}

BOOST_AUTO_TEST_CASE(every_chapter_page_shows_output_and_plots) {
  const fs::path html = DOCS_HTML;
  const std::string index = read(html / "index.html");
  for (const std::string& chapter : chapters()) {
    const fs::path page = html / (chapter + ".html");
    BOOST_TEST_CONTEXT(chapter) {
      BOOST_REQUIRE(fs::exists(page));
      const std::string text = read(page);
      // Its own figures, each a link that opens it full size.
      BOOST_TEST(text.find("<img class=\"figure\" src=\"" + chapter.substr(0, 4)) != std::string::npos);
      BOOST_TEST(text.find("<a class=\"figure-open") != std::string::npos);
      BOOST_TEST(text.find("plots: ") != std::string::npos);      // the captured output's last line
      BOOST_TEST(text.find("chapter-nav") == std::string::npos);  // the source marker never shows as a heading
      BOOST_TEST(index.find("href=\"" + chapter + ".html") != std::string::npos);  // linked from the main page
    }
  }
}

BOOST_AUTO_TEST_CASE(formulas_use_the_copied_mathjax_by_a_relative_path) {
  const fs::path html = DOCS_HTML;
  BOOST_TEST(fs::exists(html / "mathjax" / "MathJax.js"));
  BOOST_TEST(fs::exists(html / "mathjax" / "extensions" / "TeX" / "AMSmath.js"));
  BOOST_TEST(fs::exists(html / "mathjax" / "jax" / "output" / "HTML-CSS" / "jax.js"));
  std::size_t with_formulas = 0;
  for (const auto& entry : fs::directory_iterator(html)) {
    if (entry.path().extension() != ".html") continue;
    const std::string text = read(entry.path());
    BOOST_TEST_CONTEXT(entry.path().filename().string()) {
      // A page with a formula (MathJax's TeX delimiters in its body) loads MathJax; one without does not.
      const std::string body = text.substr(std::min(text.find("<body"), text.size()));
      const bool formulas = body.find("\\(") != std::string::npos || body.find("\\[") != std::string::npos ||
                            body.find("\\begin{") != std::string::npos;
      with_formulas += formulas;
      BOOST_TEST((text.find("src=\"mathjax/MathJax.js\"") != std::string::npos) == formulas);
      BOOST_TEST((text.find("MathJax.Hub.Config") != std::string::npos) == formulas);
      BOOST_TEST(text.find("src=\"file:") == std::string::npos);
      BOOST_TEST(text.find("href=\"file:") == std::string::npos);
      BOOST_TEST(text.find(PROJECT_ROOT) == std::string::npos);  // no absolute path of the build machine
    }
  }
  BOOST_TEST(with_formulas >= 10u);  // the main page and every chapter page have formulas
  BOOST_TEST(read(html / "ch04_scaling.html").find("src=\"mathjax/MathJax.js\"") != std::string::npos);
}

/// `html` with the entities Doxygen writes for quotes, ampersands and angle brackets decoded.
static std::string decoded(std::string html) {
  for (const auto& [entity, c] : std::vector<std::pair<std::string, std::string>>{
           {"&quot;", "\""}, {"&#39;", "'"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}}) {
    for (std::size_t at = html.find(entity); at != std::string::npos; at = html.find(entity, at + c.size()))
      html.replace(at, entity.size(), c);
  }
  return html;
}

BOOST_AUTO_TEST_CASE(every_part_of_every_captured_output_is_on_its_chapter_page) {
  // The docs build splits each chapter's output at its numbered headings (stem.1.txt, ...); a page
  // that dropped a part would hide a section's output.
  const fs::path output = DOCS_OUTPUT, html = DOCS_HTML;
  for (const std::string& chapter : chapters()) {
    BOOST_TEST_CONTEXT(chapter) {
      std::ifstream count_file(output / (chapter + ".parts"));
      std::size_t parts = 0;
      count_file >> parts;
      BOOST_TEST(parts >= 1u);
      const std::string page = decoded(read(html / (chapter + ".html")));
      for (std::size_t k = 1; k <= parts; ++k) {
        std::ifstream part(output / (chapter + "." + std::to_string(k) + ".txt"));
        std::string first;
        while (first.empty() && std::getline(part, first)) {
        }
        BOOST_TEST(!first.empty(), "part " << k << " is empty");
        BOOST_TEST(page.find(first) != std::string::npos, "part " << k << " (\"" << first << "\") is not on the page");
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(no_chapter_page_prints_a_claim_that_does_not_hold) {
  // The pages quote their programs' output (every captured part is on its page, as checked above): a
  // claim the page states and the same build fails (a model trained on another machine, say) must
  // fail the suite, not sit on the page beside prose that says it holds.
  std::size_t parts = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(DOCS_OUTPUT)) {
    if (e.path().extension() != ".txt") continue;
    ++parts;
    const std::string text = read(e.path());
    for (const std::string verdict : {"does NOT hold", "(does not hold here)", "not judged"}) {
      const std::size_t at = text.find(verdict);
      BOOST_TEST(at == std::string::npos,
                 e.path().filename().string()
                     << " prints \"" << verdict
                     << "\": " << text.substr(at == std::string::npos ? 0 : text.rfind('\n', at) + 1, 300));
    }
  }
  BOOST_TEST(parts >= 9u);
}
