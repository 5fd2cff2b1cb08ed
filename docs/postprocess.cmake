# Runs after Doxygen on the generated book. -DMATHJAX=<Debian's libjs-mathjax> -DHTML=<html/>
# 1. Copies the part of MathJax 2 the pages use into html/mathjax: the loader, TeX input with the
#    AMS extensions, HTML-CSS output with its TeX font data and the TeX web fonts (woff).
# 2. Gives every plot its caption as alt text (Doxygen 1.9 leaves alt empty), and every class
#    diagram a short one.
# 3. Links each claim tag in the chapter pages ([mix_01]) to its row on the claims page.
# 4. Drops MathJax from the pages without a formula (Doxygen loads it on every page; most API pages
#    have none), so they open without loading and starting it. The browser test fails on any TeX
#    left untypeset, so a page that needed it cannot lose it unnoticed.
if(NOT EXISTS ${MATHJAX}/MathJax.js)
  message(FATAL_ERROR "MathJax 2 not found in ${MATHJAX} (Debian package libjs-mathjax; scripts/install-deps.sh)")
endif()
set(mj ${HTML}/mathjax)
file(REMOVE_RECURSE ${mj})
foreach(item
    MathJax.js
    extensions/tex2jax.js extensions/MathEvents.js extensions/MathMenu.js extensions/MathZoom.js
    extensions/TeX/AMSmath.js extensions/TeX/AMSsymbols.js
    jax/input/TeX jax/element/mml
    jax/output/HTML-CSS/config.js jax/output/HTML-CSS/jax.js jax/output/HTML-CSS/autoload
    jax/output/HTML-CSS/fonts/TeX
    fonts/HTML-CSS/TeX/woff)
  get_filename_component(parent ${item} DIRECTORY)
  file(COPY ${MATHJAX}/${item} DESTINATION ${mj}/${parent} FOLLOW_SYMLINK_CHAIN)
endforeach()

file(GLOB pages ${HTML}/*.html)
foreach(page IN LISTS pages)
  file(READ ${page} html)
  set(before "${html}")
  string(REGEX REPLACE "<img src=\"([^\"]+)\" alt=\"\"/>\n<div class=\"caption\">\n([^<\"]+)</div>"
         "<img src=\"\\1\" alt=\"\\2\"/>\n<div class=\"caption\">\n\\2</div>" html "${html}")
  # Doxygen's class diagrams (inheritance, drawn without Graphviz).
  string(REGEX REPLACE "<img src=\"(class[^\"]+)\\.png\" alt=\"\"/>"
         "<img src=\"\\1.png\" alt=\"Inheritance diagram of this class\"/>" html "${html}")
  get_filename_component(name ${page} NAME)
  if(name MATCHES "^ch[0-9][0-9]_")
    string(REGEX REPLACE "([^>])\\[([a-z]+_[0-9]+)\\]"
           "\\1<a class=\"claim\" href=\"claims.html#claim_\\2\">[\\2]</a>" html "${html}")
  endif()
  # Doxygen writes formulas as \( \), \[ \] or \begin{...} (MathJax's TeX delimiters).
  string(FIND "${html}" "<body" body_at)
  if(body_at EQUAL -1)
    set(body_at 0)
  endif()
  string(SUBSTRING "${html}" ${body_at} -1 body)
  string(FIND "${body}" "\\(" inline_math)
  string(FIND "${body}" "\\[" display_math)
  string(FIND "${body}" "\\begin{" environment)
  if(inline_math EQUAL -1 AND display_math EQUAL -1 AND environment EQUAL -1)
    set(config_tag "<script type=\"text/x-mathjax-config\">")
    set(loader_tag "<script type=\"text/javascript\" async=\"async\" src=\"mathjax/MathJax.js\"></script>\n")
    string(FIND "${html}" "${config_tag}" from)
    string(FIND "${html}" "${loader_tag}" to)
    if(from GREATER -1 AND to GREATER from)
      string(LENGTH "${loader_tag}" loader_length)
      math(EXPR after "${to} + ${loader_length}")
      string(SUBSTRING "${html}" 0 ${from} head)
      string(SUBSTRING "${html}" ${after} -1 tail)
      set(html "${head}${tail}")
    endif()
  endif()
  if(NOT html STREQUAL before)
    file(WRITE ${page}.tmp "${html}")
    file(RENAME ${page}.tmp ${page})
  endif()
endforeach()
