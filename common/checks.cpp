/// \file checks.cpp
/// \brief Small checks shared by the whole library (see checks.hpp).
#include "common/checks.hpp"

#include <charconv>
#include <cstdio>
#include <stdexcept>
#include <system_error>

namespace attn {

std::string shape(const arma::mat& M) { return std::to_string(M.n_rows) + " x " + std::to_string(M.n_cols); }

void require_finite(const arma::mat& M, const std::string& what) {
  if (!M.is_finite()) {
    throw std::invalid_argument(what + " (" + shape(M) + ") has a non-finite entry (NaN or inf)");
  }
}

std::string printable(const std::string& text, std::size_t max_chars) {
  std::string out;
  for (std::size_t k = 0; k < text.size(); ++k) {
    if (out.size() >= max_chars) {
      return out + "... (" + std::to_string(text.size()) + " bytes)";
    }
    const auto c = static_cast<unsigned char>(text[k]);
    switch (c) {
      case 0x1b:
        out += "\\e";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (c >= 0x20 && c < 0x7f) {
          out += static_cast<char>(c);
        } else {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\x%02x", c);
          out += hex;
        }
    }
  }
  return out;
}

std::string quoted(const std::string& text) {
  std::string out(1, '\'');
  out.append(printable(text)).push_back('\'');
  return out;
}

std::string quoted_number(double value) {
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  if (ec != std::errc()) return "?";
  return std::string(buffer, end);
}

}  // namespace attn
