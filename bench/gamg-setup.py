#!/usr/bin/env python3
"""GAMG's set-up, part by part, next to aijcusparse's: from the nested timings that
bench/solves.sh --flame keeps (PETSc's -log_view ...:ascii_flamegraph, one .flame file per run).

    bench/gamg-setup.py DIR           a table per case of DIR/<case>-<type>-np<n>.log.flame
    bench/gamg-setup.py --check DIR   the same, and exit 1 unless each run's parts add up to its
                                      PCSetUp and it has a strength graph and a squared graph or an independent set
                                      (tests/run.sh, on a small GAMG solve)

Each part is PCSetUp's time under the events named (inclusive, seconds); "rest" is what none of them
holds. A last row, not one of the parts but inside them: the host matrices made from device blocks
(MatSpmvAIJFromDev: PETSc's passes over each block's rows), the cost that does not shrink with more
GPUs (docs/gamg.md, "Why two GPUs do not halve the set-up"). "who" says whose code runs the part
with PETSc's coarsening: PETSc's host code (no matrix type reaches it) or the matrices' operations
(ours on level 0, aijcusparse's on the coarse levels). With petscspmv's coarsening (-petscspmv_gamg,
on by default for its types on one process) the MIS and the prolongator lift run on the device and
there is no squared graph. docs/results.md ("What no matrix type can reach: GAMG's host floor").
"""
import collections
import glob
import os
import re
import sys

# (name, who, test on the event stack below PCSetUp): the first that matches takes the time
PARTS = [
    ("squared graph", "PETSc (host)", lambda s: any(e.startswith("PCGAMG Squ") for e in s)),
    ("MIS (MatCoarsen)", "PETSc (host)", lambda s: "MatCoarsen" in s),
    ("coarsening loops", "PETSc (host)", lambda s: s[-1] in ("GAMG Coarsen", "GAMG MIS/Agg")),
    ("prolongator lift", "PETSc (host)", lambda s: "GAMG Prol-lift" in s),
    ("strength graph", "matrices", lambda s: "PCGAMGCreateG" in s),
    ("prolongator smoothing", "matrices", lambda s: "PCGAMGOptProl" in s),
    ("Galerkin products", "matrices", lambda s: "PCGAMGCreateL" in s),
]

# inside the parts above (not added to them): host matrices made from device blocks
HOST_BLOCKS = "of which host matrices made from device blocks"


def parts(path):
    """PCSetUp's total and its parts (seconds) in one flame file."""
    out = collections.Counter()
    for line in open(path):
        line = line.rstrip("\n")
        if not line.strip() or " " not in line:
            continue
        stack, value = line.rsplit(" ", 1)
        events = [e.strip() for e in stack.split(";")]
        if "PCSetUp" not in events:
            continue
        below = events[events.index("PCSetUp") + 1:]
        seconds = int(value) / 1e6
        out["PCSetUp"] += seconds
        if "MatSpmvAIJFromDev" in below:
            out[HOST_BLOCKS] += seconds
        for name, _, test in PARTS:
            if below and test(below):
                out[name] += seconds
                break
        else:
            out["rest"] += seconds
    return out


def main():
    args = sys.argv[1:]
    check = bool(args) and args[0] == "--check"
    if check:
        args = args[1:]
    if len(args) != 1:
        sys.exit(__doc__)
    runs = collections.defaultdict(dict)  # case -> type -> parts
    for path in sorted(glob.glob(os.path.join(args[0], "*.log.flame"))):
        m = re.match(r"(.+)-([a-z0-9]+)-np(\d+)\.log\.flame$", os.path.basename(path))
        if m:
            runs[f"{m.group(1)} on {m.group(3)} rank(s)"][m.group(2)] = parts(path)
    if not runs:
        sys.exit(f"no *.log.flame in {args[0]}: run bench/solves.sh --flame")
    bad = []
    for case, bytype in runs.items():
        types = sorted(bytype, key=lambda t: (t not in ("aijcusparse", "aij"), t))
        ref = bytype[types[0]]
        print(f"### GAMG set-up: {case} (seconds; ratio to {types[0]})")
        print("| part | who | " + " | ".join(types) + " |")
        print("|---|---|" + "---|" * len(types))
        for name, who in [("PCSetUp", "")] + [(n, w) for n, w, _ in PARTS] + [("rest", ""), (HOST_BLOCKS, "PETSc (host)")]:
            cells = []
            for t in types:
                v = bytype[t].get(name, 0.0)
                r = f" ({v / ref[name]:.2f}x)" if t != types[0] and ref.get(name) else ""
                cells.append(f"{v:.3f}{r}")
            print(f"| {name} | {who} | " + " | ".join(cells) + " |")
        for t in types:
            p = bytype[t]
            total = sum(v for k, v in p.items() if k not in ("PCSetUp", HOST_BLOCKS))
            if abs(total - p.get("PCSetUp", 0.0)) > 1e-6 * max(1.0, p.get("PCSetUp", 0.0)):
                bad.append(f"{case} {t}: the parts add up to {total:.6f} s, PCSetUp is {p.get('PCSetUp', 0.0):.6f} s")
            if not p.get("strength graph"):
                bad.append(f"{case} {t}: no strength graph under PCSetUp")
            # PETSc's aggressive level squares the graph; petscspmv's coarsening (on by default for
            # its types on one process) finds a distance-2 independent set instead, in MatCoarsen
            if not p.get("squared graph") and not p.get("MIS (MatCoarsen)"):
                bad.append(f"{case} {t}: neither a squared graph nor a MatCoarsen under PCSetUp")
        host = sum(ref.get(n, 0.0) for n, w, _ in PARTS if w.startswith("PETSc"))
        if ref.get("PCSetUp"):
            print(f"\nPETSc's host parts: {host:.3f} s of {types[0]}'s {ref['PCSetUp']:.3f} s "
                  f"({host / ref['PCSetUp']:.0%}): with every matrix operation free, a PCSetUp would still "
                  f"take that share of {types[0]}'s.\n")
    if check and bad:
        sys.exit("\n".join(bad))


if __name__ == "__main__":
    main()
