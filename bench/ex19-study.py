#!/usr/bin/env python3
"""Results of bench/ex19-study.sh: the BRC paper's Table 5 study on today's hardware.

  python3 bench/ex19-study.py parse DIR          DIR/runs/*.log -> DIR/results.csv, DIR/results.md
  python3 bench/ex19-study.py plot FILE.csv [-o FILE.png] [-t "aijcusparse brc ..."]
                                                    stacked bars of where SNESSolve's time goes
                                                    (-t: only these types, e.g. without the CPU's
                                                    aij, whose bars dwarf the GPU ones)

parse needs only the standard library (it runs on the GPU machine); plot needs matplotlib and
reads only the CSV, so it runs anywhere.

Times are the "Max" column of -log_view (seconds, the slowest rank). The log events are
inclusive: MatMult contains the format's build and refresh when they happen at a product, and
with the polynomial preconditioner PCApply contains the products inside the polynomial (they are
counted in MatMult too). The breakdown (bd_* columns, the chart) is exclusive instead: it is read
from the nested profile (-log_view :file:ascii_flamegraph, self time of every call path) and each
path goes to the first of these that it passes through:
  conversion   MatBRCBuild/Refresh, MatCMRSBuild/Refresh, MatARGCSRBuild/Refresh,
               MatIPCSRBuild/Refresh, MatELLRBuild/Refresh, MatCUSPARSCopyTo
  MatMult      every matrix-vector product, also those inside the preconditioner
  PC setup     PCSetUp (ILU factorization, ...)
  PC apply     PCApply less the products in it (ILU triangular solves, Jacobi, Chebyshev updates)
  Krylov       the rest of KSPSolve (GMRES orthogonalization, norms, vector updates)
  Jacobian     SNESJacobianEval (finite differences with coloring: function evaluations on the host)
  function     SNESFunctionEval outside the Jacobian
  SNES other   the rest of SNESSolve (line search, set-up)
so the parts add up to SNESSolve (within rounding and, on several ranks, rank imbalance).
"""
import array
import csv
import glob
import os
import re
import sys

TYPE_ORDER = ["aij", "aijcusparse", "brc", "cmrs", "argcsr", "ipcsr", "ellr"]
PC_ORDER = ["ilu", "iluhost", "poly", "jacobi"]
PC_LABEL = {
    "ilu": "ILU(0)",
    "iluhost": "ILU(0), PETSc's host factor",
    "poly": "polynomial (Chebyshev 10, Jacobi)",
    "jacobi": "Jacobi",
}
CATEGORIES = [  # (csv column, label)
    ("bd_conversion", "format build/refresh"),
    ("bd_matmult", "MatMult"),
    ("bd_pcsetup", "PC setup"),
    ("bd_pcapply", "PCApply w/o MatMult"),
    ("bd_krylov", "Krylov (GMRES) other"),
    ("bd_jacobian", "Jacobian (FD coloring)"),
    ("bd_function", "function evaluations"),
    ("bd_snes_other", "SNES other"),
]
CONVERSION_RE = re.compile(r"^Mat(BRC|CMRS|ARGCSR|IPCSR|ELLR)(Build|Refresh)$|^MatCUSPARSCopyTo$")
SOLUTION_TOL = 1e-6  # max |x - x_aij| / max |x_aij| above this: not the same solution
PRODUCTS = {"MatMult", "MatMultAdd", "MatMultTranspose", "MatMultTransposeAdd"}
FIELDS = (["np", "grid", "unknowns", "pc", "type", "status", "newton_its", "snes_reason",
           "linear_its", "linear_its_total", "linear_all_converged", "matmult_calls", "matmult_s",
           "pcapply_s", "pcsetup_s", "matsolve_s", "kspsolve_s", "snessolve_s", "program_s",
           "build_s", "build_calls", "refresh_s", "refresh_calls", "conversion_s",
           "solution_maxrel_diff", "solution_l2rel_diff", "solution_reference", "devices"]
          + [c for c, _ in CATEGORIES])


def order(value, ordering):
    return (ordering.index(value), value) if value in ordering else (len(ordering), value)


def flat_events(text):
    """name -> (count, max time) of the first -log_view table (the main stage)"""
    events = {}
    start = text.find("\nEvent ")
    if start < 0:
        return events
    for line in text[start:].splitlines():
        m = re.match(r"^(\S+)\s+(\d+)\s+\d+\.\d+\s+(\d\.\d+e[+-]\d+)\s", line)
        if m and m.group(1) not in events:
            events[m.group(1)] = (int(m.group(2)), float(m.group(3)))
        elif line.startswith("Object Type") or line.startswith("--- Event Stage 1"):
            break
    return events


def breakdown(flamefile):
    """exclusive seconds per category of SNESSolve, from a flamegraph file"""
    parts = {c: 0.0 for c, _ in CATEGORIES}
    found = False
    with open(flamefile) as f:
        for line in f:
            path, _, us = line.rstrip("\n").rpartition(" ")
            names = path.split(";")
            if "SNESSolve" not in names or not us.isdigit():
                continue
            found = True
            t = int(us) * 1e-6
            if any(CONVERSION_RE.match(n) for n in names):
                c = "bd_conversion"
            elif PRODUCTS.intersection(names):
                c = "bd_matmult"
            elif "PCSetUp" in names:
                c = "bd_pcsetup"
            elif "PCApply" in names:
                c = "bd_pcapply"
            elif "KSPSolve" in names:
                c = "bd_krylov"
            elif "SNESJacobianEval" in names:
                c = "bd_jacobian"
            elif "SNESFunctionEval" in names:
                c = "bd_function"
            else:
                c = "bd_snes_other"
            parts[c] += t
    return parts if found else None


def read_petsc_vec(path):
    """PETSc binary Vec: big-endian int32 class id 1211214, the length (int32, or int64 for
    64-bit PetscInt builds), then the entries, big-endian (8 bytes: double; 4: single;
    16: complex, read as pairs)"""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8 or int.from_bytes(data[0:4], "big") != 1211214:
        raise ValueError(f"{path}: not a PETSc binary Vec")
    for isize in (4, 8):
        n = int.from_bytes(data[4:4 + isize], "big", signed=True)
        body = len(data) - 4 - isize
        if n > 0 and body % n == 0 and body // n in (4, 8, 16):
            break
    else:
        raise ValueError(f"{path}: length does not match the file size")
    values = array.array("f" if body // n == 4 else "d")
    values.frombytes(data[4 + isize:])
    if sys.byteorder == "little":
        values.byteswap()
    return values


def compare(sol, ref):
    """max |x - r| / max |r| and ||x - r||_2 / ||r||_2"""
    x, r = read_petsc_vec(sol), read_petsc_vec(ref)
    if len(x) != len(r):
        raise ValueError(f"{sol}: {len(x)} entries, reference {len(r)}")
    dmax = max((abs(a - b) for a, b in zip(x, r)), default=0.0)
    rmax = max((abs(b) for b in r), default=0.0)
    d2 = sum((a - b) * (a - b) for a, b in zip(x, r))
    r2 = sum(b * b for b in r)
    return dmax / rmax if rmax else dmax, (d2 / r2) ** 0.5 if r2 else d2 ** 0.5


def parse_run(logfile):
    name = os.path.basename(logfile)[:-len(".log")]
    m = re.match(r"^np(\d+)-g(\d+)-([A-Za-z0-9_]+)-([A-Za-z0-9_]+)$", name)
    if not m:
        return None
    row = {k: "" for k in FIELDS}
    row.update(np=int(m.group(1)), grid=int(m.group(2)), pc=m.group(3), type=m.group(4))
    row["unknowns"] = 4 * row["grid"] ** 2
    with open(logfile, errors="replace") as f:
        text = f.read()
    if text.startswith("skipped"):
        row["status"] = text.strip()
        return row
    lin = re.findall(r"Linear solve (converged|did not converge) due to (\S+) iterations (\d+)", text)
    nl = re.search(r"Nonlinear solve (converged|did not converge) due to (\S+) iterations (\d+)", text)
    ev = flat_events(text)
    if "TIMEOUT" in text:
        row["status"] = "timeout"
    elif "exit status" in text or "SNESSolve" not in ev:
        row["status"] = "failed"
    elif not nl or nl.group(1) != "converged":
        row["status"] = "not converged"
    else:
        row["status"] = "ok"
    if nl:
        row["newton_its"], row["snes_reason"] = int(nl.group(3)), nl.group(2)
    if lin:
        row["linear_its"] = " ".join(i for _, _, i in lin)
        row["linear_its_total"] = sum(int(i) for _, _, i in lin)
        row["linear_all_converged"] = "yes" if all(c == "converged" for c, _, _ in lin) else "no"

    def t(e):
        return ev[e][1] if e in ev else ""
    row["matmult_calls"] = ev["MatMult"][0] if "MatMult" in ev else ""
    row.update(matmult_s=t("MatMult"), pcapply_s=t("PCApply"), pcsetup_s=t("PCSetUp"), matsolve_s=t("MatSolve"),
               kspsolve_s=t("KSPSolve"), snessolve_s=t("SNESSolve"))
    # -device_view (GPU runs): the device id each rank printed
    row["devices"] = " ".join(re.findall(r"^\s*id: (\d+)\s*$", text, re.M))
    m = re.search(r"^Time \(sec\):\s+(\S+)", text, re.M)
    row["program_s"] = float(m.group(1)) if m else ""
    build = [(c, s) for e, (c, s) in ev.items() if re.match(r"^Mat(BRC|CMRS|ARGCSR|IPCSR|ELLR)Build$", e)]
    refresh = [(c, s) for e, (c, s) in ev.items() if re.match(r"^Mat(BRC|CMRS|ARGCSR|IPCSR|ELLR)Refresh$", e)]
    if row["type"] == "aijcusparse" and "MatCUSPARSCopyTo" in ev:
        build = [ev["MatCUSPARSCopyTo"]]   # first copy and value updates are one event there
    if build and sum(c for c, _ in build):
        row["build_calls"], row["build_s"] = sum(c for c, _ in build), sum(s for _, s in build)
    if refresh and sum(c for c, _ in refresh):
        row["refresh_calls"], row["refresh_s"] = sum(c for c, _ in refresh), sum(s for _, s in refresh)
    if row["build_s"] != "" or row["refresh_s"] != "":
        row["conversion_s"] = (row["build_s"] or 0.0) + (row["refresh_s"] or 0.0)
    flame = logfile[:-len(".log")] + ".flame.txt"
    if row["status"] in ("ok", "not converged") and os.path.exists(flame):
        parts = breakdown(flame)
        if parts:
            row.update(parts)
    return row


def solution_diffs(rows, rundir):
    """each run's solution against aij's (same ranks, grid, preconditioner; else same grid);
    the result is kept in runs/NAME.soldiff so that it survives the solution files"""
    sols = {}
    for r in rows:
        if r["status"] in ("ok", "not converged"):
            name = f"np{r['np']}-g{r['grid']}-{r['pc']}-{r['type']}"
            sols[name] = r
    for name, r in sols.items():
        cache = os.path.join(rundir, name + ".soldiff")
        sol = os.path.join(rundir, name + ".sol")
        if r["type"] == "aij":
            continue
        cands = [f"np{r['np']}-g{r['grid']}-{r['pc']}-aij"]
        cands += sorted(n for n in sols if n.startswith("np") and n.endswith("-aij")
                        and f"-g{r['grid']}-" in n and n not in cands)
        for ref in cands:
            refsol = os.path.join(rundir, ref + ".sol")
            if os.path.exists(sol) and os.path.exists(refsol):
                try:
                    mx, l2 = compare(sol, refsol)
                except ValueError as e:
                    print(f"warning: {e}", file=sys.stderr)
                    continue
                with open(cache, "w") as f:
                    f.write(f"{mx:.3e} {l2:.3e} {ref}\n")
                break
        if os.path.exists(cache):
            with open(cache) as f:
                mx, l2, ref = f.read().split()
            r.update(solution_maxrel_diff=float(mx), solution_l2rel_diff=float(l2), solution_reference=ref)


def fmt(v, digits=3):
    if v == "" or v is None:
        return ""
    if isinstance(v, float):
        if v == 0:
            return "0"
        if abs(v) >= 100:
            return f"{v:.1f}"
        return f"{v:.{digits}g}" if abs(v) >= 1e-3 else f"{v:.1e}"
    return str(v)


def write_markdown(rows, outdir):
    lines = ["# SNES ex19 with every matrix type: the BRC paper's Table 5 on today's hardware", ""]
    envfile = os.path.join(outdir, "env.txt")
    if os.path.exists(envfile):
        lines += ["Measured on:", "", "```"] + open(envfile).read().rstrip().splitlines() + ["```", ""]
    lines += [
        "Seconds, the Max column of `-log_view` (with `-log_view_gpu_time`, which synchronizes the GPU",
        "at every logged kernel); the exact commands are in `commands.txt`. *linear its*: GMRES",
        "iterations of each Newton step. *conversion*: the format's build + value refreshes (events",
        "`Mat<FORMAT>Build`, `Mat<FORMAT>Refresh`; for aijcusparse `MatCUSPARSCopyTo`, which is both), with",
        "the number of calls. *MatMult* contains the conversion when it happens at a product, and with",
        "the polynomial preconditioner also the products inside it, which *PCApply* contains too.",
        "*vs aijcusparse*: aijcusparse's SNESSolve time / this one's. *solution*: max |x - x_aij| /",
        "max |x_aij| of the final solution against aij's with the same ranks and preconditioner.",
        "In the breakdown each part is the slowest rank's, so on several ranks the parts may add up",
        "to more than SNESSolve.",
        "",
    ]
    groups = sorted({(r["np"], r["grid"]) for r in rows})
    for np_, grid in groups:
        g = [r for r in rows if r["np"] == np_ and r["grid"] == grid]
        g.sort(key=lambda r: (order(r["pc"], PC_ORDER), order(r["type"], TYPE_ORDER)))
        lines += [f"## {np_} MPI rank{'s' if np_ > 1 else ''}, {grid} x {grid} grid "
                  f"({4 * grid * grid} unknowns)", ""]
        lines += ["| preconditioner | type | Newton | linear its | conversion (s) [calls] | MatMult (s) [calls] "
                  "| PCApply (s) | KSPSolve (s) | SNESSolve (s) | vs aijcusparse | solution diff. |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in g:
            label = PC_LABEL.get(r["pc"], r["pc"])
            if r["status"] not in ("ok", "not converged"):
                lines.append(f"| {label} | {r['type']} | {r['status']} | | | | | | | | |")
                continue
            conv = ""
            if r["conversion_s"] != "":
                calls = (r["build_calls"] or 0) + (r["refresh_calls"] or 0)
                conv = f"{fmt(r['conversion_s'])} [{calls}]"
            ref = [x for x in g if x["pc"] == r["pc"] and x["type"] == "aijcusparse" and x["snessolve_s"] != ""]
            ratio = f"{ref[0]['snessolve_s'] / r['snessolve_s']:.2f}" if ref and r["snessolve_s"] else ""
            newton = fmt(r["newton_its"]) + ("" if r["status"] == "ok" else f" ({r['snes_reason']})")
            lin = r["linear_its"].replace(" ", ", ") + ("" if r["linear_all_converged"] != "no" else " (not all converged)")
            diff = fmt(r["solution_maxrel_diff"]) if r["solution_maxrel_diff"] != "" else ("ref." if r["type"] == "aij" else "n/a")
            if r["solution_maxrel_diff"] != "" and r["solution_maxrel_diff"] > SOLUTION_TOL:
                diff += " **differs**"
            if r["solution_reference"] and r["solution_reference"] != f"np{r['np']}-g{r['grid']}-{r['pc']}-aij":
                diff += f" (vs {r['solution_reference']})"
            lines.append(f"| {label} | {r['type']} | {newton} | {lin} | {conv} | {fmt(r['matmult_s'])} [{r['matmult_calls']}] "
                         f"| {fmt(r['pcapply_s'])} | {fmt(r['kspsolve_s'])} | {fmt(r['snessolve_s'])} | {ratio} | {diff} |")
        lines += ["", "Where SNESSolve's time goes (exclusive seconds, from the nested profile):", ""]
        lines += ["| preconditioner | type | " + " | ".join(l for _, l in CATEGORIES) + " | sum |",
                  "|---|---|" + "---|" * (len(CATEGORIES) + 1)]
        for r in g:
            if r["bd_matmult"] == "":
                continue
            vals = [r[c] for c, _ in CATEGORIES]
            lines.append(f"| {PC_LABEL.get(r['pc'], r['pc'])} | {r['type']} | " + " | ".join(fmt(v) for v in vals)
                         + f" | {fmt(sum(vals))} |")
        lines.append("")
    diffs = [r["solution_maxrel_diff"] for r in rows if r["solution_maxrel_diff"] != ""]
    if diffs:
        bad = sum(d > SOLUTION_TOL for d in diffs)
        lines += [f"Solutions: {len(diffs)} runs compared with aij's, largest max-norm relative difference "
                  f"{max(diffs):.1e}; {bad} above {SOLUTION_TOL:g}.", ""]
    lines += [
        "For comparison, the paper's Table 5 (Kepler K20, PETSc of 2013, CUSP for the GPU CSR, two",
        "Newton steps; seconds): ILU(0), 657 + 770 linear iterations: AIJ 27.6 total, CUSP 15.1, BRC 12.7;",
        "polynomial, 299 + 345: AIJ 94.6, CUSP 24.8, BRC 7.5 (SpMV 1.47 + 1.64, 0.49 + 0.55, 0.11 + 0.12).",
        "",
    ]
    with open(os.path.join(outdir, "results.md"), "w") as f:
        f.write("\n".join(lines))


def parse(outdir):
    rundir = os.path.join(outdir, "runs")
    rows = [r for r in (parse_run(f) for f in sorted(glob.glob(os.path.join(rundir, "*.log")))) if r]
    if not rows:
        print(f"no runs in {rundir}", file=sys.stderr)
        return 1
    solution_diffs(rows, rundir)
    rows.sort(key=lambda r: (r["np"], r["grid"], order(r["pc"], PC_ORDER), order(r["type"], TYPE_ORDER)))
    with open(os.path.join(outdir, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    write_markdown(rows, outdir)
    print(open(os.path.join(outdir, "results.md")).read())
    bad = 0
    for r in rows:
        name = f"np{r['np']}-g{r['grid']}-{r['pc']}-{r['type']}"
        if r["status"] != "ok" and not r["status"].startswith("skipped"):
            print(f"{name}: {r['status']}", file=sys.stderr)
            bad += 1
        if r["solution_maxrel_diff"] != "" and r["solution_maxrel_diff"] > SOLUTION_TOL:
            print(f"{name}: solution differs from aij's by {r['solution_maxrel_diff']:.1e}", file=sys.stderr)
            bad += 1
    return 1 if bad else 0


def plot(csvfile, png, types=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(csvfile) as f:
        rows = [r for r in csv.DictReader(f) if r["bd_matmult"] not in ("", None) and (not types or r["type"] in types)]
    if not rows:
        print(f"{csvfile}: no run with a time breakdown", file=sys.stderr)
        return 1
    for r in rows:
        r["np"], r["grid"] = int(r["np"]), int(r["grid"])
    panels = sorted({(r["np"], r["grid"], r["pc"]) for r in rows}, key=lambda p: (p[0], p[1], order(p[2], PC_ORDER)))
    ncol = min(len(panels), 2)
    nrow = (len(panels) + ncol - 1) // ncol
    height = 4.2 * nrow + 1.0  # inches: the panels, the legend below, the title above
    fig, axes = plt.subplots(nrow, ncol, figsize=(6.5 * ncol, height), squeeze=False)
    colors = plt.get_cmap("tab10").colors
    for ax, (np_, grid, pc) in zip(axes.flat, panels):
        g = sorted((r for r in rows if (r["np"], r["grid"], r["pc"]) == (np_, grid, pc)), key=lambda r: order(r["type"], TYPE_ORDER))
        x = range(len(g))
        bottom = [0.0] * len(g)
        for k, (c, label) in enumerate(CATEGORIES):
            v = [float(r[c] or 0) for r in g]
            ax.bar(x, v, bottom=bottom, color=colors[k % len(colors)], label=label, width=0.65)
            bottom = [b + y for b, y in zip(bottom, v)]
        snes = [float(r["snessolve_s"] or 0) for r in g]
        top = max(bottom + snes) if bottom else 1.0
        # the black line: SNESSolve itself (on several ranks the parts are each the slowest
        # rank's, so they may add up to more)
        ax.hlines(snes, [i - 0.4 for i in x], [i + 0.4 for i in x], colors="k", linewidth=1.2,
                  label="SNESSolve (slowest rank)")
        for i, r in enumerate(g):
            its = r["linear_its_total"]
            ax.text(i, max(bottom[i], snes[i]) + 0.01 * top, f"{snes[i]:.3g} s\n{its} its", ha="center", va="bottom", fontsize=8)
        ax.set_xticks(list(x))
        ax.set_xticklabels([r["type"] for r in g])
        ax.set_ylim(0, top * 1.18)
        ax.set_ylabel("seconds (SNESSolve, exclusive parts)")
        ax.set_title(f"{PC_LABEL.get(pc, pc)}\n{np_} rank{'s' if np_ > 1 else ''}, {grid} x {grid} grid", fontsize=10)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8, frameon=False)
    fig.suptitle("SNES ex19: where the time goes, per matrix type", fontsize=12)
    fig.tight_layout(rect=(0, 0.75 / height, 1, 1 - 0.3 / height))
    fig.savefig(png, dpi=130)
    print(f"wrote {png}")
    return 0


def main(argv):
    if len(argv) >= 2 and argv[0] == "parse":
        return parse(argv[1])
    if len(argv) >= 2 and argv[0] == "plot":
        png = os.path.splitext(argv[1])[0] + ".png"
        if "-o" in argv:
            png = argv[argv.index("-o") + 1]
        types = argv[argv.index("-t") + 1].split() if "-t" in argv else None
        return plot(argv[1], png, types)
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
