/// \file export_ch09.cpp
/// \brief Exports chapter 09's saved model into the book for the head view widget
/// (docs/live/live_ch09.cpp): html/live/ch09_model.js sets window.attnLiveData.ch09 to the model's
/// shape, its parameters as float32 in base64 (little-endian; the groups in parameter_table()
/// order, each in Armadillo's column-major order) and run.txt's vocabulary (its "characters" line,
/// hexadecimal). The page decodes the bytes and hands the floats to the WebAssembly directly: no
/// text to parse there, so the widget's first view costs milliseconds. A script file, not a
/// fetched one, so the book also works opened from the disk.
///
/// Usage: ch09_live_export MODEL_DIR OUT.js (MODEL_DIR as ch09_real_heads --save wrote it). The
/// model is read with app::load_model, as ch09_real_heads reads it; the file is written whole or
/// not at all. Exit code 1 with one line for a model or vocabulary it cannot read.
#include <boost/archive/iterators/base64_from_binary.hpp>
#include <boost/archive/iterators/transform_width.hpp>

#include <cstring>
#include <filesystem>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>

#include "common/apparatus/files.hpp"
#include "common/apparatus/model_files.hpp"

namespace {

/// `bytes` in base64 (RFC 4648, with '=' padding).
std::string base64(std::string bytes) {
  namespace it = boost::archive::iterators;
  using Encoder = it::base64_from_binary<it::transform_width<std::string::const_iterator, 6, 8>>;
  const std::size_t pad = (3 - bytes.size() % 3) % 3;
  bytes.append(pad, '\0');  // whole groups of three bytes; the padding's characters become '='
  std::string out(Encoder(bytes.cbegin()), Encoder(bytes.cend()));
  out.replace(out.size() - pad, pad, pad, '=');
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: ch09_live_export MODEL_DIR OUT.js\n";
    return 2;
  }
  try {
    const std::filesystem::path dir = argv[1];
    const auto model = app::load_model<float>((dir / "model.txt").string());
    std::smatch hex;
    const std::string run = app::read_input_file(dir / "run.txt");
    if (!std::regex_search(run, hex, std::regex("(^|\n)characters ([0-9a-f]+)\n")))
      throw std::runtime_error((dir / "run.txt").string() + " has no line of hexadecimal characters");
    std::string bytes;
    for (const arma::fmat* M : attn::parameter_ptrs(model))
      bytes.append(reinterpret_cast<const char*>(M->memptr()), M->n_elem * sizeof(float));
    const attn::AttnOnlyShape& s = model.shape;
    std::ostringstream js;
    js << "// Chapter 09's saved model for the head view widget, exported by the docs build from "
       << dir.filename().string() << "\n// (docs/live/export_ch09.cpp: float32 parameters in base64). Generated.\n"
       << "window.attnLiveData = Object.assign(window.attnLiveData || {}, { ch09: {\n"
       << "  characters: \"" << hex[2].str() << "\",\n"
       << "  shape: { vocab: " << s.vocab << ", context: " << s.context << ", width: " << s.width
       << ", heads: " << s.heads << ", d_k: " << s.d_k << ", layers: " << s.layers
       << ", final_norm: " << (s.final_norm ? "true" : "false") << " },\n"
       << "  parameters: \"" << base64(bytes) << "\" } });\n";
    app::write_file_atomically(argv[2], js.str());
  } catch (const std::exception& e) {
    std::cerr << "ch09_live_export: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
