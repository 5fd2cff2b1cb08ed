#!/usr/bin/env python3
"""A second trial of hostile cases: what scripts/hostile-trial.py does not try.

Usage: scripts/hostile-trial-b.py [BUILD_DIR] [--sanitize-dir DIR]   (default: build/release)
       with --sanitize-dir build/sanitize: only a third of the cases, from the ASan + UBSan build

Categories (each generated programmatically, checked like the first trial):
  words to gnuplot    hostile words in --sentence with plots on (backquotes, system(), @macros, quotes, newlines)
  numbers in titles   odd but valid numbers that end up in plot titles and data (-0, subnormals, +5, ...)
  standard fds        closed or full stdin/stdout/stderr with plots on: nothing lands in a plot file
  gnuplot init files  a ~/.gnuplot that runs a command, waits for a key or changes the terminal
  file size limit     ulimit -f without a trap on SIGXFSZ, plots and ch05's outputs
  full file system    a 4-200 KiB tmpfs as plot folder, --save and --loss-log target (needs root)
  slow gnuplot        fake gnuplots that never read, flood stdout or stderr, leave a child holding the pipes
  huge sizes          the largest accepted sizes, and a memory limit
  not finite          accepted values that could print NaN or inf
  sanitizers          a sample of cases again from the ASan + UBSan build (if given)
Outcome per case: held, or the problems found (injection, hang, partial, exit code, message, nan).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
args = sys.argv[1:]
SAN = None
if "--sanitize-dir" in args:
    k = args.index("--sanitize-dir")
    SAN = Path(args[k + 1])
    del args[k:k + 2]
BUILD = Path(args[0]) if args else ROOT / "build" / "release"


def programs(build):
    out = {}
    for line in (build / "chapters.txt").read_text().splitlines():
        path = line.split("\t")[0]
        out[Path(path).name] = path
    return out


PROGRAMS = programs(BUILD)
QUICK = {"ch05_training": ["--no-companions", "--passes", "20"], "ch08_induction": ["--quick", "--steps", "60"],
         "ch09_real_heads": ["--quick", "--steps", "20"]}  # ch09's default run trains for minutes
WORK = Path(tempfile.mkdtemp(prefix="attn-trial-b-"))
MARKER = WORK / "OWNED"
LIMIT = 90
ROOT_USER = os.geteuid() == 0


def q(s):
    return "'" + str(s).replace("'", "'\\''") + "'"


class Case:
    def __init__(self, category, program, argv, expect, shell_prefix="", redirect="", env=None, folders=(),
                 reason=None, about=None, check=None, exe=None):
        self.category, self.program, self.argv, self.expect = category, program, argv, expect
        self.shell_prefix, self.redirect, self.env = shell_prefix, redirect, env or {}
        self.folders, self.reason, self.about, self.check = list(folders), reason, about, check
        self.exe = exe or PROGRAMS[program]


def png_ok(b):
    return len(b) > 45 and b[:8] == b"\x89PNG\r\n\x1a\n" and b[12:16] == b"IHDR" and b[-8:-4] == b"IEND"


# What C++ streams print for non-finite values. Heatmap data writes masked cells as "NaN" on
# purpose, and ch06 prints the causal mask's -inf on purpose: neither is flagged.
NAN = re.compile(rb"(?<![A-Za-z])(nan|inf)(?![A-Za-z])")
MASK = re.compile(rb"-inf")


def run(case):
    cwd = WORK / "cwd"
    cwd.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.update(case.env)
    out_file, err_file = WORK / ("out-%d" % id(case)), WORK / ("err-%d" % id(case))
    code_file = WORK / ("code-%d" % id(case))
    if case.redirect == "| head":  # stdout into a pipe that closes after 10 bytes
        command = "(%s %s 2>%s; echo $? >%s) | head -c 10 >/dev/null" % (
            q(case.exe), " ".join(q(a) for a in case.argv), q(err_file), q(code_file))
    else:
        command = "%s exec %s %s >%s 2>%s %s" % (case.shell_prefix, q(case.exe), " ".join(q(a) for a in case.argv),
                                                  q(out_file), q(err_file), case.redirect)
    start = time.monotonic()
    try:
        p = subprocess.run(["sh", "-c", command], cwd=cwd, env=env, stdin=subprocess.DEVNULL, timeout=LIMIT)
        code = p.returncode
        if code_file.exists():
            code = int(code_file.read_text())
            code_file.unlink()
    except subprocess.TimeoutExpired:
        return ["hang: no answer within %d s" % LIMIT]
    seconds = time.monotonic() - start
    out = out_file.read_bytes() if out_file.exists() else b""
    err = err_file.read_bytes().decode("utf-8", "replace") if err_file.exists() else ""
    problems = []
    if MARKER.exists():
        problems.append("injection: marker file appeared")
        MARKER.unlink()
    expect = case.expect if isinstance(case.expect, (set, frozenset)) else {case.expect}
    if code not in expect:
        problems.append("exit code %s, expected %s: %s" % (code, sorted(expect), err[:160]))
    if code in (1, 2) and "2>" not in case.redirect:
        # training progress ("  step 20/20: loss ...", chapter 09) is not a message
        lines = [l for l in err.splitlines() if l and not l.startswith("  step ")]
        if not lines or any(not l.startswith(case.program + ": error: ") for l in lines):
            if not (SAN and case.exe.startswith(str(SAN)) and "Sanitizer" in err):
                problems.append("message: not '<program>: error: ...' lines: %r" % err[:300])
        if "\x1b" in err:
            problems.append("message: an ESC byte reached stderr")
        if any(len(l) > 400 for l in lines):
            problems.append("message: a line of %d characters" % max(len(l) for l in lines))
        if case.reason and code == 1 and not any(r in err for r in case.reason):
            problems.append("message hides the reason: none of %r in %r" % (case.reason, err[:300]))
        if case.about and code == 2 and not any(a in err for a in case.about):
            problems.append("message hides the value: none of %r in %r" % (case.about, err[:200]))
    if "Sanitizer" in err or "runtime error:" in err:
        problems.append("sanitizer: %s" % err[err.find("ERROR") if "ERROR" in err else 0:][:200])
    shown = MASK.sub(b"", out) if case.program == "ch06_masking" else out
    if code == 0 and NAN.search(shown):
        m = NAN.search(shown)
        problems.append("nan: %r printed" % out[max(0, m.start() - 40):m.end() + 10])
    for folder in case.folders:
        folder = Path(folder)
        if not folder.exists():
            continue
        left = [p.name for p in folder.rglob(".attn-tmp-*")]
        if left:
            problems.append("partial: temporaries left: %s" % left[:3])
        for png in folder.glob("*.png"):
            if png.is_file() and not png_ok(png.read_bytes()):
                problems.append("partial: invalid PNG %s (%d bytes)" % (png.name, png.stat().st_size))
        for dat in folder.glob("*.dat"):
            stem = dat.stem
            if not (folder / (stem + ".png")).exists() and not (folder / (stem.rsplit("_", 1)[0] + ".png")).exists():
                problems.append("partial: %s without its PNG" % dat.name)
            text = dat.read_bytes()
            if b"Chapter 0" in text or b"error:" in text:
                problems.append("partial: program output inside %s" % dat.name)
            if NAN.search(MASK.sub(b"", text) if case.program == "ch06_masking" else text):
                problems.append("nan: in %s" % dat.name)
    if case.check:
        problems += case.check(code, out, err, seconds)
    for f in (out_file, err_file):
        if f.exists():
            f.unlink()
    return problems


def fake(name, body):
    d = WORK / "fake" / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "gnuplot").write_text("#!/bin/sh\n" + body + "\n")
    (d / "gnuplot").chmod(0o755)
    return {"PATH": "%s:/usr/bin:/bin" % d, "ATTN_GNUPLOT_TIMEOUT": "1"}


def plots(tag, program):
    return WORK / "plots" / tag / program


def cases():
    out = []
    m = str(MARKER)
    sentence_chapters = ["ch01_mixing", "ch02_swap_query", "ch03_values", "ch06_masking"]
    # 1. hostile words with plots on: refused as unknown words, nothing runs
    words = ["`touch %s`" % m, "system(\"touch %s\")" % m, "system('touch %s')" % m, "@m", "\\`touch %s\\`" % m,
             "bank\nsystem \"touch %s\"" % m, "\"; system \"touch %s\"; \"" % m, "'; system 'touch %s'; '" % m,
             "bank;touch %s" % m, "$(touch %s)" % m, "bank\\", "bank\"", "bank\x1b]0;title\x07", "BANK", "bank\t\tthe",
             "\xe2\x80\xaebank"]
    for program in sentence_chapters:
        for k, w in enumerate(words):
            folder = plots("words-%d" % k, program)
            out.append(Case("words to gnuplot", program, ["--plots", str(folder), "--sentence", "the river " + w],
                            {0, 2}, folders=[folder], about=["unknown word", "sentence"]))
    # 2. odd numbers that reach titles and data, plots on
    numeric = {
        "ch01_mixing": [("--scale", v) for v in ["-0", "+5", "4.9e-324", "1e-300", "1000", "-1000", "0.0000001", "1E2",
                                                  "007", "-0.0001"]],
        "ch04_scaling": [("--scores", v) for v in ["-0,0", "4.9e-324,0", "1e6,-1e6", "+1,-1", "1e-300,1e-300", "5",
                                                   "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0", "1E3,1e-3", "1000000,999999.9999"]]
        + [("--angle", v) for v in ["-360", "360", "90", "-0", "4.9e-324"]]
        + [("--length", v) for v in ["0", "4.9e-324", "1000", "1e-300"]],
        "ch02_swap_query": [("--wq", v) for v in ["0 0 0; 0 0 0; 0 0 0; 0 0 0", "1e6 0 0; 0 1e6 0; 0 0 1e6; 1 1 1",
                                                  "-0 -0 -0; 1 1 1; 1 1 1; 1 1 1", "4.9e-324 0 0; 0 0 0; 0 0 0; 0 0 0"]],
        "ch05_training": [("--lr", v) for v in ["4.9e-324", "10", "1e-300"]],
        "ch08_induction": [("--lr", v) for v in ["4.9e-324", "1"]],
    }
    for program, pairs in numeric.items():
        for k, (flag, v) in enumerate(pairs):
            folder = plots("num-%d" % k, program)
            out.append(Case("numbers in titles", program, QUICK.get(program, []) + ["--plots", str(folder), flag, v],
                            {0, 1, 2}, folders=[folder], reason=["diverged"], about=[flag]))
    # 3. standard file descriptors closed or unusable, plots on
    for program in PROGRAMS:
        qk = QUICK.get(program, [])
        for k, (redirect, expect) in enumerate([(">&-", {1}), ("2>&-", {0}), ("<&-", {0}), ("2>/dev/full", {0}),
                                                 (">&- 2>&-", {1}), ("<&- >&- 2>&-", {1})]):
            folder = plots("fd-%d" % k, program)
            out.append(Case("standard fds", program, qk + ["--plots", str(folder)], expect, redirect=redirect,
                            folders=[folder]))
        out.append(Case("standard fds", program, ["--bogus"], {2}, redirect="2>&-"))
        out.append(Case("standard fds", program, ["--bogus"], {2}, redirect="2>/dev/full"))
        folder = plots("fd-pipe", program)
        # 0 too: a short output fits in the pipe before the reader leaves
        out.append(Case("standard fds", program, qk + ["--plots", str(folder)], {0, 1, 141}, folders=[folder],
                        redirect="| head"))
    # 4. a ~/.gnuplot the chapters should not depend on
    rcs = {"runs": "system \"touch %s\"\n" % m, "waits": "pause -1\npause mouse\n",
           "terminal": "set terminal dumb\nset output '%s'\n" % (WORK / "rc-out.txt")}
    for label, text in rcs.items():
        home = WORK / "home" / label
        home.mkdir(parents=True, exist_ok=True)
        (home / ".gnuplot").write_text(text)

        def not_elsewhere(code, o, e, s):
            return ["partial: the init file redirected output"] if (WORK / "rc-out.txt").exists() else []
        for program in PROGRAMS:
            folder = plots("rc-" + label, program)
            out.append(Case("gnuplot init files", program, QUICK.get(program, []) + ["--plots", str(folder)], {0},
                            env={"HOME": str(home), "ATTN_GNUPLOT_TIMEOUT": "5"}, folders=[folder],
                            check=lambda c, o, e, s, folder=folder: (not_elsewhere(c, o, e, s) + (
                                [] if c != 0 or len(list(folder.glob("*.png"))) > 0 else ["partial: no PNG"]))))
    # 5. file size limit, no trap on SIGXFSZ
    for program in PROGRAMS:
        for blocks in (1, 8, 30, 100):
            folder = plots("ulimit-%d" % blocks, program)
            out.append(Case("file size limit", program, QUICK.get(program, []) + ["--plots", str(folder)], {0, 1},
                            shell_prefix="ulimit -f %d;" % blocks, folders=[folder], reason=["File too large"]))
    for blocks in (1, 2, 4):
        d = WORK / "ulimit-ch05" / str(blocks)
        d.mkdir(parents=True, exist_ok=True)
        out.append(Case("file size limit", "ch05_training", ["--no-plots", "--no-companions", "--passes", "300",
                                                             "--loss-log", str(d / "loss.txt"), "--save", str(d / "s")],
                        {0, 1}, shell_prefix="ulimit -f %d;" % blocks, folders=[d, d / "s"], reason=["File too large"]))
    # 6. a full file system (tmpfs, root only)
    if ROOT_USER:
        for size in ("4k", "16k", "64k", "200k"):
            for program in PROGRAMS:
                mnt = WORK / "tmpfs" / size / program
                mnt.mkdir(parents=True, exist_ok=True)
                out.append(Case("full file system", program, QUICK.get(program, []) + ["--plots", str(mnt / "p")],
                                {0, 1}, shell_prefix="mount -t tmpfs -o size=%s tmpfs %s &&" % (size, q(mnt)),
                                folders=[mnt / "p"], reason=["No space left on device"]))
            mnt = WORK / "tmpfs" / size / "ch05-out"
            mnt.mkdir(parents=True, exist_ok=True)
            out.append(Case("full file system", "ch05_training",
                            ["--no-plots", "--no-companions", "--loss-log", str(mnt / "loss.txt"), "--save",
                             str(mnt / "s")], {0, 1}, shell_prefix="mount -t tmpfs -o size=%s tmpfs %s &&" % (size, q(mnt)),
                            folders=[mnt, mnt / "s"], reason=["No space left on device"]))
    # 7. a slow or misbehaving gnuplot (1 s limit)
    fakes = {
        "never reads": "exec sleep 30",
        "reads then sleeps": "cat >/dev/null; exec sleep 30",
        "floods stderr": "while :; do echo 'warning: noise noise noise noise noise'; done >&2",
        "floods stdout": "exec cat /dev/zero",
        "child holds pipes": "(sleep 30 &) ; cat >/dev/null; exit 0",
        "closes stdin": "exec 0<&-; sleep 0.2; exit 0",
        "reads a bit": "head -c 10 >/dev/null; exec sleep 30",
        "exits at once": "exit 0",
    }
    for label, body in fakes.items():
        env = fake(label.replace(" ", "-"), body)
        for program in PROGRAMS:
            folder = plots("fake-" + label.replace(" ", "-"), program)
            out.append(Case("slow gnuplot", program, QUICK.get(program, []) + ["--plots", str(folder)], {1}, env=env,
                            folders=[folder], check=lambda c, o, e, s: ["hang: %.0f s" % s] if s > 30 else []))
    # 8. huge sizes
    huge = [("ch02_swap_query", ["--width", "100000", "--dk", "200"]), ("ch02_swap_query", ["--width", "100000", "--dk", "2048"]),
            ("ch02_swap_query", ["--width", "1", "--dk", "2048"]), ("ch02_swap_query", ["--width", "1", "--dk", "1"]),
            ("ch03_values", ["--tokens", "1000000", "--heads", "1000000", "--blocks", "1000000"]),
            ("ch03_values", ["--tokens", "9223372036854775807"]), ("ch03_values", ["--heads", "4294967296"]),
            ("ch04_scaling", ["--samples", "200000"]), ("ch04_scaling", ["--samples", "100"]),
            ("ch04_scaling", ["--scores", ",".join(["1"] * 10000)]), ("ch04_scaling", ["--scores", ",".join(["1"] * 60000)]),
            ("ch07_linear_memory", ["--bench", "--bench-max", "1"]), ("ch07_linear_memory", ["--bench", "--bench-max", "2"]),
            ("ch08_induction", ["--steps", "1", "--quick"]), ("ch08_induction", ["--width", "4", "--heads", "4", "--quick"]),
            ("ch05_training", ["--passes", "1", "--no-companions"]), ("ch05_training", ["--walkthrough", "--updates", "100000"]),
            ("ch01_mixing", ["--sentence", " ".join(["bank"] * 64)]), ("ch06_masking", ["--sentence", " ".join(["the"] * 64)]),
            ("ch03_values", ["--sentence", " ".join(["river"] * 64)])]
    for k, (program, a) in enumerate(huge):
        folder = plots("huge-%d" % k, program)
        out.append(Case("huge sizes", program, a + ["--plots", str(folder)], {0, 2}, folders=[folder],
                        check=lambda c, o, e, s: ["hang: %.0f s" % s] if s > 60 else []))
        out.append(Case("huge sizes", program, a + ["--no-plots"], {0, 1, 2}, shell_prefix="ulimit -v 400000;",
                        reason=["memory"], check=lambda c, o, e, s: ["message: bad_alloc shown raw"] if "bad_alloc" in e else []))
    # 9. accepted values that could print NaN or inf (checked on stdout)
    finite = [("ch04_scaling", ["--length", "0", "--angle", "90"]), ("ch04_scaling", ["--length", "0.000001"]),
              ("ch04_scaling", ["--scores", "1e6,1e6,1e6"]), ("ch04_scaling", ["--scores", "-1e6,1e6"]),
              ("ch04_scaling", ["--scores", "0"]), ("ch04_scaling", ["--samples", "100", "--seed", "0"]),
              ("ch01_mixing", ["--scale", "1000", "--sentence", "bank bank bank"]), ("ch01_mixing", ["--scale", "-1000"]),
              ("ch01_mixing", ["--scale", "0"]), ("ch01_mixing", ["--sentence", "the"]), ("ch01_mixing", ["--sentence", "bank"]),
              ("ch02_swap_query", ["--wq", "1e6 1e6 1e6; 1e6 1e6 1e6; 1e6 1e6 1e6; 1e6 1e6 1e6"]),
              ("ch02_swap_query", ["--wq", "-1e6 1e6 -1e6; 1e6 -1e6 1e6; 1e6 1e6 1e6; 1e6 1e6 1e6", "--sentence", "the"]),
              ("ch02_swap_query", ["--sentence", "the"]), ("ch03_values", ["--sentence", "the"]),
              ("ch03_values", ["--tokens", "1", "--heads", "1", "--blocks", "1"]), ("ch06_masking", ["--sentence", "the"]),
              ("ch06_masking", ["--sentence", "bank", "--causal"]), ("ch05_training", ["--lr", "10", "--passes", "5"]),
              ("ch05_training", ["--walkthrough", "--lr", "10", "--updates", "50"]),
              ("ch05_training", ["--walkthrough", "--lr", "4.9e-324"]), ("ch08_induction", ["--quick", "--lr", "1e-300"]),
              ("ch07_linear_memory", ["--seed", "4294967295"]), ("ch04_scaling", ["--seed", "9223372036854775807"])]
    for k, (program, a) in enumerate(finite):
        folder = plots("finite-%d" % k, program)
        out.append(Case("not finite", program, a + ["--plots", str(folder)], {0, 1, 2}, folders=[folder],
                        reason=["diverged"]))
    return out


def sanitizer_cases(base):
    if SAN is None or not (SAN / "chapters.txt").exists():
        return []
    san = programs(SAN)
    out = []
    for k, c in enumerate(base):
        if c.category in ("standard fds", "slow gnuplot", "file size limit", "words to gnuplot", "not finite") and \
                c.program in san and k % 3 == 0:
            d = Case("sanitizers", c.program, c.argv, c.expect, c.shell_prefix, c.redirect, dict(c.env), c.folders,
                     c.reason, c.about, c.check, exe=san[c.program])
            d.env.setdefault("ATTN_GNUPLOT_TIMEOUT", "20")
            out.append(d)
    return out


def main():
    import concurrent.futures as cf
    base = cases()
    # With --sanitize-dir, only the sanitizer sample runs (the release cases are a separate run).
    all_cases = sanitizer_cases(base) if SAN else base
    print("trial b: %d generated cases, work folder %s" % (len(all_cases), WORK))
    results = []
    try:
        with cf.ThreadPoolExecutor(max_workers=2) as pool:
            futures = {pool.submit(run, c): c for c in all_cases}
            for f in cf.as_completed(futures):
                c = futures[f]
                try:
                    results.append((c, f.result()))
                except Exception as e:  # the harness itself (an argument list too long, ...)
                    results.append((c, ["harness: %s" % e]))
    finally:
        if ROOT_USER:
            subprocess.run("grep -o '%s[^ ]*' /proc/mounts | xargs -r -n1 umount" % (WORK / "tmpfs"), shell=True)
    by = {}
    kinds = {}
    for c, problems in results:
        total, bad = by.get(c.category, (0, 0))
        by[c.category] = (total + 1, bad + (1 if problems else 0))
        for p in problems:
            k = p.split(":")[0].split(" ")[0]
            kinds[k] = kinds.get(k, 0) + 1
        if problems:
            shown = [a if len(a) < 50 else a[:47] + "..." for a in c.argv]
            print("FAIL [%s] %s %s %r %s: %s" % (c.category, c.program, c.shell_prefix, shown, c.redirect,
                                                  "; ".join(problems)))
    print("\n%-20s %6s %6s %6s" % ("category", "cases", "held", "failed"))
    for category, (total, bad) in by.items():
        print("%-20s %6d %6d %6d" % (category, total, total - bad, bad))
    failed = sum(1 for _, p in results if p)
    print("%-20s %6d %6d %6d" % ("total", len(results), len(results) - failed, failed))
    print("problems by kind: " + (", ".join("%s %d" % kv for kv in sorted(kinds.items())) or "none"))
    left = [str(p) for p in WORK.rglob(".attn-tmp-*")]
    print("temporaries left anywhere after the trial: %d" % len(left))
    shutil.rmtree(WORK, ignore_errors=True)
    return 1 if failed or left else 0


if __name__ == "__main__":
    sys.exit(main())
