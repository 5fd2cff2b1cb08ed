/// \file common/gpt2/bench.cpp
/// \brief The time of one GPT-2 small forward pass over a 64-token sentence, keeping every head's
/// attention pattern and output (what chapter 09's tools read), on random weights of GPT-2 small's
/// shapes (12 layers, 12 heads, width 768, vocab 50257, context 1024; 124,439,808 parameters).
/// Random weights take the same time as the real ones: the pass has no data-dependent branch.
/// As in chapter 09's --gpt2 mode, float32, the BLAS on one thread per caller and the large
/// products cut between the cores (gpt2::affine, gpt2::unembed).
/// Google Benchmark; run build/release/common/gpt2_bench.
#include <benchmark/benchmark.h>

#include <armadillo>
#include <thread>
#include <vector>

#include "common/apparatus/process.hpp"
#include "common/attention/random.hpp"
#include "common/gpt2/model.hpp"

namespace {

/// GPT-2 small's shapes with random weights, built once (about 500 MB of floats).
const gpt2::Weights& small_model() {
  static const gpt2::Weights weights = [] {
    app::reserve_blas_buffers(std::thread::hardware_concurrency());  // as a chapter program does
    attn::Random rng(2019);
    return gpt2::random_weights(gpt2::kSmall, rng);
  }();
  return weights;
}

void gpt2_small_forward(benchmark::State& state) {
  const gpt2::Weights& weights = small_model();
  const auto n = static_cast<arma::uword>(state.range(0));
  attn::Random rng(7);
  std::vector<arma::uword> tokens(n);
  for (arma::uword& t : tokens) t = rng.below(weights.config.vocab);
  for (auto _ : state) {
    gpt2::Pass pass = gpt2::forward(weights, tokens);
    benchmark::DoNotOptimize(pass.logits.memptr());
  }
  state.counters["tokens"] = static_cast<double>(n);
  state.counters["patterns"] = static_cast<double>(weights.config.layers * weights.config.heads);
  // The pass's matrix products, 2 flops a multiply-add: per layer [Q | K | V] (n x d by d x 3d), per
  // head Q K^T and A V (n x d_h by d_h x n, n x n by n x d_h) and its write z W_O^h (n x d_h by d_h x d),
  // the MLP (n x d by d x 4d, n x 4d by 4d x d); then the unembedding (n x d by d x vocab): about 16
  // GFLOP for 64 tokens. Read against build/release/common/peak_bench.
  const double N = static_cast<double>(n), d = static_cast<double>(weights.config.width),
               heads = static_cast<double>(weights.config.heads), dh = d / heads;
  const double layer = N * d * 3 * d + heads * (2 * N * dh * N + N * dh * d) + 2 * N * d * 4 * d;
  const double flops = 2 * (static_cast<double>(weights.config.layers) * layer + N * d * weights.config.vocab);
  state.counters["FLOP/s"] =
      benchmark::Counter(flops * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(gpt2_small_forward)->Arg(64)->Unit(benchmark::kMillisecond)->MinTime(3.0)->UseRealTime();

BENCHMARK_MAIN();
