/// \file model_files.cpp
/// \brief Saving and loading an attention-only model (see model_files.hpp). Instantiated for float
/// and double.
#include "common/apparatus/model_files.hpp"

#include <cmath>
#include <fstream>
#include <istream>
#include <sstream>
#include <stdexcept>

#include "common/apparatus/files.hpp"
#include "common/apparatus/numbers.hpp"
#include "common/attention/checks.hpp"

namespace app {

using attn::AttnOnlyModel;
using attn::AttnOnlyShape;
using attn::check_shapes;
using attn::kLargestInput;
using attn::parameter_ptrs;
using attn::parameter_table;
using attn::ParamSpec;
using attn::printable;
using attn::quoted;
using attn::validate;
using attn::zero_model;

template <class T>
void save_model(const AttnOnlyModel<T>& model, const std::string& path) {
  check_shapes(model);
  std::ostringstream out;
  const AttnOnlyShape& s = model.shape;
  out << "attn-only-model 1\nvocab " << s.vocab << " context " << s.context << " width " << s.width << " heads "
      << s.heads << " d_k " << s.d_k << " layers " << s.layers << " final_norm " << (s.final_norm ? 1 : 0) << '\n';
  out.precision(9);
  const std::vector<ParamSpec> table = parameter_table(s);
  const auto ptrs = parameter_ptrs(model);
  for (std::size_t i = 0; i < table.size(); ++i) {
    out << table[i].name << ' ' << table[i].rows << ' ' << table[i].cols << '\n';
    for (arma::uword r = 0; r < table[i].rows; ++r) {
      for (arma::uword c = 0; c < table[i].cols; ++c) out << (c ? " " : "") << (*ptrs[i])(r, c);
      out << '\n';
    }
  }
  write_file_atomically(path, out.str());  // whole or not at all
}

template <class T>
AttnOnlyModel<T> load_model(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  return read_model<T>(in, path);
}

namespace {

/// The table ends a model file: anything after its last group (another group, a second model) would
/// be ignored, so it is refused.
void require_end(std::istream& in, const std::string& name, const std::string& last_group) {
  std::string after;
  if (in >> after) {
    throw std::runtime_error(name + ": holds more after its last group " + last_group + " (" +
                             attn::quoted(after.substr(0, 20)) + "): a model file ends with its last group");
  }
}

}  // namespace

template <class T>
AttnOnlyModel<T> read_model(std::istream& in, const std::string& name) {
  const auto fail = [&](const std::string& what) { return std::runtime_error(name + ": " + what); };
  std::string magic, word;
  int version = 0;
  in >> magic >> version;
  if (magic != "attn-only-model" || version != 1) throw fail("not a model file written by save_model");
  AttnOnlyShape s;
  int norm = 0;
  const auto whole = [&](const std::string& what, const std::string& text, long long hi) {
    const Parsed<long long> v = parse_integer(text, 0, hi);  // the number rule: "-64" is refused, not wrapped
    if (!v.value) throw fail(what + " " + attn::quoted(text) + " " + v.problem);
    return static_cast<arma::uword>(*v.value);
  };
  const auto field = [&](const char* name, arma::uword& value) {
    std::string text;
    if (!(in >> word >> text) || word != name) throw fail(std::string("expected the size '") + name + "'");
    value = whole(std::string("the size '") + name + "'", text, 1LL << 40);
  };
  field("vocab", s.vocab), field("context", s.context), field("width", s.width), field("heads", s.heads);
  field("d_k", s.d_k), field("layers", s.layers);
  if (!(in >> word >> norm) || word != "final_norm" || (norm != 0 && norm != 1))
    throw fail("expected 'final_norm 0|1'");
  s.final_norm = norm == 1;
  try {
    validate(s);
  } catch (const std::invalid_argument& e) {
    throw fail(e.what());
  }
  AttnOnlyModel<T> m = zero_model<T>(s);
  const std::vector<ParamSpec> table = parameter_table(s);
  const auto ptrs = parameter_ptrs(m);
  for (std::size_t i = 0; i < table.size(); ++i) {
    std::string rows_text, cols_text;
    const bool read = static_cast<bool>(in >> word >> rows_text >> cols_text);
    const std::string group = "group " + table[i].name;
    if (!read || word != table[i].name || whole(group + " rows", rows_text, 1LL << 40) != table[i].rows ||
        whole(group + " columns", cols_text, 1LL << 40) != table[i].cols) {
      throw fail("expected group " + table[i].name + " of " + std::to_string(table[i].rows) + " x " +
                 std::to_string(table[i].cols));
    }
    const arma::uword rows = table[i].rows, cols = table[i].cols;
    for (arma::uword r = 0; r < rows; ++r) {
      for (arma::uword c = 0; c < cols; ++c) {
        std::string text;
        if (!(in >> text)) throw fail("truncated in group " + table[i].name);
        const Parsed<double> v = parse_number(text);  // the number rule: "nan", "inf" and "1e400" are refused
        if (!v.value) throw fail("entry " + attn::quoted(text) + " in group " + table[i].name + " " + v.problem);
        if (std::abs(*v.value) > kLargestInput) {
          throw fail("entry " + attn::quoted(text) + " in group " + table[i].name +
                     " is beyond +-1e6 (no trained weight is)");
        }
        (*ptrs[i])(r, c) = static_cast<T>(*v.value);
      }
    }
  }
  require_end(in, name, table.back().name);
  return m;
}

template void save_model(const AttnOnlyModel<float>&, const std::string&);
template void save_model(const AttnOnlyModel<double>&, const std::string&);
template AttnOnlyModel<float> load_model<float>(const std::string&);
template AttnOnlyModel<double> load_model<double>(const std::string&);
template AttnOnlyModel<float> read_model<float>(std::istream&, const std::string&);
template AttnOnlyModel<double> read_model<double>(std::istream&, const std::string&);

}  // namespace app
