#!/usr/bin/env python3
"""Tables of bench/scaling.sh's runs, and their plot.

    bench/scaling-report.py DIR          DIR/scaling.csv and a markdown table per case on stdout
    bench/scaling-report.py plot DIR     DIR/scaling.png: per case, each type's KSPSolve against GPUs as
                                         a speed-up over aijcusparse's on the fewest GPUs (needs matplotlib)
"""
import csv
import glob
import os
import re
import sys

FIELDS = ["case", "type", "iters", "SNESSolve", "KSPSolve", "PCSetUp", "PCApply", "MatSolve",
          "MatMult", "convert", "upload", "scatter", "copies"]
FIELDS_BEFORE_UPLOAD = [f for f in FIELDS if f != "upload"]  # tables solves.sh printed before 2026-11-26


def num(v):
    try:
        return float(v)
    except ValueError:
        return None


def rows(top):
    """Every (kind, count, fields) that solves.sh printed under top/<kind>/np<count>.txt."""
    for path in sorted(glob.glob(os.path.join(top, "*", "np*.txt"))):
        kind = os.path.basename(os.path.dirname(path))
        count = int(re.search(r"np(\d+)\.txt$", path).group(1))
        for line in open(path):
            f = line.split()
            names = {len(FIELDS): FIELDS, len(FIELDS_BEFORE_UPLOAD): FIELDS_BEFORE_UPLOAD}.get(len(f))
            if not names or f[0] == "case" or f[0].startswith("("):
                continue
            r = dict(zip(names, f))
            # a weak case's size grows with the count: it is the same study under its base name
            r["study"] = r["case"].split("@")[0] if kind == "weak" else r["case"]
            yield kind, count, r


def collect(top):
    data = {}
    for kind, count, r in rows(top):
        data.setdefault((kind, r["study"]), {})[(r["type"], count)] = r
    return data


def report(top):
    data = collect(top)
    out = []
    with open(os.path.join(top, "scaling.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["kind", "study", "case", "type", "gpus", "iters", "KSPSolve", "PCSetUp", "MatMult",
                    "scatter", "speedup", "efficiency", "vs_aijcusparse"])
        for (kind, study), runs in sorted(data.items()):
            types = sorted({t for t, _ in runs}, key=lambda t: (t != "aijcusparse", t))
            counts = sorted({c for _, c in runs})
            out.append(f"\n### {kind} scaling: {study}\n")
            out.append("| GPUs | case | type | its | KSPSolve | PCSetUp | MatMult | scatter | speed-up | efficiency | vs aijcusparse |")
            out.append("|---|---|---|---|---|---|---|---|---|---|---|")
            for c in counts:
                for t in types:
                    r = runs.get((t, c))
                    if r is None:
                        continue
                    ksp = num(r["KSPSolve"])
                    base = runs.get((t, counts[0]))
                    t1 = num(base["KSPSolve"]) if base else None
                    ref = runs.get(("aijcusparse", c))
                    tref = num(ref["KSPSolve"]) if ref else None
                    speed = eff = ratio = None
                    if ksp and t1:
                        speed = t1 / ksp
                        eff = speed / (c / counts[0]) if kind == "strong" else speed
                    if ksp and tref and t != "aijcusparse":
                        ratio = ksp / tref
                    fmt = lambda v, s="{:.2f}": "-" if v is None else s.format(v)
                    out.append(f"| {c} | {r['case']} | {t} | {r['iters']} | {r['KSPSolve']} | {r['PCSetUp']} | "
                               f"{r['MatMult']} | {r['scatter']} | {fmt(speed)} | {fmt(eff)} | {fmt(ratio, '{:.2f}x')} |")
                    w.writerow([kind, study, r["case"], t, c, r["iters"], r["KSPSolve"], r["PCSetUp"], r["MatMult"],
                                r["scatter"], fmt(speed, "{:.4f}"), fmt(eff, "{:.4f}"), fmt(ratio, "{:.4f}")])
    print("\n".join(out))


def plot(top):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    # studies with at least two counts measured
    data = {k: v for k, v in collect(top).items() if len({c for (_, c), r in v.items() if num(r["KSPSolve"])}) > 1}
    fig, axes = plt.subplots(1, len(data), figsize=(4.2 * len(data), 3.6), squeeze=False)
    for ax, ((kind, study), runs) in zip(axes[0], sorted(data.items())):
        counts = sorted({c for _, c in runs})
        ref = runs.get(("aijcusparse", counts[0]))
        tref = num(ref["KSPSolve"]) if ref else None
        for t in sorted({t for t, _ in runs}, key=lambda t: (t != "aijcusparse", t)):
            xs, ys = [], []
            for c in counts:
                r = runs.get((t, c))
                if r and num(r["KSPSolve"]) and tref:
                    xs.append(c)
                    ys.append(tref / num(r["KSPSolve"]))
            ax.plot(xs, ys, marker="o", label=t)
        if kind == "strong":
            ax.plot(counts, [c / counts[0] for c in counts], "k:", label="ideal (aijcusparse)")
        else:
            ax.axhline(1.0, color="k", ls=":", label="ideal (aijcusparse)")
        ax.set_xticks(counts)
        ax.set_xlabel("GPUs (one rank each)")
        ax.set_ylabel("aijcusparse's KSPSolve on %d GPU / KSPSolve" % counts[0] if kind == "strong" else "weak: T1(aijcusparse) / Tg")
        ax.set_title(f"{kind}: {study}", fontsize=9)
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(top, "scaling.png"), dpi=100)
    print(os.path.join(top, "scaling.png"))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "plot":
        plot(sys.argv[2])
    elif len(sys.argv) == 2:
        report(sys.argv[1])
    else:
        sys.exit(__doc__)
