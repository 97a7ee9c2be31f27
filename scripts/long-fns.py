#!/usr/bin/env python3
"""List the Rust functions longer than N lines (ARCHITECTURE.md: no function
over 120 lines in src/, tables of data excepted).

usage: scripts/long-fns.py [-n LINES] [--check] [--under DIR]... [PATH...]

A function runs from the line of its `fn` to the line of the brace that
closes its body. Braces are matched on the code alone: comments (nested
block comments included), strings (raw, byte and C strings included) and
char literals are blanked first, so a `{` or `}` in any of them counts for
nothing; a lifetime (`'a`) is not taken for a char literal. A function
inside another is listed on its own, and counted in the outer one too.

PATH is a file or folder (default: src/). `--under DIR` keeps only the
functions of files under DIR (repeatable). `--check` exits 1 when a
function is listed that is not in TABLES below (functions that are one
table of data, which the rule excepts).
"""

import argparse
import os
import re
import sys

# Functions that are one table of data (a match of constants, a list of
# rows): the rule excepts them. "path:function".
TABLES: set[str] = set()


def blank(text: str) -> str:
    """The text with comments, strings and char literals made spaces
    (newlines kept, so line numbers stay)."""
    out = []
    i, n = 0, len(text)

    def keep_lines(s: str) -> str:
        return "".join(c if c == "\n" else " " for c in s)

    while i < n:
        c = text[i]
        # Comments.
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
            continue
        if text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(keep_lines(text[i:j]))
            i = j
            continue
        # Raw strings: r"..", r#".."#, br#".."#, cr"..".
        m = re.compile(r'(?:b|c)?r(#*)"').match(text, i)
        if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = '"' + m.group(1)
            j = text.find(end, m.end())
            j = n if j < 0 else j + len(end)
            out.append(keep_lines(text[i:j]))
            i = j
            continue
        # Strings: "..", b"..", c"..".
        m = re.compile(r'(?:b|c)?"').match(text, i)
        if m and (c == '"' or i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            j = m.end()
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(keep_lines(text[i:j]))
            i = j
            continue
        # Char literals ('x', '\n', '\u{1F600}', b'x'); a lifetime or label
        # ('a, 'static) has no closing quote right after one char.
        m = re.compile(r"b?'(?:\\(?:u\{[0-9a-fA-F_]*\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'").match(text, i)
        if m and (c == "'" or i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            out.append(" " * (m.end() - i))
            i = m.end()
            continue
        out.append(c)
        i += 1
    return "".join(out)


FN = re.compile(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)")


def functions(text: str):
    """(name, first line, last line) of every function with a body."""
    code = blank(text)
    starts = [0]
    for k, ch in enumerate(code):
        if ch == "\n":
            starts.append(k + 1)

    def line(off: int) -> int:
        lo, hi = 0, len(starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if starts[mid] <= off:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    for m in FN.finditer(code):
        # The signature ends at the body's `{`, or at `;` (no body), outside
        # parentheses and brackets (`[u8; 4]`).
        depth, j = 0, m.end()
        while j < len(code):
            ch = code[j]
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif depth == 0 and ch in "{;":
                break
            j += 1
        if j >= len(code) or code[j] == ";":
            continue
        braces, k = 0, j
        while k < len(code):
            if code[k] == "{":
                braces += 1
            elif code[k] == "}":
                braces -= 1
                if braces == 0:
                    break
            k += 1
        yield m.group(1), line(m.start()), line(k)


def rust_files(paths):
    for p in paths:
        if os.path.isfile(p):
            yield p
            continue
        for root, dirs, files in os.walk(p):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(".rs"):
                    yield os.path.join(root, f)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=120, help="longest allowed, in lines (default 120)")
    ap.add_argument("--check", action="store_true", help="exit 1 if a function not in TABLES is listed")
    ap.add_argument("--under", action="append", default=[], help="only files under this folder")
    ap.add_argument("paths", nargs="*", default=["src"])
    args = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    under = [os.path.normpath(u) + os.sep for u in args.under]
    found = []
    for path in rust_files(args.paths):
        path = os.path.normpath(path)
        if under and not any(path.startswith(u) for u in under):
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for name, first, last in functions(text):
            length = last - first + 1
            if length > args.n:
                found.append((length, path, first, name))
    found.sort(key=lambda x: (-x[0], x[1], x[2]))
    bad = 0
    for length, path, first, name in found:
        table = f"{path}:{name}" in TABLES
        bad += not table
        print(f"{length:5} {path}:{first} {name}{'  (table of data)' if table else ''}")
    if args.check and bad:
        print(f"{bad} function(s) over {args.n} lines", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
