/// \file attn.hpp
/// \brief Umbrella header of the tutorial's shared library.
///
/// One orientation everywhere: **tokens are rows**. A sentence of n tokens in a d-wide space is
/// the matrix `X` (n x d). Projections multiply on the right: `Q = X Wq` (n x d_k),
/// `K = X Wk` (n x d_k), `V = X Wv` (n x d_v). Scores `S = Q K^T / sqrt(d_k)` and weights
/// `A = softmax(S)` are n x n with row i the distribution of receiving position i over source
/// positions; the mixture `H = A V` is n x d_v. This is the article's notation (row vectors,
/// NumPy's `X @ Wq`) and that of Vaswani et al. 2017, §3.2.1.
///
/// The library's layers, bottom to top: small checks (checks.hpp); the mathematics above them
/// (attention.hpp, cross_attention.hpp, multihead.hpp, loss.hpp, optim.hpp, backprop.hpp,
/// gradcheck.hpp, random.hpp); printing, plotting and files beside it (print.hpp, plot.hpp, panels.hpp,
/// files.hpp, process.hpp, faults.hpp);
/// the command line on top (cli.hpp, included by the chapter programs only). This header gathers
/// the mathematics, the toy tables, printing and plotting; it brings no command-line library.
#pragma once

#include "common/apparatus/faults.hpp"
#include "common/apparatus/files.hpp"
#include "common/apparatus/plot.hpp"
#include "common/apparatus/print.hpp"
#include "common/attention/attention.hpp"
#include "common/attention/toy.hpp"
