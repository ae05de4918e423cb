/*
  Bandwidth-reducing column order of the layer (MAT_SPMV_COLUMN_ORDER_RCM): how far apart the columns
  of neighbouring rows lie, and a reverse Cuthill-McKee order of a square operator's graph.
  Formats that store column offsets within a group of rows (brc's 16-bit offsets from each block's
  first column) need each group's columns to span fewer than MATSPMV_SPAN16 columns; meshes numbered
  by DMPlex (vertices, edges, faces and cells each in their own range) or by a partitioner (each
  process's range, interface rows reaching into the others') rarely do, and RCM brings their
  neighbours together.
*/
#include "../spmvimpl.h"

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

/* Reverse Cuthill-McKee order of the graph of the square matrix A, whose pattern is csr: position k
   holds vertex perm[k] (PetscFree *perm). Consecutive rows with the same columns (the unknowns of one
   mesh node: 3 in elasticity) are one vertex, and the nodes' rows follow their node. Each component
   is searched breadth first from its vertex of fewest entries (a corner or boundary node of a mesh),
   the new neighbours of each vertex taken in increasing degree (entries of the vertex's row), and
   the order reversed. Made here rather than by PETSc's MATORDERINGRCM, which needs the node graph as
   a matrix, symmetrizes it and searches for a pseudo-peripheral root: on KSP ex56's operator that was
   most of the first product's excess over aijcusparse's (docs/results.md); this search reads A's rows
   in place.
   Edges are followed out of a vertex's row only: a structurally unsymmetric A may start more
   components, which only changes the order's quality (the caller measures it). */
PetscErrorCode MatSpmvOrderRCM(Mat A, const MatSpmvCSR *csr, PetscInt **perm)
{
  PetscInt      *node, *first, *order, *byentries, *count, *deg, *key, nn = 0, maxlen = 0, head = 0, tail = 0, nextroot = 0, roots = 0;
  PetscBool     *seen;
  PetscLogDouble t0, t1, t2;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(PetscMalloc2(csr->m, &node, csr->m + 1, &first));
  for (PetscInt r = 0; r < csr->m; r++) { /* runs of rows with the same columns */
    const PetscInt len  = csr->i[r + 1] - csr->i[r];
    PetscBool      same = PETSC_FALSE;

    if (r && len == csr->i[r] - csr->i[r - 1]) PetscCall(PetscArraycmp(csr->j + csr->i[r], csr->j + csr->i[r - 1], len, &same));
    if (!same) first[nn++] = r;
    node[r] = nn - 1;
    maxlen  = PetscMax(maxlen, len);
  }
  first[nn] = csr->m;
  PetscCall(PetscTime(&t1));
  PetscCall(PetscMalloc5(nn, &order, nn, &byentries, nn, &seen, nn, &deg, nn, &key));
  for (PetscInt k = 0; k < nn; k++) deg[k] = csr->i[first[k] + 1] - csr->i[first[k]]; /* a vertex's degree: the entries of its row */
  PetscCall(PetscCalloc1(maxlen + 2, &count));
  for (PetscInt k = 0; k < nn; k++) count[deg[k] + 1]++; /* vertices by degree: the roots' candidates */
  for (PetscInt l = 0; l <= maxlen; l++) count[l + 1] += count[l];
  for (PetscInt k = 0; k < nn; k++) byentries[count[deg[k]]++] = k;
  PetscCall(PetscFree(count));
  PetscCall(PetscArrayzero(seen, nn));
  while (tail < nn) {
    while (seen[byentries[nextroot]]) nextroot++;
    seen[byentries[nextroot]] = PETSC_TRUE;
    order[tail++]             = byentries[nextroot];
    roots++;
    while (head < tail) {
      const PetscInt k = order[head++], end = csr->i[first[k] + 1], start = tail;

      for (PetscInt e = csr->i[first[k]]; e < end;) {
        const PetscInt c = csr->j[e], v = node[c], span = first[v + 1] - 1 - c; /* node v's columns from c on: c .. c + span */

        if (!seen[v]) {
          seen[v]       = PETSC_TRUE;
          order[tail++] = v;
        }
        e += (e + span < end && csr->j[e + span] == c + span) ? span + 1 : 1; /* the node's columns all present: skip them */
      }
      if (tail - start > 16) { /* the new neighbours by increasing degree: many (a dense row) by a sort */
        for (PetscInt p = start; p < tail; p++) key[p - start] = deg[order[p]];
        PetscCall(PetscSortIntWithArray(tail - start, key, order + start));
      } else
        for (PetscInt p = start + 1; p < tail; p++) { /* a few: insertion, stable */
          const PetscInt v = order[p];
          PetscInt       q = p;

          for (; q > start && deg[order[q - 1]] > deg[v]; q--) order[q] = order[q - 1];
          order[q] = v;
        }
    }
  }
  PetscCall(PetscMalloc1(csr->m, perm));
  for (PetscInt k = nn - 1, p = 0; k >= 0; k--) /* reversed; each vertex's rows in their order */
    for (PetscInt r = first[order[k]]; r < first[order[k] + 1]; r++) (*perm)[p++] = r;
  PetscCall(PetscFree5(order, byentries, seen, deg, key));
  PetscCall(PetscFree2(node, first));
  PetscCall(PetscTime(&t2));
  PetscCall(PetscInfo(A, "RCM of %" PetscInt_FMT " vertices for %" PetscInt_FMT " rows (%" PetscInt_FMT " component(s) searched): %.0f ms to find them, %.0f ms to order them\n", nn, csr->m, roots, 1e3 * (t1 - t0), 1e3 * (t2 - t1)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
