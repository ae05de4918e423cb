/*
  The per-row and per-fragment steps of the IPCSR row blocks and the CSR-M bounds, shared by the
  host build (ipcsr.c, PetscInt, plain loops and sequential scans) and the device build (ipcsr.cu,
  int, one GPU thread per row or fragment between Thrust scans). Before including, define
  MATIPCSR_QUAL (function qualifiers) and MATIPCSR_IDX (index type). See MatIPCSRNewRun() for the rule.
*/

/* r where row r starts a run of rows grouped together, else 0: a max-scan gives each row its run's first row */
MATIPCSR_QUAL MATIPCSR_IDX MatIPCSRRunStart(MATIPCSR_IDX r, const MATIPCSR_IDX *ai, MATIPCSR_IDX own, MATIPCSR_IDX window)
{
  return MatIPCSRNewRun(r == 0, r ? ai[r - 1] : 0, ai[r], ai[r + 1], own, window) ? r : 0;
}

/* thread blocks starting at row r (head: the first row of its run): a long row's pieces (one, or
   one per S entries), or one at every MATIPCSR_THREADS-th row of a run */
MATIPCSR_QUAL long long MatIPCSRBlocksAt(MATIPCSR_IDX r, const MATIPCSR_IDX *ai, MATIPCSR_IDX head, MATIPCSR_IDX own, MATIPCSR_IDX S)
{
  const MATIPCSR_IDX len = ai[r + 1] - ai[r];

  return len > own ? MatIPCSRPieces(len, S) : ((r - head) % MATIPCSR_THREADS == 0 ? 1 : 0);
}

/* the descriptors {first row, rows or MATIPCSR_PIECE, first nonzero, end nonzero} of the blocks
   starting at row r, from block b on (head: every row's run start) */
MATIPCSR_QUAL void MatIPCSRFillRow(MATIPCSR_IDX r, MATIPCSR_IDX m, const MATIPCSR_IDX *ai, const MATIPCSR_IDX *head, long long b, MATIPCSR_IDX own, MATIPCSR_IDX S, MATIPCSR_IDX *blocks)
{
  const MATIPCSR_IDX len = ai[r + 1] - ai[r];
  const long long    nb  = MatIPCSRBlocksAt(r, ai, head[r], own, S);

  if (!nb) return;
  if (len > own) {
    for (long long p = 0; p < nb; p++, b++) {
      blocks[4 * b]     = r;
      blocks[4 * b + 1] = nb > 1 ? MATIPCSR_PIECE : 1;
      blocks[4 * b + 2] = ai[r] + (MATIPCSR_IDX)MatIPCSRPieceStart(len, nb, p);
      blocks[4 * b + 3] = ai[r] + (MATIPCSR_IDX)MatIPCSRPieceStart(len, nb, p + 1);
    }
  } else { /* the run's rows from r, at most MATIPCSR_THREADS (as many steps per block: O(rows) in all) */
    MATIPCSR_IDX nr = 1;

    while (r + nr < m && nr < MATIPCSR_THREADS && head[r + nr] == head[r]) nr++;
    blocks[4 * b]     = r;
    blocks[4 * b + 1] = nr;
    blocks[4 * b + 2] = ai[r];
    blocks[4 * b + 3] = ai[r + nr];
  }
}

/* CSR-M's Bound, first rows (the paper's judgment on each Row_Ptr entry, its Figure 11): row r is
   the first row of every fragment f >= 1 whose first nonzero f F it holds. Fragment 0 starts at row
   0, so leading empty rows are written. */
MATIPCSR_QUAL void MatIPCSRBoundFirst(MATIPCSR_IDX r, const MATIPCSR_IDX *ai, MATIPCSR_IDX F, MATIPCSR_IDX *bound)
{
  for (long long f = ((long long)ai[r] + F - 1) / F > 1 ? ((long long)ai[r] + F - 1) / F : 1; f * F < ai[r + 1]; f++) bound[2 * f] = r;
}

/* CSR-M's Bound, last rows: the next fragment's first row when that row starts before the next
   fragment (a row shared by both), else the row before it (so the empty rows between two fragments
   are the first one's); the last fragment ends at row m - 1 */
MATIPCSR_QUAL void MatIPCSRBoundLast(MATIPCSR_IDX f, MATIPCSR_IDX m, MATIPCSR_IDX nfrag, const MATIPCSR_IDX *ai, MATIPCSR_IDX F, MATIPCSR_IDX *bound)
{
  const MATIPCSR_IDX next = f + 1 < nfrag ? bound[2 * (f + 1)] : m;

  bound[2 * f + 1] = f + 1 < nfrag && ai[next] < (long long)(f + 1) * F ? next : next - 1;
}

/* whether fragment f combines its last row: a row that starts in f and goes on into later fragments */
MATIPCSR_QUAL int MatIPCSROwnsShared(MATIPCSR_IDX f, MATIPCSR_IDX nnz, const MATIPCSR_IDX *ai, MATIPCSR_IDX F, const MATIPCSR_IDX *bound)
{
  const MATIPCSR_IDX r  = bound[2 * f + 1];
  const long long    lo = (long long)f * F, hi = lo + F < nnz ? lo + F : nnz;

  return ai[r + 1] > hi && ai[r] >= lo;
}
