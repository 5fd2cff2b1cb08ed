/// \file chapters/08_induction/lab.hpp
/// \brief Chapter 08 training: Adam on freshly sampled repeated-block batches, with held-out
/// losses recorded as it goes.
///
/// Throws: std::invalid_argument for options validate() refuses (validate, train), a bad data spec or
/// a held-out size of 0 (held_out_set), a forward pass that meets a non-finite score, parameters that
/// diverged to inf or NaN (train, measure), or a run with no checkpoint (measure); an exception
/// `progress` throws stops train and propagates. quick_options throws nothing beyond std::bad_alloc.
/// Sources: the article, "Reverse-engineer a head you trained"; Kingma & Ba 2015, Algorithm 1 (Adam).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "circuit.hpp"
#include "model.hpp"
#include "repeats.hpp"

namespace ch08 {

/// Everything a training run depends on; the defaults are the program's default run.
struct LabOptions {
  ModelShape shape{};           ///< model sizes (vocab and context must match data)
  RepeatSpec data{};            ///< how sequences are drawn
  arma::uword steps = 1000;     ///< Adam steps
  arma::uword batch = 32;       ///< sequences per step
  arma::uword held_out = 256;   ///< held-out sequences (sampled once, never trained on)
  arma::uword eval_every = 50;  ///< steps between held-out evaluations
  double lr = 1e-2;             ///< Adam learning rate
  std::uint64_t seed = 1;       ///< seeds the initial weights, training batches and held-out set
};

/// `options` with the shorter settings of the program's `--quick` (700 steps, 128 held-out
/// sequences), which the tests and the book's figures use.
LabOptions quick_options(LabOptions options);

/// Refuses bad sizes (see validate() of ModelShape and RepeatSpec), a vocabulary or context that
/// differ between model and data, zero steps, batch or held-out size, more than 10^6 steps or 4096
/// sequences, or a learning rate that is not finite and positive.
void validate(const LabOptions& options);

/// Held-out losses (nats per target) after `step` Adam steps.
struct Checkpoint {
  arma::uword step = 0;   ///< Adam steps taken
  RegionLosses held_out;  ///< losses on the held-out set
};

/// A trained model with its history.
struct LabResult {
  Model model;                    ///< parameters after the last step
  RepeatBatch held_out;           ///< the held-out set
  std::vector<Checkpoint> curve;  ///< at step 0, every eval_every steps, and at the end
  double seconds = 0.0;           ///< wall time of the training loop
};

/// The held-out set of a run (options.held_out x context tokens; the same sequences train()
/// evaluates on, from a stream apart from the training batches).
RepeatBatch held_out_set(const LabOptions& options);

/// Trains from scratch: each step samples `batch` fresh sequences and takes one step of
/// attn::AttnOnlyTrainer (forward, the next-token loss over every position, backward, Adam, with
/// the batch split over the cores). `progress` (may be empty) is called at every checkpoint.
LabResult train(const LabOptions& options, const std::function<void(const Checkpoint&)>& progress = {});

/// Everything the program shows, computed once from a trained model (sections 1 to 3).
struct Findings {
  LabResult run;                    ///< the trained model, its held-out set and curve
  ForwardPass pass;                 ///< the model on the held-out set (the figures' patterns)
  double uniform = 0.0;             ///< section 1: the uniform guess's loss, ln(vocab) nats
  HeadScores scores;                ///< section 2
  HeadIndex top_induction{};        ///< the head with the highest induction score
  HeadIndex top_previous{};         ///< the head with the highest previous-token score
  std::vector<Ablation> ablations;  ///< section 3
  AblationSummary summary;          ///< section 3's reading of the table
  double largest_rise = 0.0;        ///< the largest repeat-loss rise of any ablation (<= 0: no head needed yet)
  bool fixed = false;               ///< the fixed-offset control was run
};

/// The findings of a trained run (`fixed`: it was the fixed-offset control): the held-out pass,
/// the head scores, the ablation study and its summary.
Findings measure(LabResult run, bool fixed);

}  // namespace ch08
