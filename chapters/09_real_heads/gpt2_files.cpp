/// \file chapters/09_real_heads/gpt2_files.cpp
/// \brief Reading GPT-2's Hugging Face files (see gpt2_files.hpp); JSON through nlohmann-json.
#include "gpt2_files.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "common/apparatus/files.hpp"
#include "common/attention/checks.hpp"

namespace ch09::gpt2 {

namespace fs = std::filesystem;
using nlohmann::json;

static_assert(std::endian::native == std::endian::little, "safetensors stores little-endian floats");

namespace {

/// The largest header accepted: GPT-2 XL's is about 30 kB; beyond this the length is corrupt.
constexpr std::uint64_t kLargestHeader = std::uint64_t{100} << 20;

/// More elements than any file holds, and small enough that 8 times it does not overflow.
constexpr std::uint64_t kHugeCount = std::uint64_t{1} << 60;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error(path + ": " + what);
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
std::string read_text(const std::string& path) {
  try {
    return attn::read_input_file(path, kMaxTextFileBytes);
  } catch (const attn::InputFileError& e) {
    throw std::runtime_error(e.what());
  }
}

/// The largest weight a GPT-2 checkpoint may hold: trained GPT-2 weights are a few units at most,
/// and weights this size cannot overflow a pass in double precision.
constexpr double kMaxWeight = 1e4;

/// The JSON in `text`, or a failure naming `path` and the byte where parsing stopped.
json parse_json(const std::string& path, const std::string& text, const std::string& what) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    fail(path, what + " is not valid JSON (parsing stopped at byte " + std::to_string(e.byte) + ")");
  }
}

/// "[768, 2304]": a shape as the file writes it.
std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string out = "[";
  for (std::size_t k = 0; k < shape.size(); ++k) out += (k ? ", " : "") + std::to_string(shape[k]);
  return out + "]";
}

std::uint64_t dtype_bytes(const std::string& path, const std::string& name, const std::string& dtype) {
  static const std::map<std::string, std::uint64_t> sizes{{"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8},
                                                          {"I32", 4}, {"I16", 2}, {"I8", 1},  {"U8", 1},   {"BOOL", 1}};
  const auto size = sizes.find(dtype);
  if (size == sizes.end()) fail(path, "tensor " + attn::quoted(name) + " has unknown dtype " + attn::quoted(dtype));
  return size->second;
}

/// One header entry, checked for its fields and that its bytes lie in a file of `file_size` bytes.
TensorEntry read_entry(const std::string& path, const std::string& name, const json& entry, std::uint64_t data_start,
                       std::uint64_t file_size) {
  const std::string who = "tensor " + attn::quoted(name);
  if (!entry.is_object() || !entry.contains("dtype") || !entry["dtype"].is_string() || !entry.contains("shape") ||
      !entry["shape"].is_array() || !entry.contains("data_offsets") || !entry["data_offsets"].is_array() ||
      entry["data_offsets"].size() != 2) {
    fail(path, who + " in the header lacks a string dtype, an array shape or two data_offsets");
  }
  TensorEntry t;
  t.dtype = entry["dtype"].get<std::string>();
  std::uint64_t count = 1;
  for (const json& dim : entry["shape"]) {
    if (!dim.is_number_unsigned()) fail(path, who + " has a shape entry that is not a non-negative integer");
    t.shape.push_back(dim.get<std::uint64_t>());
    // saturate rather than overflow: such a count can never match the entry's byte range
    count = (t.shape.back() != 0 && count > kHugeCount / t.shape.back()) ? kHugeCount : count * t.shape.back();
  }
  for (const json& offset : entry["data_offsets"]) {
    if (!offset.is_number_unsigned()) fail(path, who + " has a data offset that is not a non-negative integer");
  }
  t.begin = entry["data_offsets"][0].get<std::uint64_t>();
  t.end = entry["data_offsets"][1].get<std::uint64_t>();
  const std::uint64_t bytes = count * dtype_bytes(path, name, t.dtype);
  if (t.end < t.begin || t.end - t.begin != bytes) {
    fail(path, who + ": shape " + shape_text(t.shape) + " of " + t.dtype + " needs " + std::to_string(bytes) +
                   " bytes, but data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) + "] differ");
  }
  if (t.end > file_size - data_start) {
    fail(path, "truncated: " + who + " ends at byte " + std::to_string(data_start + t.end) + ", but the file has " +
                   std::to_string(file_size));
  }
  return t;
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
                 arma::mat& slot) {
  arma::fmat columns(cols, rows);  // the row-major bytes, read as the transpose
  in.seekg(static_cast<std::streamoff>(at));
  in.read(reinterpret_cast<char*>(columns.memptr()), static_cast<std::streamsize>(columns.n_elem * sizeof(float)));
  if (!in)
    fail(path,
         "cannot read " + std::to_string(columns.n_elem * sizeof(float)) + " bytes at byte " + std::to_string(at));
  slot = arma::conv_to<arma::mat>::from(columns.t());
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
  const json header = parse_json(path, text, "the header");
  if (!header.is_object()) fail(path, "the header is JSON but not an object of tensors");
  SafetensorsHeader result;
  result.data_start = 8 + length;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    const std::string plain = plain_name(name);
    if (result.tensors.contains(plain))
      fail(path, "tensor " + attn::quoted(plain) + " appears twice (with and without 'transformer.')");
    result.tensors[plain] = read_entry(path, name, entry, result.data_start, size);
  }
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
    const json j = parse_json(path, read_text(path), "the file");
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
  if (const arma::uword held = blocks_held(header); config.layers > held) {
    fail(path, "n_layer is " + std::to_string(config.layers) + ", but model.safetensors holds tensors for " +
                   std::to_string(held) + " layers");
  }
  return config;
}

Weights read_weights(const std::string& path, const SafetensorsHeader& header, const Config& config) {
  Weights w{config, {}, {}, {}, {}, {}};
  std::vector<Parameter> table;
  try {
    table = parameter_table(w);
  } catch (const std::invalid_argument& e) {
    fail(path, e.what());
  }
  std::map<std::string, const Parameter*> wanted;
  for (const Parameter& p : table) wanted[p.name] = &p;
  for (const auto& [name, entry] : header.tensors) {
    if (wanted.contains(name) || is_block_entry(name, ".attn.bias", config.layers) ||
        is_block_entry(name, ".attn.masked_bias", config.layers)) {
      continue;
    }
    if (name == "lm_head.weight" && entry.shape == std::vector<std::uint64_t>{config.vocab, config.width}) continue;
    fail(path, "holds tensor " + attn::quoted(name) + " " + shape_text(entry.shape) + ", which GPT-2 with " +
                   std::to_string(config.layers) + " layers and width " + std::to_string(config.width) +
                   " does not have");
  }
  std::ifstream in = open_file(path);
  for (const Parameter& p : table) {
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
    read_tensor(in, path, header.data_start + t.begin, p.rows, p.cols, *p.slot);
    if (!p.slot->is_finite()) fail(path, "tensor " + attn::quoted(p.name) + " has a NaN or infinite entry");
    if (!p.slot->is_empty() && arma::abs(*p.slot).max() > kMaxWeight) {
      fail(path,
           fmt::format("tensor {} holds a weight of size {:.3g}, beyond any trained GPT-2's (at most {:g} is read)",
                       attn::quoted(p.name), arma::abs(*p.slot).max(), kMaxWeight));
    }
  }
  return w;
}

std::map<std::string, arma::uword> read_vocab(const std::string& path) {
  const json j = parse_json(path, read_text(path), "the file");
  if (!j.is_object()) fail(path, "is JSON but not an object of token -> id");
  std::map<std::string, arma::uword> vocab;
  for (const auto& [token, id] : j.items()) {
    if (!id.is_number_unsigned())
      fail(path, "token " + attn::quoted(token) + " has an id that is not a non-negative integer");
    vocab[token] = id.get<arma::uword>();
  }
  return vocab;
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

}  // namespace ch09::gpt2
