#!/usr/bin/env bash
# Speed side by side with PyTorch (float32, CPU), measured in one run and alternated round by round,
# since this machine is shared and noisy. Three cases:
#   ch09: one training step of chapter 09's model (97 tokens, context 128, width 64, 2 layers of
#         4 heads of 16, final layer norm, batch 32: forward, next-token loss, backward, Adam);
#   ch05: one Adam step of the article's 8-d, one-head sense classifier (chapter 05 --bench);
#   gpt2: one 64-token forward pass of GPT-2 small's shapes (random weights), keeping every head's
#         pattern and write, as chapter 09's --gpt2 tools read them (common/gpt2/bench.cpp, Google
#         Benchmark, against PyTorch float32).
# The PyTorch models are written here to match the C++ ones operation for operation. PyTorch gets
# the better of 1 thread and its default in every round. Each row and ratio carries the machine's
# 1-minute load average (from /proc/loadavg) when it was measured: above the 2 cores' 2, both sides
# were slowed by other work.
# OpenBLAS picks its kernels for the CPU unless OPENBLAS_CORETYPE names a set. Debian's PyTorch does
# its float products through the same OpenBLAS (libblas.so.3), so both sides always run on the same
# kernels. When OPENBLAS_CORETYPE is set, every case is also timed, on both sides, on OpenBLAS's own
# choice (rows marked *), so both the machine's setting and what the library would pick are on record.
# Usage: scripts/bench-vs-pytorch.sh [ROUNDS]   (default 3)
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."  # the repository, also when run through a link
rounds=${1:-3}
[[ "$rounds" =~ ^[1-9][0-9]?$ ]] || { echo "bench-vs-pytorch: ROUNDS must be 1 to 99, got '$rounds'" >&2; exit 2; }

# Debian's interpreter: python3-torch installs into it (a pyenv or venv python3 may not see it).
py=/usr/bin/python3
if ! "$py" -c 'import torch' 2>/dev/null; then
  echo "bench-vs-pytorch: PyTorch is missing; install it with: sudo apt-get install python3-torch" >&2
  exit 1
fi
cmake --preset release >/dev/null
cmake --build --preset release --target ch05_training ch09_real_heads gpt2_bench peak_bench >/dev/null
ch05=build/release/chapters/05_training/ch05_training
ch09=build/release/chapters/09_real_heads/ch09_real_heads
gpt2=build/release/common/gpt2_bench

torch_case() {  # $1 = ch09 | ch05 | gpt2, $2 = threads (0 = PyTorch's default), then the command's
                #   prefix (e.g. env -u OPENBLAS_CORETYPE); prints milliseconds per step
  local which=$1 threads=$2; shift 2
  "$@" "$py" - "$which" "$threads" <<'EOF'
import math, sys, time, torch
case, threads = sys.argv[1], int(sys.argv[2])
if threads: torch.set_num_threads(threads)
torch.manual_seed(0)
def timed(step, warm, n):
    for _ in range(warm): step()
    t0 = time.perf_counter()
    for _ in range(n): step()
    return (time.perf_counter() - t0) / n * 1000
if case == "ch09":
    V, T, D, H, L, B = 97, 128, 64, 4, 2, 32
    dk = D // H
    class AttnOnly(torch.nn.Module):
        def __init__(s):
            super().__init__()
            s.E = torch.nn.Parameter(torch.randn(V, D)); s.P = torch.nn.Parameter(torch.randn(T, D))
            s.Wqkv = torch.nn.ParameterList([torch.nn.Parameter(torch.randn(D, 3 * H * dk) / math.sqrt(D)) for _ in range(L)])
            s.Wo = torch.nn.ParameterList([torch.nn.Parameter(torch.randn(H * dk, D) / math.sqrt(H * dk)) for _ in range(L)])
            s.norm = torch.nn.LayerNorm(D); s.U = torch.nn.Parameter(torch.randn(D, V) / math.sqrt(D))
            s.register_buffer("causal", torch.full((T, T), float("-inf")).triu(1))
        def forward(s, x):
            X = s.E[x] + s.P
            for Wqkv, Wo in zip(s.Wqkv, s.Wo):
                q, k, v = (X @ Wqkv).view(B, T, 3, H, dk).permute(2, 0, 3, 1, 4)
                A = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dk) + s.causal, dim=-1)
                X = X + (A @ v).transpose(1, 2).reshape(B, T, H * dk) @ Wo
            return s.norm(X) @ s.U
    model = AttnOnly(); opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    x = torch.randint(0, V, (B, T))
    def step():
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, V), x[:, 1:].reshape(-1))
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"{timed(step, 3, 30):.4f}")
elif case == "gpt2":
    V, C, D, H, L, n = 50257, 1024, 768, 12, 12, 64
    dh = D // H
    g = torch.Generator().manual_seed(0)
    def W(*shape): return torch.randn(*shape, generator=g) * 0.02
    wte, wpe, lnf = W(V, D), W(C, D), (1 + W(D), W(D))
    blocks = [dict(ln1=(1 + W(D), W(D)), attn=W(D, 3 * D), attn_b=W(3 * D), proj=W(D, D), proj_b=W(D),
                   ln2=(1 + W(D), W(D)), fc=W(D, 4 * D), fc_b=W(4 * D), fc_proj=W(4 * D, D), fc_proj_b=W(D))
              for _ in range(L)]
    x = torch.randint(0, V, (n,), generator=g)
    mask = torch.full((n, n), float("-inf")).triu(1)
    norm = lambda X, gb: torch.nn.functional.layer_norm(X, (D,), gb[0], gb[1])
    gelu = lambda X: torch.nn.functional.gelu(X, approximate="tanh")
    @torch.no_grad()
    def step():
        X, kept = wte[x] + wpe[:n], []
        for b in blocks:
            q, k, v = (norm(X, b["ln1"]) @ b["attn"] + b["attn_b"]).view(n, 3, H, dh).permute(1, 2, 0, 3)
            A = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dh) + mask, dim=-1)  # H x n x n
            writes = torch.einsum("hnd,hde->hne", A @ v, b["proj"].view(H, dh, D))    # each head's write
            kept.append((A, writes))
            X = X + writes.sum(0) + b["proj_b"]
            X = X + gelu(norm(X, b["ln2"]) @ b["fc"] + b["fc_b"]) @ b["fc_proj"] + b["fc_proj_b"]
        return norm(X, lnf) @ wte.T, kept
    print(f"{timed(step, 2, 10):.4f}")
else:
    d = 8
    class OneHeadSense(torch.nn.Module):
        def __init__(s):
            super().__init__()
            s.E = torch.nn.Embedding(4, d)
            s.q = torch.nn.Linear(d, d, bias=False); s.k = torch.nn.Linear(d, d, bias=False)
            s.v = torch.nn.Linear(d, d, bias=False); s.c = torch.nn.Linear(d, 2)
        def forward(s, ids):
            X = s.E(ids)
            A = torch.softmax(s.q(X) @ s.k(X).T / math.sqrt(d), dim=-1)
            return s.c((A @ s.v(X))[-1])
    model = OneHeadSense(); opt = torch.optim.Adam(model.parameters(), lr=0.05)
    data = [([0, 1, 3], 0), ([0, 2, 3], 1), ([1, 3], 0), ([2, 3], 1)]  # the river/money bank examples
    data = [(torch.tensor(ids), torch.tensor(y)) for ids, y in data]
    i = [0]
    def step():
        ids, y = data[i[0] % 4]; i[0] += 1
        loss = torch.nn.functional.cross_entropy(model(ids).unsqueeze(0), y.unsqueeze(0))
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"{timed(step, 40, 1200):.4f}")
EOF
}

best() { printf '%s\n' "$@" | sort -g | head -1; }

load() { cut -d' ' -f1 /proc/loadavg; }

cpp_case() {  # $1 = ch09 | ch05 | gpt2, then the command's prefix (e.g. env -u OPENBLAS_CORETYPE); prints ms
  local which=$1; shift
  case "$which" in
    ch09) "$@" "$ch09" --bench 30 | sed -n 's/^ch09 model step: \([0-9.]*\) ms.*/\1/p' ;;
    ch05) "$@" "$ch05" --bench | sed -n 's/.*best of 20 runs: \([0-9.]*\) us per step.*/\1/p' |
            awk '{ printf "%.4f", $1 / 1000 }' ;;
    gpt2) "$@" "$gpt2" --benchmark_format=csv 2>/dev/null | awk -F, '/^"gpt2_small_forward/ { printf "%.4f", $3 }' ;;
  esac
}

own=""  # OpenBLAS's own kernel choice, when the environment overrides it
if [[ -n "${OPENBLAS_CORETYPE:-}" ]]; then
  own=$(env -u OPENBLAS_CORETYPE OPENBLAS_VERBOSE=2 "$ch05" --help 2>&1 | sed -n 's/^Core: //p' | head -1)
fi
echo "bench-vs-pytorch: $rounds rounds, C++ and PyTorch alternated; milliseconds per training step (gpt2: per forward pass)"
if [[ -n "$own" ]]; then
  echo "OpenBLAS kernels: $OPENBLAS_CORETYPE (OPENBLAS_CORETYPE); rows marked * run on OpenBLAS's own choice, $own"
else
  echo "OpenBLAS kernels: OpenBLAS's own choice (OPENBLAS_CORETYPE is not set)"
fi
# The float FMA peak of both cores, what the GFLOP/s of `ch09_real_heads --bench` and gpt2_bench are read against.
build/release/common/peak_bench --benchmark_filter='threads:2' --benchmark_format=csv 2>/dev/null |
  awk -F, '/fma_peak/ { gsub(/"/, "", $1); split($1, name, "/"); printf "%s, both cores: %.0f GFLOP/s\n", name[1], $NF / 1e9 }'
printf '%-6s %-5s %12s %12s %6s\n' case round "C++" "PyTorch" load
declare -A cpp_ms torch_ms
for ((r = 1; r <= rounds; r++)); do
  for which in ch09 ch05 gpt2; do
    cpp=$(cpp_case "$which" env)
    torch=$(best "$(torch_case "$which" 1 env)" "$(torch_case "$which" 0 env)")
    printf '%-6s %-5s %12s %12s %6s\n' "$which" "$r" "$cpp" "$torch" "$(load)"
    cpp_ms[$which]+="$cpp "; torch_ms[$which]+="$torch "
    if [[ -n "$own" ]]; then
      cpp=$(cpp_case "$which" env -u OPENBLAS_CORETYPE)
      torch=$(best "$(torch_case "$which" 1 env -u OPENBLAS_CORETYPE)" "$(torch_case "$which" 0 env -u OPENBLAS_CORETYPE)")
      printf '%-6s %-5s %12s %12s %6s\n' "$which*" "$r" "$cpp" "$torch" "$(load)"
      cpp_ms[$which*]+="$cpp "; torch_ms[$which*]+="$torch "
    fi
  done
done

summary() {  # $1 = case, $2 = best C++, $3 = best PyTorch
  awk -v name="$1" -v c="$2" -v t="$3" -v load="$(load)" \
    'BEGIN { printf "%-6s best C++ %.4f ms, best PyTorch %.4f ms: C++ is %.2fx PyTorch'"'"'s speed (load %s)\n", name, c, t, t / c, load }'
}
echo "== best of $rounds rounds each (above 1x: C++ is faster)"
for which in ch09 ch05 gpt2; do
  # shellcheck disable=SC2086  # the lists are space-separated numbers
  summary "$which" "$(best ${cpp_ms[$which]})" "$(best ${torch_ms[$which]})"
  # shellcheck disable=SC2086
  [[ -z "$own" ]] || summary "$which*" "$(best ${cpp_ms[$which*]})" "$(best ${torch_ms[$which*]})"
done
