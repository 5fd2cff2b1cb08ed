# Checks the seam between common/'s two libraries, and the layers above them (CTest test `layers`):
#   - common/attention/ (the mathematics) includes only the standard library, Armadillo and its own
#     folder: no Boost, libfmt, gnuplot, streams, files, threads or processes, and nothing of
#     common/apparatus/ or common/fast/;
#   - common/fast/ (the speed) includes the attention library and the standard library only;
#   - only common/apparatus/cli.* and the chapter programs (chapters/*/main.cpp) include cli.hpp or
#     Boost.Program_options: the mathematics, printing, plotting and every lesson know nothing of flags;
#   - no chapter file includes gnuplot-iostream: figures go through common/apparatus/plot.hpp.
# Usage: cmake -DSOURCE=<repo> -P layers.cmake
set(problems "")
file(GLOB_RECURSE sources RELATIVE ${SOURCE} ${SOURCE}/common/*.hpp ${SOURCE}/common/*.cpp
     ${SOURCE}/chapters/*.hpp ${SOURCE}/chapters/*.cpp)
set(not_mathematics "boost/|fmt/|gnuplot|<iostream>|<fstream>|<ostream>|<filesystem>|<thread>|<unistd.h>|<sys/|\"common/apparatus/|\"common/fast/")
foreach(file IN LISTS sources)
  file(STRINGS ${SOURCE}/${file} includes REGEX "^#include")
  set(is_cli FALSE)
  if(file MATCHES "^common/apparatus/cli\\.(hpp|cpp)$" OR file MATCHES "^chapters/[^/]+/main\\.cpp$")
    set(is_cli TRUE)
  endif()
  foreach(line IN LISTS includes)
    if(NOT is_cli AND line MATCHES "common/apparatus/cli\\.hpp|boost/program_options")
      string(APPEND problems "  ${file}: ${line} (only the command line and the programs may)\n")
    endif()
    if(file MATCHES "^common/attention/" AND line MATCHES "${not_mathematics}")
      string(APPEND problems "  ${file}: ${line} (the attention library is the mathematics alone)\n")
    endif()
    if(file MATCHES "^common/fast/" AND line MATCHES "boost/|fmt/|gnuplot|<iostream>|<fstream>|\"common/apparatus/")
      string(APPEND problems "  ${file}: ${line} (the speed serves the mathematics, not the apparatus)\n")
    endif()
    if(file MATCHES "^chapters/" AND line MATCHES "gnuplot-iostream")
      string(APPEND problems "  ${file}: ${line} (figures go through common/apparatus/plot.hpp)\n")
    endif()
  endforeach()
endforeach()
file(GLOB cpp_in_attention ${SOURCE}/common/attention/*.cpp)
if(cpp_in_attention)
  string(APPEND problems "  common/attention/ holds .cpp files (${cpp_in_attention}): the library is header-only\n")
endif()
if(problems)
  message(FATAL_ERROR "Layering broken:\n${problems}")
endif()
list(LENGTH sources count)
message(STATUS "layers: ${count} files; the mathematics apart from the apparatus, the command line only on top")
