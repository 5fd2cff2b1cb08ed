/// \file attention_alone.cpp
/// \brief The attention library (common/attention/) on Armadillo alone: this program is compiled
/// without BLAS, LAPACK, Armadillo's run-time wrapper or Boost, and links nothing but the C++
/// library, as the book's WebAssembly build does. It runs the article's first head (claim mix_01:
/// bank's weights in "the river bank" are [0.26, 0.31, 0.43]) and a central-difference check of
/// the attention-only model's readable backward pass, and exits 1 with a line saying what broke.
#include <cmath>
#include <cstdio>

#include "common/attention/attention.hpp"
#include "common/attention/attn_only.hpp"
#include "common/attention/backprop.hpp"
#include "common/attention/checks.hpp"
#include "common/attention/cross_attention.hpp"
#include "common/attention/gradcheck.hpp"
#include "common/attention/head_roles.hpp"
#include "common/attention/loss.hpp"
#include "common/attention/multihead.hpp"
#include "common/attention/optim.hpp"
#include "common/attention/random.hpp"
#include "common/attention/softmax_backward.hpp"
#include "common/attention/toy.hpp"

#ifdef ARMA_USE_BLAS
#error "attention_alone must be built without BLAS (ARMA_DONT_USE_BLAS)"
#endif
#ifdef ARMA_USE_LAPACK
#error "attention_alone must be built without LAPACK (ARMA_DONT_USE_LAPACK)"
#endif

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "attention_alone: %s\n", what);
    ++failures;
  }
}

}  // namespace

int main() {
  // mix_01: identity projections on the toy table; bank is the last row.
  const arma::mat X = attn::toy_embeddings().lookup({"the", "river", "bank"});
  const arma::mat I = arma::eye(X.n_cols, X.n_cols);
  const arma::rowvec bank = attn::attention(X, I, I, I).A.row(2);
  const double printed[] = {0.26, 0.31, 0.43};
  for (arma::uword j = 0; j < 3; ++j) expect(std::abs(bank(j) - printed[j]) < 0.005, "mix_01 weights");

  // The attention-only model's readable passes: central differences on the unembedding and on
  // layer 1's queries, in double.
  attn::Random rng(3);
  attn::AttnOnlyModel<double> model = attn::init_model<double>({5, 6, 4, 2, 3, 2, true}, rng);
  arma::umat tokens(2, 6);
  for (auto& t : tokens) t = rng.below(5);
  attn::AttnOnlyPass<double> pass;
  attn::forward(model, tokens, pass);
  arma::mat dlogits;
  attn::next_token_loss(pass, tokens, &dlogits);
  attn::AttnOnlyBackward<double> work;
  attn::backward(model, tokens, pass, dlogits, work);
  const auto loss = [&] {
    attn::AttnOnlyPass<double> p;
    attn::forward(model, tokens, p);
    return attn::next_token_loss(p, tokens, static_cast<arma::mat*>(nullptr));
  };
  expect(attn::check_gradient(loss, model.U, work.grad.U).max_relative_error < 1e-6, "gradient of U");
  expect(attn::check_gradient(loss, model.layers[0].Wq, work.grad.layers[0].Wq).max_relative_error < 1e-6,
         "gradient of L1.Wq");
  if (failures == 0) std::printf("attention_alone: the library runs on Armadillo alone\n");
  return failures == 0 ? 0 : 1;
}
