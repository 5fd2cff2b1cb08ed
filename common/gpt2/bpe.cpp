/// \file common/gpt2/bpe.cpp
/// \brief GPT-2's byte-level BPE (see bpe.hpp); the regular expression runs on PCRE2.
#include "common/gpt2/bpe.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>

#include "common/attention/checks.hpp"

namespace gpt2 {

namespace {

/// The UTF-8 of one code point below U+0800 (the byte alphabet needs no more).
std::string utf8(unsigned code_point) {
  if (code_point < 0x80) return std::string(1, static_cast<char>(code_point));
  return {static_cast<char>(0xC0 | (code_point >> 6)), static_cast<char>(0x80 | (code_point & 0x3F))};
}

/// The characters of UTF-8 `text`, each as its own UTF-8 string (a malformed lead byte alone).
std::vector<std::string> utf8_characters(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    out.push_back(text.substr(i, length));
    i += length;
  }
  return out;
}

/// A PCRE2 code or match-data handle freed when it goes out of scope.
struct CodeFree {
  void operator()(pcre2_code* code) const { pcre2_code_free(code); }
};
struct MatchDataFree {
  void operator()(pcre2_match_data* data) const { pcre2_match_data_free(data); }
};

/// GPT-2's pattern, compiled once (a compiled pattern may be matched from several threads).
const pcre2_code* pre_tokenizer() {
  static const std::unique_ptr<pcre2_code, CodeFree> code = [] {
    int error = 0;
    PCRE2_SIZE offset = 0;
    pcre2_code* compiled = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(kPreTokenizerPattern), PCRE2_ZERO_TERMINATED,
                                         PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
    if (compiled == nullptr) throw std::logic_error("pre_tokenize: GPT-2's pattern did not compile");
    return std::unique_ptr<pcre2_code, CodeFree>(compiled);
  }();
  return code.get();
}

/// "0xF0": a byte as two hex digits.
std::string hex_byte(unsigned char byte) {
  constexpr const char* hex = "0123456789ABCDEF";
  return std::string("0x") + hex[byte >> 4] + hex[byte & 0xF];
}

/// PCRE2's own words for an error code.
std::string pcre2_message(int code) {
  std::array<PCRE2_UCHAR, 256> buffer{};
  pcre2_get_error_message(code, buffer.data(), buffer.size());
  return reinterpret_cast<const char*>(buffer.data());
}

}  // namespace

std::array<std::string, 256> byte_alphabet() {
  std::array<std::string, 256> alphabet;
  unsigned next = 256;  // the first stand-in for a byte that cannot stand for itself
  for (unsigned b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
    alphabet[b] = utf8(printable ? b : next++);
  }
  return alphabet;
}

std::vector<std::string> pre_tokenize(const std::string& text) {
  const pcre2_code* code = pre_tokenizer();
  const std::unique_ptr<pcre2_match_data, MatchDataFree> match(pcre2_match_data_create_from_pattern(code, nullptr));
  const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  std::vector<std::string> pieces;
  PCRE2_SIZE offset = 0;
  std::uint32_t options = 0;  // the whole text's UTF-8 is checked by the first match only
  while (offset < text.size()) {
    const int rc = pcre2_match(code, subject, text.size(), offset, options, match.get(), nullptr);
    if (rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21) {
      throw std::invalid_argument("pre_tokenize: the text is not valid UTF-8 at byte " +
                                  std::to_string(pcre2_get_startchar(match.get())) + " (" + pcre2_message(rc) + ")");
    }
    const PCRE2_SIZE* span = pcre2_get_ovector_pointer(match.get());
    // Every character is a letter, a digit, whitespace or something else, so one of the
    // alternatives matches at every offset and consumes at least one character.
    if (rc < 0 || span[0] != offset || span[1] <= offset) {
      throw std::logic_error("pre_tokenize: no piece at byte " + std::to_string(offset) + " (" + pcre2_message(rc) +
                             ")");
    }
    pieces.push_back(text.substr(offset, span[1] - offset));
    offset = span[1];
    options = PCRE2_NO_UTF_CHECK;
  }
  return pieces;
}

Tokenizer::Tokenizer(std::map<std::string, arma::uword> vocab, std::vector<std::pair<std::string, std::string>> merges)
    : id_to_token_(vocab.size()), token_to_id_(std::move(vocab)), alphabet_(byte_alphabet()) {
  std::vector<bool> seen(id_to_token_.size(), false);
  for (const auto& [token, id] : token_to_id_) {
    if (id >= seen.size() || seen[id]) {
      throw std::invalid_argument("vocab.json: token " + attn::quoted(token) + " has id " + std::to_string(id) +
                                  (id >= seen.size() ? ", outside 0.." + std::to_string(seen.size() - 1)
                                                     : ", which another token already has"));
    }
    seen[id] = true;
    id_to_token_[id] = token;
  }
  for (std::size_t rank = 0; rank < merges.size(); ++rank) {
    const auto& [a, b] = merges[rank];
    if (!token_to_id_.contains(a + b)) {
      throw std::invalid_argument("merges.txt: rule " + std::to_string(rank + 1) + " (" + attn::quoted(a) + " " +
                                  attn::quoted(b) + ") makes " + attn::quoted(a + b) + ", which vocab.json lacks");
    }
    ranks_.try_emplace(merges[rank], rank);  // a repeated rule keeps its first (lowest) rank
  }
  for (unsigned b = 0; b < 256; ++b) alphabet_byte_[alphabet_[b]] = static_cast<unsigned char>(b);
  check_vocabulary(merges);
}

void Tokenizer::check_vocabulary(const std::vector<std::pair<std::string, std::string>>& merges) const {
  // Every token is written in the byte alphabet; each is one byte's stand-in, made by a merge rule,
  // or a special token ("<|endoftext|>"): GPT-2's 50257 are 256 bytes, 50000 rules and one special.
  std::set<std::string> made;
  for (const auto& [a, b] : merges) made.insert(a + b);
  std::size_t unmade = 0;
  std::string example;
  for (const auto& [token, id] : token_to_id_) {
    const std::vector<std::string> characters = utf8_characters(token);
    for (const std::string& character : characters) {
      if (!alphabet_byte_.contains(character)) {
        throw std::invalid_argument(
            "vocab.json: token " + attn::quoted(token) + " (id " + std::to_string(id) + ") holds " +
            attn::quoted(character) +
            ", which is not in GPT-2's byte alphabet (the 256 characters that stand for bytes)");
      }
    }
    const bool special = token.size() > 4 && token.starts_with("<|") && token.ends_with("|>");
    if (characters.size() > 1 && !special && !made.contains(token)) {
      if (unmade++ == 0) example = token;
    }
  }
  if (unmade > 0) {
    throw std::invalid_argument("merges.txt: its " + std::to_string(merges.size()) + " rules make no token of " +
                                std::to_string(unmade) + " in vocab.json (such as " + attn::quoted(example) +
                                "): the file is incomplete (GPT-2's vocabulary is 256 bytes, one token per rule "
                                "and <|endoftext|>)");
  }
}

// [bpe_merge]
std::vector<std::string> Tokenizer::merge(std::vector<std::string> symbols) const {
  constexpr arma::uword none = std::numeric_limits<arma::uword>::max();
  while (symbols.size() > 1) {
    // the adjacent pair merged first is the one learned first: the lowest rank in merges.txt
    arma::uword best = none;
    std::size_t at = 0;
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
      const auto rank = ranks_.find({symbols[i], symbols[i + 1]});
      if (rank != ranks_.end() && rank->second < best) best = rank->second, at = i;
    }
    if (best == none) break;
    // merge every occurrence of that pair, left to right, without overlap
    const std::string first = symbols[at], second = symbols[at + 1];
    std::vector<std::string> merged;
    for (std::size_t i = 0; i < symbols.size(); ++i) {
      const bool pair = i + 1 < symbols.size() && symbols[i] == first && symbols[i + 1] == second;
      merged.push_back(pair ? first + second : symbols[i]);
      i += pair ? 1 : 0;
    }
    symbols = std::move(merged);
  }
  return symbols;
}
// [bpe_merge]

std::vector<arma::uword> Tokenizer::encode(const std::string& text) const {
  std::vector<arma::uword> ids;
  for (const std::string& piece : pre_tokenize(text)) {
    std::vector<std::string> symbols;
    for (const char byte : piece) symbols.push_back(alphabet_[static_cast<unsigned char>(byte)]);
    for (const std::string& symbol : merge(std::move(symbols))) {
      const auto id = token_to_id_.find(symbol);
      if (id != token_to_id_.end()) {
        ids.push_back(id->second);
        continue;
      }
      const auto byte = alphabet_byte_.find(symbol);
      if (byte != alphabet_byte_.end()) {
        throw std::invalid_argument("encode: byte " + hex_byte(byte->second) + " (stand-in " + attn::quoted(symbol) +
                                    ", in " + attn::quoted(piece) + ") has no token in vocab.json");
      }
      throw std::invalid_argument("encode: the symbol " + attn::quoted(symbol) + " has no token in vocab.json");
    }
  }
  return ids;
}

std::optional<arma::uword> Tokenizer::id(const std::string& token) const {
  const auto found = token_to_id_.find(token);
  if (found == token_to_id_.end()) return std::nullopt;
  return found->second;
}

std::string Tokenizer::token_bytes(arma::uword id) const {
  if (id >= id_to_token_.size()) {
    throw std::invalid_argument("token_bytes: id " + std::to_string(id) + " is outside the vocabulary 0.." +
                                std::to_string(id_to_token_.size() - 1));
  }
  std::string bytes;
  for (const std::string& character : utf8_characters(id_to_token_[id])) {
    const auto byte = alphabet_byte_.find(character);
    if (byte == alphabet_byte_.end()) {
      throw std::invalid_argument("token_bytes: token " + std::to_string(id) + " (" + attn::quoted(id_to_token_[id]) +
                                  ") holds " + attn::quoted(character) + ", which is not in the byte alphabet");
    }
    bytes += static_cast<char>(byte->second);
  }
  return bytes;
}

std::string Tokenizer::decode(const std::vector<arma::uword>& ids) const {
  std::string text;
  for (const arma::uword id : ids) text += token_bytes(id);
  return text;
}

}  // namespace gpt2
