/// \file chapters/08_induction/model.cpp
/// \brief The two-layer attention-only model, forward and backward (see model.hpp).
#include "model.hpp"

#include <cmath>
#include <stdexcept>

#include "common/attention.hpp"
#include "common/loss.hpp"

namespace ch08 {

namespace {

constexpr arma::uword kMaxSize = 4096;

void check_tokens(const Model& model, const arma::umat& tokens) {
  if (tokens.n_rows == 0 || tokens.n_cols != model.shape.context) {
    throw std::invalid_argument("forward: tokens are " + std::to_string(tokens.n_rows) + " x " +
                                std::to_string(tokens.n_cols) + " but the model reads sequences of " +
                                std::to_string(model.shape.context) + " tokens");
  }
  if (tokens.max() >= model.shape.vocab) {
    throw std::invalid_argument("forward: token " + std::to_string(tokens.max()) + " is outside the vocabulary of " +
                                std::to_string(model.shape.vocab));
  }
}

}  // namespace

void validate(const ModelShape& s) {
  const auto check = [](arma::uword value, arma::uword least, const char* what) {
    if (value < least || value > kMaxSize) {
      throw std::invalid_argument(std::string(what) + " must be in [" + std::to_string(least) + ", " +
                                  std::to_string(kMaxSize) + "], got " + std::to_string(value));
    }
  };
  check(s.vocab, 2, "the vocabulary");
  check(s.context, 2, "the context");
  check(s.width, 1, "the width");
  check(s.heads, 1, "the number of heads");
  check(s.d_k, 1, "d_k");
  check(s.layers, 1, "the number of layers");
  check(s.heads * s.d_k, 1, "heads x d_k");
}

Model zero_model(const ModelShape& s) {
  validate(s);
  Model m{s, arma::mat(s.vocab, s.width, arma::fill::zeros), arma::mat(s.context, s.width, arma::fill::zeros), {},
          arma::mat(s.width, s.vocab, arma::fill::zeros)};
  const arma::uword hd = s.heads * s.d_k;
  for (arma::uword l = 0; l < s.layers; ++l) {
    m.layers.push_back({arma::mat(s.width, hd, arma::fill::zeros), arma::mat(s.width, hd, arma::fill::zeros),
                        arma::mat(s.width, hd, arma::fill::zeros), arma::mat(hd, s.width, arma::fill::zeros)});
  }
  return m;
}

Model init_model(const ModelShape& s, Rng& rng) {
  validate(s);
  const arma::uword hd = s.heads * s.d_k;
  const double in = 1.0 / std::sqrt(static_cast<double>(s.width)), out = 1.0 / std::sqrt(static_cast<double>(hd));
  Model m{s, rng.normal_matrix(s.vocab, s.width, 1.0), rng.normal_matrix(s.context, s.width, 1.0), {}, {}};
  for (arma::uword l = 0; l < s.layers; ++l) {
    Layer layer;
    layer.Wq = rng.normal_matrix(s.width, hd, in);
    layer.Wk = rng.normal_matrix(s.width, hd, in);
    layer.Wv = rng.normal_matrix(s.width, hd, in);
    layer.Wo = rng.normal_matrix(hd, s.width, out);
    m.layers.push_back(std::move(layer));
  }
  m.U = rng.normal_matrix(s.width, s.vocab, in);
  return m;
}

std::vector<attn::Param> param_groups(Model& value, const Model& grad) {
  std::vector<attn::Param> groups{{"E", &value.E, &grad.E}, {"P", &value.P, &grad.P}};
  for (std::size_t l = 0; l < value.layers.size(); ++l) {
    std::string name = "L";  // built piece by piece: GCC 12 misreports "L" + to_string(...) (stringop-overflow)
    name += std::to_string(l + 1);
    name += '.';
    Layer& v = value.layers[l];
    const Layer& g = grad.layers.at(l);
    groups.push_back({name + "Wq", &v.Wq, &g.Wq});
    groups.push_back({name + "Wk", &v.Wk, &g.Wk});
    groups.push_back({name + "Wv", &v.Wv, &g.Wv});
    groups.push_back({name + "Wo", &v.Wo, &g.Wo});
  }
  groups.push_back({"U", &value.U, &grad.U});
  return groups;
}

// [causal_softmax]
void causal_softmax(const arma::mat& S, arma::mat& A) {
  const arma::uword T = S.n_rows;
  for (arma::uword i = 0; i < T; ++i) {
    double top = S(i, 0);
    for (arma::uword j = 1; j <= i; ++j) top = std::max(top, S(i, j));
    for (arma::uword j = 0; j <= i; ++j) {
      if (!std::isfinite(S(i, j))) {  // as attn::softmax_rows: no silent NaN weights
        throw std::invalid_argument("causal_softmax: score (" + std::to_string(i) + ", " + std::to_string(j) +
                                    ") is not finite (NaN or inf)");
      }
    }
    double sum = 0.0;
    for (arma::uword j = 0; j <= i; ++j) sum += (A(i, j) = std::exp(S(i, j) - top));
    for (arma::uword j = 0; j <= i; ++j) A(i, j) /= sum;
    for (arma::uword j = i + 1; j < T; ++j) A(i, j) = 0.0;  // causal: position i reads j <= i only
  }
}
// [causal_softmax]

void forward(const Model& model, const arma::umat& tokens, ForwardPass& pass, const arma::mat* keep) {
  check_tokens(model, tokens);
  const ModelShape& s = model.shape;
  if (keep != nullptr && (keep->n_rows != s.layers || keep->n_cols != s.heads)) {
    throw std::invalid_argument("forward: the head mask is " + attn::shape(*keep) + ", expected " +
                                std::to_string(s.layers) + " x " + std::to_string(s.heads));
  }
  const arma::uword B = tokens.n_rows, T = s.context, N = B * T, dk = s.d_k;
  const double scale = 1.0 / std::sqrt(static_cast<double>(dk));
  pass.batch = B;
  pass.layers.resize(s.layers);

  // [forward]
  // X_0 = E[token] + P[position]: row b T + t of the stream
  arma::mat X(N, s.width);
  for (arma::uword c = 0; c < s.width; ++c) {
    for (arma::uword b = 0; b < B; ++b) {
      for (arma::uword t = 0; t < T; ++t) X(b * T + t, c) = model.E(tokens(b, t), c) + model.P(t, c);
    }
  }
  for (arma::uword l = 0; l < s.layers; ++l) {
    const Layer& layer = model.layers[l];
    LayerPass& lp = pass.layers[l];
    lp.X = X;
    lp.Q = X * layer.Wq;  // N x heads d_k: every sequence and head in one product
    lp.K = X * layer.Wk;
    lp.V = X * layer.Wv;
    lp.Qb.set_size(T, dk, B * s.heads);
    lp.Kb.set_size(T, dk, B * s.heads);
    lp.Vb.set_size(T, dk, B * s.heads);
    lp.A.set_size(T, T, B * s.heads);
    lp.H.set_size(N, s.heads * dk);
    for (arma::uword b = 0; b < B; ++b) {
      for (arma::uword h = 0; h < s.heads; ++h) {
        const arma::uword k = b * s.heads + h;
        lp.Qb.slice(k) = lp.Q.submat(b * T, h * dk, arma::size(T, dk));
        lp.Kb.slice(k) = lp.K.submat(b * T, h * dk, arma::size(T, dk));
        lp.Vb.slice(k) = lp.V.submat(b * T, h * dk, arma::size(T, dk));
        pass.S = lp.Qb.slice(k) * lp.Kb.slice(k).t();  // S = Q K^T / sqrt(d_k)
        pass.S *= scale;
        causal_softmax(pass.S, lp.A.slice(k));  // A = softmax(S + causal)
        pass.Hb = lp.A.slice(k) * lp.Vb.slice(k);  // H = A V
        if (keep != nullptr) pass.Hb *= (*keep)(l, h);
        lp.H.submat(b * T, h * dk, arma::size(T, dk)) = pass.Hb;
      }
    }
    X += lp.H * layer.Wo;  // X_{l+1} = X_l + Concat(heads) Wo
  }
  pass.X_out = X;
  pass.logits = X * model.U;  // N x vocab
  // [forward]
}

const arma::mat& attention_pattern(const ForwardPass& pass, arma::uword layer, arma::uword head, arma::uword b,
                                   arma::uword heads) {
  if (layer >= pass.layers.size() || head >= heads || b >= pass.batch) {
    throw std::invalid_argument("attention_pattern: no layer " + std::to_string(layer) + ", head " +
                                std::to_string(head) + ", sequence " + std::to_string(b) + " in this pass");
  }
  return pass.layers[layer].A.slice(b * heads + head);
}

Targets next_token_targets(const arma::umat& tokens) {
  const arma::uword B = tokens.n_rows, T = tokens.n_cols;
  if (T < 2) throw std::invalid_argument("next_token_targets: sequences need at least 2 tokens");
  Targets out{arma::uvec(B * (T - 1)), arma::uvec(B * (T - 1))};
  arma::uword r = 0;
  for (arma::uword b = 0; b < B; ++b) {
    for (arma::uword t = 0; t + 1 < T; ++t, ++r) {
      out.rows(r) = b * T + t;
      out.labels(r) = tokens(b, t + 1);
    }
  }
  return out;
}

double next_token_loss(const ForwardPass& pass, const Targets& targets, arma::mat* dlogits) {
  const attn::CrossEntropy ce = attn::cross_entropy(pass.logits.rows(targets.rows), targets.labels);
  if (dlogits != nullptr) {
    dlogits->zeros(arma::size(pass.logits));
    dlogits->rows(targets.rows) = ce.dlogits;
  }
  return ce.loss;
}

// [backward]
void backward(const Model& model, const arma::umat& tokens, const ForwardPass& pass, const arma::mat& dlogits,
              BackwardPass& w) {
  const ModelShape& s = model.shape;
  const arma::uword B = pass.batch, T = s.context, dk = s.d_k;
  const double scale = 1.0 / std::sqrt(static_cast<double>(dk));
  if (w.grad.layers.size() != s.layers || arma::size(w.grad.E) != arma::size(model.E)) w.grad = zero_model(s);

  // forward: logits = X_L U   =>   dU = X_L^T dlogits,  dX_L = dlogits U^T
  w.grad.U = pass.X_out.t() * dlogits;
  w.dX = dlogits * model.U.t();

  for (arma::uword l = s.layers; l-- > 0;) {
    const Layer& layer = model.layers[l];
    const LayerPass& lp = pass.layers[l];
    Layer& g = w.grad.layers[l];
    // forward: X_{l+1} = X_l + H Wo   =>   dWo = H^T dX_{l+1},  dH = dX_{l+1} Wo^T,  dX_l = dX_{l+1} + ...
    g.Wo = lp.H.t() * w.dX;
    w.dH = w.dX * layer.Wo.t();
    w.dQ.set_size(arma::size(lp.Q));
    w.dK.set_size(arma::size(lp.K));
    w.dV.set_size(arma::size(lp.V));
    for (arma::uword b = 0; b < B; ++b) {
      for (arma::uword h = 0; h < s.heads; ++h) {
        const arma::uword k = b * s.heads + h;
        const arma::mat& A = lp.A.slice(k);
        w.dHb = w.dH.submat(b * T, h * dk, arma::size(T, dk));
        // forward: H = A V   =>   dA = dH V^T,  dV = A^T dH
        w.dA = w.dHb * lp.Vb.slice(k).t();
        w.dVb = A.t() * w.dHb;
        // forward: A = softmax(S) by rows   =>   dS_ij = A_ij (dA_ij - sum_m dA_im A_im)
        // (masked entries have A_ij = 0, so they pass no gradient back)
        w.dS.set_size(T, T);
        for (arma::uword i = 0; i < T; ++i) {
          double dot = 0.0;
          for (arma::uword j = 0; j <= i; ++j) dot += w.dA(i, j) * A(i, j);
          for (arma::uword j = 0; j <= i; ++j) w.dS(i, j) = A(i, j) * (w.dA(i, j) - dot);
          for (arma::uword j = i + 1; j < T; ++j) w.dS(i, j) = 0.0;
        }
        // forward: S = Q K^T / sqrt(d_k)   =>   dQ = dS K / sqrt(d_k),  dK = dS^T Q / sqrt(d_k)
        w.dQb = w.dS * lp.Kb.slice(k);
        w.dQb *= scale;
        w.dKb = w.dS.t() * lp.Qb.slice(k);
        w.dKb *= scale;
        w.dQ.submat(b * T, h * dk, arma::size(T, dk)) = w.dQb;
        w.dK.submat(b * T, h * dk, arma::size(T, dk)) = w.dKb;
        w.dV.submat(b * T, h * dk, arma::size(T, dk)) = w.dVb;
      }
    }
    // forward: Q = X Wq, K = X Wk, V = X Wv   =>   dWq = X^T dQ (same for K, V),
    //                                              dX_l = dX_{l+1} + dQ Wq^T + dK Wk^T + dV Wv^T
    g.Wq = lp.X.t() * w.dQ;
    g.Wk = lp.X.t() * w.dK;
    g.Wv = lp.X.t() * w.dV;
    w.dX += w.dQ * layer.Wq.t() + w.dK * layer.Wk.t() + w.dV * layer.Wv.t();
  }

  // forward: X_0 = E[token] + P[position]   =>   each row of dX_0 adds into its token's row of dE
  //                                              and its position's row of dP
  w.grad.E.zeros();
  w.grad.P.zeros();
  for (arma::uword c = 0; c < s.width; ++c) {
    for (arma::uword b = 0; b < B; ++b) {
      for (arma::uword t = 0; t < T; ++t) {
        const double d = w.dX(b * T + t, c);
        w.grad.E(tokens(b, t), c) += d;
        w.grad.P(t, c) += d;
      }
    }
  }
}
// [backward]

}  // namespace ch08
