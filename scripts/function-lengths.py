#!/usr/bin/env python3
"""Lists functions longer than a limit (default 60 lines, the signature's first line to the closing brace).

Usage: scripts/function-lengths.py [--limit N] FILE...   (exit 1 if one is longer, unless allowed)

A definition starts at column 0 (the project does not indent inside namespaces) and ends at the
first later line that is a lone "}" at column 0. A function may be exempted with a comment
`// long function: <why>` on one of the two lines above its signature (the other may be clang-tidy's
`// NOLINTNEXTLINE(readability-function-size)`) (the models' forward and backward
passes, which read best as one page of the mathematics).
"""
import re
import sys

def functions(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    skip = re.compile(r"^(namespace|struct|class|enum|union|extern|#|//|\}|$|template)")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line and not line[0].isspace() and not skip.match(line) and "(" in line:
            start = i
            j = i
            while j < len(lines) and not lines[j].rstrip().endswith("{") and not lines[j].rstrip().endswith(";"):
                j += 1
            if j < len(lines) and lines[j].rstrip().endswith("{") and not lines[j].rstrip().endswith("= {"):
                k = j + 1
                while k < len(lines) and lines[k] != "}":
                    k += 1
                above = lines[max(0, start - 2):start]  # the reason, then perhaps clang-tidy's NOLINTNEXTLINE
                allowed = any(line.startswith("// long function:") for line in above)
                yield start + 1, k - start + 1, line.strip(), allowed
                i = k
        i += 1

def main(argv):
    limit = 60
    if len(argv) > 1 and argv[1] == "--limit":
        limit = int(argv[2])
        argv = argv[2:]
    status = 0
    for path in argv[1:]:
        for line, length, signature, allowed in functions(path):
            if length > limit:
                print(f"{path}:{line}: {length} lines{' (allowed)' if allowed else ''}: {signature}")
                if not allowed:
                    status = 1
    return status

if __name__ == "__main__":
    sys.exit(main(sys.argv))
