/// \file checks.cpp
/// \brief Small checks shared by the whole library (see checks.hpp).
#include "common/checks.hpp"

#include <stdexcept>

namespace attn {

std::string shape(const arma::mat& M) {
  return std::to_string(M.n_rows) + " x " + std::to_string(M.n_cols);
}

void require_finite(const arma::mat& M, const std::string& what) {
  if (!M.is_finite()) {
    throw std::invalid_argument(what + " (" + shape(M) + ") has a non-finite entry (NaN or inf)");
  }
}

std::string printable(const std::string& text, std::size_t max_chars) {
  std::string out;
  for (std::size_t k = 0; k < text.size() && k < max_chars; ++k) {
    const auto c = static_cast<unsigned char>(text[k]);
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  return text.size() > max_chars ? out + "..." : out;
}

}  // namespace attn
