/// \file common/fast/peak_bench.cpp
/// \brief The machine's float FMA peak, measured: the GFLOP/s that chapter 09's training step
/// (`ch09_real_heads --bench N`, which prints its own GFLOP/s) and GPT-2's pass are read against.
/// Each thread runs 12 independent chains of fused multiply-adds on vector registers, enough to
/// keep both FMA units of a core busy through their latency; 2 flops per lane per FMA. AVX2 (8
/// floats) is what OpenBLAS's Haswell kernels use; AVX-512 (16 floats) what its SkylakeX and
/// Cooperlake kernels use, measured only where the CPU has it. Threads(2): both cores at once.
/// Google Benchmark; run build/release/common/peak_bench.
#include <benchmark/benchmark.h>
#include <immintrin.h>

namespace {

constexpr int kChains = 12;  // independent accumulators: latency 4 x 2 units needs at least 8

__attribute__((target("avx2,fma"))) float avx2_chains(long rounds) {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(1.0f + 0.001f * static_cast<float>(i));
  const __m256 m = _mm256_set1_ps(0.9999999f), c = _mm256_set1_ps(1e-7f);
  for (long r = 0; r < rounds; ++r)
    for (int i = 0; i < kChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], m, c);
  __m256 sum = acc[0];
  for (int i = 1; i < kChains; ++i) sum = _mm256_add_ps(sum, acc[i]);
  return _mm256_cvtss_f32(sum);
}

__attribute__((target("avx512f"))) float avx512_chains(long rounds) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(1.0f + 0.001f * static_cast<float>(i));
  const __m512 m = _mm512_set1_ps(0.9999999f), c = _mm512_set1_ps(1e-7f);
  for (long r = 0; r < rounds; ++r)
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], m, c);
  __m512 sum = acc[0];
  for (int i = 1; i < kChains; ++i) sum = _mm512_add_ps(sum, acc[i]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  float total = 0.0f;
  for (const float lane : lanes) total += lane;
  return total;
}

template <float (*chains)(long), int lanes>
void fma_peak(benchmark::State& state, bool supported) {
  if (!supported) {
    state.SkipWithError("this CPU has no such instructions");
    return;
  }
  constexpr long kRounds = 1 << 20;
  for (auto _ : state) {
    long rounds = kRounds;
    benchmark::DoNotOptimize(rounds);  // unknown to the compiler: the chains run every iteration
    benchmark::DoNotOptimize(chains(rounds));
  }
  const double flops = 2.0 * lanes * kChains * static_cast<double>(kRounds);  // per iteration of one thread
  state.counters["FLOP/s"] = benchmark::Counter(flops * static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate);  // summed over the threads
}

void avx2_fma_peak(benchmark::State& state) { fma_peak<avx2_chains, 8>(state, __builtin_cpu_supports("fma")); }
void avx512_fma_peak(benchmark::State& state) { fma_peak<avx512_chains, 16>(state, __builtin_cpu_supports("avx512f")); }

}  // namespace

BENCHMARK(avx2_fma_peak)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(avx512_fma_peak)->Threads(1)->Threads(2)->UseRealTime();

BENCHMARK_MAIN();
