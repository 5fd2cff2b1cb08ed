/// \file attn.hpp
/// \brief Umbrella header of the tutorial's shared library.
///
/// One orientation everywhere: **tokens are rows**. A sentence of n tokens in a d-wide space is
/// the matrix `X` (n x d). Projections multiply on the right: `Q = X Wq` (n x d_k),
/// `K = X Wk` (n x d_k), `V = X Wv` (n x d_v). Scores `S = Q K^T / sqrt(d_k)` and weights
/// `A = softmax(S)` are n x n with row i the distribution of receiving position i over source
/// positions; the mixture `H = A V` is n x d_v. This is the article's notation (row vectors,
/// NumPy's `X @ Wq`) and that of Vaswani et al. 2017, §3.2.1.
#pragma once

#include "common/attention.hpp"
#include "common/cli.hpp"
#include "common/faults.hpp"
#include "common/files.hpp"
#include "common/print.hpp"
#include "common/plot.hpp"
#include "common/toy.hpp"
