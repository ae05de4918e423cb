#pragma once
/*
  One CMRS strip's layout, shared by the host build (cmrs.c, PetscInt) and the device build
  (cmrs.cu, int, one GPU thread per strip). Before including, define MATCMRS_QUAL (function
  qualifiers) and MATCMRS_IDX (index type). colind NULL: only count the strip's slots.
*/
typedef struct {
  int                kernel; /* MatCMRSKernel */
  int                sorted, packed;
  MATCMRS_IDX        height, modulo, m;
  const MATCMRS_IDX *ai, *aj;
  MATCMRS_IDX       *colind, *rowinstrip, *slot2csr;
} MatCMRSStripArgs;

MATCMRS_QUAL void MatCMRSEmit(const MatCMRSStripArgs *a, MATCMRS_IDX slot, MATCMRS_IDX k, MATCMRS_IDX col, MATCMRS_IDX r)
{
  if (!a->colind) return; /* counting pass */
  a->slot2csr[slot] = k;
  if (a->packed) a->colind[slot] = (col << MATCMRS_BITS) | r;
  else {
    a->colind[slot]     = col;
    a->rowinstrip[slot] = r;
  }
}

/* The row of a strip whose next column is lowest among rows with entries left (and fewer than cap
   taken, when taken is given); *below gets the lowest next column of the other such rows */
MATCMRS_QUAL MATCMRS_IDX MatCMRSLowestColumn(const MatCMRSStripArgs *a, const MATCMRS_IDX *next, const MATCMRS_IDX *end, MATCMRS_IDX h, const MATCMRS_IDX *taken, MATCMRS_IDX cap, MATCMRS_IDX *below)
{
  MATCMRS_IDX best = -1;

  *below = MATCMRS_IDX_MAX;
  for (MATCMRS_IDX r = 0; r < h; r++) {
    if (next[r] >= end[r] || (taken && taken[r] >= cap)) continue;
    if (best < 0 || a->aj[next[r]] < a->aj[next[best]]) {
      if (best >= 0) *below = MATCMRS_MIN(*below, a->aj[next[best]]);
      best = r;
    } else *below = MATCMRS_MIN(*below, a->aj[next[r]]);
  }
  return best;
}

/* Lay out strip s from slot `out` on; returns its number of slots */
MATCMRS_QUAL MATCMRS_IDX MatCMRSStrip(const MatCMRSStripArgs *a, MATCMRS_IDX s, MATCMRS_IDX out)
{
  const MATCMRS_IDX r0 = s * a->height, h = MATCMRS_MIN(a->height, a->m - r0), M = a->modulo;
  MATCMRS_IDX       next[MATCMRS_MAX_HEIGHT], end[MATCMRS_MAX_HEIGHT], left = 0, slot = out, r, below;

  for (r = 0; r < h; r++) {
    next[r] = a->ai[r0 + r];
    end[r]  = a->ai[r0 + r + 1];
    left += end[r] - next[r];
  }
  if (a->kernel == MAT_CMRS_KERNEL_BASIC) {
    if (!a->sorted) /* CSR order */
      for (r = 0; r < h; r++)
        for (; next[r] < end[r]; next[r]++) MatCMRSEmit(a, slot++, next[r], a->aj[next[r]], r);
    else /* merge of the strip's rows by column */
      for (; (r = MatCMRSLowestColumn(a, next, end, h, NULL, 0, &below)) >= 0; next[r]++) MatCMRSEmit(a, slot++, next[r], a->aj[next[r]], r);
    return slot - out;
  }
  /* modified kernel: rounds of 32 slots, one per lane; a row gives at most M entries to a round,
     placed contiguously, so they fall on distinct lanes modulo M */
  while (left) {
    MATCMRS_IDX taken[MATCMRS_MAX_HEIGHT] = {0}, order[MATCMRS_MAX_HEIGHT], norder = 0, filled = 0, lastcol = 0;
    MATCMRS_IDX used[MATCMRS_WARP] = {0}; /* per lane class: bit r set when row r has an entry there */

    while (filled < MATCMRS_WARP) {
      MATCMRS_IDX t, most = 0;

      if (a->sorted) r = MatCMRSLowestColumn(a, next, end, h, taken, M, &below);
      else { /* the row with the most entries left, so that rows run out together and few rounds need padding */ r = -1;
        for (MATCMRS_IDX q = 0; q < h; q++)
          if (taken[q] < M && end[q] - next[q] > most) {
            most = end[q] - next[q];
            r    = q;
          }
      }
      if (r < 0) break;
      t = MATCMRS_MIN(MATCMRS_MIN(M - taken[r], end[r] - next[r]), MATCMRS_WARP - filled);
      if (a->sorted) /* stop where another row's next column comes first */
        for (MATCMRS_IDX q = 1; q < t; q++)
          if (a->aj[next[r] + q] > below) t = q;
      if (!taken[r]) order[norder++] = r;
      taken[r] += t;
      next[r] += t;
      filled += t;
    }
    left -= filled;
    for (MATCMRS_IDX q = 0, p = 0; q < norder; q++) {
      r = order[q];
      for (MATCMRS_IDX k = next[r] - taken[r]; k < next[r]; k++, p++) {
        lastcol = a->aj[k];
        used[p % M] |= (MATCMRS_IDX)1 << r;
        MatCMRSEmit(a, slot + p, k, lastcol, r);
      }
    }
    for (MATCMRS_IDX p = filled; p < MATCMRS_WARP; p++) { /* padding: a zero on a row free in its lane class (M x height >= 32 leaves one) */
      MATCMRS_IDX rr = 0;

      while (used[p % M] >> rr & 1) rr++;
      used[p % M] |= (MATCMRS_IDX)1 << rr;
      MatCMRSEmit(a, slot + p, -1, lastcol, rr);
    }
    slot += MATCMRS_WARP;
  }
  return slot - out;
}
