#!/usr/bin/env python3
"""A trial of hostile cases against the eight chapter programs.

Usage: scripts/hostile-trial.py [BUILD_DIR]   (default: build/release)

Generates cases programmatically: every value-taking flag of every chapter (read from its --help)
with hostile values; hostile --plots folder names; unusable parameter files; unusable outputs;
broken standard output; a fake gnuplot that hangs, crashes, fails or writes garbage; signals in the
middle of a run; concurrent runs into one folder; diverging training. Every case is checked for:
  injection  a marker file that a shell or gnuplot would create appears
  hang       the run exceeds its time limit (60 s)
  partial    a temporary (.attn-tmp-*) or a .dat without its PNG is left, or an old file is damaged
  exit code  not the one the rule gives (0 ok, 2 usage, 1 runtime), or a crash (signal)
  message    an error that is not one line "<program>: error: ...", carries an ESC byte, is longer
             than 400 characters, or does not name the flag or value it is about
Prints the counts by category and every failure, and exits 1 if any case failed.
"""
import concurrent.futures as cf
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "release"
PROGRAMS = {}
for line in (BUILD / "chapters.txt").read_text().splitlines():
    path = line.split("\t")[0]
    PROGRAMS[Path(path).name] = path
# Flags that keep a full run short (plots drawn).
QUICK = {
    "ch05_training": ["--no-companions", "--passes", "20"],
    "ch08_induction": ["--quick", "--steps", "60"],
    "ch09_real_heads": ["--quick", "--steps", "20"],  # the default run trains for minutes
}
WORK = Path(tempfile.mkdtemp(prefix="attn-trial-"))
MARKER = WORK / "OWNED"
LIMIT = 60
SIGNAL_OUTCOMES = []  # exit codes of the signal cases: -N killed by signal N mid-run, 0 finished first


class Case:
    def __init__(self, category, program, args, expect, env=None, stdout=None, cwd=None, check=None, about=None,
                 signal_after=None):
        self.category, self.program, self.args, self.expect = category, program, args, expect
        self.env, self.stdout, self.cwd, self.check, self.about = env, stdout, cwd, check, about
        self.signal_after = signal_after


def run(case):
    """Runs one case; returns a list of problems (empty: it held)."""
    cwd = case.cwd or (WORK / "cwd")
    cwd.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.update(case.env or {})
    argv = [PROGRAMS[case.program]] + case.args
    problems = []
    out_target = subprocess.PIPE
    closed = False
    if case.stdout == "full":
        out_target = open("/dev/full", "w")
    elif case.stdout == "closed":
        closed = True
    start = time.monotonic()
    try:
        if closed:
            p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 preexec_fn=lambda: os.close(1))
        else:
            p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out_target,
                                 stderr=subprocess.PIPE)
        if case.signal_after:
            sig, after = case.signal_after
            time.sleep(after)
            p.send_signal(sig)
        out, err = p.communicate(timeout=LIMIT)
        code = p.returncode
        if case.signal_after:
            SIGNAL_OUTCOMES.append(code)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return ["hang: no answer within %d s" % LIMIT]
    finally:
        if case.stdout == "full":
            out_target.close()
    out = out or b""
    err = err.decode("utf-8", "replace")
    if MARKER.exists():
        problems.append("injection: marker file appeared")
        MARKER.unlink()
    expect = case.expect if isinstance(case.expect, (set, frozenset)) else {case.expect}
    if code not in expect:
        problems.append("exit code %s, expected %s" % (code, sorted(expect)))
    if code in (1, 2):
        # training progress ("  step 20/20: loss ...", chapter 09) is not a message
        lines = [l for l in err.splitlines() if l and not l.startswith("  step ")]
        if not lines or any(not l.startswith(case.program + ": error: ") for l in lines):
            problems.append("message: not '<program>: error: ...' lines: %r" % err[:300])
        if code == 2 and len(lines) != 1:
            problems.append("message: a usage error in %d lines" % len(lines))
        if "\x1b" in err:
            problems.append("message: an ESC byte reached stderr")
        if any(len(l) > 400 for l in lines):
            problems.append("message: a line of %d characters" % max(len(l) for l in lines))
        if case.about and code == 2 and not any(a and a in err for a in case.about):
            problems.append("message hides the value: none of %r in %r" % (case.about, err[:200]))
    if code == 0 and b"nan" in out.lower().replace(b"nano", b"").replace(b"finance", b""):
        pass  # words like "nan" are checked by the chapter tests; printed numbers below
    # Temporaries left in the folders this case wrote to (other cases run beside it).
    leftovers = []
    for a in case.args:
        if a.startswith(str(WORK)):
            top = Path(a) if Path(a).is_dir() else Path(a).parent
            leftovers += [str(p) for p in top.rglob(".attn-tmp-*")] if top.exists() else []
    if leftovers:
        problems.append("partial: temporaries left: %s" % leftovers[:3])
    if case.check:
        problems += case.check(code, out, err)
    return problems


def escaped(text):
    """How app::cli::printable shows the start of a value."""
    out = ""
    for ch in text.encode("utf-8", "surrogateescape")[:20]:
        c = chr(ch)
        out += {"\x1b": "\\e", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\"}.get(
            c, c if 0x20 <= ch < 0x7f else "\\x%02x" % ch)
    return out


def flags_of(program):
    """Value-taking flags from --help: (flag, value name)."""
    text = subprocess.run([PROGRAMS[program], "--help"], capture_output=True, text=True).stdout
    flags = []
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0].startswith("--") and words[1].isupper() or (
                len(words) >= 2 and words[0].startswith("--") and ("|" in words[1] or words[1][:1].isupper())):
            if words[0] not in ("--plots",) and words[1][:1] != "[":
                flags.append(words[0])
    return flags


def png_ok(path):
    try:
        b = Path(path).read_bytes()
    except OSError:
        return False
    return len(b) > 45 and b[:8] == b"\x89PNG\r\n\x1a\n" and b[12:16] == b"IHDR" and b[-8:-4] == b"IEND"


def plots_landed(folder):
    def check(code, out, err):
        folder_p = Path(folder)
        if code != 0:
            return []
        pngs = list(folder_p.glob("*.png"))
        dats = list(folder_p.glob("*.dat"))
        bad = [p.name for p in pngs if not png_ok(p)]
        problems = []
        if not pngs:
            problems.append("partial: no PNG landed")
        if bad:
            problems.append("partial: invalid PNGs %s" % bad)
        for d in dats:
            stem = d.stem.rsplit("_", 1)[0] if not (folder_p / (d.stem + ".png")).exists() else d.stem
            if not (folder_p / (d.stem + ".png")).exists() and not (folder_p / (stem + ".png")).exists():
                problems.append("partial: %s without its PNG" % d.name)
        return problems
    return check


def no_data_without_png(folder):
    def check(code, out, err):
        return plots_landed(folder)(0, out, err) if Path(folder).exists() and list(Path(folder).glob("*.png")) else (
            ["partial: .dat files without PNGs"] if Path(folder).exists() and list(Path(folder).glob("*.dat")) else [])
    return check


def cases():
    out = []
    marker = str(MARKER)
    hostile_values = [
        "1e309", "-1e309", "1e-400", "0x10", "0x1p3", "nan", "-inf", "inf", "", " 1", "1 ", "1e", "+", "--1", "1,5",
        "99999999999999999999", "-0", "4.9e-324", "1e308", "-1e308", "+5", "1000.0000001", "-0.0001",
        "$(touch %s)" % marker, "`touch %s`" % marker, "sw\x1b[31map", "x" * 100000, "\n", "a;b", "'\"",
    ]
    # A. every value-taking flag with every hostile value (no plots: the values are the point)
    for program in PROGRAMS:
        for flag in flags_of(program):
            if flag in ("--save", "--loss-log", "--init"):
                continue  # paths: category D
            for v in hostile_values:
                # The message must name the flag, the value, one of its words, or its number as read.
                about = [flag, escaped(v)] + [escaped(w) for w in v.split()] + (["empty", "''"] if not v.strip() else [])
                try:
                    about.append("got %d" % int(v))
                except ValueError:
                    pass
                extra = []
                if program == "ch07_linear_memory" and flag == "--bench-max":
                    extra = ["--bench"]
                if program == "ch08_induction":
                    extra = ["--quick", "--steps", "20"] if flag != "--steps" else ["--quick"]
                if program == "ch05_training":
                    extra = ["--walkthrough"] if flag == "--updates" else ["--no-companions"]
                    if flag == "--passes":
                        extra = ["--no-companions"]
                if program == "ch09_real_heads" and flag not in ("--load", "--bench", "--gpt2", "--compare"):
                    extra = ["--quick", "--steps", "20"] if flag != "--steps" else ["--quick"]
                out.append(Case("flag values", program, extra + ["--no-plots", flag, v], {0, 2}, about=about))
    # B. hostile --plots folder names, every chapter: nothing runs, the plots land (or a clear refusal)
    names = ["p`touch %s`" % marker, "p$(touch %s)" % marker, "p\nsystem 'touch %s'" % marker,
             "p\"; system(\"touch %s\"); \"" % marker, "p'; system('touch %s'); '" % marker,
             "p; touch %s ;" % marker, "p\\\" `touch %s` \\" % marker, "p\x1b[31mred", "p @x", "p\ttab"]
    for program in PROGRAMS:
        for k, name in enumerate(names):
            folder = WORK / "names" / program / str(k) / name
            args = QUICK.get(program, []) + ["--plots", str(folder)]
            out.append(Case("hostile folder names", program, args, {0}, check=plots_landed(folder)))
    # C. parameter files that are not usable
    good = WORK / "params" / "good"
    subprocess.run([PROGRAMS["ch05_training"], "--no-plots", "--no-companions", "--passes", "5", "--save", str(good)],
                   capture_output=True)
    files = ["E.txt", "Wq.txt", "Wk.txt", "Wv.txt", "Wc.txt", "bc.txt"]
    faults = {
        "fifo": lambda p: os.mkfifo(p),
        "zero": lambda p: os.symlink("/dev/zero", p),
        "folder": lambda p: os.mkdir(p),
        "big": lambda p: p.write_bytes(b"1 " * (1 << 20)),
        "empty": lambda p: p.write_bytes(b""),
        "binary": lambda p: p.write_bytes(bytes(range(256))),
        "missing": lambda p: None,
        "hex": lambda p: p.write_text("0x1 0x2\n"),
        "overflow": lambda p: p.write_text("1e309 1\n"),
        "nan": lambda p: p.write_text("nan 1\n"),
        "escape": lambda p: p.write_text("\x1b[31m 1\n"),
    }
    for f in files:
        for fault, make in faults.items():
            d = WORK / "params" / ("%s-%s" % (f[:-4], fault))
            shutil.copytree(good, d)
            (d / f).unlink()
            make(d / f)
            out.append(Case("parameter files", "ch05_training", ["--no-plots", "--no-companions", "--init", str(d)], {2},
                            about=[f]))
    # D. outputs that cannot be written or would clash
    ro = "/sys"
    for program in PROGRAMS:
        base = WORK / "outputs" / program
        link_names = ("ch01_bank_weights", "ch01_mixtures", "ch01_scale_sweep") if program == "ch01_mixing" else ()
        base.mkdir(parents=True, exist_ok=True)
        (base / "file").write_text("x")
        q = QUICK.get(program, [])
        out.append(Case("outputs", program, q + ["--plots", "/dev/null/plots"], {2}, about=["/dev/null/plots"]))
        out.append(Case("outputs", program, q + ["--plots", str(base / "file")], {2}, about=["file"]))
        out.append(Case("outputs", program, q + ["--plots", ro], {2}, about=[ro]))
        out.append(Case("outputs", program, q + ["--plots", "--no-plots"], {2}, about=["--no-plots"]))
        out.append(Case("outputs", program, q + ["--plots", "-x"], {2}, about=["-x"]))
        # a link at every .dat name: replaced, the target untouched
        linked = base / "linked"
        linked.mkdir(parents=True, exist_ok=True)
        victim = base / "victim.txt"
        victim.write_text("keep\n")
        for n in link_names:
            try:
                os.symlink(victim, linked / (n + ".dat"))
            except FileExistsError:
                pass

        def victim_kept(code, out_, err, victim=victim):
            return [] if victim.read_text() == "keep\n" else ["partial: a link was followed, its target overwritten"]
        if link_names:
            out.append(Case("outputs", program, q + ["--plots", str(linked)], {0}, check=victim_kept))
    folder_png = WORK / "outputs" / "pngfolder"
    (folder_png / "ch01_mixtures.png").mkdir(parents=True, exist_ok=True)
    out.append(Case("outputs", "ch01_mixing", ["--plots", str(folder_png)], {1},
                    check=lambda c, o, e: ["PNG bytes on stdout"] if b"\x89PNG" in o else []))
    ch05 = WORK / "outputs" / "ch05"
    ch05.mkdir(parents=True, exist_ok=True)
    for args, about in [
        (["--loss-log", str(ch05 / "E.txt"), "--save", str(ch05)], ["--save"]),
        (["--save", ro], [ro]), (["--save", "/dev/null/x"], ["/dev/null/x"]), (["--loss-log", "/dev/full"], ["/dev/full"]),
        (["--loss-log", str(ch05)], ["ch05"]), (["--loss-log", "/sys/x"], ["/sys"]), (["--save", str(ch05 / "f")], ["f"]),
        (["--init", "--save"], ["--save"]), (["--save", ""], ["--save"]), (["--loss-log", "-"], ["-"]),
    ]:
        (ch05 / "f").write_text("x")
        out.append(Case("outputs", "ch05_training", ["--no-plots", "--no-companions"] + args, {2}, about=about))
    # E. standard output that cannot be written
    for program in PROGRAMS:
        q = QUICK.get(program, [])
        out.append(Case("standard output", program, q + ["--no-plots"], {1}, stdout="full"))
        out.append(Case("standard output", program, q + ["--no-plots"], {1}, stdout="closed"))
        out.append(Case("standard output", program, ["--help"], {1}, stdout="full"))
    # F. a broken gnuplot
    # The probe sends exactly "set terminal pngcairo"; a drawing starts with more on that line.
    PROBE = "read -r first; [ \"$first\" = \"set terminal pngcairo\" ] && exit 0; "
    fakes = {
        "hangs at the probe": "exec sleep 30",
        "crashes at the probe": "kill -SEGV $$",
        "aborts at the probe": "kill -ABRT $$",
        "hangs drawing": PROBE + "exec sleep 30",
        "fails drawing": PROBE + "echo 'line 1: nope' >&2; exit 1",
        "writes garbage": PROBE + "cat >/dev/null; echo junk",
        "talks on stdout": PROBE + "echo 'PNG bytes'; exit 0",
        "crashes drawing": PROBE + "kill -SEGV $$",
    }
    for label, body in fakes.items():
        bin_dir = WORK / "fake" / label.replace(" ", "-")
        bin_dir.mkdir(parents=True, exist_ok=True)
        (bin_dir / "gnuplot").write_text("#!/bin/sh\n" + body + "\n")
        (bin_dir / "gnuplot").chmod(0o755)
        for program in PROGRAMS:
            folder = WORK / "fakeplots" / label.replace(" ", "-") / program
            env = {"PATH": "%s:/usr/bin:/bin" % bin_dir, "ATTN_GNUPLOT_TIMEOUT": "0.5"}
            out.append(Case("broken gnuplot", program, QUICK.get(program, []) + ["--plots", str(folder)], {1}, env=env,
                            check=no_data_without_png(folder)))
    # environment: unusable TMPDIR, bad ATTN_GNUPLOT_TIMEOUT
    for program in PROGRAMS:
        folder = WORK / "tmpdir" / program
        out.append(Case("environment", program, QUICK.get(program, []) + ["--plots", str(folder)], {0},
                        env={"TMPDIR": "/nonexistent/x"}, check=plots_landed(folder)))
        out.append(Case("environment", program, ["--no-plots"], {2}, env={"ATTN_GNUPLOT_TIMEOUT": "0x5"},
                        about=["0x5"]))
    # G. signals in the middle of a run
    for k, (sig, after) in enumerate([(signal.SIGINT, 0.05), (signal.SIGTERM, 0.1), (signal.SIGINT, 0.2),
                                      (signal.SIGTERM, 0.3), (signal.SIGHUP, 0.15), (signal.SIGINT, 0.4),
                                      (signal.SIGTERM, 0.5), (signal.SIGINT, 0.7), (signal.SIGTERM, 0.9),
                                      (signal.SIGINT, 1.2)]):
        d = WORK / "signals" / str(k)
        d.mkdir(parents=True, exist_ok=True)
        (d / "loss.txt").write_text("old\n")

        def whole(code, out_, err, d=d):
            problems = []
            text = (d / "loss.txt").read_text()
            if text != "old\n" and len(text.splitlines()) != 20000:
                problems.append("partial: loss log has %d lines" % len(text.splitlines()))
            saved = [p for p in (d / "save").glob("*.txt") if p.name != "manifest.txt"] if (d / "save").exists() else []
            if saved and len(saved) != 6:
                problems.append("partial: %d of 6 parameter files" % len(saved))
            problems += no_data_without_png(d / "plots")(code, out_, err)
            return problems
        out.append(Case("signals", "ch05_training",
                        ["--passes", "20000", "--loss-log", str(d / "loss.txt"), "--save", str(d / "save"), "--plots",
                         str(d / "plots")], {0, -sig}, signal_after=(sig, after), check=whole))
    # H. concurrent runs into one folder: run as one case that starts three
    # I. divergence
    for lr in ["1", "0.9", "0.5"]:
        out.append(Case("divergence", "ch08_induction", ["--quick", "--no-plots", "--lr", lr], {0, 1},
                        check=lambda c, o, e: [] if c == 0 or "try a smaller --lr" in e else ["no divergence message"]))
    for lr in ["10", "5"]:
        out.append(Case("divergence", "ch05_training", ["--no-plots", "--no-companions", "--lr", lr], {0, 1},
                        check=lambda c, o, e: [] if c == 0 or "try a smaller --lr" in e else ["no divergence message"]))
    return out


def concurrent_cases():
    """Three runs of one chapter into one folder at once; every run must succeed."""
    results = []
    for program in ["ch01_mixing", "ch03_values", "ch06_masking", "ch02_swap_query", "ch04_scaling"]:
        folder = WORK / "concurrent" / program
        procs = [subprocess.Popen([PROGRAMS[program], "--plots", str(folder)], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE) for _ in range(3)]
        codes = [p.wait(timeout=LIMIT) for p in procs]
        problems = ["exit codes %s" % codes] if any(codes) else []
        problems += plots_landed(folder)(0, b"", "")
        results.append(("concurrent runs", program, ["--plots", "(3 at once)"], problems))
    return results


def main():
    all_cases = cases()
    print("trial: %d generated cases (+5 concurrent), work folder %s" % (len(all_cases), WORK))
    results = []
    with cf.ThreadPoolExecutor(max_workers=2) as pool:
        futures = {pool.submit(run, c): c for c in all_cases if c.category != "signals"}
        for f in cf.as_completed(futures):
            c = futures[f]
            results.append((c.category, c.program, c.args, f.result()))
    for c in all_cases:
        if c.category == "signals":  # one at a time, so the timing means something
            results.append((c.category, c.program, c.args, run(c)))
    results += concurrent_cases()
    by = {}
    failed = 0
    for category, program, args, problems in results:
        total, bad = by.get(category, (0, 0))
        by[category] = (total + 1, bad + (1 if problems else 0))
        if problems:
            failed += 1
            shown = [a if len(a) < 60 else a[:57] + "..." for a in args]
            print("FAIL [%s] %s %r: %s" % (category, program, shown, "; ".join(problems)))
    kinds = {"injection": 0, "hang": 0, "partial": 0, "exit code": 0, "message": 0}
    for _, _, _, problems in results:
        for p in problems:
            for k in kinds:
                if p.startswith(k):
                    kinds[k] += 1
    print("\n%-22s %6s %6s" % ("category", "cases", "failed"))
    for category, (total, bad) in by.items():
        print("%-22s %6d %6d" % (category, total, bad))
    print("%-22s %6d %6d" % ("total", len(results), failed))
    print("problems by kind: " + ", ".join("%s %d" % kv for kv in kinds.items()))
    print("signal cases: %d stopped by the signal mid-run, %d finished before it" %
          (sum(1 for c in SIGNAL_OUTCOMES if c < 0), sum(1 for c in SIGNAL_OUTCOMES if c == 0)))
    left = [str(p) for p in WORK.rglob(".attn-tmp-*")]
    print("temporaries left anywhere after the trial: %d" % len(left))
    shutil.rmtree(WORK, ignore_errors=True)
    return 1 if failed or left else 0


if __name__ == "__main__":
    sys.exit(main())
