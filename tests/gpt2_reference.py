#!/usr/bin/python3
"""An independent GPT-2 for tests/test_ch09_gpt2.cpp, in numpy, written from the public GPT-2
definition (Radford et al. 2019, section 2.3; OpenAI's released model.py and encoder.py), sharing
no code with the C++ it checks.

Usage: gpt2_reference.py OUT_DIR
       gpt2_reference.py OUT_DIR --checkpoint WIDTH,HEADS,LAYERS,CONTEXT [random|zero|subnormal] [VOCAB]

The second form writes the four checkpoint files alone, of other sizes (the tests' short contexts
and many heads) and, if asked, with every weight 0 or the smallest subnormal float (degenerate
checkpoints a reader could be handed); no reference.json. VOCAB (at least the tiny vocabulary's
size) pads the vocabulary with made-up merges of lower-case letters to that many tokens: 768,12,12,1024
random 50257 has GPT-2 small's shapes, for timing chapter 09's --gpt2 mode without the real weights.

Writes into OUT_DIR a tiny GPT-2 in the Hugging Face layout a reader downloads:
  config.json        n_embd 24, n_head 3, n_layer 2, n_positions 16, vocab_size as below;
  vocab.json         the byte alphabet's characters (bytes 0xF0-0xFF left out, so a 4-byte UTF-8
                     character has no token), then one token per merge rule;
  merges.txt         "#version: 0.2" and a few rules (enough to make " bank", " the", "'s" one token);
  model.safetensors  F32 weights drawn from a fixed seed, plus the entries checkpoints also carry
                     (h.<l>.attn.bias, h.<l>.attn.masked_bias, __metadata__);
and reference.json: the tokens of every text in TEXTS, and for every text in FORWARD its tokens, its
logits (n x vocab) and every head's attention pattern (layer-major, each n x n), in float64; then
three interventions computed head by head (forward_heads, a second formulation checked against
forward): a head's direct logit attribution through the final norm with its scale frozen, the
logits with one head zeroed, and the logits of PATCH_A with one head's output taken from PATCH_B.
"""
import json
import struct
import sys
import unicodedata

import numpy as np

SEED = 20190214
WIDTH, HEADS, LAYERS, CONTEXT = 24, 3, 2, 64
EPSILON = 1e-5

MERGES = [
    ("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("Ġ", "b"), ("a", "n"), ("Ġb", "an"), ("Ġban", "k"),
    ("Ġ", "a"), ("n", "d"), ("Ġa", "nd"), ("Ġ", "o"), ("Ġo", "f"), ("e", "r"), ("Ġ", "r"),
    ("Ġr", "i"), ("v", "er"), ("Ġri", "ver"), ("'", "s"), ("Ġ", "m"), ("o", "n"), ("Ġm", "on"),
    ("e", "y"), ("Ġmon", "ey"), ("T", "he"), ("a", "a"), ("Ġ", "Ġ"), ("i", "n"), ("Ã", "©"),
]

TEXTS = [
    "The bank of the river and the bank's money.",
    "\u03a9mega 12\n\n  caf\u00e9",
    "I'll say you've they're we'd I'm it's don't",
    "aaaa aaa aaaaa",
    "  leading and trailing   ",
    "\u65e5\u672c\u8a9e \u0663\u0664 numbers 2024!!! ...?",
    "tab\there\r\nnew line",
    "",
]

PATCH_A, PATCH_B = "The river bank", "The money bank"  # the same number of tokens
DLA_HEAD, ZERO_HEAD, PATCH_HEAD = (1, 2), (0, 1), (1, 0)  # (layer, head), from 0

FORWARD = [
    "The bank of the river and the bank's money.",
    "The bank",
    "xyz?! 42 aaaa the 7 of",
]


# ---- the tokenizer ------------------------------------------------------------------------------

def bytes_to_unicode():
    """Byte -> stand-in character: printable Latin-1 bytes stand for themselves, the rest are
    numbered from U+0100 in byte order (OpenAI's encoder.py)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


BYTE_CHAR = bytes_to_unicode()
CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d"]


def is_letter(c):
    return unicodedata.category(c).startswith("L")


def is_number(c):
    return unicodedata.category(c).startswith("N")


def is_other(c):
    return not c.isspace() and not is_letter(c) and not is_number(c)


def optional_space_run(text, i, member):
    """End of ' ?member+' at i, or None: the space is taken first (greedy), then left out."""
    for start in ([i + 1] if text[i] == " " else []) + [i]:
        j = start
        while j < len(text) and member(text[j]):
            j += 1
        if j > start:
            return j
    return None


def whitespace_run(text, i):
    """End of '\\s+(?!\\S)' at i, else of '\\s+': a run of spaces leaves its last one to the word after it."""
    k = i
    while k < len(text) and text[k].isspace():
        k += 1
    if k == len(text) or k - 1 == i:
        return k
    return k - 1


def pre_tokenize(text):
    """GPT-2's pattern, alternative by alternative, as a scanner (no regular expression)."""
    pieces, i = [], 0
    while i < len(text):
        j = next((i + len(c) for c in CONTRACTIONS if text.startswith(c, i)), None)
        for member in (is_letter, is_number, is_other):
            if j is None:
                j = optional_space_run(text, i, member)
        if j is None:
            j = whitespace_run(text, i)
        pieces.append(text[i:j])
        i = j
    return pieces


def bpe(symbols, ranks):
    while len(symbols) > 1:
        pairs = [(ranks.get((a, b), float("inf")), k) for k, (a, b) in enumerate(zip(symbols, symbols[1:]))]
        rank, k = min(pairs)
        if rank == float("inf"):
            break
        first, second = symbols[k], symbols[k + 1]
        merged, i = [], 0
        while i < len(symbols):
            if i + 1 < len(symbols) and symbols[i] == first and symbols[i + 1] == second:
                merged.append(first + second)
                i += 2
            else:
                merged.append(symbols[i])
                i += 1
        symbols = merged
    return symbols


def encode(text, vocab, ranks):
    ids = []
    for piece in pre_tokenize(text):
        ids += [vocab[s] for s in bpe([BYTE_CHAR[b] for b in piece.encode("utf-8")], ranks)]
    return ids


def make_vocab(size=0):
    """The byte alphabet and MERGES' tokens; then, up to `size` tokens, made-up merges (returned
    with MERGES): a word of lower-case letters joined with one more letter, shortest words first."""
    vocab = {}
    for b, c in BYTE_CHAR.items():  # in byte order; bytes 0xF0-0xFF have no token
        if b < 0xF0:
            vocab[c] = len(vocab)
    merges = list(MERGES)
    for a, b in MERGES:
        vocab.setdefault(a + b, len(vocab))
    words = [chr(c) for c in range(ord("a"), ord("z") + 1)]
    for word in words:  # grows as it goes: every word is a token, so each merge joins two tokens
        if len(vocab) >= size:
            break
        for letter in words[:26]:
            if len(vocab) >= size:
                break
            if word + letter not in vocab:
                vocab[word + letter] = len(vocab)
                merges.append((word, letter))
                words.append(word + letter)
    return vocab, merges


# ---- the model ----------------------------------------------------------------------------------

def make_weights(vocab_size, rng):
    """Names and shapes of Hugging Face's GPT2Model; float32 as the real checkpoint."""
    def normal(shape, std):
        return (std * rng.standard_normal(shape)).astype(np.float32)

    w = {"wte.weight": normal((vocab_size, WIDTH), 0.5), "wpe.weight": normal((CONTEXT, WIDTH), 0.3)}
    for layer in range(LAYERS):
        h = f"h.{layer}."
        w[h + "ln_1.weight"] = 1 + normal((WIDTH,), 0.1)
        w[h + "ln_1.bias"] = normal((WIDTH,), 0.1)
        w[h + "attn.c_attn.weight"] = normal((WIDTH, 3 * WIDTH), 0.35)
        w[h + "attn.c_attn.bias"] = normal((3 * WIDTH,), 0.1)
        w[h + "attn.c_proj.weight"] = normal((WIDTH, WIDTH), 0.2)
        w[h + "attn.c_proj.bias"] = normal((WIDTH,), 0.1)
        w[h + "ln_2.weight"] = 1 + normal((WIDTH,), 0.1)
        w[h + "ln_2.bias"] = normal((WIDTH,), 0.1)
        w[h + "mlp.c_fc.weight"] = normal((WIDTH, 4 * WIDTH), 0.2)
        w[h + "mlp.c_fc.bias"] = normal((4 * WIDTH,), 0.1)
        w[h + "mlp.c_proj.weight"] = normal((4 * WIDTH, WIDTH), 0.1)
        w[h + "mlp.c_proj.bias"] = normal((WIDTH,), 0.1)
        w[h + "attn.bias"] = np.tril(np.ones((CONTEXT, CONTEXT), np.float32)).reshape(1, 1, CONTEXT, CONTEXT)
        w[h + "attn.masked_bias"] = np.array(-1e4, np.float32)
    w["ln_f.weight"] = 1 + normal((WIDTH,), 0.1)
    w["ln_f.bias"] = normal((WIDTH,), 0.1)
    return w


def layer_norm(x, gain, bias):
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + EPSILON) * gain + bias


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def forward(w, ids):
    """Logits (n x vocab) and patterns (layers*heads x n x n), in float64."""
    p = {name: value.astype(np.float64) for name, value in w.items()}
    n, dh = len(ids), WIDTH // HEADS
    x = p["wte.weight"][ids] + p["wpe.weight"][:n]
    patterns = []
    for layer in range(LAYERS):
        h = f"h.{layer}."
        a = layer_norm(x, p[h + "ln_1.weight"], p[h + "ln_1.bias"])
        q, k, v = np.split(a @ p[h + "attn.c_attn.weight"] + p[h + "attn.c_attn.bias"], 3, axis=1)
        q, k, v = (m.reshape(n, HEADS, dh).transpose(1, 0, 2) for m in (q, k, v))  # heads x n x dh
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(dh)
        scores = np.where(np.tril(np.ones((n, n), bool)), scores, -np.inf)
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        att = e / e.sum(axis=-1, keepdims=True)
        patterns += list(att)
        y = (att @ v).transpose(1, 0, 2).reshape(n, WIDTH)
        x = x + y @ p[h + "attn.c_proj.weight"] + p[h + "attn.c_proj.bias"]
        m = layer_norm(x, p[h + "ln_2.weight"], p[h + "ln_2.bias"])
        x = x + gelu(m @ p[h + "mlp.c_fc.weight"] + p[h + "mlp.c_fc.bias"]) @ p[h + "mlp.c_proj.weight"] \
            + p[h + "mlp.c_proj.bias"]
    logits = layer_norm(x, p["ln_f.weight"], p["ln_f.bias"]) @ p["wte.weight"].T
    return logits, np.array(patterns)


def forward_heads(w, ids, replace=None):
    """The same model head by head: head h of a layer adds (A_h V_h) W_O[h rows]; `replace` maps
    (layer, head) to the n x width output put in its place. Returns the logits, the final stream and
    every head's output (layer-major)."""
    p = {name: value.astype(np.float64) for name, value in w.items()}
    n, dh = len(ids), WIDTH // HEADS
    x = p["wte.weight"][ids] + p["wpe.weight"][:n]
    outputs = []
    for layer in range(LAYERS):
        h = f"h.{layer}."
        a = layer_norm(x, p[h + "ln_1.weight"], p[h + "ln_1.bias"])
        qkv = a @ p[h + "attn.c_attn.weight"] + p[h + "attn.c_attn.bias"]
        update = np.tile(p[h + "attn.c_proj.bias"], (n, 1))
        for head in range(HEADS):
            q, k, v = (qkv[:, part * WIDTH + head * dh: part * WIDTH + (head + 1) * dh] for part in range(3))
            scores = q @ k.T / np.sqrt(dh) + np.triu(np.full((n, n), -np.inf), 1)
            weights = np.exp(scores - scores.max(axis=1, keepdims=True))
            weights /= weights.sum(axis=1, keepdims=True)
            out = weights @ v @ p[h + "attn.c_proj.weight"][head * dh:(head + 1) * dh]
            if replace is not None and (layer, head) in replace:
                out = replace[(layer, head)]
            outputs.append(out)
            update = update + out
        x = x + update
        m = layer_norm(x, p[h + "ln_2.weight"], p[h + "ln_2.bias"])
        x = x + gelu(m @ p[h + "mlp.c_fc.weight"] + p[h + "mlp.c_fc.bias"]) @ p[h + "mlp.c_proj.weight"] \
            + p[h + "mlp.c_proj.bias"]
    logits = layer_norm(x, p["ln_f.weight"], p["ln_f.bias"]) @ p["wte.weight"].T
    return logits, x, outputs


def interventions(w, vocab, ranks):
    """Direct logit attribution, zero ablation and patching, each as its definition says."""
    a, b = encode(PATCH_A, vocab, ranks), encode(PATCH_B, vocab, ranks)
    assert len(a) == len(b), (a, b)
    logits, x, outputs = forward_heads(w, a)
    assert np.allclose(logits, forward(w, a)[0], rtol=0, atol=1e-12)
    t, (layer, head) = len(a) - 1, DLA_HEAD
    out = outputs[layer * HEADS + head][t]
    scale = 1 / np.sqrt(x[t].var() + EPSILON)  # the final norm's scale at t, frozen
    dla = (out - out.mean()) * scale * w["ln_f.weight"].astype(np.float64) @ w["wte.weight"].astype(np.float64).T
    zero = forward_heads(w, a, {ZERO_HEAD: np.zeros((len(a), WIDTH))})[0]
    source = forward_heads(w, b)[2]
    layer, head = PATCH_HEAD
    patched = forward_heads(w, a, {PATCH_HEAD: source[layer * HEADS + head]})[0]
    return {"a": PATCH_A, "b": PATCH_B, "dla_head": DLA_HEAD, "position": t, "dla": dla.tolist(),
            "zero_head": ZERO_HEAD, "zero": zero.tolist(), "patch_head": PATCH_HEAD, "patched": patched.tolist()}


# ---- the files ----------------------------------------------------------------------------------

def write_safetensors(path, tensors):
    """8-byte little-endian header length, the JSON header (padded with spaces to 8 bytes), the data."""
    header, offset, blobs = {"__metadata__": {"format": "pt"}}, 0, []
    for name, value in tensors.items():
        blob = np.ascontiguousarray(value, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(value.shape), "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        blobs.append(blob)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def main(out):
    rng = np.random.default_rng(SEED)
    vocab, _ = make_vocab()
    ranks = {pair: rank for rank, pair in enumerate(MERGES)}
    weights = make_weights(len(vocab), rng)
    config = {"model_type": "gpt2", "n_embd": WIDTH, "n_head": HEADS, "n_layer": LAYERS, "n_positions": CONTEXT,
              "n_ctx": CONTEXT, "vocab_size": len(vocab), "layer_norm_epsilon": EPSILON,
              "activation_function": "gelu_new"}
    with open(f"{out}/config.json", "w") as f:
        json.dump(config, f, indent=2)
    with open(f"{out}/vocab.json", "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(f"{out}/merges.txt", "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in MERGES))
    write_safetensors(f"{out}/model.safetensors", weights)
    reference = {"texts": [{"text": t, "tokens": encode(t, vocab, ranks)} for t in TEXTS], "forward": []}
    for text in FORWARD:
        ids = encode(text, vocab, ranks)
        assert 0 < len(ids) <= CONTEXT, (text, len(ids))
        logits, patterns = forward(weights, ids)
        reference["forward"].append({"text": text, "tokens": ids, "logits": logits.tolist(),
                                     "patterns": patterns.tolist()})
    reference["interventions"] = interventions(weights, vocab, ranks)
    with open(f"{out}/reference.json", "w") as f:
        json.dump(reference, f)


def checkpoint_only(out, sizes, kind, vocab_size):
    global WIDTH, HEADS, LAYERS, CONTEXT
    WIDTH, HEADS, LAYERS, CONTEXT = (int(x) for x in sizes.split(","))
    vocab, merges = make_vocab(vocab_size)
    weights = make_weights(len(vocab), np.random.default_rng(SEED))
    if kind != "random":
        fill = 0.0 if kind == "zero" else np.float32(1.4e-45)
        for name, value in weights.items():
            if not name.endswith(("attn.bias", "attn.masked_bias")):
                weights[name] = np.full(value.shape, fill, np.float32)
    config = {"model_type": "gpt2", "n_embd": WIDTH, "n_head": HEADS, "n_layer": LAYERS, "n_positions": CONTEXT,
              "vocab_size": len(vocab), "layer_norm_epsilon": EPSILON}
    with open(f"{out}/config.json", "w") as f:
        json.dump(config, f)
    with open(f"{out}/vocab.json", "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(f"{out}/merges.txt", "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges))
    write_safetensors(f"{out}/model.safetensors", weights)


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[2] == "--checkpoint":
        checkpoint_only(sys.argv[1], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "random",
                        int(sys.argv[5]) if len(sys.argv) > 5 else 0)
    else:
        main(sys.argv[1])
