/// \file common/gpt2/checkpoint.hpp
/// \brief Reading GPT-2 in the Hugging Face layout a reader downloads: model.safetensors (the
/// weights), config.json (the sizes), vocab.json and merges.txt (the tokenizer).
///
/// model.safetensors is an 8-byte little-endian header length N, N bytes of JSON naming each
/// tensor's dtype, shape and byte range, then the tensors' bytes, row-major. GPT-2's Conv1D
/// weights are stored d_in x d_out, which is already the orientation of common/attention (tokens are rows,
/// `X W`). Every tensor of model.hpp's parameter table must be there, F32, with exactly the
/// table's shape; the entries a checkpoint may also hold are tolerated (L a layer): h.L.attn.bias (the causal
/// mask, 1 x 1 x context x context), h.L.attn.masked_bias and lm_head.weight (the tied
/// unembedding again, vocab x d: refused if it differs from wte.weight, which these tools read for
/// both); names may carry the prefix "transformer.". Anything else is refused, and so are tensors
/// that share bytes and bytes that belong to no tensor.
///
/// A reader gets GPT-2 small as the four files of the Hugging Face model openai-community/gpt2
/// (model.safetensors, config.json, vocab.json, merges.txt, about 550 MB) in one folder; the larger
/// GPT-2 sizes (gpt2-medium, -large, -xl) load the same way.
///
/// Throws: std::runtime_error with one line naming the file and what is wrong with it (a missing
/// tensor, both shapes, the byte where the file ends) for a file that is missing, unreadable, too
/// large or not as described above (every function: read_safetensors_header, read_config,
/// read_weights, read_vocab, read_merges, load_gpt2); nothing else (beyond std::bad_alloc).
/// Sources: the safetensors format (Hugging Face, safetensors/README); Hugging Face's GPT2Model
/// names and GPT2Config fields; OpenAI's encoder for vocab and merges.
#pragma once

#include <armadillo>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/gpt2/bpe.hpp"
#include "common/gpt2/model.hpp"

namespace gpt2 {

/// One entry of a safetensors header.
struct TensorEntry {
  std::string dtype;                 ///< "F32", "F16", ...
  std::vector<std::uint64_t> shape;  ///< dimensions, outermost first
  std::uint64_t begin = 0;           ///< first byte, counted from the end of the header
  std::uint64_t end = 0;             ///< one past the last byte, counted likewise
};

/// A safetensors file's header: its entries by name (the "__metadata__" entry left out).
struct SafetensorsHeader {
  std::map<std::string, TensorEntry> tensors;  ///< name -> entry
  std::uint64_t data_start = 0;                ///< the file offset where the tensors' bytes begin
  std::uint64_t file_size = 0;                 ///< the file's size in bytes
};

/// Reads and checks the header of safetensors file `path`: the file must hold the 8-byte length,
/// the JSON it announces (an object of entries with a string dtype, a shape of non-negative
/// integers and data_offsets [begin, end]; read as a stream of events, no document built), and
/// every entry's bytes, whose count must match its shape and dtype. (read_weights() then refuses
/// tensors that overlap and bytes that belong to no tensor, once it knows none is missing.)
SafetensorsHeader read_safetensors_header(const std::string& path);

/// The sizes from config.json in `dir` (n_embd, n_head, n_layer, n_positions, vocab_size,
/// layer_norm_epsilon), or, with no config.json, from the tensors' shapes with heads = width / 64
/// (every GPT-2 size has 64-wide heads). Layers are then the blocks h.0, h.1, ... present.
/// An n_layer beyond the blocks the header holds tensors for is refused here, before any weight is
/// allocated (n_layer 10^12 would ask for terabytes).
Config read_config(const std::string& dir, const SafetensorsHeader& header);

/// The weights in safetensors file `path` (whose header is `header`), checked against `config` as
/// described above, every entry finite and at most 1e4 in size; tensors that share bytes and bytes
/// of no tensor (between tensors or after the last) are refused, as the format's reference reader
/// refuses them, and an lm_head.weight that differs from wte.weight. A bad `config` is refused too.
Weights read_weights(const std::string& path, const SafetensorsHeader& header, const Config& config);

/// vocab.json: a JSON object of token (in the byte alphabet) -> id.
std::map<std::string, arma::uword> read_vocab(const std::string& path);

/// merges.txt: an optional "#version" line, then one rule a line, two symbols separated by one
/// space, highest priority first; blank lines are skipped.
std::vector<std::pair<std::string, std::string>> read_merges(const std::string& path);

/// A GPT-2 model and its tokenizer.
struct Gpt2 {
  Weights weights;      ///< the model
  Tokenizer tokenizer;  ///< vocab.json and merges.txt
};

/// Everything in folder `dir`: model.safetensors, config.json (optional), vocab.json and
/// merges.txt, with the vocabulary's size checked against the embedding table's rows.
Gpt2 load_gpt2(const std::string& dir);

}  // namespace gpt2
