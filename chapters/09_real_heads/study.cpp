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
  const arma::uword last = model.shape.layers - 1;
  r.copying = copying(model, probes, last, r.roles.induction_random.row(last).index_max());
  r.ablations = ablations(model, probes);
  r.bank = bank_study(model, vocab, corpus.held_text);
  r.names = head_names(r.roles);
  r.compare = compare_ablations(model, probes);
  r.findings = findings(r.ablations, r.compare, r.names);
  r.patch_pair = pick_patch_pair(model, vocab, kPatchCandidates);
  r.patch = patching(model, vocab, r.patch_pair.a, r.patch_pair.b);
  r.circuit = circuit(model, vocab, probes, r.roles);
  r.claims = {claim_beats_bigram(r.baselines),
              claim_previous_token_head(r.roles),
              claim_induction_head(r.roles, r.ablations),
              claim_contribution_differs(r.contributions),
              claim_bank_controls(r.bank),
              claim_head_copies(r.copying),
              claim_ablations_agree(r.compare, r.copying.head),
              claim_circuit(r.circuit)};
  r.quick = is_quick(run.options);
  return r;
}

bool is_quick(const TrainOptions& options) {
  const TrainOptions quick = quick_options(TrainOptions{});
  return options.steps == quick.steps && options.batch == quick.batch;
}

}  // namespace ch09
