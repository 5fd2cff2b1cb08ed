/// \file chapters/08_induction/repeats.hpp
/// \brief Chapter 08 data: random token sequences in which one block recurs right after itself.
///
/// Draws come from the portable attn::Random, so a seed gives the same sequences everywhere.
/// Throws: std::invalid_argument for a spec validate() refuses (validate, fixed_block,
/// sample_repeats) and for a count of 0 (sample_repeats); region_of throws nothing.
/// Sources: the article, "Reverse-engineer a head you trained" (its companion experiment trains on
/// repeated patterns: A B .. A is continued with B).
#pragma once

#include <armadillo>
#include <vector>

#include "common/attention/head_roles.hpp"
#include "common/attention/random.hpp"

namespace ch08 {

using attn::Block;
using attn::Random;

/// How sequences are drawn.
struct RepeatSpec {
  arma::uword vocab = 32;      ///< tokens are 0 .. vocab - 1
  arma::uword context = 32;    ///< tokens per sequence, T
  arma::uword min_block = 6;   ///< shortest block
  arma::uword max_block = 12;  ///< longest block (2 max_block <= context)
  /// false: block length uniform in [min_block, max_block] and start uniform over every position
  /// that fits both copies. true: the same length and start in every sequence (the control of
  /// claim ind_04): length (min_block + max_block) / 2 rounded down, both copies centred.
  bool fixed_offset = false;
};

/// Refuses a spec unless vocab >= 2, min_block >= 2, min_block <= max_block and 2 max_block <= context.
void validate(const RepeatSpec& spec);

/// The block used in every sequence when spec.fixed_offset is set: length (min + max) / 2, both
/// copies centred in the context.
Block fixed_block(const RepeatSpec& spec);

/// A batch of sequences. tokens: count x context, row b = sequence b; blocks[b] is its block.
struct RepeatBatch {
  arma::umat tokens;          ///< count x context token ids
  std::vector<Block> blocks;  ///< one per sequence
};

/// Draws `count` sequences: every token uniform over the vocabulary, then the block's first copy
/// written again right after itself.
RepeatBatch sample_repeats(Random& rng, arma::uword count, const RepeatSpec& spec);

/// What a next-token target is, measured by where the target token sits.
enum class Region {
  first,   ///< a block token in the first copy, after the block's first token
  repeat,  ///< a block token in the repeat, after the repeat's first token (predictable by copying)
  other    ///< every other position (random, unpredictable)
};

/// The region of the token at position `target` (the label predicted from position target - 1).
/// The first token of each copy is `other`: nothing announces where a block begins. Any target
/// is accepted (positions outside the block are `other`).
Region region_of(const Block& block, arma::uword target);

}  // namespace ch08
