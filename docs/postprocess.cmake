# Runs after Doxygen on the generated book. -DMATHJAX=<Debian's libjs-mathjax> -DHTML=<html/>
#   -DPLOTS=<the plot folder> -DBOOKJS=<docs/book.js>
# 1. Copies the part of MathJax 2 the pages use into html/mathjax: the loader, TeX input with the
#    AMS extensions, HTML-CSS output with its TeX font data and the TeX web fonts (woff).
# 2. Gives every plot its caption as alt text (Doxygen 1.9 leaves alt empty), and every class
#    diagram a short one.
# 3. Links each claim tag in the chapter pages ([mix_01]) to its row on the claims page, gives the
#    printed line an anchor (printed_mix_01), and links each claims row to that line.
# 5. Shows each figure (NAME.svg, drawn for a desktop column) as a picture that switches to
#    NAME.narrow.svg (drawn for a phone, copied in here) in a narrow window, inside a link that
#    opens the figure full size.
# 6. Loads book.js (the table of contents at hand, scroll cues on wide formulas and boxes).
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

file(COPY ${BOOKJS} DESTINATION ${HTML})
file(GLOB pages ${HTML}/*.html)
set(printed_claims "")
foreach(page IN LISTS pages)
  file(READ ${page} html)
  set(before "${html}")
  # Figures: Doxygen writes an SVG as an <object>; the page shows a <picture> instead (the phone's
  # drawing below 900 px, where the desktop one would shrink its text under 11 px).
  string(REGEX MATCHALL "<object type=\"image/svg\\+xml\" data=\"[^\"]+\\.svg\"" svgs "${html}")
  foreach(svg IN LISTS svgs)
    string(REGEX REPLACE ".*data=\"([^\"]+)\\.svg\"" "\\1" stem "${svg}")
    if(NOT stem MATCHES "\\.narrow$" AND EXISTS ${PLOTS}/${stem}.narrow.svg)
      file(COPY ${PLOTS}/${stem}.narrow.svg DESTINATION ${HTML})
    endif()
  endforeach()
  string(REGEX REPLACE
         "<object type=\"image/svg\\+xml\" data=\"([^\"]+)\\.svg\"[^>]*>[^<]*</object>\n<div class=\"caption\">\n([^<\"]+)</div>"
         "<a class=\"figure-open\" href=\"\\1.svg\" title=\"Open the figure full size\"><picture><source media=\"(max-width: 899px)\" srcset=\"\\1.narrow.svg\"/><img class=\"figure\" src=\"\\1.svg\" alt=\"\\2\"/></picture></a>\n<div class=\"caption\">\n\\2</div>"
         html "${html}")
  if(NOT html MATCHES "src=\"book.js\"")
    string(REPLACE "</head>" "<script type=\"text/javascript\" src=\"book.js\" defer=\"defer\"></script>\n</head>" html "${html}")
  endif()
  string(REGEX REPLACE "<img src=\"([^\"]+)\" alt=\"\"/>\n<div class=\"caption\">\n([^<\"]+)</div>"
         "<img src=\"\\1\" alt=\"\\2\"/>\n<div class=\"caption\">\n\\2</div>" html "${html}")
  # Doxygen's class diagrams (inheritance, drawn without Graphviz).
  string(REGEX REPLACE "<img src=\"(class[^\"]+)\\.png\" alt=\"\"/>"
         "<img src=\"\\1.png\" alt=\"Inheritance diagram of this class\"/>" html "${html}")
  get_filename_component(name ${page} NAME)
  if(name MATCHES "^ch[0-9][0-9]_")
    # The first line printing a claim gets its anchor; a later one links the same way.
    string(REGEX MATCHALL "[^>]\\[[a-z]+_[0-9]+\\]" tags "${html}")
    foreach(tag IN LISTS tags)
      string(REGEX REPLACE ".\\[([a-z]+_[0-9]+)\\]" "\\1" id "${tag}")
      string(FIND "${html}" "id=\"printed_${id}\"" seen)
      if(seen EQUAL -1)
        string(FIND "${html}" "${tag}" at)
        string(LENGTH "[${id}]" tag_length)
        math(EXPR head_length "${at} + 1")
        math(EXPR tail_at "${at} + 1 + ${tag_length}")
        string(SUBSTRING "${html}" 0 ${head_length} head)
        string(SUBSTRING "${html}" ${tail_at} -1 tail)
        set(html "${head}<a class=\"claim\" id=\"printed_${id}\" href=\"claims.html#claim_${id}\">[${id}]</a>${tail}")
        list(APPEND printed_claims "${name}#printed_${id}")
      endif()
    endforeach()
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
