#!/usr/bin/env python3
"""Checks that every chapter folder has a README.md whose code references still point where they say.

Usage: scripts/check-chapter-readmes.py ROOT   (exit 1 on the first problem of each README, listed)

A reference is written `path:LINE` `code`: the file (from the repository root) and a line number,
then a piece of that line's code. A reference holds when line LINE of the file contains the code.
Each README must name its program's run command and give at least one reference.
"""
import pathlib
import re
import sys

REFERENCE = re.compile(r"`([\w./-]+\.(?:cpp|hpp)):(\d+)` `([^`]+)`")


def problems(root, folder):
    readme = folder / "README.md"
    if not readme.is_file():
        return [f"{folder.relative_to(root)}: no README.md"]
    text = readme.read_text(encoding="utf-8")
    found = []
    refs = REFERENCE.findall(text)
    if not refs:
        found.append(f"{readme.relative_to(root)}: no `path:line` `code` reference to the formula")
    for path, line, code in refs:
        source = root / path
        if not source.is_file():
            found.append(f"{readme.relative_to(root)}: {path} does not exist")
            continue
        lines = source.read_text(encoding="utf-8").split("\n")
        n = int(line)
        if not 1 <= n <= len(lines) or code not in lines[n - 1]:
            where = [str(i + 1) for i, l in enumerate(lines) if code in l]
            found.append(f"{readme.relative_to(root)}: {path}:{n} does not hold `{code}`"
                         + (f" (it is on line {', '.join(where)})" if where else " (no line does)"))
    if f"build/release/chapters/{folder.name}/ch" not in text:
        found.append(f"{readme.relative_to(root)}: no command running build/release/chapters/{folder.name}/...")
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = pathlib.Path(sys.argv[1])
    found = []
    for folder in sorted(p for p in (root / "chapters").iterdir() if p.is_dir()):
        found += problems(root, folder)
    for p in found:
        print(p)
    print(f"check-chapter-readmes: {len(found)} problem(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
