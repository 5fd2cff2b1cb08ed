/// \file chapters/09_real_heads/study.cpp
/// \brief The whole study computed once (see study.hpp).
#include "study.hpp"

namespace ch09 {

Report make_report(const Corpus& corpus, const Vocabulary& vocab, const Run& run, const std::string& sentence,
                   std::optional<arma::uword> position) {
  const Model& model = run.model;
  const Probes probes = make_probes(corpus, vocab, model.shape.context);
  Report r;
  r.baselines = baselines(corpus, vocab, model, probes);
  r.view = head_view(model, vocab, sentence);
  r.contributions = contributions(r.view);
  r.writes = head_writes(model, vocab, sentence, position);
  r.roles = roles(model, probes);
  r.ablations = ablations(model, probes);
  const arma::uword last = model.shape.layers - 1;
  r.induction_heads = induction_heads(r.roles);
  r.induction = induction_head(r.roles, r.ablations);
  r.induction_zeroed = induction_ablation(model, probes, r.roles);
  r.copying = copying(model, probes, last, r.induction_heads);
  r.bank = bank_study(model, vocab, corpus.held_text);
  r.names = head_names(r.roles);
  r.zero_vs_mean = compare_ablations(model, probes);
  r.findings = findings(r.ablations, r.zero_vs_mean, r.names);
  r.patch_pair = pick_patch_pair(model, vocab, kPatchCandidates);
  std::vector<arma::uword> together;  // the induction heads, layer-major
  for (const arma::uword h : r.induction_heads) together.push_back(last * model.shape.heads + h);
  r.patch = patching(model, vocab, r.patch_pair.a, r.patch_pair.b, together);
  r.circuit = circuit(model, vocab, probes, r.roles, r.induction);
  r.quick = is_quick(run.options);
  return r;
}

bool is_quick(const TrainOptions& options) {
  const TrainOptions quick = quick_options(TrainOptions{});
  return options.steps == quick.steps && options.batch == quick.batch;
}

}  // namespace ch09
