/// \file chapters/08_induction/lab.cpp
/// \brief The training loop (see lab.hpp).
#include "lab.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace ch08 {

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

LabOptions quick_options(LabOptions options) {
  options.steps = 700;
  options.held_out = 128;
  return options;
}

RepeatBatch held_out_set(const LabOptions& options) {
  Random rng(options.seed ^ 0x9e3779b97f4a7c15ULL);  // a stream apart from the training batches
  return sample_repeats(rng, options.held_out, options.data);
}

LabResult train(const LabOptions& options, const std::function<void(const Checkpoint&)>& progress) {
  validate(options);
  Random rng(options.seed);
  LabResult result{attn::init_model<Real>(options.shape, rng), held_out_set(options), {}, 0.0};
  const auto checkpoint = [&](arma::uword step) {
    result.curve.push_back({step, region_losses(result.model, result.held_out)});
    if (progress) progress(result.curve.back());
  };

  const auto start = std::chrono::steady_clock::now();
  checkpoint(0);
  // [train]
  attn::AttnOnlyTrainer<Real> trainer(options.lr);
  for (arma::uword step = 1; step <= options.steps; ++step) {
    const RepeatBatch batch = sample_repeats(rng, options.batch, options.data);
    trainer.step(result.model, batch.tokens);  // forward, loss, backward, Adam
    if (step % options.eval_every == 0 || step == options.steps) checkpoint(step);
  }
  // [train]
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

Findings measure(LabResult run, bool fixed) {
  if (run.curve.empty()) throw std::invalid_argument("measure: the run has no checkpoint");
  Findings f;
  f.run = std::move(run);
  f.fixed = fixed;
  const RegionLosses& base = f.run.curve.back().held_out;
  attn::fast::forward(f.run.model, f.run.held_out.tokens, f.pass);
  f.uniform = std::log(static_cast<double>(f.run.model.shape.vocab));
  f.scores = head_scores(f.pass, f.run.held_out);
  f.top_induction = top_head(f.scores.induction);
  f.top_previous = top_head(f.scores.previous_token);
  f.ablations = ablation_study(f.run.model, f.run.held_out);
  f.summary = summarize_ablations(f.ablations, base, f.run.model.shape.layers, f.run.model.shape.heads);
  for (const Ablation& a : f.ablations) f.largest_rise = std::max(f.largest_rise, a.losses.repeat - base.repeat);
  return f;
}

}  // namespace ch08
