#!/usr/bin/env python3
"""The benchmark suite's report: speedup of each type over aijcusparse on each matrix.

    bench/suite-report.py [--base TYPE] <suite.csv> <outdir>

Reads the CSV that spmvbench -csv writes (one line per matrix and type; a matrix measured
twice keeps its last lines), prints a table of time(us) and speedup over aijcusparse per
matrix, and the geometric mean of each type's speedup across the matrices. A type that
refused a matrix (refused=1) or has no line for it is left out of that type's mean, and
the matrices left out are listed. Writes <outdir>/suite-speedup.png when matplotlib can
be imported (a grouped bar chart, one group per matrix), otherwise says so and skips it.
"""
import argparse
import csv
import math
import os
import sys

BASE = "aijcusparse"  # the reference type; --base changes it (aij where no GPU ran the benchmark)


def load(path):
    rows = {}  # (matrix, type) -> row; later lines win, so a rerun replaces earlier results
    matrices, types = [], []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = (r["matrix"], r["type"])
            rows[key] = r
            if r["matrix"] not in matrices:
                matrices.append(r["matrix"])
            if r["type"] not in types:
                types.append(r["type"])
    return rows, matrices, types


def main():
    global BASE
    ap = argparse.ArgumentParser(description="speedup over a reference type from spmvbench -csv lines")
    ap.add_argument("--base", default=BASE, help="reference type (default aijcusparse)")
    ap.add_argument("csv")
    ap.add_argument("outdir")
    a = ap.parse_args()
    BASE, path, outdir = a.base, a.csv, a.outdir
    rows, matrices, types = load(path)
    if not rows:
        sys.exit(f"{path}: no results")

    def time_us(m, t):
        r = rows.get((m, t))
        if r is None or r["refused"] == "1" or not r["time_us"]:
            return None
        v = float(r["time_us"])
        return v if v > 0 else None

    others = [t for t in types if t != BASE]
    if BASE not in types:
        print(f"note: no {BASE} lines in {path}: speedups cannot be computed; times only")
    speedup = {}  # (matrix, type) -> aijcusparse time / type time
    for m in matrices:
        base = time_us(m, BASE)
        for t in others:
            tt = time_us(m, t)
            if base is not None and tt is not None:
                speedup[(m, t)] = base / tt

    # the table: per matrix its size, aijcusparse's time and every type's speedup (R: refused, -: missing)
    w = max([len(m) for m in matrices] + [8])
    cw = max([len(t) for t in others] + [7]) + 1
    print(f"{'matrix':<{w}} {'rows':>10} {'nnz':>11} {BASE + '(us)':>16}" + "".join(f"{t:>{cw}}" for t in others))
    for m in matrices:
        r0 = next(rows[(m, t)] for t in types if (m, t) in rows)
        base = time_us(m, BASE)
        cells = []
        for t in others:
            r = rows.get((m, t))
            if r is None:
                cells.append("-")
            elif r["refused"] == "1":
                cells.append("R")
            elif (m, t) in speedup:
                cells.append(f"{speedup[(m, t)]:.2f}")
            else:
                cells.append(f"{float(r['time_us']):.1f}us" if r["time_us"] else "-")
        print(f"{m:<{w}} {r0['rows']:>10} {r0['nnz']:>11} {(f'{base:.1f}' if base else '-'):>16}" + "".join(f"{c:>{cw}}" for c in cells))
    print(f"(speedup = {BASE} time / type time; R: the type refused the matrix; -: no result)")

    print()
    print(f"geometric-mean speedup over {BASE} across the matrices:")
    for t in others:
        vals = [speedup[(m, t)] for m in matrices if (m, t) in speedup]
        refused = [m for m in matrices if (m, t) in rows and rows[(m, t)]["refused"] == "1"]
        missing = [m for m in matrices if (m, t) not in speedup and m not in refused]
        gm = math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else float("nan")
        line = f"  {t:<{cw}} {gm:6.3f}  over {len(vals)} of {len(matrices)}"
        if vals:
            line += f"  (min {min(vals):.2f}, max {max(vals):.2f})"
        if refused:
            line += "; refused: " + ", ".join(refused)
        if missing:
            line += "; no result: " + ", ".join(missing)
        print(line)

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("note: matplotlib is not importable here: no PNG written (pip install matplotlib, then rerun this script)")
        return
    os.makedirs(outdir, exist_ok=True)
    fig, ax = plt.subplots(figsize=(max(8, 1.2 * len(matrices) * max(1, len(others)) / 4), 5))
    bw = 0.8 / max(1, len(others))
    for k, t in enumerate(others):
        xs = [i + (k - (len(others) - 1) / 2) * bw for i in range(len(matrices))]
        ys = [speedup.get((m, t), 0.0) for m in matrices]
        ax.bar(xs, ys, bw, label=t)
        for x, m in zip(xs, matrices):  # mark refusals, which have no bar
            if (m, t) in rows and rows[(m, t)]["refused"] == "1":
                ax.text(x, 0.02, "R", ha="center", va="bottom", fontsize=7)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(matrices)))
    ax.set_xticklabels(matrices, rotation=30, ha="right")
    ax.set_ylabel(f"speedup over {BASE} (higher is better)")
    ax.set_title(f"SpMV speedup over {BASE} (R: refused)")
    ax.legend(fontsize=8, ncol=min(4, len(others)))
    fig.tight_layout()
    png = os.path.join(outdir, "suite-speedup.png")
    fig.savefig(png, dpi=120)
    print(f"wrote {png}")


if __name__ == "__main__":
    main()
