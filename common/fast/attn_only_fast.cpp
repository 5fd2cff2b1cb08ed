/// \file attn_only_fast.cpp
/// \brief Blocked kernels, a vectorised exp and the threaded training step of the attention-only
/// model (see attn_only_fast.hpp). Instantiated for float and double.
#include "common/fast/attn_only_fast.hpp"

#include <dlfcn.h>
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>

#include "common/attention/softmax_backward.hpp"

namespace attn::fast {

namespace {

/// C = alpha op(A) op(B) + beta C on column-major blocks given by pointer and leading dimension,
/// so a head's T x d_k block of the N x heads d_k matrices is used in place.
template <class T>
void gemm(char ta, char tb, arma::uword m, arma::uword n, arma::uword k, T alpha, const T* A, arma::uword lda,
          const T* B, arma::uword ldb, T beta, T* C, arma::uword ldc) {
  const auto M = static_cast<arma::blas_int>(m), N = static_cast<arma::blas_int>(n), K = static_cast<arma::blas_int>(k),
             LA = static_cast<arma::blas_int>(lda), LB = static_cast<arma::blas_int>(ldb),
             LC = static_cast<arma::blas_int>(ldc);
  arma::blas::gemm<T>(&ta, &tb, &M, &N, &K, &alpha, A, &LA, B, &LB, &beta, C, &LC);
}

// Causal blocks: only the lower triangle of a T x T score or weight block is ever nonzero or read,
// so each product below splits the block at h = T / 2 and skips the upper-right quarter
// (a quarter of the attention arithmetic).

/// S = alpha X Y^T on and below the diagonal (X, Y: n x d blocks, leading dimension ld; S: n x n,
/// leading dimension n). The quarter S[0:h, h:n] is left unwritten: causal code never reads it.
template <class T>
void lower_scores(arma::uword n, arma::uword d, T alpha, const T* X, const T* Y, arma::uword ld, T* S) {
  const arma::uword h = n / 2;
  gemm<T>('N', 'T', h, h, d, alpha, X, ld, Y, ld, T(0), S, n);              // S[0:h, 0:h]
  gemm<T>('N', 'T', n - h, n, d, alpha, X + h, ld, Y, ld, T(0), S + h, n);  // S[h:n, 0:n]
}

/// C = alpha L B for a lower-triangular n x n block L (leading dimension n) and an n x d block B
/// (C, B: leading dimension ld).
template <class T>
void lower_times(arma::uword n, arma::uword d, T alpha, const T* L, const T* B, arma::uword ld, T* C) {
  const arma::uword h = n / 2;
  gemm<T>('N', 'N', h, d, h, alpha, L, n, B, ld, T(0), C, ld);              // C[0:h] = L[0:h, 0:h] B[0:h]
  gemm<T>('N', 'N', n - h, d, n, alpha, L + h, n, B, ld, T(0), C + h, ld);  // C[h:n] = L[h:n, :] B
}

/// C = alpha L^T B for a lower-triangular n x n block L (leading dimension n) and an n x d block B.
template <class T>
void lower_transposed_times(arma::uword n, arma::uword d, T alpha, const T* L, const T* B, arma::uword ld, T* C) {
  const arma::uword h = n / 2;
  gemm<T>('T', 'N', h, d, n, alpha, L, n, B, ld, T(0), C, ld);                              // C[0:h] = L[:, 0:h]^T B
  gemm<T>('T', 'N', n - h, d, n - h, alpha, L + h * n + h, n, B + h, ld, T(0), C + h, ld);  // L[h:n, h:n]^T B[h:n]
}

/// exp(x) for x <= 0 in float: a polynomial that compilers vectorise (relative error about 2e-7,
/// below float's own rounding of the result).
inline float exp_nonpositive(float x) {
  x = std::max(x, -87.0f);
  const float k = (x * 1.44269504f + 12582912.0f) - 12582912.0f;  // round(x / ln 2)
  const float r = x - k * 0.693145752f - k * 1.42860677e-6f;      // x - k ln 2, |r| <= ln 2 / 2
  const float p =
      1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 + r * (1.0f / 720))))));
  const auto bits = static_cast<std::int32_t>((static_cast<std::int32_t>(k) + 127) << 23);
  return p * std::bit_cast<float>(bits);  // p 2^k
}

/// In double the library's exp, for gradient checks.
inline double exp_nonpositive(double x) { return std::exp(x); }

/// e[i] = exp(z[i] - top[i]) and sum[i] += e[i] for i < n: the inner loop of every softmax here.
/// The float version is compiled for AVX-512, AVX2 and plain x86-64, chosen when the program starts.
template <class T>
void exp_shifted(const T* __restrict z, const T* __restrict top, T* __restrict e, T* __restrict sum, arma::uword n) {
  for (arma::uword i = 0; i < n; ++i) e[i] = exp_nonpositive(z[i] - top[i]);
  for (arma::uword i = 0; i < n; ++i) sum[i] += e[i];
}

template <>
__attribute__((target_clones("avx512f", "avx2", "default"))) void exp_shifted<float>(
    const float* __restrict z, const float* __restrict top, float* __restrict e, float* __restrict sum, arma::uword n) {
  for (arma::uword i = 0; i < n; ++i) e[i] = exp_nonpositive(z[i] - top[i]);
  for (arma::uword i = 0; i < n; ++i) sum[i] += e[i];
}

/// A = softmax(S + causal) by rows, swept column by column over contiguous memory:
/// A[i, j] = exp(S[i, j] - m_i) / sum_{j' <= i} exp(S[i, j'] - m_i) for j <= i, 0 for j > i.
template <class T>
void causal_softmax(const arma::Mat<T>& S, T* A, arma::Col<T>& top, arma::Col<T>& sum) {
  const arma::uword n = S.n_rows;
  top = S.col(0);
  sum.zeros(n);
  for (arma::uword j = 1; j < n; ++j) {
    const T* s = S.colptr(j);
    T* m = top.memptr();
    for (arma::uword i = j; i < n; ++i) m[i] = std::max(m[i], s[i]);
  }
  for (arma::uword j = 0; j < n; ++j) {
    T* a = A + j * n;
    for (arma::uword i = 0; i < j; ++i) a[i] = T(0);  // causal: position i reads j <= i only
    exp_shifted<T>(S.colptr(j) + j, top.memptr() + j, a + j, sum.memptr() + j, n - j);
  }
  for (arma::uword i = 0; i < n; ++i) {
    // a NaN or infinite score makes its row's sum NaN: refuse it, as attn::softmax_rows does
    if (!std::isfinite(sum[i])) {
      throw std::invalid_argument("causal softmax: a score in row " + std::to_string(i) +
                                  " is not finite (NaN or inf)");
    }
    sum[i] = T(1) / sum[i];
  }
  for (arma::uword j = 0; j < n; ++j) {
    T* a = A + j * n;
    const T* inv = sum.memptr();
    for (arma::uword i = j; i < n; ++i) a[i] *= inv[i];
  }
}

}  // namespace

// long function: the forward pass, one page with the kernels
template <class T>
void forward(const AttnOnlyModel<T>& model, const arma::umat& tokens, AttnOnlyPass<T>& pass, const arma::mat* keep) {
  detail::start_pass(model, tokens, keep, pass);
  const AttnOnlyShape& s = model.shape;
  const arma::uword B = tokens.n_rows, T_ = tokens.n_cols, N = B * T_, dk = s.d_k, hd = s.heads * dk;
  const T scale = T(1) / std::sqrt(static_cast<T>(dk));
  pass.S.set_size(T_, T_);
  arma::Col<T> top, sum;

  // X_0 = E[token] + P[position]: row b T + t of the stream
  arma::Mat<T> X(N, s.width);
  for (arma::uword c = 0; c < s.width; ++c) {
    for (arma::uword b = 0; b < B; ++b) {
      for (arma::uword t = 0; t < T_; ++t) X(b * T_ + t, c) = model.E(tokens(b, t), c) + model.P(t, c);
    }
  }
  for (arma::uword l = 0; l < s.layers; ++l) {
    const AttnLayer<T>& layer = model.layers[l];
    AttnLayerPass<T>& lp = pass.layers[l];
    lp.X = X;
    // [Q K V] = X [Wq Wk Wv]: N x 3 heads d_k, every sequence and head in one product
    lp.QKV = X * arma::join_rows(layer.Wq, layer.Wk, layer.Wv);
    const T* Q = lp.QKV.memptr();
    const T* K = Q + hd * N;
    const T* V = K + hd * N;
    lp.A.set_size(T_, T_, B * s.heads);
    lp.H.set_size(N, hd);
    for (arma::uword b = 0; b < B; ++b) {
      for (arma::uword h = 0; h < s.heads; ++h) {
        const arma::uword at = h * dk * N + b * T_;  // head h's T x d_k block of sequence b, leading dimension N
        // S = Q K^T / sqrt(d_k)
        lower_scores<T>(T_, dk, scale, Q + at, K + at, N, pass.S.memptr());
        T* A = lp.A.slice_memptr(b * s.heads + h);
        causal_softmax(pass.S, A, top, sum);  // A = softmax(S + causal)
        // H = keep A V, written straight into the head's columns of the concatenation
        lower_times<T>(T_, dk, pass.keep(l, h), A, V + at, N, lp.H.memptr() + at);
      }
    }
    // X_{l+1} = X_l + Concat(heads) Wo
    gemm<T>('N', 'N', N, s.width, hd, T(1), lp.H.memptr(), N, layer.Wo.memptr(), hd, T(1), X.memptr(), N);
  }
  pass.X_out = std::move(X);
  if (s.final_norm) {
    // Y = (X_L - mean) / sqrt(var + eps) * gain + bias, row by row
    const arma::Col<T> mean = arma::mean(pass.X_out, 1);
    pass.Xhat = pass.X_out.each_col() - mean;
    const arma::Col<T> var = arma::mean(arma::square(pass.Xhat), 1);
    pass.inv_std = T(1) / arma::sqrt(var + static_cast<T>(detail::kNormEps));
    pass.Xhat.each_col() %= pass.inv_std;
    pass.Y = pass.Xhat;
    pass.Y.each_row() %= model.gain;
    pass.Y.each_row() += model.bias;
    pass.logits = pass.Y * model.U;  // N x vocab
  } else {
    pass.logits = pass.X_out * model.U;
  }
}

template <class T>
double next_token_loss_sum(const AttnOnlyPass<T>& pass, const arma::umat& tokens, arma::Mat<T>* dlogits,
                           double grad_scale) {
  const arma::uword B = tokens.n_rows, T_ = tokens.n_cols, V = pass.logits.n_cols, N = B * T_;
  detail::require_pass_over(pass, tokens);
  // Softmax of every row, swept column by column (contiguous): the row maxima, then the sums.
  arma::Col<T> top = pass.logits.col(0), sum(N, arma::fill::zeros);
  for (arma::uword v = 1; v < V; ++v) {
    const T* z = pass.logits.colptr(v);
    for (arma::uword r = 0; r < N; ++r) top[r] = std::max(top[r], z[r]);
  }
  if (dlogits != nullptr) dlogits->set_size(N, V);
  arma::Mat<T> scratch;
  arma::Mat<T>& p = dlogits != nullptr ? *dlogits : (scratch.set_size(N, V), scratch);
  for (arma::uword v = 0; v < V; ++v) exp_shifted<T>(pass.logits.colptr(v), top.memptr(), p.colptr(v), sum.memptr(), N);
  double total = 0.0;
  for (arma::uword b = 0; b < B; ++b) {
    for (arma::uword t = 0; t + 1 < T_; ++t) {
      const arma::uword r = b * T_ + t;
      // -log softmax(z)[label] = log sum exp(z - m) - (z_label - m)
      total += std::log(static_cast<double>(sum[r])) - static_cast<double>(pass.logits(r, tokens(b, t + 1)) - top[r]);
    }
  }
  if (dlogits != nullptr) {
    // d/dz of -log softmax(z)[label] = softmax(z) - onehot(label); the last positions predict nothing
    arma::Col<T> inv = static_cast<T>(grad_scale) / sum;
    for (arma::uword b = 0; b < B; ++b) inv[b * T_ + T_ - 1] = T(0);
    dlogits->each_col() %= inv;
    for (arma::uword b = 0; b < B; ++b) {
      for (arma::uword t = 0; t + 1 < T_; ++t) (*dlogits)(b * T_ + t, tokens(b, t + 1)) -= static_cast<T>(grad_scale);
    }
  }
  return total;
}

template <class T>
double next_token_loss(const AttnOnlyPass<T>& pass, const arma::umat& tokens, arma::Mat<T>* dlogits) {
  const double count = static_cast<double>(tokens.n_rows * (tokens.n_cols - 1));
  return fast::next_token_loss_sum(pass, tokens, dlogits, 1.0 / count) / count;
}

// long function: the backward pass, one page with the kernels
template <class T>
void backward(const AttnOnlyModel<T>& model, const arma::umat& tokens, const AttnOnlyPass<T>& pass,
              const arma::Mat<T>& dlogits, AttnOnlyBackward<T>& w) {
  const AttnOnlyShape& s = model.shape;
  const arma::uword B = pass.batch, T_ = tokens.n_cols, N = B * T_, dk = s.d_k, hd = s.heads * dk;
  const T scale = T(1) / std::sqrt(static_cast<T>(dk));
  if (w.grad.layers.size() != s.layers || arma::size(w.grad.E) != arma::size(model.E) ||
      w.grad.shape.final_norm != s.final_norm) {
    w.grad = zero_model<T>(s);
  }

  unembedding_backward(model, pass, dlogits, w);  // w.dX: N x width, the gradient of X_L

  for (arma::uword l = s.layers; l-- > 0;) {
    const AttnLayer<T>& layer = model.layers[l];
    const AttnLayerPass<T>& lp = pass.layers[l];
    AttnLayer<T>& g = w.grad.layers[l];
    // forward: X_{l+1} = X_l + H Wo   =>   dWo = H^T dX_{l+1},  dH = dX_{l+1} Wo^T,  dX_l = dX_{l+1} + ...
    g.Wo = lp.H.t() * w.dX;
    w.dH = w.dX * layer.Wo.t();
    w.dQKV.set_size(N, 3 * hd);
    const T* Q = lp.QKV.memptr();
    const T* K = Q + hd * N;
    const T* V = K + hd * N;
    T* dQ = w.dQKV.memptr();
    T* dK = dQ + hd * N;
    T* dV = dK + hd * N;
    w.dA.set_size(T_, T_);
    for (arma::uword b = 0; b < B; ++b) {
      for (arma::uword h = 0; h < s.heads; ++h) {
        const arma::uword at = h * dk * N + b * T_;
        const T keep = pass.keep(l, h);
        const arma::Mat<T>& A = lp.A.slice(b * s.heads + h);
        // forward: H = keep A V   =>   dA = keep dH V^T,  dV = keep A^T dH
        lower_scores<T>(T_, dk, keep, w.dH.memptr() + at, V + at, N, w.dA.memptr());  // only j <= i is read
        lower_transposed_times<T>(T_, dk, keep, A.memptr(), w.dH.memptr() + at, N, dV + at);
        // forward: A = softmax(S + causal) by rows   =>   dS_ij = A_ij (dA_ij - sum_m dA_im A_im)
        softmax_rows_backward(A, w.dA, w.dS, true);
        // forward: S = Q K^T / sqrt(d_k)   =>   dQ = dS K / sqrt(d_k),  dK = dS^T Q / sqrt(d_k)
        lower_times<T>(T_, dk, scale, w.dS.memptr(), K + at, N, dQ + at);
        lower_transposed_times<T>(T_, dk, scale, w.dS.memptr(), Q + at, N, dK + at);
      }
    }
    // forward: [Q K V] = X [Wq Wk Wv]   =>   [dWq dWk dWv] = X^T [dQ dK dV],
    //                                        dX_l = dX_{l+1} + [dQ dK dV] [Wq Wk Wv]^T
    const arma::Mat<T> dW = lp.X.t() * w.dQKV;
    g.Wq = dW.cols(0, hd - 1);
    g.Wk = dW.cols(hd, 2 * hd - 1);
    g.Wv = dW.cols(2 * hd, 3 * hd - 1);
    const arma::Mat<T> W = arma::join_rows(layer.Wq, layer.Wk, layer.Wv);
    gemm<T>('N', 'T', N, s.width, 3 * hd, T(1), w.dQKV.memptr(), N, W.memptr(), s.width, T(1), w.dX.memptr(), N);
  }

  // forward: X_0 = E[token] + P[position]   =>   each row of dX_0 adds into its token's row of dE
  //                                              and its position's row of dP
  w.grad.E.zeros();
  w.grad.P.zeros();
  for (arma::uword c = 0; c < s.width; ++c) {
    for (arma::uword b = 0; b < B; ++b) {
      for (arma::uword t = 0; t < T_; ++t) {
        const T d = w.dX(b * T_ + t, c);
        w.grad.E(tokens(b, t), c) += d;
        w.grad.P(t, c) += d;
      }
    }
  }
}

#define ATTN_FAST_INSTANTIATE(T)                                                                                  \
  template void forward(const AttnOnlyModel<T>&, const arma::umat&, AttnOnlyPass<T>&, const arma::mat*);          \
  template double next_token_loss_sum(const AttnOnlyPass<T>&, const arma::umat&, arma::Mat<T>*, double);          \
  template double next_token_loss(const AttnOnlyPass<T>&, const arma::umat&, arma::Mat<T>*);                      \
  template void backward(const AttnOnlyModel<T>&, const arma::umat&, const AttnOnlyPass<T>&, const arma::Mat<T>&, \
                         AttnOnlyBackward<T>&);

ATTN_FAST_INSTANTIATE(float)
ATTN_FAST_INSTANTIATE(double)

}  // namespace attn::fast

namespace attn {

namespace {
constexpr arma::uword kShardRows = 4;  // sequences per shard of a training step
}  // namespace

void use_one_blas_thread() {
  using SetThreads = void (*)(int);
  if (void* f = ::dlsym(RTLD_DEFAULT, "openblas_set_num_threads")) reinterpret_cast<SetThreads>(f)(1);
  // Keep freed matrices in the heap: returning them to the system each step and faulting the
  // pages in again took about a fifth of the training time.
  ::mallopt(M_MMAP_THRESHOLD, 64 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

double training_step_flops(const AttnOnlyShape& s, arma::uword batch) {
  const double N = static_cast<double>(batch * s.context), T = static_cast<double>(s.context),
               D = static_cast<double>(s.width), dk = static_cast<double>(s.d_k),
               hd = static_cast<double>(s.heads) * dk;
  const double blocks = static_cast<double>(batch * s.heads);                             // T x T blocks per layer
  const double layer = N * D * 3 * hd + blocks * (T * dk * T + T * T * dk) + N * hd * D;  // multiply-adds
  const double forward = static_cast<double>(s.layers) * layer + N * D * static_cast<double>(s.vocab);
  return 2.0 * 3.0 * forward;  // 2 flops a multiply-add; the forward products and the backward's two each
}

template <class T>
AttnOnlyTrainer<T>::AttnOnlyTrainer(double lr, unsigned threads)
    : threads_(threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency())), adam_(lr) {
  use_one_blas_thread();
}

template <class T>
double AttnOnlyTrainer<T>::step(AttnOnlyModel<T>& model, const arma::umat& tokens) {
  detail::check_tokens(model, tokens);  // here, not in the threads: an exception must not escape a thread
  const arma::uword B = tokens.n_rows, T_ = tokens.n_cols;
  // Shards of a few sequences each, taken by whichever thread is free: a thread slowed down by
  // another program on its core then simply takes fewer of them.
  // The shards depend on the batch only, not on the threads, so every machine sums the same
  // partial gradients in the same order and a seed trains the same model everywhere.
  const arma::uword parts = (B + kShardRows - 1) / kShardRows;
  shards_.resize(parts);
  const double scale = 1.0 / static_cast<double>(B * (T_ - 1));  // gradient of the mean over the whole batch
  std::atomic<arma::uword> next{0};
  std::vector<std::exception_ptr> failed(threads_);
  const auto work = [&](unsigned t) {
    try {
      for (arma::uword k; (k = next.fetch_add(1)) < parts;) {
        Shard& sh = shards_[k];
        sh.tokens = tokens.rows(k * B / parts, (k + 1) * B / parts - 1);
        fast::forward(model, sh.tokens, sh.pass);
        sh.loss_sum = fast::next_token_loss_sum(sh.pass, sh.tokens, &sh.dlogits, scale);
        fast::backward(model, sh.tokens, sh.pass, sh.dlogits, sh.work);
      }
    } catch (...) {
      failed[t] = std::current_exception();  // rethrown below: an exception must not escape a thread
      next = parts;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::min<arma::uword>(threads_, parts); ++t) pool.emplace_back(work, t);
  work(0);
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : failed) {
    if (e) std::rethrow_exception(e);
  }
  if (total_.layers.size() != model.layers.size() || total_.shape.final_norm != model.shape.final_norm) {
    total_ = zero_model<T>(model.shape);
  }
  const auto sum = parameter_ptrs(total_);
  double loss = 0.0;
  for (arma::uword k = 0; k < parts; ++k) {
    const auto g = parameter_ptrs(shards_[k].work.grad);
    for (std::size_t i = 0; i < sum.size(); ++i) {
      if (k == 0)
        *sum[i] = *g[i];
      else
        *sum[i] += *g[i];
    }
    loss += shards_[k].loss_sum;
  }
  const auto theta = parameter_ptrs(model);
  if (names_.size() != theta.size()) {
    names_.clear();
    for (const ParamSpec& spec : parameter_table(model.shape)) names_.push_back(spec.name);
  }
  std::vector<BasicParam<T>> groups;
  for (std::size_t i = 0; i < theta.size(); ++i) groups.push_back({names_[i], theta[i], sum[i]});
  adam_.step(groups);
  return loss * scale;
}

template class AttnOnlyTrainer<float>;
template class AttnOnlyTrainer<double>;

}  // namespace attn
