# Checks the layering of common/ and the chapters (CTest test `layers`):
#   - only common/cli.* and the chapter programs (chapters/*/main.cpp) include common/apparatus/cli.hpp or
#     Boost.Program_options: the attention core, the models, printing, plotting and every lesson
#     library know nothing of flags;
#   - the bottom layer, common/checks.*, includes no other part of the library;
#   - no lesson library (chapters/*/ except main.cpp) includes gnuplot-iostream: figures go through
#     common/apparatus/plot.hpp.
# Usage: cmake -DSOURCE=<repo> -P layers.cmake
set(problems "")
file(GLOB_RECURSE sources RELATIVE ${SOURCE} ${SOURCE}/common/*.hpp ${SOURCE}/common/*.cpp
     ${SOURCE}/chapters/*.hpp ${SOURCE}/chapters/*.cpp)
foreach(file IN LISTS sources)
  file(STRINGS ${SOURCE}/${file} includes REGEX "^#include")
  set(is_cli FALSE)
  if(file MATCHES "^common/cli\\.(hpp|cpp)$" OR file MATCHES "^chapters/[^/]+/main\\.cpp$")
    set(is_cli TRUE)
  endif()
  foreach(line IN LISTS includes)
    if(NOT is_cli AND line MATCHES "common/cli\\.hpp|boost/program_options")
      string(APPEND problems "  ${file}: ${line} (only the command line and the programs may)\n")
    endif()
    if(file MATCHES "^common/checks\\." AND line MATCHES "\"common/" AND NOT line MATCHES "common/checks\\.hpp")
      string(APPEND problems "  ${file}: ${line} (the bottom layer includes no other part of the library)\n")
    endif()
    if(file MATCHES "^chapters/" AND line MATCHES "gnuplot-iostream")
      string(APPEND problems "  ${file}: ${line} (figures go through common/apparatus/plot.hpp)\n")
    endif()
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "Layering broken:\n${problems}")
endif()
list(LENGTH sources count)
message(STATUS "layers: ${count} files, the command line only on top")
