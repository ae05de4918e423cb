#!/usr/bin/env python3
"""Tables of bench/scaling.sh's runs, and their plot.

    bench/scaling-report.py DIR          DIR/scaling.csv and a markdown table per case on stdout
    bench/scaling-report.py plot DIR     DIR/scaling.png: per case, each type's KSPSolve against GPUs as
                                         a speed-up over aijcusparse's on the fewest GPUs (needs matplotlib)

With several runs of a count (scaling.sh -r: DIR/<kind>/np<g>.txt, np<g>-r2.txt, ...) each time is the
median of the runs that finished, "runs" says how many, and iterations that differ show as a range.
PCSetUp is also given against the same type's on the fewest GPUs ("setup vs fewest": GAMG's set-up on
several GPUs) and against aijcusparse's at the same count.
"""
import csv
import glob
import os
import re
import statistics
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
    """Every (kind, count, fields) that solves.sh printed under top/<kind>/np<count>[-r<k>].txt: its
    table, from its header to the first empty line (what --flame prints after it is another table)."""
    for path in sorted(glob.glob(os.path.join(top, "*", "np*.txt"))):
        m = re.search(r"np(\d+)(-r\d+)?\.txt$", path)
        if not m:
            continue
        kind, count, table = os.path.basename(os.path.dirname(path)), int(m.group(1)), False
        for line in open(path):
            f = line.split()
            if f and f[0] == "case":
                table = True
                continue
            if not f and table:
                break
            names = {len(FIELDS): FIELDS, len(FIELDS_BEFORE_UPLOAD): FIELDS_BEFORE_UPLOAD}.get(len(f))
            if not table or not names or f[0].startswith("("):
                continue
            r = dict(zip(names, f))
            # a weak case's size grows with the count: it is the same study under its base name
            r["study"] = r["case"].split("@")[0] if kind == "weak" else r["case"]
            yield kind, count, r


TIMES = ["SNESSolve", "KSPSolve", "PCSetUp", "PCApply", "MatSolve", "MatMult", "convert", "upload", "scatter"]


def merge(runs):
    """One row from a count's runs: each time the median of the runs that have it ("-" where none),
    iterations as they are or their range, "runs" the number of runs that finished (a KSPSolve)."""
    done = [r for r in runs if num(r["KSPSolve"]) is not None] or runs[:1]
    out = dict(done[0])
    for f in TIMES:
        vals = [num(r.get(f, "-")) for r in done]
        vals = [v for v in vals if v is not None]
        out[f] = "{:.4e}".format(statistics.median(vals)) if vals else "-"
    its = sorted({int(r["iters"]) for r in done if r["iters"].isdigit()})
    out["iters"] = "-" if not its else str(its[0]) if len(its) == 1 else f"{its[0]}-{its[-1]}"
    out["runs"] = sum(1 for r in runs if num(r["KSPSolve"]) is not None)
    if not out["runs"]:
        out["iters"] = "-"
    return out


def collect(top):
    runs = {}
    for kind, count, r in rows(top):
        runs.setdefault((kind, r["study"]), {}).setdefault((r["type"], count), []).append(r)
    return {k: {tc: merge(rs) for tc, rs in v.items()} for k, v in runs.items()}


def report(top):
    data = collect(top)
    out = []
    with open(os.path.join(top, "scaling.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["kind", "study", "case", "type", "gpus", "runs", "iters", "KSPSolve", "PCSetUp", "MatMult",
                    "scatter", "speedup", "efficiency", "vs_aijcusparse", "setup_vs_fewest", "setup_vs_aijcusparse"])
        for (kind, study), runs in sorted(data.items()):
            types = sorted({t for t, _ in runs}, key=lambda t: (t != "aijcusparse", t))
            counts = sorted({c for _, c in runs})
            out.append(f"\n### {kind} scaling: {study}\n")
            out.append("| GPUs | case | type | runs | its | KSPSolve | PCSetUp | MatMult | scatter | speed-up | efficiency | "
                       "vs aijcusparse | setup vs fewest | setup vs aijcusparse |")
            out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
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
                    setup, setup1 = num(r["PCSetUp"]), num(base["PCSetUp"]) if base else None
                    setupref = num(ref["PCSetUp"]) if ref else None
                    speed = eff = ratio = setupvs = setupratio = None
                    if ksp and t1:
                        speed = t1 / ksp
                        eff = speed / (c / counts[0]) if kind == "strong" else speed
                    if ksp and tref and t != "aijcusparse":
                        ratio = ksp / tref
                    if setup and setup1 and c != counts[0]:
                        setupvs = setup / setup1
                    if setup and setupref and t != "aijcusparse":
                        setupratio = setup / setupref
                    fmt = lambda v, s="{:.2f}": "-" if v is None else s.format(v)
                    out.append(f"| {c} | {r['case']} | {t} | {r['runs']} | {r['iters']} | {r['KSPSolve']} | {r['PCSetUp']} | "
                               f"{r['MatMult']} | {r['scatter']} | {fmt(speed)} | {fmt(eff)} | {fmt(ratio, '{:.2f}x')} | "
                               f"{fmt(setupvs, '{:.2f}x')} | {fmt(setupratio, '{:.2f}x')} |")
                    w.writerow([kind, study, r["case"], t, c, r["runs"], r["iters"], r["KSPSolve"], r["PCSetUp"], r["MatMult"],
                                r["scatter"], fmt(speed, "{:.4f}"), fmt(eff, "{:.4f}"), fmt(ratio, "{:.4f}"),
                                fmt(setupvs, "{:.4f}"), fmt(setupratio, "{:.4f}")])
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
