/// \file chapters/08_induction/model.hpp
/// \brief Chapter 08 model: the shared two-layer, attention-only transformer of common/attention/attn_only.hpp
/// (several heads per layer, learned positions, no layer norm), trained in float.
///
/// The forward pass, the next-token loss, the backward pass by hand, Adam and the training step
/// all live in common/ since chapter 09 trains the same model on real text. This header only
/// names the chapter's choices: its sizes and its scalar type.
///
/// Sources: the article, "Reverse-engineer a head you trained"; Elhage et al. 2021, "A Mathematical
/// Framework for Transformer Circuits" (attention-only models and induction heads).
#pragma once

#include "common/apparatus/model_files.hpp"
#include "common/attention/attn_only.hpp"
#include "common/attention/random.hpp"
#include "common/fast/attn_only_fast.hpp"

namespace ch08 {

using attn::Random;

/// The chapter's sizes: vocabulary 32, 32 positions, width 32, 2 heads of d_k 16, 2 layers, no final norm.
using ModelShape = attn::AttnOnlyShape;

/// The scalar the lab trains in (the gradient checks use attn::AttnOnlyModel<double>).
using Real = float;

/// All parameters of the chapter's model.
using Model = attn::AttnOnlyModel<Real>;

/// A forward pass over a batch, kept for reading attention patterns.
using ForwardPass = attn::AttnOnlyPass<Real>;

}  // namespace ch08
