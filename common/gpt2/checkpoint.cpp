/// \file common/gpt2/checkpoint.cpp
/// \brief Reading GPT-2's Hugging Face files (see checkpoint.hpp); JSON through nlohmann-json.
#include "common/gpt2/checkpoint.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "common/apparatus/files.hpp"
#include "common/attention/checks.hpp"

namespace gpt2 {

namespace fs = std::filesystem;
using nlohmann::json;

static_assert(std::endian::native == std::endian::little, "safetensors stores little-endian floats");

namespace {

/// The largest header accepted: GPT-2 XL's is about 30 kB; beyond this the length is corrupt.
constexpr std::uint64_t kLargestHeader = std::uint64_t{100} << 20;

/// More elements than any file holds, and small enough that 8 times it does not overflow.
constexpr std::uint64_t kHugeCount = std::uint64_t{1} << 60;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error(app::shown_path(path) + ": " + what);  // a long path cut, so the reason stays
}

std::ifstream open_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, fs::exists(path) ? "cannot be read" : "no such file");
  return in;
}

/// The largest vocab.json, merges.txt or config.json read (16 MiB; GPT-2's are about 1 MB, 0.5 MB
/// and 1 kB): a mistaken or padded file is refused, not read into memory.
constexpr std::size_t kMaxTextFileBytes = std::size_t{16} << 20;

/// A text file of the checkpoint, through the programs' checked reader (a regular file, at most
/// kMaxTextFileBytes; the system's reason otherwise), as the runtime_error this reader throws.
std::string read_text(const std::string& path, std::size_t limit = kMaxTextFileBytes) {
  try {
    return app::read_input_file(path, limit);
  } catch (const app::InputFileError& e) {
    throw std::runtime_error(e.what());
  }
}

/// The largest config.json read (64 KiB; GPT-2's is about 1 kB): small enough that its JSON
/// document, built whole, needs little memory.
constexpr std::size_t kMaxConfigBytes = std::size_t{64} << 10;

/// The largest weight a GPT-2 checkpoint may hold: trained GPT-2 weights are a few units at most,
/// and weights this size cannot overflow a pass in double precision.
constexpr double kMaxWeight = 1e4;

/// nlohmann's reason without its tag: "number overflow parsing '1e400'".
std::string json_reason(const std::exception& e) {
  const std::string what = e.what();
  const std::size_t tag = what.find("] ");
  return what.starts_with("[json.exception.") && tag != std::string::npos ? what.substr(tag + 2) : what;
}

/// The JSON in `text`, or a failure naming `path` and the byte where parsing stopped (a number
/// beyond a double, such as 1e400, included). Only for small files (config.json): a document
/// that runs out of memory half built may need memory again while it is destroyed.
json parse_json(const std::string& path, const std::string& text, const std::string& what) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    fail(path, what + " is not valid JSON (parsing stopped at byte " + std::to_string(e.byte) + ")");
  } catch (const json::exception& e) {
    fail(path, what + " is not usable JSON (" + json_reason(e) + ")");
  }
}

/// A reader of JSON events (nlohmann's SAX interface) into plain structures, for the files that
/// can be large (the safetensors header, vocab.json): no document is built, so memory that runs
/// out is a std::bad_alloc like any other. Every event is refused unless a reader takes it.
class EventReader : public nlohmann::json_sax<json> {
 public:
  std::string problem;  ///< why reading stopped ("" while it goes on)

  bool null() override { return refuse("null"); }
  bool boolean(bool) override { return refuse("true or false"); }
  bool number_integer(number_integer_t) override { return refuse("a negative integer"); }
  bool number_unsigned(number_unsigned_t) override { return refuse("an integer"); }
  bool number_float(number_float_t, const string_t&) override { return refuse("a fraction"); }
  bool string(string_t&) override { return refuse("a string"); }
  bool binary(binary_t&) override { return refuse("binary data"); }
  bool start_object(std::size_t) override { return refuse("an object"); }
  bool key(string_t&) override { return refuse("a key"); }
  bool end_object() override { return refuse("the end of an object"); }
  bool start_array(std::size_t) override { return refuse("an array"); }
  bool end_array() override { return refuse("the end of an array"); }
  bool parse_error(std::size_t byte, const std::string&, const nlohmann::detail::exception& e) override {
    problem = e.id == 101 ? "is not valid JSON (parsing stopped at byte " + std::to_string(byte) + ")"
                          : "is not usable JSON (" + json_reason(e) + ")";
    return false;
  }

 protected:
  bool refuse(const std::string& what) {
    if (problem.empty()) problem = "holds " + what + " where " + expected() + " belongs";
    return false;
  }
  virtual std::string expected() const = 0;
};

/// Reads `text` with `reader`; a failure names `path`, `what` and the reader's problem.
void read_events(const std::string& path, const std::string& text, const std::string& what, EventReader& reader) {
  if (!json::sax_parse(text, &reader) || !reader.problem.empty()) fail(path, what + " " + reader.problem);
}

/// The fields of one safetensors header entry as read, before they are checked.
struct RawEntry {
  std::optional<std::string> dtype;                   ///< "dtype", if a string
  std::optional<std::vector<std::uint64_t>> shape;    ///< "shape", if an array
  std::optional<std::vector<std::uint64_t>> offsets;  ///< "data_offsets", if an array
  bool bad_shape = false, bad_offset = false;         ///< an element that is not a non-negative integer
  bool malformed = false;                             ///< not an object, or a field of another kind
};

/// The safetensors header: an object of name -> {dtype, shape, data_offsets}, and "__metadata__"
/// (an object of strings, skipped).
class HeaderReader : public EventReader {
 public:
  std::vector<std::pair<std::string, RawEntry>> entries;  ///< in the file's order

  bool start_object(std::size_t) override {
    ++depth_;
    if (depth_ <= 2 || skipping()) return true;  // the header, an entry, or inside __metadata__
    return malformed();
  }
  bool end_object() override {
    --depth_;
    if (depth_ <= 1) metadata_ = false;
    return true;
  }
  bool key(string_t& text) override {
    if (depth_ == 1) {
      metadata_ = text == "__metadata__";
      if (!metadata_) entries.emplace_back(text, RawEntry{});
    } else if (depth_ == 2) {
      field_ = text;
    }
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth_;
    if (skipping()) return true;
    if (depth_ == 3 && field_ == "shape" && !entry().shape)
      entry().shape.emplace();
    else if (depth_ == 3 && field_ == "data_offsets" && !entry().offsets)
      entry().offsets.emplace();
    else if (depth_ != 3 || (field_ != "shape" && field_ != "data_offsets"))
      return malformed();
    return true;
  }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool number_unsigned(number_unsigned_t value) override {
    if (skipping()) return true;
    if (depth_ == 3 && field_ == "shape")
      entry().shape->push_back(value);
    else if (depth_ == 3 && field_ == "data_offsets")
      entry().offsets->push_back(value);
    else
      return malformed();
    return true;
  }
  bool number_integer(number_integer_t) override { return other_number(); }
  bool number_float(number_float_t, const string_t&) override { return other_number(); }
  bool string(string_t& text) override {
    if (skipping()) return true;
    if (depth_ == 2 && field_ == "dtype") {
      entry().dtype = text;
      return true;
    }
    return depth_ == 3 ? other_number() : malformed();
  }
  bool null() override { return skipping() || (depth_ == 3 ? other_number() : malformed()); }
  bool boolean(bool) override { return skipping() || (depth_ == 3 ? other_number() : malformed()); }

 protected:
  std::string expected() const override { return "an entry {dtype, shape, data_offsets}"; }

 private:
  bool skipping() const { return metadata_; }
  RawEntry& entry() { return entries.back().second; }
  bool malformed() {
    if (depth_ < 1 || (depth_ == 1 && entries.empty())) {
      problem = "is JSON but not an object of tensors";
      return false;
    }
    entry().malformed = true;
    return true;  // read_entry() names the entry
  }
  bool other_number() {
    if (depth_ != 3 || entries.empty()) return malformed();
    (field_ == "shape" ? entry().bad_shape : entry().bad_offset) = true;
    return true;
  }
  int depth_ = 0;
  bool metadata_ = false;
  std::string field_;
};

/// vocab.json: an object of token -> id.
class VocabReader : public EventReader {
 public:
  std::map<std::string, arma::uword> vocab;  ///< token -> id
  std::string bad_token;                     ///< the first token whose id is not a non-negative integer
  bool start_object(std::size_t) override { return ++depth_ == 1 ? true : bad_id(); }
  bool end_object() override { return --depth_ == 0; }
  bool key(string_t& text) override {
    token_ = text;
    return true;
  }
  bool number_unsigned(number_unsigned_t id) override {
    vocab[token_] = static_cast<arma::uword>(id);
    return true;
  }
  bool number_integer(number_integer_t) override { return bad_id(); }
  bool number_float(number_float_t, const string_t&) override { return bad_id(); }
  bool string(string_t&) override { return bad_id(); }
  bool start_array(std::size_t) override { return bad_id(); }
  bool null() override { return bad_id(); }
  bool boolean(bool) override { return bad_id(); }

 protected:
  std::string expected() const override { return "an object of token -> id"; }

 private:
  bool bad_id() {
    if (depth_ == 0) return refuse("a value");
    problem = "gives token " + attn::quoted(token_) + " an id that is not a non-negative integer";
    return false;
  }
  int depth_ = 0;
  std::string token_;
};

/// "[768, 2304]": a shape as the file writes it.
std::string shape_text(const std::vector<std::uint64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

std::uint64_t dtype_bytes(const std::string& path, const std::string& name, const std::string& dtype) {
  static const std::map<std::string, std::uint64_t> sizes{{"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8},
                                                          {"I32", 4}, {"I16", 2}, {"I8", 1},  {"U8", 1},   {"BOOL", 1}};
  const auto size = sizes.find(dtype);
  if (size == sizes.end()) fail(path, "tensor " + attn::quoted(name) + " has unknown dtype " + attn::quoted(dtype));
  return size->second;
}

/// One header entry, checked for its fields and that its byte count matches its shape.
TensorEntry read_entry(const std::string& path, const std::string& name, const RawEntry& entry) {
  const std::string who = "tensor " + attn::quoted(name);
  if (entry.malformed || !entry.dtype || !entry.shape || !entry.offsets || entry.offsets->size() != 2) {
    fail(path, who + " in the header lacks a string dtype, an array shape or two data_offsets");
  }
  if (entry.bad_shape) fail(path, who + " has a shape entry that is not a non-negative integer");
  if (entry.bad_offset) fail(path, who + " has a data offset that is not a non-negative integer");
  TensorEntry t;
  t.dtype = *entry.dtype;
  std::uint64_t count = 1;
  for (const std::uint64_t dim : *entry.shape) {
    t.shape.push_back(dim);
    // saturate rather than overflow: such a count can never match the entry's byte range
    count = (dim != 0 && count > kHugeCount / dim) ? kHugeCount : count * dim;
  }
  t.begin = (*entry.offsets)[0];
  t.end = (*entry.offsets)[1];
  const std::uint64_t bytes = count * dtype_bytes(path, name, t.dtype);
  if (t.end < t.begin || t.end - t.begin != bytes) {
    fail(path, who + ": shape " + shape_text(t.shape) + " of " + t.dtype + " needs " + std::to_string(bytes) +
                   " bytes, but data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) + "] differ");
  }
  return t;
}

/// Refuses a file that ends before the entry that ends last (naming that entry: the file is at
/// least that long when whole).
void check_truncation(const std::string& path, const SafetensorsHeader& header, std::uint64_t file_size) {
  const std::pair<const std::string, TensorEntry>* last = nullptr;
  for (const auto& item : header.tensors)
    if (last == nullptr || item.second.end > last->second.end) last = &item;
  if (last != nullptr && last->second.end > file_size - header.data_start) {
    fail(path, "truncated: tensor " + attn::quoted(last->first) + " ends at byte " +
                   std::to_string(header.data_start + last->second.end) + ", but the file has " +
                   std::to_string(file_size));
  }
}

/// Refuses tensors whose byte ranges overlap and bytes that no tensor holds (between tensors or
/// after the last), as the format's reference reader does: such a file was not written by it.
void check_layout(const std::string& path, const SafetensorsHeader& header, std::uint64_t file_size) {
  std::vector<std::pair<const std::string*, const TensorEntry*>> order;
  for (const auto& [name, entry] : header.tensors) order.emplace_back(&name, &entry);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return std::pair(a.second->begin, a.second->end) < std::pair(b.second->begin, b.second->end);
  });
  std::uint64_t covered = 0;
  const std::string* last = nullptr;
  for (const auto& [name, entry] : order) {
    if (entry->begin < covered) {
      fail(path, "tensors " + attn::quoted(*last) + " and " + attn::quoted(*name) + " share bytes (from byte " +
                     std::to_string(header.data_start + entry->begin) + ")");
    }
    if (entry->begin > covered) {
      fail(path, "bytes " + std::to_string(header.data_start + covered) + " to " +
                     std::to_string(header.data_start + entry->begin) + " belong to no tensor (before " +
                     attn::quoted(*name) + ")");
    }
    covered = entry->end;
    last = name;
  }
  if (header.data_start + covered != file_size) {
    fail(path, std::to_string(file_size - header.data_start - covered) + " bytes after the last tensor" +
                   (last != nullptr ? " (" + attn::quoted(*last) + ")" : std::string()) + " belong to no tensor");
  }
}

/// The name without Hugging Face's "transformer." prefix (GPT2LMHeadModel's saved names).
std::string plain_name(const std::string& name) {
  const std::string prefix = "transformer.";
  return name.starts_with(prefix) ? name.substr(prefix.size()) : name;
}

/// Whether `name` is h.<l>.<suffix> with l < layers.
bool is_block_entry(const std::string& name, const std::string& suffix, arma::uword layers) {
  if (!name.starts_with("h.") || !name.ends_with(suffix) || name.size() <= 2 + suffix.size()) return false;
  const std::string digits = name.substr(2, name.size() - 2 - suffix.size());
  if (digits.empty() || digits.size() > 6) return false;
  for (const char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return std::stoul(digits) < layers;
}

/// Reads one F32 entry into `slot` as rows x cols (row-major bytes into a column-major matrix).
void read_tensor(std::ifstream& in, const std::string& path, std::uint64_t at, arma::uword rows, arma::uword cols,
                 arma::fmat& slot) {
  arma::fmat columns(cols, rows);  // the row-major bytes, read as the transpose
  in.seekg(static_cast<std::streamoff>(at));
  in.read(reinterpret_cast<char*>(columns.memptr()), static_cast<std::streamsize>(columns.n_elem * sizeof(float)));
  if (!in)
    fail(path,
         "cannot read " + std::to_string(columns.n_elem * sizeof(float)) + " bytes at byte " + std::to_string(at));
  slot = columns.t();
}

/// Refuses an lm_head.weight (vocab x d, F32 at byte `at`) that differs from the embedding `wte`:
/// GPT-2 ties its unembedding to the embedding, and these tools read wte for both. Read in blocks
/// of rows, so the check needs little memory.
void check_tied(std::ifstream& in, const std::string& path, std::uint64_t at, const arma::fmat& wte) {
  constexpr arma::uword kRows = 256;
  for (arma::uword first = 0; first < wte.n_rows; first += kRows) {
    const arma::uword rows = std::min(kRows, wte.n_rows - first);
    arma::fmat block;
    read_tensor(in, path, at + first * wte.n_cols * sizeof(float), rows, wte.n_cols, block);
    const arma::fmat tied = wte.rows(first, first + rows - 1);
    for (arma::uword r = 0; r < rows; ++r) {
      for (arma::uword c = 0; c < wte.n_cols; ++c) {
        if (block(r, c) != tied(r, c)) {
          fail(path, fmt::format("tensor 'lm_head.weight' differs from 'wte.weight' (entry ({}, {}): {:.9g} against "
                                 "{:.9g}); GPT-2 ties its unembedding to the embedding, and these tools read "
                                 "wte.weight for both",
                                 first + r, c, block(r, c), tied(r, c)));
        }
      }
    }
  }
}

/// How many blocks the header holds tensors for: the distinct l of names h.<l>.<...> (at most six
/// digits, as is_block_entry reads them). Bounded by the header's size, whatever the numbers say.
arma::uword blocks_held(const SafetensorsHeader& header) {
  std::set<std::string> blocks;
  for (const auto& [name, entry] : header.tensors) {
    const std::size_t dot = name.find('.', 2);
    if (!name.starts_with("h.") || dot == std::string::npos || dot == 2 || dot > 8) continue;
    const std::string digits = name.substr(2, dot - 2);
    if (std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      blocks.insert(digits);
  }
  return blocks.size();
}

/// config.json's sizes against the embedding tables they size (wte: vocab x width, wpe: context x
/// width), so a wrong size names config.json rather than the tensors or vocab.json.
void check_sizes_against_tensors(const std::string& path, const Config& config, const SafetensorsHeader& header) {
  const auto rows_of = [&](const char* name) -> std::optional<std::vector<std::uint64_t>> {
    const auto found = header.tensors.find(name);
    if (found == header.tensors.end() || found->second.shape.size() != 2) return std::nullopt;
    return found->second.shape;
  };
  const auto disagree = [&](const char* field, arma::uword value, const char* tensor, std::uint64_t size,
                            const char* what) {
    if (value == size) return;
    fail(path, std::string(field) + " is " + std::to_string(value) + ", but model.safetensors' " + tensor + " has " +
                   std::to_string(size) + " " + what);
  };
  if (const auto wte = rows_of("wte.weight")) {
    disagree("vocab_size", config.vocab, "wte.weight", (*wte)[0], "rows (one per token)");
    disagree("n_embd", config.width, "wte.weight", (*wte)[1], "columns");
  }
  if (const auto wpe = rows_of("wpe.weight"))
    disagree("n_positions", config.context, "wpe.weight", (*wpe)[0], "rows (one per position)");
}

}  // namespace

SafetensorsHeader read_safetensors_header(const std::string& path) {
  std::ifstream in = open_file(path);
  std::error_code error;
  const std::uint64_t size = fs::file_size(path, error);
  if (error) fail(path, "cannot read its size (" + error.message() + ")");
  if (size < 8) fail(path, "truncated: " + std::to_string(size) + " bytes, fewer than the 8 of the header's length");
  std::array<unsigned char, 8> length_bytes{};
  in.read(reinterpret_cast<char*>(length_bytes.data()), 8);
  std::uint64_t length = 0;
  for (int k = 7; k >= 0; --k) length = (length << 8) | length_bytes[static_cast<std::size_t>(k)];
  if (length > size - 8 || length > kLargestHeader) {
    fail(path, "truncated: the header announces " + std::to_string(length) + " bytes of JSON, but " +
                   std::to_string(size - 8) + " follow");
  }
  std::string text(length, '\0');
  in.read(text.data(), static_cast<std::streamsize>(length));
  if (!in) fail(path, "cannot read its " + std::to_string(length) + "-byte header");
  HeaderReader reader;
  read_events(path, text, "the header", reader);
  text.clear();
  text.shrink_to_fit();
  SafetensorsHeader result;
  result.data_start = 8 + length;
  for (const auto& [name, entry] : reader.entries) {
    const std::string plain = plain_name(name);
    if (result.tensors.contains(plain))
      fail(path, "tensor " + attn::quoted(plain) + " appears twice (with and without 'transformer.', or repeated)");
    result.tensors[plain] = read_entry(path, name, entry);
  }
  check_truncation(path, result, size);
  result.file_size = size;
  return result;
}

Config read_config(const std::string& dir, const SafetensorsHeader& header) {
  const std::string path = (fs::path(dir) / "config.json").string();
  Config config;
  if (!fs::exists(path)) {
    const auto wte = header.tensors.find("wte.weight"), wpe = header.tensors.find("wpe.weight");
    if (wte == header.tensors.end() || wte->second.shape.size() != 2 || wpe == header.tensors.end() ||
        wpe->second.shape.size() != 2) {
      fail((fs::path(dir) / "model.safetensors").string(),
           "lacks a 2-D wte.weight or wpe.weight, so no sizes (and no config.json)");
    }
    config.vocab = wte->second.shape[0];
    config.width = wte->second.shape[1];
    config.context = wpe->second.shape[0];
    config.layers = 0;
    while (header.tensors.contains("h." + std::to_string(config.layers) + ".ln_1.weight")) ++config.layers;
    if (config.width % 64 != 0) {
      fail(path, "missing, and width " + std::to_string(config.width) +
                     " is not a multiple of GPT-2's 64-wide heads: n_head cannot be inferred");
    }
    config.heads = config.width / 64;
  } else {
    const json j = parse_json(path, read_text(path, kMaxConfigBytes), "the file");
    const auto field = [&](const char* key, const char* alternative) -> arma::uword {
      const char* found = j.contains(key)                                       ? key
                          : (alternative != nullptr && j.contains(alternative)) ? alternative
                                                                                : nullptr;
      if (found == nullptr || !j[found].is_number_unsigned())
        fail(path, std::string("needs a non-negative integer ") + key);
      return j[found].get<arma::uword>();
    };
    config.width = field("n_embd", nullptr);
    config.heads = field("n_head", nullptr);
    config.layers = field("n_layer", nullptr);
    config.context = field("n_positions", "n_ctx");
    config.vocab = field("vocab_size", nullptr);
    if (j.contains("layer_norm_epsilon")) {
      if (!j["layer_norm_epsilon"].is_number()) fail(path, "layer_norm_epsilon is not a number");
      config.epsilon = j["layer_norm_epsilon"].get<double>();
    }
  }
  try {
    validate(config);
  } catch (const std::invalid_argument& e) {
    fail(path, e.what());
  }
  check_sizes_against_tensors(path, config, header);
  if (const arma::uword held = blocks_held(header); config.layers > held) {
    fail(path, "n_layer is " + std::to_string(config.layers) + ", but model.safetensors holds tensors for " +
                   std::to_string(held) + " layers");
  }
  return config;
}

Weights read_weights(const std::string& path, const SafetensorsHeader& header, const Config& config) {
  Weights w{config, {}, {}, {}, {}, {}};
  std::vector<Parameter<float>> table;
  try {
    table = parameter_table(w);
  } catch (const std::invalid_argument& e) {
    fail(path, e.what());
  }
  std::map<std::string, const Parameter<float>*> wanted;
  for (const Parameter<float>& p : table) wanted[p.name] = &p;
  for (const auto& [name, entry] : header.tensors) {
    if (wanted.contains(name) || is_block_entry(name, ".attn.bias", config.layers) ||
        is_block_entry(name, ".attn.masked_bias", config.layers)) {
      continue;
    }
    if (name == "lm_head.weight" && entry.shape == std::vector<std::uint64_t>{config.vocab, config.width}) continue;
    if (name == "lm_head.weight") {
      fail(path, "tensor 'lm_head.weight' is " + shape_text(entry.shape) + ", but GPT-2 ties it to wte.weight " +
                     shape_text({config.vocab, config.width}));
    }
    fail(path, "holds tensor " + attn::quoted(name) + " " + shape_text(entry.shape) + ", which GPT-2 with " +
                   std::to_string(config.layers) + " layers and width " + std::to_string(config.width) +
                   " does not have");
  }
  for (const Parameter<float>& p : table) {  // every tensor there, F32, of its shape, before any is read
    const std::vector<std::uint64_t> shape =
        p.vector ? std::vector<std::uint64_t>{p.cols} : std::vector<std::uint64_t>{p.rows, p.cols};
    const auto entry = header.tensors.find(p.name);
    if (entry == header.tensors.end()) fail(path, "lacks tensor " + attn::quoted(p.name) + " " + shape_text(shape));
    const TensorEntry& t = entry->second;
    if (t.dtype != "F32") fail(path, "tensor " + attn::quoted(p.name) + " is " + t.dtype + "; this reader takes F32");
    if (t.shape != shape) {
      fail(path, "tensor " + attn::quoted(p.name) + " is " + shape_text(t.shape) + ", but GPT-2 of these sizes needs " +
                     shape_text(shape));
    }
  }
  check_layout(path, header, header.file_size);
  std::ifstream in = open_file(path);
  for (const Parameter<float>& p : table) {
    const TensorEntry& t = header.tensors.at(p.name);
    read_tensor(in, path, header.data_start + t.begin, p.rows, p.cols, *p.slot);
    if (!p.slot->is_finite()) fail(path, "tensor " + attn::quoted(p.name) + " has a NaN or infinite entry");
    if (!p.slot->is_empty() && arma::abs(*p.slot).max() > kMaxWeight) {
      const float largest = arma::abs(*p.slot).max();
      // 3 digits, or as many as it takes to show a size just past the bound as past it
      const std::string size = std::stod(fmt::format("{:.3g}", largest)) > kMaxWeight ? fmt::format("{:.3g}", largest)
                                                                                      : fmt::format("{:.9g}", largest);
      fail(path, fmt::format("tensor {} holds a weight of size {}, beyond any trained GPT-2's (at most {:g} is read)",
                             attn::quoted(p.name), size, kMaxWeight));
    }
  }
  if (const auto head = header.tensors.find("lm_head.weight"); head != header.tensors.end()) {
    if (head->second.dtype != "F32")
      fail(path, "tensor 'lm_head.weight' is " + head->second.dtype + "; this reader takes F32");
    check_tied(in, path, header.data_start + head->second.begin, w.wte);
  }
  return w;
}

std::map<std::string, arma::uword> read_vocab(const std::string& path) {
  VocabReader reader;
  read_events(path, read_text(path), "the file", reader);
  return std::move(reader.vocab);
}

std::vector<std::pair<std::string, std::string>> read_merges(const std::string& path) {
  std::istringstream in(read_text(path));
  std::vector<std::pair<std::string, std::string>> merges;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || (number == 1 && line.starts_with("#version"))) continue;
    const std::size_t space = line.find(' ');
    if (space == 0 || space == std::string::npos || space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string::npos) {
      fail(path, "line " + std::to_string(number) + " (" + attn::quoted(line) +
                     ") is not two symbols separated by one space");
    }
    merges.emplace_back(line.substr(0, space), line.substr(space + 1));
  }
  return merges;
}

Gpt2 load_gpt2(const std::string& dir) {
  if (!fs::is_directory(dir)) fail(dir, "is not a folder (it should hold model.safetensors, vocab.json, merges.txt)");
  const std::string model = (fs::path(dir) / "model.safetensors").string();
  const std::string vocab_path = (fs::path(dir) / "vocab.json").string();
  const std::string merges_path = (fs::path(dir) / "merges.txt").string();
  const SafetensorsHeader header = read_safetensors_header(model);
  const Config config = read_config(dir, header);
  std::map<std::string, arma::uword> vocab = read_vocab(vocab_path);
  std::vector<std::pair<std::string, std::string>> merges = read_merges(merges_path);
  if (vocab.size() != config.vocab) {
    fail(vocab_path, "has " + std::to_string(vocab.size()) + " tokens, but the model's embedding has " +
                         std::to_string(config.vocab) + " rows");
  }
  try {
    Tokenizer tokenizer(std::move(vocab), std::move(merges));
    return {read_weights(model, header, config), std::move(tokenizer)};
  } catch (const std::invalid_argument& e) {
    fail(dir, e.what());  // the message names vocab.json or merges.txt and the entry
  }
}

}  // namespace gpt2
