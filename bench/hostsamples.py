#!/usr/bin/env python3
"""The call tree of the samples bench/hostsamples.c took of a process (PREFIX.PID.maps and .raw).

    bench/hostsamples.py PREFIX.PID [--root NAME] [--min F] [--depth N] [--libs DIR ...] [--flat N]

--root   only samples with a frame whose function name contains NAME, the tree from the outermost such frame
         (default: all samples, from the outermost frame)
--min    hide subtrees under this fraction of those samples (default 0.01)
--depth  frames shown below the root (default 14)
--libs   directories searched first, by file name, for unstripped copies of the mapped libraries (a bundle's
         libraries may be stripped: give the build's); otherwise the mapped file itself
--flat   also the N functions with the most samples where they are innermost (self time)

Each sample is 1/HOSTSAMPLES_US of a second of the main thread's wall-clock time, wherever it was
(running, waiting in a driver or in MPI). Functions are named from the nearest symbol below the
address (nm), so a function without a symbol shows as the one before it.
"""
import argparse
import bisect
import collections
import os
import re
import subprocess
import sys


def symbol_table(path, libs):
    """(segments, addresses, names) of the file at path (or its copy in libs), None where unreadable."""
    base = os.path.basename(path)
    local = next((os.path.join(d, base) for d in libs if os.path.exists(os.path.join(d, base))), path if os.path.exists(path) else None)
    if not local:
        return None
    segs = []
    for line in subprocess.run(["readelf", "-lW", local], capture_output=True, text=True).stdout.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            segs.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))  # file offset, address, file size
    syms = []
    for opts in (["nm", "-C", "--defined-only"], ["nm", "-D", "-C", "--defined-only"]):
        for line in subprocess.run(opts + [local], capture_output=True, text=True).stdout.splitlines():
            f = line.split(" ", 2)
            if len(f) == 3 and f[1] in "tTwWi":
                syms.append((int(f[0], 16), f[2]))
        if len(syms) > 100:
            break
    syms.sort()
    return segs, [a for a, _ in syms], [n for _, n in syms]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("prefix")
    ap.add_argument("--root", default="")
    ap.add_argument("--min", type=float, default=0.01)
    ap.add_argument("--depth", type=int, default=14)
    ap.add_argument("--libs", nargs="*", default=[])
    ap.add_argument("--flat", type=int, default=0)
    a = ap.parse_args()
    maps = []
    for line in open(a.prefix + ".maps"):
        f = line.split()
        if len(f) >= 6 and "x" in f[1]:
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            maps.append((lo, hi, int(f[2], 16), f[5]))
    maps.sort()
    starts = [m[0] for m in maps]
    tables, names = {}, {}

    def where(addr):
        """(file name, function name) of a code address"""
        k = bisect.bisect_right(starts, addr) - 1
        if k < 0 or addr >= maps[k][1]:
            return "?", "?"
        lo, _, off, path = maps[k]
        base = os.path.basename(path)
        if path not in tables:
            tables[path] = symbol_table(path, a.libs)
        if not tables[path]:
            return base, base
        segs, addrs, syms = tables[path]
        fo = addr - lo + off
        va = next((fo - po + pv for po, pv, sz in segs if po <= fo < po + sz), fo)
        j = bisect.bisect_right(addrs, va) - 1
        return base, (syms[j] if j >= 0 else base)

    def name(addr):
        if addr not in names:
            names[addr] = where(addr)
        return names[addr]

    tree, flat = collections.Counter(), collections.Counter()
    total = chosen = 0
    for line in open(a.prefix + ".raw"):
        f = line.split()
        if not f:
            continue
        total += 1
        # innermost first: the sampler's frames, then the signal trampoline, then the interrupted code;
        # return addresses (all but the interrupted one) looked up one byte back, inside their call
        fr = [name(int(x, 16) - (1 if i else 0)) for i, x in enumerate(f[1:])]
        while fr and fr[0][0] == "hostsamples.so":
            fr = fr[1:]
        if fr and fr[0][0].startswith("libc"):
            fr = fr[1:]
        fr = [re.sub(r"\(.*", "", n) for _, n in fr][::-1]
        k = next((i for i, n in enumerate(fr) if a.root in n), None)
        if k is None:
            continue
        chosen += 1
        path = []
        for n in fr[k:]:
            if path and path[-1] == n:
                continue  # recursion shown once
            path.append(n)
            if len(path) > a.depth + 1:
                break
            tree[tuple(path)] += 1
        if fr:
            flat[fr[-1]] += 1
    print(f"{total} samples, {chosen} with {a.root or 'any frame'} ({a.prefix})")
    kids = collections.defaultdict(list)
    for p, c in tree.items():
        kids[p[:-1]].append((c, p))

    def show(prefix, indent):
        for c, p in sorted(kids[prefix], reverse=True):
            if c < a.min * max(chosen, 1):
                continue
            print(f"{'  ' * indent}{c:7d} {100.0 * c / chosen:5.1f}% {p[-1][:120]}")
            show(p, indent + 1)

    show((), 0)
    if a.flat:
        print(f"\nmost samples where innermost (of {chosen}):")
        for n, c in flat.most_common(a.flat):
            print(f"{c:7d} {100.0 * c / chosen:5.1f}% {n[:120]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
