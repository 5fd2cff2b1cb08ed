/// \file chapters/08_induction/lab.cpp
/// \brief The training loop (see lab.hpp).
#include "lab.hpp"

#include <dlfcn.h>
#include <malloc.h>

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "common/optim.hpp"

namespace ch08 {

void prepare_for_small_matrices() {
  // OpenBLAS may split even a 1024 x 32 product across threads; on a busy 2-core machine the
  // hand-offs cost more than they save. Looked up at run time, so other BLAS libraries work too.
  using SetThreads = void (*)(int);
  if (void* f = ::dlsym(RTLD_DEFAULT, "openblas_set_num_threads")) reinterpret_cast<SetThreads>(f)(1);
  // Keep freed matrices in the heap: returning them to the system each step and faulting the
  // pages in again took about a fifth of the training time.
  ::mallopt(M_MMAP_THRESHOLD, 64 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

void validate(const LabOptions& o) {
  validate(o.shape);
  validate(o.data);
  if (o.shape.vocab != o.data.vocab || o.shape.context != o.data.context) {
    throw std::invalid_argument("the model and the data disagree on vocabulary or context");
  }
  const auto in_range = [](arma::uword v, arma::uword most, const char* what) {
    if (v == 0 || v > most) {
      throw std::invalid_argument(std::string(what) + " must be in [1, " + std::to_string(most) + "], got " +
                                  std::to_string(v));
    }
  };
  in_range(o.steps, 1000000, "--steps");
  in_range(o.batch, 4096, "the batch size");
  in_range(o.held_out, 4096, "the held-out size");
  in_range(o.eval_every, 1000000, "the evaluation interval");
  if (!(std::isfinite(o.lr) && o.lr > 0)) throw std::invalid_argument("the learning rate must be finite and > 0");
}

RepeatBatch held_out_set(const LabOptions& options) {
  Rng rng(options.seed ^ 0x9e3779b97f4a7c15ULL);  // a stream apart from the training batches
  return sample_repeats(rng, options.held_out, options.data);
}

LabResult train(const LabOptions& options, const std::function<void(const Checkpoint&)>& progress) {
  validate(options);
  prepare_for_small_matrices();
  Rng rng(options.seed);
  LabResult result{init_model(options.shape, rng), held_out_set(options), {}, 0.0};
  const auto checkpoint = [&](arma::uword step) {
    result.curve.push_back({step, region_losses(result.model, result.held_out)});
    if (progress) progress(result.curve.back());
  };

  const auto start = std::chrono::steady_clock::now();
  checkpoint(0);
  // [train]
  attn::Adam adam(options.lr);
  ForwardPass pass;
  BackwardPass work;
  work.grad = zero_model(options.shape);
  const std::vector<attn::Param> groups = param_groups(result.model, work.grad);
  arma::mat dlogits;
  for (arma::uword step = 1; step <= options.steps; ++step) {
    const RepeatBatch batch = sample_repeats(rng, options.batch, options.data);
    const Targets targets = next_token_targets(batch.tokens);
    forward(result.model, batch.tokens, pass);
    next_token_loss(pass, targets, &dlogits);
    backward(result.model, batch.tokens, pass, dlogits, work);
    adam.step(groups);
    if (step % options.eval_every == 0 || step == options.steps) checkpoint(step);
  }
  // [train]
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace ch08
