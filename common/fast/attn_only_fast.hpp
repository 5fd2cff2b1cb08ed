/// \file attn_only_fast.hpp
/// \brief The attention-only model's passes for speed: the forward pass, the next-token loss and
/// the backward pass of common/attention/attn_only.hpp computed with blocked BLAS kernels that skip
/// the masked quarter of every causal block and a vectorised exp, and a training step over
/// threads. Chapters 08 and 09 train and read their models with these; a test holds them equal to
/// the readable passes (to rounding). Same arguments and shapes as the readable functions.
///
/// Throws: what the readable functions throw, for the same input (forward, next_token_loss_sum,
/// next_token_loss; backward, like attn::backward, checks nothing itself); std::invalid_argument
/// for a learning rate Adam refuses (the AttnOnlyTrainer constructor) and for tokens forward()
/// refuses, checked before any thread starts (AttnOnlyTrainer::step), which also rethrows an
/// exception raised in a thread (e.g. forward() refusing a non-finite score) and the errors of
/// Adam's step. The others (use_one_blas_thread, training_step_flops) throw nothing (beyond
/// std::bad_alloc).
/// Sources: the passes of attn_only.hpp; Karpathy's llm.c (a readable reference beside fast code).
#pragma once

#include <armadillo>
#include <exception>
#include <string>
#include <vector>

#include "common/attention/attn_only.hpp"
#include "common/attention/optim.hpp"

namespace attn::fast {

/// attn::forward() (attn_only.hpp) with blocked kernels: the same pass.
template <class T>
void forward(const AttnOnlyModel<T>& model, const arma::umat& tokens, AttnOnlyPass<T>& pass,
             const arma::mat* keep = nullptr);

/// attn::next_token_loss_sum() with a vectorised exp: the same sum and gradient.
template <class T>
double next_token_loss_sum(const AttnOnlyPass<T>& pass, const arma::umat& tokens, arma::Mat<T>* dlogits,
                           double grad_scale);

/// attn::next_token_loss() over next_token_loss_sum() above.
template <class T>
double next_token_loss(const AttnOnlyPass<T>& pass, const arma::umat& tokens, arma::Mat<T>* dlogits);

/// attn::backward() with blocked kernels: the same gradients in work.grad.
template <class T>
void backward(const AttnOnlyModel<T>& model, const arma::umat& tokens, const AttnOnlyPass<T>& pass,
              const arma::Mat<T>& dlogits, AttnOnlyBackward<T>& work);

}  // namespace attn::fast

namespace attn {

/// One training step split over threads: the batch is cut into shards of 4 whole sequences (the
/// same shards whatever the number of threads, so results do not depend on it), each free thread takes the next shard
/// and runs forward, loss and backward on it (sequences never interact in this model), the shards' gradients are
/// summed, and Adam takes one step. Threads: std::thread::hardware_concurrency() unless given; BLAS is set to one
/// thread (see use_one_blas_thread()); forward, loss and backward are
/// those of namespace attn::fast.
template <class T>
class AttnOnlyTrainer {
 public:
  /// lr: Adam's learning rate (finite, > 0). threads: 0 means one per core.
  AttnOnlyTrainer(double lr, unsigned threads = 0);
  /// Runs one step on `tokens` (B x T) and returns the batch's mean next-token loss before the update.
  /// A step that fails in any thread leaves the model unchanged.
  double step(AttnOnlyModel<T>& model, const arma::umat& tokens);
  /// Threads used.
  unsigned threads() const { return threads_; }

 private:
  struct Shard {
    arma::umat tokens;
    AttnOnlyPass<T> pass;
    AttnOnlyBackward<T> work;
    arma::Mat<T> dlogits;
    double loss_sum = 0.0;
  };
  unsigned threads_;
  BasicAdam<T> adam_;               ///< Adam on the model's parameter table (common/attention/optim.hpp)
  std::vector<std::string> names_;  ///< the table's group names, for Adam's messages
  std::vector<Shard> shards_;
  AttnOnlyModel<T> total_;
};

/// Sets BLAS to one thread when it is OpenBLAS (looked up at run time, so other BLAS libraries
/// work too) and keeps freed memory in the heap. The trainer's threads each run whole sequences,
/// so BLAS threads would only compete with them for the cores.
void use_one_blas_thread();

/// The floating-point operations of one training step's matrix products on `batch` sequences of
/// shape.context tokens, counted dense, as PyTorch computes them (each T x T block whole; the
/// passes here skip the masked quarter): per layer X [Wq | Wk | Wv] (N x width by width x 3 heads
/// d_k, N = batch context), Q K^T and A V for every head of every sequence, H Wo; then the
/// unembedding; the backward's two products for each (the gradients of both factors); 2 per
/// multiply-add. Elementwise work (softmax, norm, Adam) is not counted.
double training_step_flops(const AttnOnlyShape& shape, arma::uword batch);

}  // namespace attn
