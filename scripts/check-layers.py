#!/usr/bin/env python3
"""Check that the C/CUDA sources under src/ call each other only downwards, through floors.

The units and their floors come from the `## Files` table of docs/design.md:

    | file | floor | role |
    | `src/mat/impls/spmvlayer/device/device.cu` | 0 | ... |     one file is one unit
    | `src/mat/impls/brc/`                | 2 | ... |     a directory (recursively) is one unit
    | `include/petscspmv.h`               | - | ... |     documentation only, not in the graph

A format registered on src/mat/impls/spmvlayer/types/formats.c's MATSPMV_FORMATS line (as
ROOT/scripts/formats.sh lists them) whose directory src/mat/impls/<name>/ has no row is a unit of
floor 5 all the same.

Checks (all reported, exit 1 if any fails; one summary line and exit 0 when clean):
  1. every .c/.cu file under src/ belongs to exactly one unit, and every path in the table exists;
  2. the function definitions at brace depth 0 of each .c/.cu file are found (comments, string and
     char literals and preprocessor lines stripped; extern "C" and namespace blocks are transparent);
  3. a unit naming a non-static function defined in another unit (a call, or its address taken)
     has an edge to that unit; a name defined non-statically in several other units is an error;
  4. no upward call: an edge never goes from a lower floor to a higher one;
  5. no circle: the unit graph has no cycle (one concrete circle is printed per tangle);
  6. no circle among the files of a directory unit either (same rules, a file as the node).

Limits: macro bodies are not expanded, so functions that a macro defines or calls are invisible;
calls through function pointers that never name the function are invisible; global variables
are not followed; headers (.h) are not parsed, so their inline functions and macros are ignored;
an identifier that merely shares a function's name (a local variable) counts as a use.

    scripts/check-layers.py [--root DIR] [--table FILE] [--graph]
"""
import argparse
import re
import subprocess
import sys
from collections import defaultdict, deque
from pathlib import Path

KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else", "case", "catch",
            "decltype", "alignof", "typeof", "__typeof__", "defined", "static_assert"}
ATTRIBUTES = {"__attribute__", "__launch_bounds__", "__declspec", "alignas", "__align__"}
QUALIFIERS = {"const", "noexcept", "override", "final", "volatile"}
TOKEN = re.compile(r'""|[A-Za-z_]\w*|\d[\w.]*|->|::|\S')


def strip(text):
    """The text without comments, preprocessor lines and literal contents (strings become "")."""
    out, i, n, bol = [], 0, len(text), True  # bol: only blanks so far on this line
    while i < n:
        c, two = text[i], text[i:i + 2]
        if two == "/*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(" " + "\n" * text.count("\n", i, j))
            i = j
        elif two == "//":
            while i < n and text[i] != "\n":
                i += 2 if text[i] == "\\" else 1  # a backslash continues a // comment too
        elif c == "#" and bol:  # a preprocessor line and its backslash continuations
            while i < n and text[i] != "\n":
                if text.startswith("/*", i):
                    j = text.find("*/", i + 2)
                    i = n if j < 0 else j + 2
                else:
                    i += 2 if text[i] == "\\" else 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append('""' if c == '"' else "0")
            i, bol = j + 1, False
        else:
            out.append(c)
            bol = c == "\n" or (bol and c in " \t")
            i += 1
    return "".join(out)


def match_back(toks, j):
    """Index of the '(' that matches the ')' at j, or -1."""
    depth = 0
    for k in range(j, -1, -1):
        depth += {")": 1, "(": -1}.get(toks[k], 0)
        if depth == 0:
            return k
    return -1


def parse(text):
    """(tokens, definitions): each definition is (name, static, in_extern_c)."""
    toks = TOKEN.findall(strip(text))
    defs, stack = [], []  # one entry per open brace: 'extern "C"', 'namespace' (both transparent), 'block'
    for i, t in enumerate(toks):
        if t == "}":
            stack and stack.pop()
        if t != "{":
            continue
        depth = stack.count("block")
        if i >= 2 and toks[i - 2] == "extern" and toks[i - 1] == '""':
            stack.append('extern "C"')
            continue
        if "namespace" in toks[max(0, i - 2):i]:  # an anonymous namespace makes its functions file-local
            stack.append("namespace" if toks[i - 1] != "namespace" else "anonymous")
            continue
        stack.append("block")
        if depth:
            continue
        j = i - 1
        while True:  # back from '{': qualifiers and attributes, ')' ( ... '(' name
            while j >= 0 and toks[j] in QUALIFIERS:
                j -= 1
            k = match_back(toks, j) if j >= 0 and toks[j] == ")" else -1
            if k < 1 or toks[k - 1] not in ATTRIBUTES:
                break
            j = k - 2
        name = toks[k - 1] if k >= 1 else ""
        if not re.fullmatch(r"[A-Za-z_]\w*", name) or name in KEYWORDS or name in ATTRIBUTES:
            continue
        static, j = "anonymous" in stack, k - 2  # the declaration specifiers before the name
        while j >= 0 and toks[j] not in (";", "{", "}"):
            if toks[j] == ")":
                m = match_back(toks, j)
                if m < 1 or toks[m - 1] not in ATTRIBUTES:
                    break  # a macro invocation or another declaration ends here
                j = m - 1
            static |= toks[j] in ("static", "PETSC_STATIC_INLINE")
            j -= 1
        defs.append((name, static, 'extern "C"' in stack))
    return toks, defs


def read_table(path):
    """[(path, floor or None, line number)] of the `## Files` section's table."""
    rows, inside = [], False
    for no, line in enumerate(path.read_text().splitlines(), 1):
        if re.match(r"#{1,2}\s", line):  # a section's heading: only the Files section counts
            inside = line.strip() == "## Files"
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if inside and line.lstrip().startswith("|") else []
        m = re.fullmatch(r"`([^`\s]+)`", cells[0]) if len(cells) >= 2 else None
        if m and ("/" in m[1] or "." in m[1]):
            rows.append((m[1], int(cells[1]) if re.fullmatch(r"-?\d+", cells[1]) else None, no))
    return rows


def circles(nodes, succ):
    """[(circle, component)]: for each strongly connected component of more than one node, the shortest
    circle through its least node (a list that starts and ends with it), and the component."""
    index, low, onstack, stack, sccs = {}, {}, set(), [], []

    def tarjan(v):  # recursive: a few dozen nodes at most
        index[v] = low[v] = len(index)
        stack.append(v)
        onstack.add(v)
        for w in sorted(succ[v]):
            if w not in index:
                tarjan(w)
                low[v] = min(low[v], low[w])
            elif w in onstack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while not comp or w != v:
                w = stack.pop()
                onstack.discard(w)
                comp.add(w)
            sccs.append(comp)

    for v in nodes:
        if v not in index:
            tarjan(v)
    found = []
    for comp in sorted((c for c in sccs if len(c) > 1), key=min):
        start = min(comp)
        prev, todo = {}, deque([start])
        while todo and start not in prev:
            v = todo.popleft()
            for w in sorted(succ[v] & comp):
                if w not in prev:
                    prev[w] = v
                    todo.append(w)
        circle = [start]
        while len(circle) == 1 or circle[-1] != start:
            circle.append(prev[circle[-1]])
        circle.reverse()
        found.append((circle, comp))
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--table", type=Path, help="default: ROOT/docs/design.md")
    ap.add_argument("--graph", action="store_true", help="print the unit graph's edges")
    args = ap.parse_args()
    root, errors = args.root.resolve(), []
    table = args.table or root / "docs/design.md"
    if not table.is_file():
        sys.exit(f"layers: no table {table}")
    rows = read_table(table)
    if not rows:
        errors.append(f"{table}: no `## Files` table with backticked paths")
    floor = {}  # unit -> floor
    for p, fl, no in rows:
        if not (root / p).exists():
            errors.append(f"{table.name}:{no}: `{p}` does not exist")
        elif fl is not None:
            if p.endswith("/") or p.endswith((".c", ".cu")):
                floor[p] = fl
            else:
                errors.append(f"{table.name}:{no}: `{p}` has a floor but is neither a .c/.cu file nor a directory ending in / (give it floor -)")
    # a registered format's directory is a unit of floor 5 without a row of its own (a format is its
    # directory and its line in formats.c, which scripts/formats.sh reads: docs/design.md, "Adding a format")
    formats = root / "scripts/formats.sh"
    names = subprocess.run([str(formats)], capture_output=True, text=True, check=True).stdout.split() if formats.is_file() else []
    for name in names:
        d = f"src/mat/impls/{name}/"
        if d not in floor and (root / d).is_dir():
            floor[d] = 5
    sources = sorted(f.relative_to(root).as_posix() for f in (root / "src").rglob("*") if f.suffix in (".c", ".cu") and f.is_file())
    files = defaultdict(list)  # unit -> its .c/.cu files
    for f in sources:
        owners = [u for u in floor if u == f or (u.endswith("/") and f.startswith(u))]
        if len(owners) == 1:
            files[owners[0]].append(f)
        else:
            errors.append(f"{f}: " + ("in no unit of the table" if not owners else "ambiguous, in units " + ", ".join(owners)))

    tokens, defined = {}, defaultdict(set)  # unit -> identifiers it names; name -> units defining it non-statically
    extern_c = defaultdict(set)  # unit -> functions it defines inside extern "C" { }
    ftoks, fdefs = {}, {}  # file -> identifiers it names, its definitions (parsed once, for units and files)
    for u in floor:
        tokens[u] = set()
        for f in files[u]:
            toks, fdefs[f] = parse((root / f).read_text(errors="replace"))
            ftoks[f] = {t for k, t in enumerate(toks) if not (k and toks[k - 1] in (".", "->"))}
            tokens[u] |= ftoks[f]
            for n, static, in_c in fdefs[f]:
                if not static:
                    defined[n].add(u)
                if in_c:
                    extern_c[u].add(n)
    edges, ambiguous = defaultdict(set), defaultdict(set)  # (U, V) -> names; name -> units naming it
    for u in sorted(floor):
        for n in tokens[u]:
            owners = defined.get(n, set())
            if len(owners) > 1 and u not in owners:
                ambiguous[n].add(u)
            elif owners and u not in owners:
                edges[u, next(iter(owners))].add(n)
    for n in sorted(ambiguous):
        errors.append(f"ambiguous definition: {n} is defined in {', '.join(sorted(defined[n]))} (named in {', '.join(sorted(ambiguous[n]))})")

    def names(e, most=6):
        ns = sorted(edges[e])
        return " ".join(ns[:most]) + (f" ... (+{len(ns) - most} more)" if len(ns) > most else "")

    if args.graph:
        for e in sorted(edges):
            print(f"{e[0]} -> {e[1]}: {names(e, 1000)}")
        for u in sorted(extern_c):
            print(f'{u}: extern "C": {" ".join(sorted(extern_c[u]))}')
    for (u, v) in sorted(edges):
        if floor[u] < floor[v]:
            errors.append(f"upward call: {u} (floor {floor[u]}) -> {v} (floor {floor[v]}): {names((u, v), 1000)}")

    succ = defaultdict(set)
    for (u, v) in edges:
        succ[u].add(v)
    for circle, comp in circles(sorted(floor), succ):
        lines = [f"circle: {' -> '.join(circle)}" + (f"  (a tangle of {len(comp)} units: {' '.join(sorted(comp))})" if len(comp) > len(circle) - 1 else "")]
        lines += [f"    {a} -> {b}: {names((a, b))}" for a, b in zip(circle, circle[1:])]
        errors.append("\n".join(lines))

    # inside a directory unit, its files call each other without a circle too
    nfiles = 0
    for u in sorted(floor):
        if not u.endswith("/") or len(files[u]) < 2:
            continue
        owner = defaultdict(set)  # name -> the unit's files defining it non-statically
        for f in files[u]:
            for n, static, _ in fdefs[f]:
                if not static:
                    owner[n].add(f)
        fedges, fsucc = defaultdict(set), defaultdict(set)
        for f in files[u]:
            for n in ftoks[f]:
                for g in owner.get(n, ()):
                    if g != f and len(owner[n]) == 1:
                        fedges[f, g].add(n)
                        fsucc[f].add(g)
        nfiles += len(files[u])
        for circle, comp in circles(sorted(files[u]), fsucc):
            lines = [f"circle inside {u}: {' -> '.join(c[len(u):] for c in circle)}"]
            lines += [f"    {a[len(u):]} -> {b[len(u):]}: {' '.join(sorted(fedges[a, b])[:6])}" for a, b in zip(circle, circle[1:])]
            errors.append("\n".join(lines))

    for e in errors:
        print(e)
    if errors:
        print(f"layers: {len(errors)} error(s)")
        return 1
    print(f"layers: {len(floor)} units, {len(edges)} edges, no circle, no upward call; no circle among the {nfiles} files of directory units")
    return 0


if __name__ == "__main__":
    sys.exit(main())
