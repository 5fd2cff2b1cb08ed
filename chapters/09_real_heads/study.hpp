/// \file chapters/09_real_heads/study.hpp
/// \brief Chapter 09's whole study of a trained model, computed once: every section's result and
/// the claims, for the printers (report.hpp) and the figures (figures.hpp) to show.
///
/// Throws: std::invalid_argument for a sentence that is empty or longer than the context, a position
/// outside it, held-out text no longer than a window, or parameters that give non-finite scores
/// (make_report). The others (is_quick) throw nothing (beyond std::bad_alloc).
/// Sources: the article, "Watch real heads" (the sections follow its questions in order).
#pragma once

#include <string>
#include <vector>

#include <optional>

#include "claims.hpp"
#include "compare.hpp"
#include "heads.hpp"
#include "interventions.hpp"

namespace ch09 {

/// The head view's sentence unless --sentence gives another: a phrase and its repeat, so both the
/// previous-token and the induction heads have something to do.
inline const std::string kDefaultSentence = "the cat sat. the cat sat.";

/// The patching candidates: one frame, one vowel changed, so a model that copies predicts a
/// different vowel at the end of each. pick_patch_pair() takes A and B from them by a rule. The
/// repeated prefix is 21 characters long: every model of the robustness study copies all five,
/// where after the 9 of "the cat s?t. the cat s" several copied fewer than two.
inline const std::vector<std::string> kPatchCandidates = {"one day the big dog sat on a mat. one day the big dog s",
                                                          "one day the big dog sit on a mat. one day the big dog s",
                                                          "one day the big dog sot on a mat. one day the big dog s",
                                                          "one day the big dog set on a mat. one day the big dog s",
                                                          "one day the big dog sut on a mat. one day the big dog s"};

/// Everything the program shows, computed once (sections 1-7 and the claims).
struct Report {
  Baselines baselines;                       ///< section 1
  HeadView view;                             ///< sections 2 and 3
  Contributions contributions;               ///< section 3
  WritesSection writes;                      ///< section 3, decoded: what each head writes at one position
  CopyingSection copying;                    ///< section 3, decoded: the induction heads on repeated random letters
  Roles roles;                               ///< section 4
  std::vector<Ablation> ablations;           ///< section 5
  std::vector<arma::uword> induction_heads;  ///< section 4: the last layer's induction heads (induction_heads())
  arma::uword induction = 0;                 ///< section 5: the one the circuit section studies (induction_head())
  Ablation induction_zeroed;                 ///< section 5: the induction heads zeroed together
  AblationCompare compare;                   ///< section 5: zero against mean ablation
  std::vector<Finding> findings;             ///< section 5: what the ablations show that a table hides
  PatchPair patch_pair;                      ///< section 5: the two sentences of the patching example, by its rule
  PatchingSection patch;                     ///< section 5: activation patching from patch_pair.b into patch_pair.a
  CircuitSection circuit;          ///< section 5: the induction circuit, its compositions and the patch that breaks it
  BankStudy bank;                  ///< section 6: matched sentences, centred on held-out text
  std::vector<std::string> names;  ///< section 7
  std::vector<app::ClaimCheck> claims;  ///< real_01 .. real_08 (claims.hpp)
  bool quick = false;                   ///< the model is a --quick run's: its claims are printed, not judged
};

/// Computes every section on a trained run's model (a few seconds), the decoded writes at
/// `position` of `sentence` (its last character when absent); `quick` is set from the run's options.
Report make_report(const Corpus& corpus, const Vocabulary& vocab, const Run& run, const std::string& sentence,
                   std::optional<arma::uword> position = std::nullopt);

/// Whether `options` are those of a --quick run (its claims are shown, not judged).
bool is_quick(const TrainOptions& options);

}  // namespace ch09
