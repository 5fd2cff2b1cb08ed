# Exports chapter 09's saved model into the book for the head view widget (docs/live/live_ch09.cpp):
# html/live/ch09_model.js sets window.attnLiveData.ch09 to model.txt's text, as attn::save_model
# wrote it, and run.txt's vocabulary (its "characters" line, hexadecimal). The page hands both to
# the WebAssembly, which reads the model with attn::read_model, the same reader ch09_real_heads
# uses. A script file, not a fetched one, so the book also works opened from the disk.
# -DMODEL=<the saved run's folder> -DOUT=<html/live/ch09_model.js>
foreach(file model.txt run.txt)
  if(NOT EXISTS ${MODEL}/${file})
    message(FATAL_ERROR "export_ch09: ${MODEL}/${file} is missing (ch09_real_heads --cached ch09_model saves it)")
  endif()
endforeach()
file(STRINGS ${MODEL}/run.txt characters REGEX "^characters [0-9a-f]+$")
if(NOT characters MATCHES "^characters ([0-9a-f]+)$")
  message(FATAL_ERROR "export_ch09: ${MODEL}/run.txt has no line of hexadecimal characters")
endif()
set(hex ${CMAKE_MATCH_1})
file(READ ${MODEL}/model.txt model)
# model.txt holds names, digits, signs, points and spaces: only its line ends need escaping.
if(NOT model MATCHES "^attn-only-model 1\n[-+.0-9A-Za-z_ \n]*$")
  message(FATAL_ERROR "export_ch09: ${MODEL}/model.txt is not a model file written by attn::save_model")
endif()
string(REPLACE "\n" "\\n" model "${model}")
file(WRITE ${OUT}.tmp
     "// Chapter 09's saved model for the head view widget, exported by the docs build from ${MODEL_NAME}\n"
     "// (model.txt and run.txt's vocabulary; docs/live/export_ch09.cmake). Generated.\n"
     "window.attnLiveData = Object.assign(window.attnLiveData || {}, { ch09: {\n"
     "  characters: \"${hex}\",\n  model: \"${model}\" } });\n")
file(RENAME ${OUT}.tmp ${OUT})
