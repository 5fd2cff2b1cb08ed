# Checks that every place a chapter must appear follows the one chapter list (ATTN_CHAPTER_DIRS in
# chapters/CMakeLists.txt, in article order), so adding a chapter cannot forget one of them.
# Run by CTest (test chapter_list):  cmake -DSOURCE=<repo> -DCHAPTERS=ch01_mixing,ch02_swap_query,... -P chapter_list.cmake
# For each chapter chNN_name it checks:
#   - chapters/NN_name/ and tests/test_chNN_name.cpp exist (the test is registered from the list);
#   - docs/chNN_name.md exists and its navigation line links the previous and next chapters of the list
#     (the first links back to another page of the book, the last forward to one);
#   - the main page, the claims page, the bad-input page and the README name it;
#   - every claim ID the claims page gives the chapter has a test case claim_<id>_... in its test file.
# The tour, the chapter tests, the bad-input loops and the docs captures read the list directly.
string(REPLACE "," ";" CHAPTERS "${CHAPTERS}")  # CTest passes the list comma-separated
set(problems "")
macro(problem text)
  string(APPEND problems "  ${text}\n")
endmacro()
function(read_file path var)
  if(EXISTS ${path})
    file(READ ${path} text)
  else()
    set(text "")
  endif()
  set(${var} "${text}" PARENT_SCOPE)
endfunction()

read_file(${SOURCE}/docs/mainpage.md mainpage)
read_file(${SOURCE}/docs/claims.md claims)
read_file(${SOURCE}/docs/bad_input.md bad_input)
read_file(${SOURCE}/README.md readme)
list(LENGTH CHAPTERS count)
set(index 0)
foreach(chapter IN LISTS CHAPTERS)
  string(SUBSTRING ${chapter} 2 -1 dir)  # ch01_mixing -> 01_mixing
  if(NOT IS_DIRECTORY ${SOURCE}/chapters/${dir})
    problem("${chapter}: no folder chapters/${dir}/")
  endif()
  if(NOT EXISTS ${SOURCE}/tests/test_${chapter}.cpp)
    problem("${chapter}: no test tests/test_${chapter}.cpp")
  endif()
  set(page ${SOURCE}/docs/${chapter}.md)
  if(NOT EXISTS ${page})
    problem("${chapter}: no docs page docs/${chapter}.md")
  else()
    file(READ ${page} text)
    math(EXPR prev "${index} - 1")
    math(EXPR next "${index} + 1")
    set(prev_page "[a-z0-9_]+")  # the first chapter goes back to a page of the book, the last on to one
    set(next_page "[a-z0-9_]+")
    if(prev GREATER_EQUAL 0)
      list(GET CHAPTERS ${prev} prev_page)
    endif()
    if(next LESS count)
      list(GET CHAPTERS ${next} next_page)
    endif()
    if(NOT text MATCHES "\\\\ref ${prev_page} \"Previous")
      problem("docs/${chapter}.md: its navigation does not link the previous page, ${prev_page}")
    endif()
    if(NOT text MATCHES "\\\\ref ${next_page} \"(Next|Back)")
      problem("docs/${chapter}.md: its navigation does not link the next page, ${next_page}")
    endif()
  endif()
  foreach(place mainpage claims)
    if(NOT "${${place}}" MATCHES "\\\\ref ${chapter}[ |]")
      problem("docs/${place}.md does not reference ${chapter}")
    endif()
  endforeach()
  if(NOT bad_input MATCHES "${chapter}")
    problem("docs/bad_input.md does not name ${chapter}")
  endif()
  if(NOT readme MATCHES "`${chapter}`")
    problem("README.md does not name `${chapter}`")
  endif()
  # Claim IDs the claims page gives this chapter: rows "| id | \ref chapter | ...".
  read_file(${SOURCE}/tests/test_${chapter}.cpp test_text)
  string(REGEX MATCHALL "\\| [a-z]+_[0-9]+[a-z]? \\| \\\\ref ${chapter} " rows "${claims}")
  foreach(row IN LISTS rows)
    string(REGEX REPLACE "^\\| ([a-z]+_[0-9]+[a-z]?) .*" "\\1" id "${row}")
    if(NOT test_text MATCHES "claim_${id}_")
      problem("claim ${id} (docs/claims.md, ${chapter}) has no test case claim_${id}_... in tests/test_${chapter}.cpp")
    endif()
  endforeach()
  math(EXPR index "${index} + 1")
endforeach()

if(problems)
  message(FATAL_ERROR "The chapter list (chapters/CMakeLists.txt) and these places disagree:\n${problems}")
endif()
message(STATUS "chapter_list: ${count} chapters, each in its folder, test, docs page, navigation, main page, "
               "claims page, bad-input page and README")
