#!/usr/bin/env python3
"""Check that the C/CUDA sources under src/ call each other only downwards, through floors.

The units and their floors come from the `## Files` table of docs/design.md:

    | file | floor | role |
    | `src/mat/impls/spmvlayer/device/device.cu` | 0 | ... |     one file is one unit
    | `src/mat/impls/brc/`                | 2 | ... |     a directory (recursively) is one unit
    | `include/petscspmv.h`               | - | ... |     documentation only, not in the graph

A format registered on the MATSPMV_FORMATS line (`#define MATSPMV_FORMATS(F) F(<NAME>) ...`, in
whichever .c/.cu file under src/ holds it; scripts/formats.sh reads the same line) whose directory
src/mat/impls/<name>/ has no row is a unit of floor 5 all the same.

Checks (all reported, exit 1 if any fails; one summary line and exit 0 when clean):
  1. every .c/.cu file under src/ belongs to exactly one unit, every path in the table exists, and
     so does every registered format's directory;
  2. the function definitions and global variable definitions (not extern/PETSC_INTERN without an
     initializer, not typedefs, struct tags or prototypes) at brace depth 0 of each .c/.cu file are
     found (comments, string and char literals and preprocessor lines stripped; extern "C" and
     namespace blocks are transparent);
  3. a unit naming a non-static function or global defined in another unit (a call, a use, or its
     address taken) has an edge to that unit; a name defined non-statically in several other units
     is an error; the unit holding the MATSPMV_FORMATS line has an edge to each registered format's
     directory (MatSpmvFormat_<NAME>, which the line names by token pasting);
  4. no upward call: an edge never goes from a lower floor to a higher one;
  5. no circle: the unit graph has no cycle (one concrete circle is printed per tangle);
  6. no circle among the files of a directory unit either (same rules, a file as the node);
  7. no prototype declared twice: a non-static function prototype (or an extern variable
     declaration) at depth 0 of the headers (.h, .cuh, .hpp) under src/ and include/ is in one
     header only (a second prototype in a lower header hid upward calls).

Limits: macro bodies are not expanded, so functions and globals that a macro defines or names are
invisible (but for the MATSPMV_FORMATS line); calls through function pointers that never name the
function are invisible; headers are parsed for prototypes only, so their inline functions and
macros are ignored; statements with C++ templates (`<` outside parentheses) are skipped in the
search for globals and prototypes; an identifier that merely shares a function's or global's name
(a local variable) counts as a use.

    scripts/check-layers.py [--root DIR] [--table FILE] [--graph]
"""
import argparse
import re
import sys
from collections import defaultdict, deque
from pathlib import Path

KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else", "case", "catch",
            "decltype", "alignof", "typeof", "__typeof__", "defined", "static_assert"}
ATTRIBUTES = {"__attribute__", "__launch_bounds__", "__declspec", "alignas", "__align__"}
QUALIFIERS = {"const", "noexcept", "override", "final", "volatile"}
TYPE_WORDS = {"void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "bool", "_Bool",
              "auto", "register", "inline", "restrict", "__restrict__", "struct", "union", "enum", "class",
              "typedef", "extern", "static", "template", "typename", "using", "namespace", "operator",
              "new", "delete", "this", "true", "false", "nullptr", "goto", "break", "continue", "default"}
TAGS = {"struct", "union", "enum", "class"}
STATIC = {"static", "PETSC_STATIC_INLINE"}
EXTERN = {"extern", "PETSC_INTERN", "PETSC_EXTERN", "PETSC_SINGLE_LIBRARY_INTERN"}  # declarations, not definitions
TRANSPARENT = {'extern "C"', "namespace", "anonymous"}
ATTRIBUTE_MACRO = re.compile(r"PETSC_(ATTRIBUTE\w*|UNUSED|NODISCARD|DEPRECATED\w*)|__\w+__")
REGISTRY = re.compile(r"^#define MATSPMV_FORMATS\(F\) (.*)$", re.M)  # the line scripts/formats.sh reads
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
    """Index of the '(' (or '[') that matches the ')' (or ']') at j, or -1."""
    close = toks[j]
    opening, depth = "(" if close == ")" else "[", 0
    for k in range(j, -1, -1):
        depth += (toks[k] == close) - (toks[k] == opening)
        if depth == 0:
            return k
    return -1


def is_name(t):
    """Whether t can name a function or a global (not a keyword, a type word or an attribute)."""
    return bool(re.fullmatch(r"[A-Za-z_]\w*", t)) and t not in KEYWORDS | ATTRIBUTES | QUALIFIERS | TYPE_WORDS


def levels(toks):
    """The depth of ( and [ at each token."""
    out, depth = [], 0
    for t in toks:
        depth -= t in (")", "]")
        out.append(depth)
        depth += t in ("(", "[")
    return out


def declarator(d):
    """(name, start, kind) of one declarator's tokens (initializer included), kind 'function' (a
    prototype) or 'global'; start is where the declarator begins (the specifiers are before it). None
    when it names nothing."""
    lv = levels(d)
    d = d[:next((k for k, t in enumerate(d) if t == "=" and lv[k] == 0), len(d))]
    while d:
        if d[-1] in ("]", ")"):
            k = match_back(d, len(d) - 1)
            if k < 0:
                return None
            if d[-1] == "]":  # an array's bounds
                d = d[:k]
            elif k >= 1 and (d[k - 1] in ATTRIBUTES or (is_name(d[k - 1]) and k >= 2 and d[k - 2] == ")")):
                d = d[:k - 1]  # an attribute after the declarator, or a macro's: f(void) PETSC_ATTRIBUTE_FORMAT(2, 3)
            elif k + 1 < len(d) and d[k + 1] in ("*", "&"):  # (*name)[4], or (*name) of (*name)(args) below
                inner = [t for t in d[k + 1:] if is_name(t)]
                return (inner[0], k, "global") if inner else None
            elif k >= 1 and d[k - 1] == ")":  # (*name)(args): a function pointer
                d = d[:k]
            elif k >= 1 and is_name(d[k - 1]):
                return d[k - 1], k - 1, "function"
            else:
                return None
        elif len(d) >= 2 and d[-2] == ")" or ATTRIBUTE_MACRO.fullmatch(d[-1]):
            d = d[:-1]  # an attribute macro without arguments: f(void) PETSC_ATTRIBUTE_COLD, x PETSC_UNUSED
        else:
            break
    return (d[-1], len(d) - 1, "global") if d and is_name(d[-1]) else None


def declared(stmt):
    """[(name, kind, static, extern, initialized)] that a statement at depth 0 (without its ';'; the
    braces of initializers and struct bodies as one '{}') declares: kind 'function' (a prototype) or
    'global'. Typedefs, struct tags, using and C++ templates declare nothing here."""
    if not stmt or {"typedef", "using", "namespace", "template", "friend", "operator"} & set(stmt):
        return []
    lv = levels(stmt)
    head = next((k for k, t in enumerate(stmt) if t == "=" and lv[k] == 0), len(stmt))
    if any(t in ("<", ">") and lv[k] == 0 for k, t in enumerate(stmt[:head])):
        return []  # C++ template arguments: their commas are not declarators'
    parts, cut = [], 0
    for k, t in enumerate(stmt + [","]):
        if t == "," and (k == len(stmt) or lv[k] == 0):
            parts.append(stmt[cut:k])
            cut = k + 1
    first = declarator(parts[0])
    if not first or first[1] == 0 or parts[0][first[1] - 1] in TAGS:
        return []  # no type before the name (a macro's call, PetscFunctionBegin), or `struct X;`
    specs, j = [], first[1] - 1  # back from the name to a macro's call before the statement
    while j >= 0:
        if parts[0][j] == ")":
            m = match_back(parts[0], j)
            if m < 1 or parts[0][m - 1] not in ATTRIBUTES:
                break
            j = m - 1
        elif parts[0][j] not in ("*", "&"):
            specs.append(parts[0][j])
        j -= 1
    if all(t in QUALIFIERS for t in specs):
        return []
    static, extern = bool(STATIC & set(specs)), bool(EXTERN & set(specs))
    found = []
    for d in parts:
        got = first if d is parts[0] else declarator(d)
        if got:
            found.append((got[0], got[2], static, extern, "=" in d[got[1]:]))
    return found


def parse(text):
    """(tokens, definitions, declarations) of a file: each definition (name, static, in_extern_c, kind)
    is a function or global (kind) defined at depth 0; each declaration (name, kind) a non-static
    prototype or an extern global declared there without a definition."""
    toks = TOKEN.findall(strip(text))
    defs, decls, stack, stmt = [], [], [], []
    # stack: one entry per open brace: 'extern "C"', 'namespace', 'anonymous' (transparent), 'block' (a
    # function's body, or any brace inside one), 'value' (an initializer or a struct body at depth 0,
    # which the statement goes on after); stmt: the statement at depth 0 so far
    for i, t in enumerate(toks):
        depth = sum(b not in TRANSPARENT for b in stack)
        if t == "}":
            closed = stack.pop() if stack else "block"
            if depth == 1 and closed != "value" or closed in TRANSPARENT:
                stmt = []
            continue
        if t == ";" and not depth:
            for name, kind, static, extern, init in declared(stmt):
                static |= "anonymous" in stack
                if kind == "global" and (init or not extern):
                    defs.append((name, static, 'extern "C"' in stack, "global"))
                elif not static:
                    decls.append((name, kind))
            stmt = []
            continue
        if t != "{":
            if not depth:
                stmt.append(t)
            continue
        if depth:
            stack.append("block")
            continue
        if i >= 2 and toks[i - 2] == "extern" and toks[i - 1] == '""':
            stack.append('extern "C"')
            stmt = []
            continue
        if "namespace" in toks[max(0, i - 2):i]:  # an anonymous namespace makes its functions file-local
            stack.append("namespace" if toks[i - 1] != "namespace" else "anonymous")
            stmt = []
            continue
        name, static = function(toks, i, stack)
        if name:
            defs.append((name, static, 'extern "C"' in stack, "function"))
        elif "=" in [t for t, n in zip(stmt, levels(stmt)) if n == 0] or TAGS & set(stmt):
            stack.append("value")  # int a[] = {...}; struct X {...} x;
            stmt.append("{}")
            continue
        stack.append("block")
        stmt = []
    return toks, defs, decls


def function(toks, i, stack):
    """(name, static) of the function whose body opens at toks[i] ('{' at depth 0), or ('', False)."""
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
        return "", False
    static, j = "anonymous" in stack, k - 2  # the declaration specifiers before the name
    while j >= 0 and toks[j] not in (";", "{", "}"):
        if toks[j] == ")":
            m = match_back(toks, j)
            if m < 1 or toks[m - 1] not in ATTRIBUTES:
                break  # a macro invocation or another declaration ends here
            j = m - 1
        static |= toks[j] in STATIC
        j -= 1
    return name, static


def registration(root, sources, errors):
    """(file, [NAME]) of the MATSPMV_FORMATS line, in whichever source holds it, or (None, [])."""
    found = [(f, m[1]) for f in sources for m in REGISTRY.finditer((root / f).read_text(errors="replace"))]
    if len(found) > 1:
        errors.append("the MATSPMV_FORMATS line is in several places: " + ", ".join(f for f, _ in found))
    return (found[0][0], re.findall(r"F\(([A-Za-z0-9_]+)\)", found[0][1])) if found else (None, [])


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
    sources = sorted(f.relative_to(root).as_posix() for f in (root / "src").rglob("*") if f.suffix in (".c", ".cu") and f.is_file())
    # a registered format's directory is a unit of floor 5 without a row of its own (a format is its
    # directory and its F(<NAME>) on the MATSPMV_FORMATS line: docs/design.md, "Adding a format")
    registry, formats = registration(root, sources, errors)
    for name in formats:
        d = f"src/mat/impls/{name.lower()}/"
        if d not in floor and (root / d).is_dir():
            floor[d] = 5
        elif d not in floor:
            errors.append(f"{registry}: format {name} is registered but {d} does not exist")
    files = defaultdict(list)  # unit -> its .c/.cu files
    for f in sources:
        owners = [u for u in floor if u == f or (u.endswith("/") and f.startswith(u))]
        if len(owners) == 1:
            files[owners[0]].append(f)
        else:
            errors.append(f"{f}: " + ("in no unit of the table" if not owners else "ambiguous, in units " + ", ".join(owners)))

    tokens, defined = {}, defaultdict(set)  # unit -> identifiers it names; name -> units defining it non-statically
    extern_c, globs = defaultdict(set), defaultdict(set)  # unit -> functions it defines inside extern "C" { }; its globals
    ftoks, fdefs = {}, {}  # file -> identifiers it names, its definitions (parsed once, for units and files)
    for u in floor:
        tokens[u] = set()
        for f in files[u]:
            toks, fdefs[f], _ = parse((root / f).read_text(errors="replace"))
            ftoks[f] = {t for k, t in enumerate(toks) if not (k and toks[k - 1] in (".", "->"))}
            tokens[u] |= ftoks[f]
            for n, static, in_c, kind in fdefs[f]:
                if not static:
                    defined[n].add(u)
                    if kind == "global":
                        globs[u].add(n)
                if in_c and kind == "function":
                    extern_c[u].add(n)
    edges, ambiguous = defaultdict(set), defaultdict(set)  # (U, V) -> names; name -> units naming it
    for u in sorted(floor):
        for n in tokens[u]:
            owners = defined.get(n, set())
            if len(owners) > 1 and u not in owners:
                ambiguous[n].add(u)
            elif owners and u not in owners:
                edges[u, next(iter(owners))].add(n)
    # the registration line names each format's table by token pasting (MatSpmvFormat_##NAME), invisibly
    home = next((u for u in files if registry in files[u]), None)
    for name in formats:
        d = f"src/mat/impls/{name.lower()}/"
        if home and d in floor and d != home:
            edges[home, d].add(f"MatSpmvFormat_{name}")
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
        for u in sorted(globs):
            print(f"{u}: globals: {' '.join(sorted(globs[u]))}")
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
            for n, static, _, _ in fdefs[f]:
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

    # a prototype is declared in one header: a second one, in a lower header, hid upward calls
    headers = sorted(f.relative_to(root).as_posix() for d in ("src", "include") if (root / d).is_dir()
                     for f in (root / d).rglob("*") if f.suffix in (".h", ".cuh", ".hpp") and f.is_file())
    where = defaultdict(list)  # name -> the headers declaring it
    for h in headers:
        for n in sorted({n for n, _ in parse((root / h).read_text(errors="replace"))[2]}):
            where[n].append(h)
    for n in sorted(where):
        if len(where[n]) > 1:
            errors.append(f"declared twice: {n} in {', '.join(where[n])}")

    for e in errors:
        print(e)
    if errors:
        print(f"layers: {len(errors)} error(s)")
        return 1
    registered = f"; {len(formats)} formats registered in {registry}" if registry else ""
    print(f"layers: {len(floor)} units, {len(edges)} edges (functions and globals{registered}), no circle, no upward call, "
          f"no prototype declared twice in {len(headers)} headers; no circle among the {nfiles} files of directory units")
    return 0


if __name__ == "__main__":
    sys.exit(main())
