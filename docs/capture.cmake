# Runs one chapter program and saves what it prints, for the docs. Fails if the chapter fails.
# -DEXE=<program> -DARGS=<;-list of flags> -DOUT=<file>
get_filename_component(out_dir ${OUT} DIRECTORY)
file(MAKE_DIRECTORY ${out_dir})
execute_process(COMMAND ${EXE} ${ARGS} OUTPUT_FILE ${OUT} ERROR_VARIABLE err RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "${EXE} ${ARGS} exited ${code}: ${err}")
endif()
