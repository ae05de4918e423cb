/*
  Bandwidth-reducing column order of the layer (MAT_SPMV_COLUMN_ORDER_RCM): how far apart the columns
  of neighbouring rows lie, and PETSc's reverse Cuthill-McKee order of a square operator's graph.
  Formats that store column offsets within a group of rows (brc's 16-bit offsets from each block's
  first column) need each group's columns to span fewer than MATSPMV_SPAN16 columns; meshes numbered
  by DMPlex (vertices, edges, faces and cells each in their own range) or by a partitioner (each
  process's range, interface rows reaching into the others') rarely do, and RCM brings their
  neighbours together.
*/
#include "spmvimpl.h"

/* The share of the nonzeros in far groups of MATSPMV_SPAN_ROWS rows: groups whose k-th columns (the
   k-th entry of each of their rows, rows sorted by column) span MATSPMV_SPAN16 or more for some k.
   brc, with 16-bit offsets from a first column per block, or per slot column (the k-th entries of its
   rows) where the block spans more, stores such groups' columns in 32 bits. The groups are made as
   brc makes its blocks of regular rows by default (the only rows RCM is tried on): all rows sorted
   by length, longest first. One group in MATSPMV_SPAN_SAMPLE is measured: O(rows) where the groups'
   whole spans are short (stencils), O(nonzeros / MATSPMV_SPAN_SAMPLE) at most.
   With inv, the columns renumbered (c becoming inv[c]) and group position r holding row rows[r]: the
   share of the nonzeros in groups whose whole span is MATSPMV_SPAN16 or more (an upper bound:
   renumbered rows are not sorted) */
PetscErrorCode MatSpmvWideShare(const MatSpmvCSR *csr, const PetscInt *rows, const PetscInt *inv, PetscReal *share)
{
  PetscInt  far = 0, sampled = 0, maxlen = 0, *order = NULL, *count = NULL;
  PetscBool sorted = (PetscBool)!inv;

  PetscFunctionBegin;
  if (sorted) { /* counting sort by length, stable */
    for (PetscInt r = 0; r < csr->m; r++) maxlen = PetscMax(maxlen, csr->i[r + 1] - csr->i[r]);
    PetscCall(PetscMalloc1(csr->m, &order));
    PetscCall(PetscMalloc1(maxlen + 2, &count));
    PetscCall(PetscArrayzero(count, maxlen + 2));
    for (PetscInt r = 0; r < csr->m; r++) count[maxlen - (csr->i[r + 1] - csr->i[r]) + 1]++;
    for (PetscInt l = 0; l <= maxlen; l++) count[l + 1] += count[l];
    for (PetscInt r = 0; r < csr->m; r++) order[count[maxlen - (csr->i[r + 1] - csr->i[r])]++] = r;
    rows = order;
  }
  for (PetscInt r0 = 0; r0 < csr->m; r0 += MATSPMV_SPAN_ROWS * MATSPMV_SPAN_SAMPLE) { /* one group in MATSPMV_SPAN_SAMPLE */
    const PetscInt r1 = PetscMin(csr->m, r0 + MATSPMV_SPAN_ROWS);
    PetscInt       lo = PETSC_INT_MAX, hi = -1, nnz = 0, longest = 0;
    PetscBool      isfar = PETSC_FALSE;

    for (PetscInt q = r0; q < r1; q++) { /* the group's span: a row's first and last columns (sorted rows), or all renumbered */
      const PetscInt r = rows ? rows[q] : q;

      if (csr->i[r + 1] == csr->i[r]) continue;
      nnz += csr->i[r + 1] - csr->i[r];
      sampled += csr->i[r + 1] - csr->i[r];
      longest = PetscMax(longest, csr->i[r + 1] - csr->i[r]);
      if (inv) {
        for (PetscInt k = csr->i[r]; k < csr->i[r + 1]; k++) {
          lo = PetscMin(lo, inv[csr->j[k]]);
          hi = PetscMax(hi, inv[csr->j[k]]);
        }
      } else {
        lo = PetscMin(lo, csr->j[csr->i[r]]);
        hi = PetscMax(hi, csr->j[csr->i[r + 1] - 1]);
      }
    }
    if (hi < 0 || hi - lo + 1 < MATSPMV_SPAN16) continue;
    if (!sorted) {
      far += nnz;
      continue;
    }
    for (PetscInt k = 0; k < longest && !isfar; k++) { /* the k-th columns of the group's rows */
      PetscInt klo = PETSC_INT_MAX, khi = -1;

      for (PetscInt q = r0; q < r1; q++) {
        const PetscInt r = rows[q];

        if (csr->i[r] + k >= csr->i[r + 1]) continue;
        klo = PetscMin(klo, csr->j[csr->i[r] + k]);
        khi = PetscMax(khi, csr->j[csr->i[r] + k]);
      }
      isfar = (PetscBool)(khi - klo + 1 >= MATSPMV_SPAN16);
    }
    if (isfar) far += nnz;
  }
  PetscCall(PetscFree(order));
  PetscCall(PetscFree(count));
  *share = sampled ? (PetscReal)far / (PetscReal)sampled : 0.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reverse Cuthill-McKee order of the graph of the square matrix A, whose pattern is csr (PETSc's
   MATORDERINGRCM, on the symmetrized pattern): position k holds vertex perm[k] (PetscFree *perm).
   Consecutive rows with the same columns (the unknowns of one mesh node: 3 in elasticity) are one
   vertex: PETSc orders that node graph, given as a SeqAIJ matrix whose values are allocated but
   never touched (the ordering reads the pattern only; zeroing them cost more than the rest), and
   the nodes' rows follow their node. On the GPU aijcusparse switches PETSc's own inode compression
   off, and RCM of A's full graph was slow (docs/results.md,
   "FEM operators: 16-bit offsets per slot column and the RCM order").
   (A MATMPIADJ would need no values, but MatGetOrdering_RCM() passes MatRestoreRowIJ() a NULL row
   count, which MatRestoreRowIJ_MPIAdj() dereferences, in PETSc 3.25.4.) */
PetscErrorCode MatSpmvOrderRCM(Mat A, const MatSpmvCSR *csr, PetscInt **perm)
{
  IS              rperm = NULL, cperm = NULL;
  const PetscInt *idx;
  PetscInt        n, nn = 0, *node, *first, *ni, *nj, q = 0;
  PetscLogDouble  t0, t1, t2, t3;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(PetscMalloc2(csr->m, &node, csr->m + 1, &first));
  for (PetscInt r = 0; r < csr->m; r++) { /* runs of rows with the same columns */
    const PetscInt len  = csr->i[r + 1] - csr->i[r];
    PetscBool      same = PETSC_FALSE;

    if (r && len == csr->i[r] - csr->i[r - 1]) PetscCall(PetscArraycmp(csr->j + csr->i[r], csr->j + csr->i[r - 1], len, &same));
    if (!same) first[nn++] = r;
    node[r] = nn - 1;
  }
  first[nn] = csr->m;
  PetscCall(PetscTime(&t1));
  t2 = t1;
  if (nn < csr->m) { /* the node graph without its diagonal: each node's first row, columns mapped to their nodes */
    Mat          G;
    PetscScalar *va;
    PetscInt     cap = 0;

    for (PetscInt k = 0; k < nn; k++) cap += csr->i[first[k] + 1] - csr->i[first[k]];
    PetscCall(PetscMalloc1(nn + 1, &ni));
    PetscCall(PetscMalloc1(cap, &nj)); /* room for every column: one pass, pages touched only where used */
    ni[0] = 0;
    for (PetscInt k = 0; k < nn; k++) {
      const PetscInt end = csr->i[first[k] + 1];

      for (PetscInt e = csr->i[first[k]]; e < end;) {
        const PetscInt c = csr->j[e], v = node[c], span = first[v + 1] - 1 - c; /* node v's columns from c on: c .. c + span */

        if (v != k && (q == ni[k] || nj[q - 1] != v)) nj[q++] = v;            /* nodes are nondecreasing along a sorted row */
        e += (e + span < end && csr->j[e + span] == c + span) ? span + 1 : 1; /* the node's columns all present: skip them */
      }
      ni[k + 1] = q;
    }
    PetscCall(PetscMalloc1(q, &va)); /* never touched: see above */
    PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, nn, nn, ni, nj, va, &G));
    PetscCall(PetscTime(&t2));
    PetscCall(MatGetOrdering(G, MATORDERINGRCM, &rperm, &cperm));
    PetscCall(MatDestroy(&G));
    PetscCall(PetscFree(va));
    PetscCall(PetscFree(ni));
    PetscCall(PetscFree(nj));
  } else PetscCall(MatGetOrdering(A, MATORDERINGRCM, &rperm, &cperm)); /* no runs: A's own graph */
  PetscCall(PetscTime(&t3));
  PetscCall(PetscInfo(A, "RCM of %" PetscInt_FMT " vertices for %" PetscInt_FMT " rows: %.0f ms to find them, %.0f ms for their graph, %.0f ms for PETSc's ordering\n", nn, csr->m, 1e3 * (t1 - t0), 1e3 * (t2 - t1), 1e3 * (t3 - t2)));
  PetscCall(ISGetLocalSize(cperm, &n));
  PetscCheck(n == nn, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The RCM order has %" PetscInt_FMT " entries for %" PetscInt_FMT " vertices", n, nn);
  PetscCall(PetscMalloc1(csr->m, perm));
  PetscCall(ISGetIndices(cperm, &idx));
  for (PetscInt k = 0, p = 0; k < nn; k++) /* each vertex's rows, in their order */
    for (PetscInt r = first[idx[k]]; r < first[idx[k] + 1]; r++) (*perm)[p++] = r;
  PetscCall(ISRestoreIndices(cperm, &idx));
  PetscCall(PetscFree2(node, first));
  PetscCall(ISDestroy(&rperm));
  PetscCall(ISDestroy(&cperm));
  PetscFunctionReturn(PETSC_SUCCESS);
}
