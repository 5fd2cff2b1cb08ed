/// \file live_ch02.cpp
/// \brief Chapter 02's three matching directions: the receiver's matching table under a preset or
/// the reader's own Wq (ch02::match_last with ch02::fixed_wk), in the sentence the reader picks.
#include <emscripten/bind.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "chapters/02_swap_query/report.hpp"
#include "chapters/02_swap_query/swap_query.hpp"
#include "common/apparatus/print.hpp"
#include "common/attention/toy.hpp"
#include "docs/live/convert.hpp"

namespace {

/// A preset's Wq as rows (4 x 3: input finance, water, structure, generic; columns the matching
/// axes finance, water, structure) and its question.
live::val preset(const std::string& name) {
  return live::guarded([&] {
    const ch02::Preset p = ch02::parse_preset(name);
    live::val out = live::val::object();
    out.set("Wq", live::rows(ch02::preset_wq(p)));
    out.set("question", ch02::preset_question(p));
    return out;
  });
}

/// The last word of `sentence` matched under Wq (4 x 3, rows of a JS array): {words, Wk, Q, K (rows),
/// and per token the chapter's printed query, key, score (3 decimals) and weight (percent, 1 decimal)}.
live::val match(const std::string& sentence, const live::val& wq_rows) {
  return live::guarded([&] {
    arma::mat Wq(4, 3);
    for (arma::uword r = 0; r < 4; ++r) {
      const std::vector<double> row = emscripten::vecFromJSArray<double>(wq_rows[r]);
      if (row.size() != 3) throw std::invalid_argument("Wq must be 4 x 3");
      for (arma::uword c = 0; c < 3; ++c) Wq(r, c) = row[c];
    }
    const ch02::MatchTable t = ch02::match_last(attn::split_sentence(sentence), Wq, ch02::fixed_wk());
    live::val out = live::val::object();
    out.set("words", live::strings(t.words));
    out.set("receiver", static_cast<double>(t.receiver));
    out.set("Q", live::rows(t.Q));
    out.set("K", live::rows(t.K));
    out.set("weights", live::numbers(t.weights));
    live::val table = live::val::array();
    for (arma::uword j = 0; j < t.words.size(); ++j) {
      live::val line = live::val::object();
      line.set("token", t.words[j]);
      line.set("query", app::format_vector(arma::rowvec(t.Q.row(j)), 2));
      line.set("key", app::format_vector(arma::rowvec(t.K.row(j)), 2));
      line.set("score", app::format_number(t.scores(j), 3));
      line.set("weight", app::format_number(100.0 * t.weights(j), 1) + "%");
      table.call<void>("push", line);
    }
    out.set("table", table);
    out.set("input", ch02::receiver_input(t));
    out.set("derivation", ch02::query_derivation(t, Wq));
    // Every vocabulary word's key (x Wk), and whether the word is in this sentence: the drawing
    // shows the absent ones faded.
    const attn::EmbeddingTable& vocabulary = attn::toy_embeddings();
    live::val keys = live::val::array();
    for (const std::string& word : vocabulary.words()) {
      live::val key = live::val::object();
      key.set("word", word);
      key.set("key", live::numbers(arma::rowvec(vocabulary.lookup({word}) * ch02::fixed_wk())));
      key.set("present", std::find(t.words.begin(), t.words.end(), word) != t.words.end());
      keys.call<void>("push", key);
    }
    out.set("vocabulary_keys", keys);
    return out;
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(ch02) {
  emscripten::function("ch02_preset", &preset);
  emscripten::function("ch02_match", &match);
}
