/// \file common/gpt2/bpe.hpp
/// \brief GPT-2's tokenizer: byte-level byte-pair encoding (BPE) over a pre-tokenizer's pieces.
///
/// Text becomes tokens in four steps, each a function here:
///   1. pre_tokenize(): GPT-2's regular expression cuts the text into pieces (a word with the space
///      before it, a number, a run of punctuation, whitespace, an English contraction such as 's);
///      no merge ever crosses two pieces;
///   2. byte_alphabet(): every byte of a piece's UTF-8 becomes one printable stand-in character
///      (a space is 'Ġ', byte 0xC3 is 'Ã'), so the 256 bytes are 256 symbols and no text is unknown;
///   3. Tokenizer::merge(): the piece's symbols are merged pairwise, always the pair with the lowest
///      rank in merges.txt first, until no adjacent pair has a rank;
///   4. each merged symbol is looked up in vocab.json.
///
/// Throws: std::invalid_argument naming the byte offset for text that is not valid UTF-8
/// (pre_tokenize, Tokenizer::encode); naming the byte or symbol for a byte's stand-in or a merged
/// symbol that has no id (Tokenizer::encode); naming the first entry that breaks the rules of a
/// vocabulary (the Tokenizer constructor); for an id >= size() or a token holding a character
/// outside the byte alphabet (Tokenizer::token_bytes, Tokenizer::decode). std::logic_error only if
/// PCRE2 cannot compile or apply GPT-2's pattern, a fault of the build (pre_tokenize). The others
/// throw nothing (beyond std::bad_alloc).
/// Sources: Radford et al. 2019, "Language Models are Unsupervised Multitask Learners", §2.2 (input
/// representation); Sennrich et al. 2016, "Neural Machine Translation of Rare Words with Subword
/// Units" (BPE); OpenAI's released encoder (the byte alphabet of its bytes_to_unicode(), the merge
/// loop and the pattern).
#pragma once

#include <armadillo>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpt2 {

/// GPT-2's pre-tokenizer pattern (PCRE2 syntax, matched with Unicode classes): contractions, an
/// optional space and letters, an optional space and digits, an optional space and other symbols,
/// whitespace not followed by a non-space, whitespace.
inline constexpr const char* kPreTokenizerPattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

/// The byte alphabet: entry b is the UTF-8 of the stand-in character of byte b. The printable
/// bytes '!'..'~', 0xA1..0xAC and 0xAE..0xFF stand for themselves (as Latin-1 characters); the
/// other 68 bytes, in increasing order, become U+0100, U+0101, ... (space, 0x20, is U+0120 'Ġ').
std::array<std::string, 256> byte_alphabet();

/// Cuts UTF-8 `text` into GPT-2's pieces with kPreTokenizerPattern (PCRE2, UTF and Unicode
/// properties). The pieces, joined, give `text` back. An empty text gives no piece.
std::vector<std::string> pre_tokenize(const std::string& text);

/// vocab.json and merges.txt in memory, and the encoding and decoding they define.
class Tokenizer {
 public:
  /// vocab: token text (in the byte alphabet) -> id, ids exactly 0..vocab.size()-1, each once;
  /// merges: the merge rules in rank order (rank 0 first), each a pair of symbols whose
  /// concatenation is in vocab; every token is written in the byte alphabet and is one byte's
  /// stand-in, a rule's product or a special token "<|...|>" (GPT-2's 50257: 256 + 50000 + 1).
  Tokenizer(std::map<std::string, arma::uword> vocab, std::vector<std::pair<std::string, std::string>> merges);

  /// Number of tokens (the rows of the model's embedding table).
  arma::uword size() const { return id_to_token_.size(); }

  /// Token ids of UTF-8 `text`, 1 x n (n may be 0).
  std::vector<arma::uword> encode(const std::string& text) const;

  /// The BPE merge loop on one piece's symbols (the byte alphabet's characters, in order): returns
  /// the symbols after every applicable merge, lowest rank first.
  std::vector<std::string> merge(std::vector<std::string> symbols) const;

  /// The id of the token whose vocab.json text is `token` (e.g. "<|endoftext|>"), if there is one.
  std::optional<arma::uword> id(const std::string& token) const;

  /// The bytes token `id` stands for (often not a whole UTF-8 character).
  std::string token_bytes(arma::uword id) const;

  /// The text of several tokens: their bytes joined (invalid UTF-8 kept as it is; printers quote it).
  std::string decode(const std::vector<arma::uword>& ids) const;

 private:
  /// Refuses, naming vocab.json, a token written outside the byte alphabet, and, naming merges.txt,
  /// tokens of several characters in vocab.json that no rule of `merges` makes (a truncated or empty
  /// merges.txt), special tokens "<|...|>" apart.
  void check_vocabulary(const std::vector<std::pair<std::string, std::string>>& merges) const;

  std::vector<std::string> id_to_token_;
  std::map<std::string, arma::uword> token_to_id_;
  std::map<std::pair<std::string, std::string>, arma::uword> ranks_;
  std::array<std::string, 256> alphabet_;
  std::map<std::string, unsigned char> alphabet_byte_;
};

}  // namespace gpt2
