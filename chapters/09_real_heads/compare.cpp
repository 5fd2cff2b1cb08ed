/// \file chapters/09_real_heads/compare.cpp
/// \brief Representations compared, centred and against matched controls (see study.hpp).
#include "study.hpp"

#include <cctype>
#include <cmath>
#include <stdexcept>

#include "common/apparatus/print.hpp"

namespace ch09 {

namespace {

/// One sentence of --compare as typed: its text without brackets and the span they enclosed.
struct Typed {
  std::string text;
  std::optional<Marked> mark;
};

Typed parse_marks(const std::string& typed, const std::string& name, arma::uword context) {
  const std::size_t open = typed.find('['), close = typed.find(']');
  const bool one_pair = open != std::string::npos && close != std::string::npos && open + 1 < close &&
                        typed.find_first_of("[]", open + 1) == close &&
                        typed.find_first_of("[]", close + 1) == std::string::npos;
  if ((open != std::string::npos || close != std::string::npos) && !one_pair) {
    throw std::invalid_argument("sentence " + name + " " + attn::quoted(typed) +
                                ": brackets must enclose one non-empty span, as in 'the river [bank]'");
  }
  Typed out{typed, std::nullopt};
  if (one_pair) {
    out.text = typed.substr(0, open) + typed.substr(open + 1, close - open - 1) + typed.substr(close + 1);
    out.mark = Marked{out.text, open, close - 2};
  }
  if (out.text.empty() || out.text.size() > context) {
    throw std::invalid_argument("sentence " + name + " must have 1 to " + std::to_string(context) +
                                " characters, got " + std::to_string(out.text.size()));
  }
  for (const char c : out.text) {
    if (c < 32 || c > 126)
      throw std::invalid_argument("sentence " + name + " " + attn::quoted(typed) + " must be printable ASCII");
  }
  return out;
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

/// The words of `text` (runs of letters and digits) as [first, last] spans, in order.
std::vector<std::pair<arma::uword, arma::uword>> words_of(const std::string& text) {
  std::vector<std::pair<arma::uword, arma::uword>> out;
  for (arma::uword i = 0; i < text.size();) {
    if (!is_word_char(text[i])) {
      ++i;
      continue;
    }
    arma::uword j = i;
    while (j + 1 < text.size() && is_word_char(text[j + 1])) ++j;
    out.emplace_back(i, j);
    i = j + 1;
  }
  return out;
}

/// The last whole-word occurrence of `word` in `text`, if any.
std::optional<Marked> last_word(const std::string& text, const std::string& word) {
  const auto words = words_of(text);
  for (auto it = words.rbegin(); it != words.rend(); ++it) {
    if (text.substr(it->first, it->second - it->first + 1) == word) return Marked{text, it->first, it->second};
  }
  return std::nullopt;
}

/// The last occurrence of `span` anywhere in `text`.
Marked last_span(const std::string& text, const std::string& span, const std::string& name) {
  const std::size_t at = text.rfind(span);
  if (at == std::string::npos) {
    throw std::invalid_argument("sentence " + name + " " + attn::quoted(text) + " has no " + attn::quoted(span) +
                                " to compare with the other's marked span; mark a span in it with brackets");
  }
  return Marked{text, at, at + span.size() - 1};
}

}  // namespace

std::string span_of(const Marked& m) { return m.text.substr(m.first, m.last - m.first + 1); }

bool is_matched(const MarkedPair& p) { return p.a.text.size() == p.b.text.size() && p.a.last == p.b.last; }

MarkedPair mark_pair(const std::string& a, const std::string& b, arma::uword context) {
  const Typed ta = parse_marks(a, "A", context), tb = parse_marks(b, "B", context);
  if (ta.mark && tb.mark) return {*ta.mark, *tb.mark};
  if (ta.mark) return {*ta.mark, last_span(tb.text, span_of(*ta.mark), "B")};
  if (tb.mark) return {last_span(ta.text, span_of(*tb.mark), "A"), *tb.mark};
  const auto words = words_of(ta.text);
  for (auto it = words.rbegin(); it != words.rend(); ++it) {  // A's words from its end
    const std::string word = ta.text.substr(it->first, it->second - it->first + 1);
    if (const std::optional<Marked> in_b = last_word(tb.text, word))
      return {Marked{ta.text, it->first, it->second}, *in_b};
  }
  throw std::invalid_argument(
      "sentences A and B share no word; mark a span in each with brackets, as in "
      "'the river [bank]'");
}

// [centre]
arma::mat reading(const Model& model, const Vocabulary& vocab, const std::string& text, arma::uword at) {
  if (at >= text.size()) throw std::invalid_argument("reading: position outside the sentence");
  const Trace tr = trace(model, vocab.encode(text));
  arma::mat out(tr.streams.size(), model.shape.width);
  for (std::size_t k = 0; k < tr.streams.size(); ++k) out.row(k) = tr.streams[k].row(at);
  return out;
}

arma::mat mean_reading(const Model& model, const Vocabulary& vocab, const std::vector<Marked>& texts, arma::uword at) {
  if (texts.empty()) throw std::invalid_argument("mean_reading: no sentences");
  arma::mat sum = reading(model, vocab, texts[0].text, at);
  for (std::size_t i = 1; i < texts.size(); ++i) sum += reading(model, vocab, texts[i].text, at);
  return sum / static_cast<double>(texts.size());
}
// [centre]

std::vector<Marked> matched_controls(const Marked& m, const std::string& held, arma::uword count) {
  std::vector<Marked> out;
  const arma::uword n = m.text.size();
  if (held.size() <= n || count == 0) return out;
  const arma::uword offsets = held.size() - n, tries = std::min<arma::uword>(offsets, 4096);
  // Up to 4096 evenly spaced offsets, visited in strides of 2531 (prime to 4096: each one once), so
  // that the first ones taken spread over the whole held-out text, not over its first few entries.
  const arma::uword stride = tries == 4096 ? 2531 : 1;
  const std::string span = span_of(m);
  std::vector<bool> used(tries, false);
  // What follows the span cannot reach its last character (causal attention): only what precedes
  // matters. First the stretches whose character before the span is m's, then, if too few, any.
  for (const bool match : {true, false}) {
    for (arma::uword i = 0; i < tries && out.size() < count; ++i) {
      const arma::uword k = i * stride % tries, at = offsets * k / tries;
      if (used[k] || (match && m.first > 0 && held[at + m.first - 1] != m.text[m.first - 1])) continue;
      used[k] = true;
      std::string text = held.substr(at, n);
      text.replace(m.first, span.size(), span);
      out.push_back({text, m.first, m.last});
    }
  }
  return out;
}

ControlRank rank_among(double cosine, const arma::vec& controls) {
  using Standing = ControlRank::Standing;
  const arma::vec known = controls.elem(arma::find_finite(controls));
  ControlRank r{static_cast<arma::uword>(arma::accu(known < cosine)), known.n_elem, Standing::undefined};
  if (!std::isfinite(cosine) || r.count == 0) return r;
  const double share = static_cast<double>(r.below) / static_cast<double>(r.count);
  r.standing = share >= 0.95 ? Standing::closer : share <= 0.05 ? Standing::further : Standing::among;
  return r;
}

// [compare]
Comparison compare(const Model& model, const Vocabulary& vocab, const MarkedPair& pair, const std::string& held) {
  Comparison c{
      pair, head_view(model, vocab, pair.a.text), head_view(model, vocab, pair.b.text), {}, {}, {}, {}, {}, {}, {}, {},
      {}};
  // Each sentence's span at its position in held-out contexts: the first make its centre, the rest
  // are its controls, readings that share the span and its position and nothing else.
  const auto contexts = [&](const Marked& m, std::vector<Marked>& centre, std::vector<Marked>& controls) {
    const std::vector<Marked> all = matched_controls(m, held, kCentre + kControls);
    for (std::size_t i = 0; i < all.size(); ++i) (i < kCentre ? centre : controls).push_back(all[i]);
    if (centre.empty()) throw std::invalid_argument("compare: the held-out text is no longer than the sentence");
    return mean_reading(model, vocab, centre, m.last);
  };
  const Marked &a = pair.a, &b = pair.b;
  const arma::mat ca = contexts(a, c.centre_a, c.controls_a), cb = contexts(b, c.centre_b, c.controls_b);
  const arma::mat ra = reading(model, vocab, a.text, a.last), rb = reading(model, vocab, b.text, b.last);
  const arma::uword stages = ra.n_rows;
  c.raw.set_size(stages);
  c.centred.set_size(stages);
  for (arma::uword k = 0; k < stages; ++k) {
    c.raw(k) = cosine(ra.row(k), rb.row(k));
    c.centred(k) = centred_cosine(ra.row(k), rb.row(k), ca.row(k), cb.row(k));
  }
  const auto against = [&](const Marked& m, const arma::mat& r, const arma::mat& centre,
                           const std::vector<Marked>& controls, arma::mat& cos) {
    cos.set_size(controls.size(), stages);
    for (std::size_t i = 0; i < controls.size(); ++i) {
      const arma::mat rc = reading(model, vocab, controls[i].text, m.last);
      for (arma::uword k = 0; k < stages; ++k)
        cos(i, k) = centred_cosine(r.row(k), rc.row(k), centre.row(k), centre.row(k));
    }
  };
  against(a, ra, ca, c.controls_a, c.control_a);
  against(b, rb, cb, c.controls_b, c.control_b);
  for (arma::uword k = 0; k < stages; ++k)
    c.ranks.push_back(
        rank_among(c.centred(k), arma::join_cols(arma::vec(c.control_a.col(k)), arma::vec(c.control_b.col(k)))));
  return c;
}
// [compare]

std::string fill(const std::string& frame, const std::string& word) {
  std::string out = frame;
  const std::size_t at = out.find("{}");
  return at == std::string::npos ? out : out.replace(at, 2, word);
}

// [bank_items]
std::vector<BankItem> bank_items() {
  // frame; river-sense word, money-sense word; each with one letter changed and no sense of bank
  return {{"the {} bank", "river", "money", "rover", "honey"},
          {"we sat on the {} bank", "muddy", "loans", "buddy", "leans"},
          {"she walked to the {} bank", "shore", "funds", "chore", "finds"},
          {"down by the old {} bank", "creek", "trust", "greek", "crust"},
          {"a {} bank", "mossy", "bonds", "bossy", "bands"},
          {"they met at the {} bank", "grassy", "saving", "glassy", "paving"},
          {"he stood by the {} bank", "sandy", "coins", "handy", "joins"},
          {"i rowed past the {} bank", "stony", "bills", "story", "pills"}};
}
// [bank_items]

namespace {

/// What each head reads at `at` and the five likeliest next characters, from one trace.
BankReading read_bank(const Model& model, const Vocabulary& vocab, const std::string& text, const std::string& sense) {
  const arma::urowvec tokens = vocab.encode(text);
  const Trace tr = trace(model, tokens);
  const arma::uword at = text.rfind("bank") + 3;  // bank's final 'k'
  BankReading r{text, sense, reading(model, vocab, text, at), {}, {}};
  for (const arma::mat& A : tr.weights) {
    const arma::rowvec a = A.row(at).cols(0, at);
    const arma::uword j = a.index_max();
    std::string read = "'";  // appended piece by piece: the label, its position and its weight
    read += vocab.label(tokens(j));
    read += "'@";
    read += std::to_string(j);
    read += ' ';
    read += app::format_number(a(j), 2);
    r.reads.push_back(read);
  }
  const arma::rowvec z = tr.logits.row(at);
  const arma::rowvec p = arma::exp(z - z.max()) / arma::accu(arma::exp(z - z.max()));
  const arma::uvec order = arma::sort_index(p, "descend");
  for (arma::uword k = 0; k < 5 && k < order.n_elem; ++k) r.next.emplace_back(vocab.label(order(k)), p(order(k)));
  return r;
}

}  // namespace

// [bank_study]
BankStudy tally_bank(const std::vector<BankItemReadings>& items) {
  if (items.empty()) throw std::invalid_argument("tally_bank: no items");
  const arma::uword n = items.size(), stages = items[0].river.n_rows;
  BankStudy s;
  s.sense.set_size(n, stages);
  s.control.set_size(n, stages);
  s.raw_sense.zeros(stages);
  s.raw_control.zeros(stages);
  for (arma::uword i = 0; i < n; ++i) {
    const BankItemReadings& r = items[i];
    for (arma::uword k = 0; k < stages; ++k) {
      const auto cc = [&](const arma::mat& x, const arma::mat& y) {
        return centred_cosine(x.row(k), y.row(k), r.centre.row(k), r.centre.row(k));
      };
      s.sense(i, k) = cc(r.river, r.money);
      s.control(i, k) = (cc(r.river, r.money_ctl) + cc(r.money, r.river_ctl)) / 2;  // the same letters changed
      s.raw_sense(k) += cosine(r.river.row(k), r.money.row(k)) / static_cast<double>(n);
      s.raw_control(k) += (cosine(r.river.row(k), r.money_ctl.row(k)) + cosine(r.money.row(k), r.river_ctl.row(k))) /
                          (2.0 * static_cast<double>(n));
    }
  }
  s.excess = s.control - s.sense;  // positive: the sense pair is further apart than its letter controls
  s.apart.set_size(stages);
  s.p_value.set_size(stages);
  for (arma::uword k = 0; k < stages; ++k) {
    s.apart(k) = static_cast<arma::uword>(arma::accu(s.excess.col(k) > 0.0));  // NaN counts as not apart
    s.p_value(k) = sign_test(s.apart(k), n);
  }
  s.letters = arma::mean(1.0 - s.control.col(stages - 1));
  return s;
}

BankStudy bank_study(const Model& model, const Vocabulary& vocab, const std::string& held) {
  const std::vector<BankItem> items = bank_items();
  std::vector<BankItemReadings> readings;
  for (const BankItem& item : items) {
    const std::string river = fill(item.frame, item.river);
    const arma::uword at = river.rfind("bank") + 3;  // bank's final 'k', the same in all four sentences
    const arma::mat centre = mean_reading(model, vocab, matched_controls({river, at - 3, at}, held, kCentre), at);
    const auto read = [&](const std::string& word) { return reading(model, vocab, fill(item.frame, word), at); };
    readings.push_back({read(item.river), read(item.money), read(item.river_ctl), read(item.money_ctl), centre});
  }
  BankStudy s = tally_bank(readings);
  s.items = items;
  s.contexts = kCentre;
  const BankItem& one = items.front();
  for (const auto& [word, sense] : {std::pair{one.river, "river"}, std::pair{one.money, "money"},
                                    std::pair{one.river_ctl, "control"}, std::pair{one.money_ctl, "control"}})
    s.first.push_back(read_bank(model, vocab, fill(one.frame, word), sense));
  return s;
}
// [bank_study]

double sign_test(arma::uword k, arma::uword n) {
  double p = 0.0, term = std::pow(0.5, static_cast<double>(n));  // C(n, 0) / 2^n
  for (arma::uword j = 0; j <= n; ++j) {
    if (j >= k) p += term;
    term *= static_cast<double>(n - j) / static_cast<double>(j + 1);  // C(n, j + 1) / 2^n
  }
  return std::min(p, 1.0);
}

}  // namespace ch09
