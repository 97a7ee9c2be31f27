#!/usr/bin/env python3
"""Seed the fuzz corpora (fuzz/corpus/<target>/, git-ignored) from the
fixtures and from /work/shared/realworld (or REALWORLD=DIR), by dialect.

Large files are cut into seeds of a few documents each (the items of a
`List` become documents of their own), at most MAX bytes a seed, so that
the fuzzer's inputs stay small and fast. Usage: fuzz/seed.py [TARGET...]
"""

import hashlib
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
REALWORLD = Path(os.environ.get("REALWORLD", "/work/shared/realworld"))
CORPUS = ROOT / "fuzz" / "corpus"
MAX = 16 * 1024
PER_FILE = 40  # seeds at most from one file

DIALECT_DIRS = {
    "krake": ["krake"],
    "murano": ["murano"],
    "kubevela": ["kubevela"],
    "pairs": ["pairs"],
}


def files_under(*dirs):
    for d in dirs:
        if d.is_dir():
            for p in sorted(d.rglob("*")):
                if p.is_file() and p.suffix in (".yaml", ".yml", ".json", ".txt") and p.stat().st_size:
                    yield p
        elif d.is_file():
            yield d


def documents(text):
    """YAML documents, with a List's items as documents of their own."""
    for doc in re.split(r"(?m)^---[ \t]*$\n?", text):
        m = re.search(r"(?m)^items:\n", doc)
        if not m or len(doc) <= MAX:
            yield doc
            continue
        body = doc[m.end():]
        for item in re.split(r"(?m)^(?=- )", body):
            if item.startswith("- "):
                lines = item.splitlines()
                yield "\n".join(l[2:] if l.startswith("  ") else l.lstrip("- ") for l in lines) + "\n"


def seeds(path):
    data = path.read_bytes()
    if len(data) <= MAX or path.suffix == ".json":
        if len(data) <= 4 * MAX:
            yield data
        return
    text = data.decode("utf-8", "replace")
    out, chunk = 0, ""
    for doc in documents(text):
        if chunk and len(chunk) + len(doc) > MAX:
            yield chunk.encode()
            out += 1
            chunk = ""
            if out >= PER_FILE:
                return
        chunk += ("---\n" if chunk else "") + doc
    if chunk:
        yield chunk.encode()


def put(target, data):
    if len(data) > 4 * MAX:
        return
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def main(targets):
    other = {x for dirs in DIALECT_DIRS.values() for x in dirs}
    kube_fixtures = [p for p in sorted(FIXTURES.iterdir()) if p.name not in other | {"realworld"}]
    sources = {
        "kubernetes": list(files_under(*kube_fixtures, REALWORLD / "kubernetes", REALWORLD / "dependson")),
        "native": [p for p in files_under(FIXTURES) if re.search(rb"(?m)^resources:", p.read_bytes())],
    }
    for target, dirs in DIALECT_DIRS.items():
        sources[target] = list(files_under(*(FIXTURES / d for d in dirs), *(REALWORLD / d for d in dirs)))
    everything = sorted({p for ps in sources.values() for p in ps})
    sources["auto"] = everything
    sources["fast_yaml"] = [p for p in everything if p.suffix in (".yaml", ".yml")]
    # A few hand-made graphs: the planner reads bytes as choices.
    sources["planner"] = []
    for target in targets or list(sources):
        n = 0
        for path in sources.get(target, []):
            for data in seeds(path):
                put(target, data)
                n += 1
        if target == "planner":
            for data in (b"\x05\x01\x02\x01\x03\x00\x02\x01\x04", b"\x03\x02\x00\x01\x01\x00\x02\x03", bytes(range(64))):
                put(target, data)
                n += 1
        print(f"{target}: {n} seeds in {CORPUS / target}")


if __name__ == "__main__":
    main(sys.argv[1:])
