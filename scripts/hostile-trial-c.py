#!/usr/bin/env python3
"""A third trial of hostile cases: memory limits, inputs that could hang, torn and forged saved
sets, outputs that are not regular files, flags a mode ignores, corpora in other encodings and
closed pipes. Run it after scripts/hostile-trial.py and scripts/hostile-trial-b.py.

Usage: scripts/hostile-trial-c.py [BUILD_DIR]   (default: build/release)

Every case is checked for:
  hang       the run exceeds its time limit
  partial    a temporary (.attn-tmp-*) is left, a saved set does not match its manifest, or a file
             the program was not asked to write (a link, a device, a FIFO) was replaced
  exit code  not the one the rule gives (0 ok, 2 usage, 1 runtime, 141 a closed pipe), or a crash
  message    an error that is not one line "<program>: error: ...", or that does not name what
             it is about
  garbage    NaN or inf in the printed output of a run that succeeded
Prints the counts by class and every failure, and exits 1 if any case failed.
"""
import concurrent.futures as cf
import os
import random
import re
import shutil
import signal
import stat
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
WORK = Path(tempfile.mkdtemp(prefix="attn-trial-c-"))
SHORT = {"ch05_training": ["--no-companions", "--passes", "20"], "ch08_induction": ["--quick", "--steps", "20"],
         "ch09_real_heads": ["--quick", "--steps", "10"]}


def fnv1a(data):
    h = 14695981039346656037
    for c in data:
        h ^= c
        h = (h * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def forge(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["attn-file-set 1"]
    for name, data in sorted(files.items()):
        (folder / name).write_bytes(data)
        lines.append("%s %d %s" % (name, len(data), fnv1a(data)))
    (folder / "manifest.txt").write_text("\n".join(lines) + "\n")


def set_matches(folder):
    manifest = folder / "manifest.txt"
    if not manifest.exists():
        return True
    for line in manifest.read_text().splitlines()[1:]:
        name, size, digest = line.split()
        data = (folder / name).read_bytes()
        if str(len(data)) != size or fnv1a(data) != digest:
            return False
    return True


class Case:
    def __init__(self, klass, program, args, expect, mentions=None, shell=None, limit=60, check=None):
        self.klass, self.program, self.args, self.expect = klass, program, args, expect
        self.mentions, self.shell, self.limit, self.check = mentions, shell, limit, check


def run(case):
    problems = []
    cwd = WORK / "cwd"
    cwd.mkdir(exist_ok=True)
    argv = [PROGRAMS[case.program]] + case.args
    command = case.shell.replace("PROG", " ".join("'%s'" % a for a in argv)) if case.shell else None
    start = time.monotonic()
    try:
        if command:
            p = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, timeout=case.limit,
                               stdin=subprocess.DEVNULL)
        else:
            p = subprocess.run(argv, cwd=cwd, capture_output=True, timeout=case.limit, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return ["hang"], time.monotonic() - start
    out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    err_lines = [l for l in err.splitlines() if not l.startswith("  step ")]
    code = p.returncode
    if case.expect == "either":  # a forged field: refused naming its file, or read and reported cleanly
        case.expect = 2 if code == 2 else 0
        case.mentions = "run.txt" if "run.txt" in err else "model.txt"
    if case.klass == "closed pipe" and case.expect == 0 and err:
        problems.append("message: %r (a closed pipe ends quietly)" % err[:200])
    if code != case.expect:
        problems.append("exit code %s, expected %s: %s" % (code, case.expect, " | ".join(err_lines)[:300]))
    if case.expect in (1, 2):
        if len(err_lines) != 1 or not err_lines[0].startswith(case.program + ": error: "):
            problems.append("message: %r" % err[:300])
        elif case.mentions and case.mentions not in err_lines[0]:
            problems.append("message does not name %r: %s" % (case.mentions, err_lines[0][:300]))
        if case.expect == 2 and out:
            problems.append("message: output before a usage error")
    if case.expect == 0 and (re.search(r"\bnan\b", out, re.I) or
                             (case.program != "ch06_masking" and re.search(r"\binf\b", out, re.I))):
        problems.append("garbage: nan or inf printed")  # ch06 prints -inf for masked scores
    if case.check:
        problems += case.check()
    for tmp in WORK.rglob(".attn-tmp-*"):
        # Two cases run at once: a temporary of a program that still runs (the other case's) is
        # in use, not left; one whose process is gone is.
        if pid_runs(tmp.name.split("-")[2]):
            continue
        problems.append("partial: %s left" % tmp)
        tmp.unlink(missing_ok=True)
    return problems, time.monotonic() - start


def memory_cases():
    cases = []
    for name in PROGRAMS:
        for limit in range(90000, 330000, 12000):
            args = ["--no-plots"] + SHORT.get(name, [])
            cases.append(Case("memory limit", name, args, 1, "out of memory",
                              shell="ulimit -v %d; exec PROG" % limit, limit=30))
        for limit in [700000, 1000000]:
            args = ["--no-plots"] + SHORT.get(name, [])
            cases.append(Case("memory limit", name, args, 0, shell="ulimit -v %d; exec PROG" % limit, limit=120))
    return cases


def special_output_cases():
    cases = []
    d = WORK / "special"
    d.mkdir()
    os.symlink("/dev/null", d / "to-null")
    os.symlink("/dev/zero", d / "to-zero")
    os.symlink(d / "nowhere", d / "dangling")
    os.symlink("/proc/self/fd/1", d / "to-stdout")
    os.mkfifo(d / "fifo")
    (d / "folder").mkdir()
    targets = {"/dev/stdout": "/dev", "/dev/stderr": "/dev", "/dev/fd/1": "/dev", "/dev/null": "/dev",
               "/dev/full": "/dev", "/dev/tty": "/dev", "/proc/self/fd/1": "/proc", "/proc/self/comm": "/proc",
               "/sys/kernel/x": "/sys", str(d / "to-null"): "character device", str(d / "to-zero"): "character device",
               str(d / "dangling"): "leads nowhere", str(d / "fifo"): "FIFO", str(d / "folder"): "folder",
               str(d / "to-stdout"): "loss-log"}
    before = {p: os.lstat(p) for p in ["/dev/stdout", "/dev/stderr", "/dev/null", "/dev/full"]}

    def untouched():
        return ["partial: %s replaced" % p for p, st in before.items()
                if os.lstat(p).st_mode != st.st_mode or os.lstat(p).st_ino != st.st_ino]

    # The case with stdout in a file replaces the link to-stdout (a link to a regular file), so it
    # gets a link of its own: the case with stdout a pipe must still find a link to a FIFO.
    os.symlink("/proc/self/fd/1", d / "to-stdout-redirected")
    for target, mentions in targets.items():
        for redirect in ["", " > %s" % (WORK / "out.txt")]:
            if target.endswith("to-stdout") and redirect:
                target = target + "-redirected"
            # A link of the user's own that leads to a regular file (stdout redirected) is replaced.
            expect = 0 if "to-stdout" in target and redirect else 2
            cases.append(Case("output not a file", "ch05_training", ["--no-plots", "--loss-log", target], expect,
                              mentions, shell="exec PROG" + redirect, check=untouched))
    for folder, mentions in [("/dev", "/dev"), ("/proc/self", "/proc"), ("/sys", "")]:
        for name in ["ch05_training", "ch09_real_heads"]:
            cases.append(Case("output not a file", name, ["--no-plots", "--save", folder] + SHORT[name], 2, mentions,
                              check=untouched))
    for name, files in [("ch05_training", ["E.txt", "Wq.txt", "bc.txt", "manifest.txt"]),
                        ("ch09_real_heads", ["model.txt", "run.txt", "manifest.txt"])]:
        for f in files:
            for kind in ["folder", "fifo", "to-null", "dangling"]:
                s = WORK / ("save-%s-%s-%s" % (name, f, kind))
                s.mkdir()
                if kind == "folder":
                    (s / f).mkdir()
                elif kind == "fifo":
                    os.mkfifo(s / f)
                elif kind == "to-null":
                    os.symlink("/dev/null", s / f)
                else:
                    os.symlink(s / "nowhere", s / f)
                cases.append(Case("output not a file", name, ["--no-plots", "--save", str(s)] + SHORT[name], 2, f))
    for plots in ["/dev", "/proc/self"]:
        cases.append(Case("output not a file", "ch01_mixing", ["--plots", plots], 2, ""))
    return cases


def input_cases():
    cases = []
    good = WORK / "ch05-set"
    subprocess.run([PROGRAMS["ch05_training"], "--no-plots", "--no-companions", "--passes", "5", "--save", str(good)],
                   capture_output=True, check=True)
    for i, group in enumerate(["E", "Wq", "Wk", "Wv", "Wc", "bc"]):
        for kind in ["fifo", "zero", "random", "folder", "dangling", "big", "socket"]:
            d = WORK / ("init-%s-%s" % (group, kind))
            shutil.copytree(good, d)
            (d / "manifest.txt").unlink()
            p = d / (group + ".txt")
            p.unlink()
            if kind == "fifo":
                os.mkfifo(p)
            elif kind == "zero":
                os.symlink("/dev/zero", p)
            elif kind == "random":
                os.symlink("/dev/urandom", p)
            elif kind == "folder":
                p.mkdir()
            elif kind == "dangling":
                os.symlink(d / "nowhere", p)
            elif kind == "big":
                p.write_text("1 " * (1 << 20))
            else:
                import socket
                s = socket.socket(socket.AF_UNIX)
                s.bind(str(p))
            cases.append(Case("input that could hang", "ch05_training", ["--no-plots", "--init", str(d)], 2,
                              group + ".txt", limit=20))
    for f in ["run.txt", "model.txt"]:
        for kind in ["fifo", "zero", "folder", "dangling", "big"]:
            d = WORK / ("load-%s-%s" % (f, kind))
            d.mkdir()
            if f == "model.txt":
                (d / "run.txt").write_text("ch09-run 3\n")
            p = d / f
            if kind == "fifo":
                os.mkfifo(p)
            elif kind == "zero":
                os.symlink("/dev/zero", p)
            elif kind == "folder":
                p.mkdir()
            elif kind == "dangling":
                os.symlink(d / "nowhere", p)
            else:
                with open(p, "wb") as out:
                    out.write(b"ch09-run 3\n" + b"x" * (40 << 20))
            for flag in ["--load", "--cached"]:
                cases.append(Case("input that could hang", "ch09_real_heads", ["--no-plots", flag, str(d)], 2, flag,
                                  limit=20))
    c = WORK / "corpus-fifo"
    c.mkdir()
    os.mkfifo(c / "fortune")
    cases.append(Case("input that could hang", "ch09_real_heads", ["--no-plots", "--quick", "--corpus", str(c)], 2,
                      "--corpus", limit=20))
    return cases


def saved_model_cases(model_dir):
    cases = []
    run_txt = (model_dir / "run.txt").read_bytes().decode()
    model_txt = (model_dir / "model.txt").read_bytes()
    lines = run_txt.splitlines()
    hostile = ["-1", "0", "-64", "18446744073709551552", "1e309", "nan", "inf", "-inf", "0x10", "1.5", "", "abc",
               "99999999999999999999", "1e-400", "+", "1e6", "4294967296", "2", "-0", "1e300"]
    k = 0
    for i, line in enumerate(lines[1:9], start=1):
        key = line.split()[0]
        for value in hostile:
            text = "\n".join(lines[:i] + ["%s %s" % (key, value)] + lines[i + 1:]) + "\n"
            if text == run_txt:
                continue
            d = WORK / ("forged-%d" % k)
            k += 1
            forge(d, {"run.txt": text.encode(), "model.txt": model_txt})
            cases.append(Case("saved model fields", "ch09_real_heads", ["--no-plots", "--load", str(d)], "either"))
    curve_at = run_txt.index("curve ")
    for extra in ["curve 0\n", "curve 1\n0 1 1\n", "curve 99\n", "curve -1\n", "curve 2\n0 1 1\n5 1 1\n"]:
        d = WORK / ("forged-%d" % k)
        k += 1
        forge(d, {"run.txt": (run_txt[:curve_at] + extra).encode(), "model.txt": model_txt})
        cases.append(Case("saved model fields", "ch09_real_heads", ["--no-plots", "--load", str(d)], 2, "run.txt"))
    for j, line in enumerate(lines[10:], start=10):
        for bad in ["nan", "-1", "1e9"]:
            parts = line.split()
            text = "\n".join(lines[:j] + [" ".join(parts[:2] + [bad])] + lines[j + 1:]) + "\n"
            d = WORK / ("forged-%d" % k)
            k += 1
            forge(d, {"run.txt": text.encode(), "model.txt": model_txt})
            cases.append(Case("saved model fields", "ch09_real_heads", ["--no-plots", "--load", str(d)], 2, "run.txt"))
    numbers = re.compile(rb"^-?[0-9]")
    for scale in [b"999999", b"-999999", b"300", b"1e5"]:
        out = []
        for line in model_txt.split(b"\n"):
            out.append(b" ".join(scale for _ in line.split()) if numbers.match(line) else line)
        d = WORK / ("forged-%d" % k)
        k += 1
        forge(d, {"run.txt": run_txt.encode(), "model.txt": b"\n".join(out)})
        cases.append(Case("saved model fields", "ch09_real_heads", ["--no-plots", "--load", str(d)], "either"))
    for t in range(10):  # torn: one file of the set from another save
        d = WORK / ("torn-%d" % t)
        shutil.copytree(model_dir, d)
        with open(d / ("run.txt" if t % 2 else "model.txt"), "ab") as f:
            f.write(b"\n" * (t + 1))
        cases.append(Case("torn set", "ch09_real_heads", ["--no-plots", "--load", str(d)], 2, "not saved together"))
    return cases


def bench_cases():
    cases = []
    for flag in [["--save", str(WORK / "b")], ["--load", str(WORK / "b")], ["--cached", str(WORK / "b")],
                 ["--sentence", "hello"], ["--corpus", "/tmp"], ["--steps", "5"], ["--repeat-share", "0.5"]]:
        for n in ["1", "2"]:
            cases.append(Case("flags a mode ignores", "ch09_real_heads", ["--bench", n] + flag, 2, "does not apply"))
    return cases


def pipe_cases():
    cases = []
    for name in PROGRAMS:
        args = ["--no-plots"] + SHORT.get(name, [])
        cases.append(Case("closed pipe", name, args, 0,
                          shell="( sleep 0.3; PROG; c=$?; [ $c = 141 ] || echo exit $c >&2 ) | true"))
        cases.append(Case("closed pipe", name, args, 1, "Broken pipe",
                          shell="trap '' PIPE; { sleep 0.3; PROG; } | true; exit ${PIPESTATUS[0]}"))
        cases.append(Case("closed pipe", name, args, 1, "No space left", shell="exec PROG > /dev/full"))
    return cases


def corpus_cases():
    cases = []
    rng = random.Random(7)
    words = {"utf8": "naïve café über 日本語 the river bank money ünïcödé".split(),
             "latin1": None, "binary": None, "crlf": "the river bank money old road".split(),
             "tabs": "the\triver\tbank money\told road".split()}
    for enc in words:
        d = WORK / ("corpus-" + enc)
        d.mkdir()
        entries = []
        for _ in range(600):
            if enc == "latin1":
                entries.append(bytes(rng.choice(b"abc \xe9\xe8\xfc\xf1") for _ in range(60)))
            elif enc == "binary":
                entries.append(bytes(rng.randrange(256) for _ in range(60)).replace(b"%", b"x"))
            else:
                sep = "\r\n" if enc == "crlf" else "\n"
                entries.append(" ".join(rng.choice(words[enc]) for _ in range(12)).replace("\n", sep).encode())
        (d / "fortune").write_bytes(b"\n%\n".join(entries))
        cases.append(Case("corpus encoding", "ch09_real_heads", ["--no-plots", "--quick", "--steps", "20",
                                                                  "--corpus", str(d)], 0, limit=180))
    return cases


def signal_cases(n):
    """SIGTERM or SIGINT at random moments of ch05 --save into a folder that holds an older set."""
    cases = []
    base = WORK / "signals"
    base.mkdir()
    for i in range(n):
        d = base / str(i)

        def check(d=d):
            return [] if set_matches(d) else ["partial: the set in %s does not match its manifest" % d]

        delay = 0.05 + (i % 20) * 0.04
        sig = "TERM" if i % 2 else "INT"
        shell = ("PROG --no-plots --no-companions --passes 20 --save %s >/dev/null 2>&1; "
                 "PROG --no-plots --no-companions --passes 20 --seed 3 --save %s >/dev/null 2>&1 & p=$!; "
                 "sleep %.2f; kill -%s $p 2>/dev/null; wait $p; c=$?; "
                 "[ $c = 0 ] || [ $c = 130 ] || [ $c = 143 ] || { echo \"ch05_training: error: exit $c\" >&2; exit 1; }; "
                 "exit 0") % (d, d, delay, sig)
        cases.append(Case("signal during a save", "ch05_training", [], 0, shell=shell.replace("PROG", "PROGBARE"),
                          check=check))
        cases[-1].shell = cases[-1].shell.replace("PROGBARE", PROGRAMS["ch05_training"])
        cases[-1].args = []
    return cases


def main():
    model_dir = WORK / "model"
    p = subprocess.run([PROGRAMS["ch09_real_heads"], "--no-plots", "--quick", "--steps", "20", "--save",
                        str(model_dir)], capture_output=True)
    if p.returncode != 0:
        sys.exit("cannot save a model to forge: " + p.stderr.decode())
    cases = (memory_cases() + special_output_cases() + input_cases() + saved_model_cases(model_dir) + bench_cases()
             + pipe_cases() + corpus_cases() + signal_cases(160))
    totals, failures = {}, []
    with cf.ThreadPoolExecutor(max_workers=2) as pool:
        futures = {pool.submit(run_case, c): c for c in cases}
        for f in cf.as_completed(futures):
            c = futures[f]
            problems = f.result()
            t = totals.setdefault(c.klass, [0, 0])
            t[0] += 1
            if problems:
                t[1] += 1
                failures.append((c, problems))
    print("%-24s %6s %6s" % ("class", "cases", "failed"))
    for k, (n, bad) in sorted(totals.items()):
        print("%-24s %6d %6d" % (k, n, bad))
    print("%-24s %6d %6d" % ("total", sum(t[0] for t in totals.values()), sum(t[1] for t in totals.values())))
    for c, problems in failures:
        print("FAIL [%s] %s %s: %s" % (c.klass, c.program, " ".join(c.args)[:200], "; ".join(problems)[:400]))
    shutil.rmtree(WORK, ignore_errors=True)
    return 1 if failures else 0


def pid_runs(pid):
    """Whether process `pid` (the digits of a temporary's name) still runs."""
    try:
        os.kill(int(pid), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


def run_case(case):
    return run(case)[0]


if __name__ == "__main__":
    sys.exit(main())
