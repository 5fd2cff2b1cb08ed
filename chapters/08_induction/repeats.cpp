/// \file chapters/08_induction/repeats.cpp
/// \brief Repeated-block sequences (see repeats.hpp).
#include "repeats.hpp"

#include <stdexcept>
#include <string>

namespace ch08 {

void validate(const RepeatSpec& s) {
  if (s.vocab < 2)
    throw std::invalid_argument("the vocabulary needs at least 2 tokens, got " + std::to_string(s.vocab));
  if (s.min_block < 2 || s.min_block > s.max_block) {
    throw std::invalid_argument("block lengths must satisfy 2 <= min <= max, got " + std::to_string(s.min_block) +
                                " .. " + std::to_string(s.max_block));
  }
  if (2 * s.max_block > s.context) {
    throw std::invalid_argument("a block of " + std::to_string(s.max_block) + " tokens and its repeat do not fit in " +
                                std::to_string(s.context) + " positions");
  }
}

Block fixed_block(const RepeatSpec& spec) {
  validate(spec);
  const arma::uword length = (spec.min_block + spec.max_block) / 2;
  return {(spec.context - 2 * length) / 2, length};
}

RepeatBatch sample_repeats(Random& rng, arma::uword count, const RepeatSpec& spec) {
  validate(spec);
  if (count == 0) throw std::invalid_argument("sample_repeats: count must be > 0");
  RepeatBatch batch{arma::umat(count, spec.context), std::vector<Block>(count)};
  for (arma::uword b = 0; b < count; ++b) {
    for (arma::uword t = 0; t < spec.context; ++t) batch.tokens(b, t) = rng.below(spec.vocab);
    Block block = fixed_block(spec);
    if (!spec.fixed_offset) {
      block.length = spec.min_block + rng.below(spec.max_block - spec.min_block + 1);
      block.start = rng.below(spec.context - 2 * block.length + 1);
    }
    for (arma::uword j = 0; j < block.length; ++j) {
      batch.tokens(b, block.start + block.length + j) = batch.tokens(b, block.start + j);
    }
    batch.blocks[b] = block;
  }
  return batch;
}

Region region_of(const Block& block, arma::uword target) {
  const arma::uword s = block.start, n = block.length;
  if (target > s && target < s + n) return Region::first;
  if (target > s + n && target < s + 2 * n) return Region::repeat;
  return Region::other;
}

}  // namespace ch08
