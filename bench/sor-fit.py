#!/usr/bin/env python3
"""The MatSOR() cost model's constants (src/mat/impls/spmvsor/sor.c, MATSPMV_SOR_*) fitted to the
lines of `sorbench -sweep`: least squares on relative error, constants kept non-negative.

    python3 bench/sor-fit.py sweep.txt

Device, one call of a symmetric sweep: 2 launches + (levels forward + backward) x (a level's wait +
the entries a lane loads after it x a load), or the matrix's bytes where many units run at once.
Host: a pass over the rows and entries a sweep, b and x copied down and x back up (CUDA vectors).
Prints the constants, then per size the measured and predicted times and the choice's loss."""
import re
import sys

import numpy as np

rows = []
for line in open(sys.argv[1]):
    m = re.match(r"(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+\S+\s+\S+\s+(.*)", line)
    if not m:
        continue
    why = m.group(9)
    u = re.search(r"units of at most (\d+) rows, (\d+) levels forward, (\d+) backward", why)
    if not u:
        continue
    grid, dof, n, m_, nnz = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(5))
    dev, host = float(m.group(6)) * 1e3, float(m.group(7)) * 1e3  # us
    unit, lf, lb = int(u.group(1)), int(u.group(2)), int(u.group(3))
    lane = np.ceil(nnz / m_ / (32 / unit))
    rows.append(dict(grid=grid, dof=dof, n=n, m=m_, nnz=nnz, dev=dev, host=host, unit=unit, levels=lf + lb, lane=lane))


def nnls_rel(X, y):
    """min |(X c - y) / y| with c >= 0: active set by repeated least squares"""
    W = X / y[:, None]
    active = list(range(X.shape[1]))
    while True:
        c = np.zeros(X.shape[1])
        c[active] = np.linalg.lstsq(W[:, active], np.ones(len(y)), rcond=None)[0]
        neg = [k for k in active if c[k] < 0]
        if not neg:
            return c
        active.remove(min(neg, key=lambda k: c[k]))


# device: [2 launches, levels, levels x lane]; the bandwidth term is the max with nnz (checked after)
Xd = np.array([[2.0, r["levels"], r["levels"] * r["lane"]] for r in rows])
cd = nnls_rel(Xd, np.array([r["dev"] for r in rows]))
# host: [nnz x 2 sweeps, rows x 2 sweeps, 3 copies, 3 copies x rows]
Xh = np.array([[2.0 * r["nnz"], 2.0 * r["m"], 3.0, 3.0 * r["m"]] for r in rows])
ch = nnls_rel(Xh, np.array([r["host"] for r in rows]))
print("#define MATSPMV_SOR_DEV_LAUNCH  %.3g /* us a sweep */" % cd[0])
print("#define MATSPMV_SOR_DEV_LEVEL   %.3g /* us a level */" % cd[1])
print("#define MATSPMV_SOR_DEV_LOAD    %.3g /* us a level per entry a lane loads */" % cd[2])
print("#define MATSPMV_SOR_HOST_ENTRY  %.3g /* us an entry */" % ch[0])
print("#define MATSPMV_SOR_HOST_ROW    %.3g /* us a row */" % ch[1])
print("#define MATSPMV_SOR_COPY        %.3g /* us a copy */" % ch[2])
print("#define MATSPMV_SOR_COPY_VALUE  %.3g /* us a value copied */" % ch[3])
worst = 0
print("%-5s %3s %5s %9s %9s %9s %9s %9s %7s %6s" % ("grid", "dof", "n", "rows", "device", "model", "host", "model", "choice", "loss"))
for r, xd, xh in zip(rows, Xd, Xh):
    pd, ph = xd @ cd, xh @ ch
    ondev = pd <= ph
    loss = (r["dev"] if ondev else r["host"]) / min(r["dev"], r["host"]) - 1
    worst = max(worst, loss)
    print("%-5s %3d %5d %9d %9.0f %9.0f %9.0f %9.0f %7s %5.0f%%" % (r["grid"], r["dof"], r["n"], r["m"], r["dev"], pd, r["host"], ph, "device" if ondev else "host", 100 * loss))
print("%d sizes, the choice's worst loss %.0f%% over the faster path" % (len(rows), 100 * worst))
