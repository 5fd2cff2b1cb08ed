/// \file model_files.hpp
/// \brief Saving and loading an attention-only model (common/attention/attn_only.hpp) as text.
///
/// Throws: std::invalid_argument, as attn::check_shapes does, for a model that does not match its
/// table, and app::IoError (a std::runtime_error) if the file cannot be written (save_model);
/// std::runtime_error naming the file, or the text, for a missing file, a wrong header, a group out
/// of order or of the wrong shape, an entry that is not a finite number by the number rule or lies
/// beyond +-1e6, a truncated file, or text after the last group (load_model, read_model).
/// Sources: the project's rule that files appear whole or not at all, and the number rule
/// (common/apparatus/numbers.hpp) for every entry read back.
#pragma once

#include <istream>
#include <string>

#include "common/attention/attn_only.hpp"

namespace app {

/// Writes the model as text (a header with the shape, then each table group: name, rows, cols and
/// values with 9 significant digits, enough to read a float back exactly) to `path`, whole or not
/// at all (app::write_file_atomically).
template <class T>
void save_model(const attn::AttnOnlyModel<T>& model, const std::string& path);

/// Reads a model written by save_model(), in the shape its header gives.
template <class T>
attn::AttnOnlyModel<T> load_model(const std::string& path);

/// Reads the text of a model file from `in`, as load_model() reads the file (the book's head view
/// reads the saved model this way, from the page, where there is no file). `name` names the text in
/// messages.
template <class T>
attn::AttnOnlyModel<T> read_model(std::istream& in, const std::string& name);

}  // namespace app
