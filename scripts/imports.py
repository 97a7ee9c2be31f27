#!/usr/bin/env python3
"""The module import graph of src/, read from the code's own paths.

Every `crate::…`, `super::…` and `self::…` path (in `use` lines and in
code), and every path that starts at a child module, is an arrow from the file that
writes it to the file of the deepest module it names. A folder is one room
(`src/analysis/`), a file at the top of src/ is one room (`src/load.rs`).
A name a module hands on (`pub use child::Name`) is no arrow of its own:
who takes it through that module gets an arrow to the file that defines it.
Tests (`#[cfg(test)]` modules) are left out.

    scripts/imports.py            rooms, their arrows, circles, floors
    scripts/imports.py --files    the same per file
    scripts/imports.py --check    exit 1 if there is a circle of files or rooms

An arrow that runs back up is one from a room to a room on a higher floor,
where a room's floor is one above the highest room it imports once the
circles are cut; with no circle there is none.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
ROOT = os.path.normpath(ROOT)


def module_files():
    """module path (tuple) -> file path relative to the repository."""
    mods = {}
    for dirpath, _, files in os.walk(ROOT):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), ROOT)
            parts = rel[:-3].split(os.sep)
            if parts[-1] in ("mod", "lib", "main"):
                parts = parts[:-1]
            if rel == "main.rs":
                continue  # the binary: not a module of the library
            mods[tuple(parts)] = "src/" + rel.replace(os.sep, "/")
    return mods


def strip_comments(text):
    """The code without comments, strings and `#[cfg(test)]` modules."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'r#*"(?:.|\n)*?"#*|"(?:\\.|[^"\\])*"', '""', text, flags=re.S)
    text = re.sub(r"'(?:\\.|[^'\\])'", "' '", text)
    while True:
        m = re.search(r"#\[cfg\(test\)\]\s*(pub(\([a-z]+\))?\s+)?mod\s+\w+\s*\{", text)
        if not m:
            return text
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        text = text[: m.start()] + text[i:]


IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def paths_after(text, start):
    """Parse a use tree at text[start:]: list of segment lists."""
    out = []

    def tree(i, prefix):
        segs = list(prefix)
        while True:
            m = re.compile(r"\s*(" + IDENT + r"|\*)").match(text, i)
            if m:
                segs.append(m.group(1))
                i = m.end()
            m2 = re.compile(r"\s*::\s*").match(text, i)
            if not m2:
                out.append(segs)
                return i
            i = m2.end()
            if text.startswith("{", i):
                i += 1
                while True:
                    i = tree(i, segs)
                    m3 = re.compile(r"\s*(,|\})").match(text, i)
                    if not m3:
                        return i
                    i = m3.end()
                    if m3.group(1) == "}":
                        return i
                    if re.compile(r"\s*\}").match(text, i):
                        i = re.compile(r"\s*\}").match(text, i).end()
                        return i
    tree(start, [])
    return out


def deepest(mods, segs, faces=None):
    """The file of the deepest module `segs` names; through a module's
    `pub use` of a name to the file that defines it (a module that hands a
    name on is not where it is)."""
    for n in range(len(segs), -1, -1):
        if tuple(segs[:n]) in mods:
            rest = segs[n:]
            if faces and rest and (tuple(segs[:n]), rest[0]) in faces:
                return faces[(tuple(segs[:n]), rest[0])]
            return mods[tuple(segs[:n])]
    return None


def inline_modules(text):
    """The modules written inline (`mod name { ... }`): name, start, end."""
    out = []
    for m in re.finditer(r"\bmod\s+(" + IDENT + r")\s*\{", text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        out.append((m.group(1), m.end(), i))
    return out


def paths_of(mods, mod, text):
    """Every module path the code of `mod` names, as segment lists."""
    here = list(mod)
    children = {m[-1] for m in mods if len(m) == len(here) + 1 and list(m[:-1]) == here}
    out = []
    inline = inline_modules(text)
    for m in re.finditer(r"\b(crate|super|self)\s*::", text):
        inner = here + [name for name, a, b in inline if a <= m.start() < b]
        base = {"crate": [], "super": inner[:-1], "self": inner}[m.group(1)]
        for segs in paths_after(text, m.end()):
            b = base
            while segs and segs[0] == "super":
                b, segs = b[:-1], segs[1:]
            out.append((m.start(), b + segs))
    for m in re.finditer(r"(?<![:\w])(" + IDENT + r")\s*::", text):
        if m.group(1) in children:
            for segs in paths_after(text, m.start(1)):
                out.append((m.start(), here + segs))
    return out


def file_graph():
    mods = module_files()
    texts = {mod: strip_comments(open(os.path.join(ROOT, "..", path)).read()) for mod, path in mods.items()}
    # Names a module hands on (`pub use child::Name`), to the file that has them.
    faces, handed = {}, {}
    for mod, text in texts.items():
        uses = [m.end() for m in re.finditer(r"\bpub(\s*\([a-z]+\))?\s+use\s+", text)]
        handed[mod] = set()
        for at, segs in paths_of(mods, mod, text):
            if any(text[u:at].strip() == "" for u in uses):
                handed[mod].add(at)
                if segs and segs[-1] != "*":
                    faces[(mod, segs[-1])] = deepest(mods, segs)
    edges = {}
    for mod, path in sorted(mods.items()):
        targets = set()
        for at, segs in paths_of(mods, mod, texts[mod]):
            if at in handed[mod]:
                continue  # a name handed on is no arrow: its users get one
            t = deepest(mods, segs, faces)
            if t:
                targets.add(t)
        targets.discard(path)
        edges[path] = targets
    return edges


def room(path):
    parts = path.split("/")
    return "/".join(parts[:2]) + "/" if len(parts) > 2 else path


def sccs(nodes, edges):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            strong(v)
    return out


def floors(nodes, edges):
    comps = sccs(nodes, edges)
    of = {v: i for i, c in enumerate(comps) for v in c}
    floor = {}
    for i, comp in enumerate(comps):  # Tarjan emits sinks first
        f = 1
        for v in comp:
            for w in edges.get(v, ()):
                if of[w] != i:
                    f = max(f, floor[of[w]] + 1)
        floor[i] = f
    return {v: floor[of[v]] for v in nodes}, [c for c in comps if len(c) > 1]


def report(nodes, edges, label):
    level, circles = floors(nodes, edges)
    back = [(a, b) for a in nodes for b in edges.get(a, ()) if level[b] >= level[a]]
    print(f"{label}: {len(nodes)}, arrows: {sum(len(v) for v in edges.values())}, "
          f"circles: {len(circles)}, arrows back up (or level) inside circles: {len(back)}")
    for c in circles:
        print(f"  circle of {len(c)}: {', '.join(c)}")
    for f in sorted(set(level.values()), reverse=True):
        print(f"  floor {f:2}: " + ", ".join(sorted(n for n in nodes if level[n] == f)))
    return circles


def main():
    edges = file_graph()
    rooms = {}
    for a, ts in edges.items():
        rooms.setdefault(room(a), set())
        for b in ts:
            if room(b) != room(a):
                rooms[room(a)].add(room(b))
    status = 0
    if "--files" in sys.argv:
        for a in sorted(edges):
            print(f"{a} -> {', '.join(sorted(edges[a]))}")
    else:
        for a in sorted(rooms):
            print(f"{a} -> {', '.join(sorted(rooms[a]))}")
    print()
    if report(set(rooms), rooms, "rooms"):
        status = 1
    if report(set(edges), edges, "files"):
        status = 1
    if "--check" in sys.argv:
        sys.exit(status)


main()
