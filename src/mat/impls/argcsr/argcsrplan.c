/*
  ARGCSR's plan: the groups of rows, threads per row, chunk sizes and split rows from the row lengths
  alone, read by the host build (argcsr.c) and the device build (argcsr.cu) alike.
*/
#include "argcsrimpl.h"

/* Scratch of one group, block entries each: row lengths, threads per row, and a max-heap of rows
   (key: the row's chunk filling ceil(len / threads)) */
typedef struct {
  PetscInt *len, *thr, *hkey, *hrow;
} MatARGCSRWork;

/* Heap position a holds a fuller row than b: larger chunk filling, then larger len / threads
   (exact, cross-multiplied), then the earlier row, so the layout does not depend on heap order */
static inline PetscBool MatARGCSRFuller(const MatARGCSRWork *w, PetscInt a, PetscInt b)
{
  PetscInt   ra = w->hrow[a], rb = w->hrow[b];
  PetscInt64 fa = (PetscInt64)w->len[ra] * w->thr[rb], fb = (PetscInt64)w->len[rb] * w->thr[ra];

  if (w->hkey[a] != w->hkey[b]) return w->hkey[a] > w->hkey[b] ? PETSC_TRUE : PETSC_FALSE;
  if (fa != fb) return fa > fb ? PETSC_TRUE : PETSC_FALSE;
  return ra < rb ? PETSC_TRUE : PETSC_FALSE;
}

static inline void MatARGCSRSiftDown(MatARGCSRWork *w, PetscInt nh, PetscInt i)
{
  for (;;) {
    PetscInt l = 2 * i + 1, big = i, key, row;

    if (l < nh && MatARGCSRFuller(w, l, big)) big = l;
    if (l + 1 < nh && MatARGCSRFuller(w, l + 1, big)) big = l + 1;
    if (big == i) return;
    key          = w->hkey[i];
    row          = w->hrow[i];
    w->hkey[i]   = w->hkey[big];
    w->hrow[i]   = w->hrow[big];
    w->hkey[big] = key;
    w->hrow[big] = row;
    i            = big;
  }
}

/* Threads needed by rows of lengths len for chunks of at most C entries (stops counting past block) */
static PetscInt64 MatARGCSRThreadsNeeded(const PetscInt *len, PetscInt nr, PetscInt C, PetscInt block)
{
  PetscInt64 need = 0;

  for (PetscInt r = 0; r < nr && need <= block; r++) need += (len[r] + C - 1) / C;
  return need;
}

/* Threads of one group to its nr rows of lengths w->len (the paper's second step): one thread
   per nonempty row (an empty row sums no chunk), then each spare thread to the row whose chunks
   are fullest; a row whose chunks hold one entry takes no more (they would get empty chunks).
   Until the fullest chunk reaches the smallest C with sum ceil(len / C) <= block, every thread
   the greedy gives is one the row needs for C, so the greedy passes through ceil(len / C)
   threads per row: that state is computed directly (C by bisection), and only the threads left
   then go one at a time through the max-heap, in O(block log nr). Returns the chunk size C;
   with spare false the threads left are not handed out (enough for the slot count). */
static PetscInt MatARGCSRDistribute(MatARGCSRWork *w, PetscInt nr, PetscInt block, PetscBool spare)
{
  PetscInt64 nz     = 0;
  PetscInt   maxlen = 0, nonempty = 0, lo, hi, left = block, nh = 0;

  for (PetscInt r = 0; r < nr; r++) {
    nz += w->len[r];
    maxlen = PetscMax(maxlen, w->len[r]);
    nonempty += w->len[r] ? 1 : 0;
  }
  if (!nz) {
    for (PetscInt r = 0; r < nr; r++) w->thr[r] = 0;
    return 0;
  }
  if (nonempty == block) lo = hi = maxlen; /* no thread to spare: one chunk per row */
  else { /* block threads hold nz entries; ceil(len / C) < len / C + 1, so C = nz / (block - nonempty) fits */ lo = (PetscInt)PetscMax(1, (nz + block - 1) / block);
    hi                                                                                                            = (PetscInt)PetscMin(maxlen, (nz + block - nonempty - 1) / (block - nonempty));
    if (MatARGCSRThreadsNeeded(w->len, nr, lo, block) <= block) hi = lo; /* common: no bisection */
  }
  while (lo < hi) {
    PetscInt mid = lo + (hi - lo) / 2;

    if (MatARGCSRThreadsNeeded(w->len, nr, mid, block) <= block) hi = mid;
    else lo = mid + 1;
  }
  for (PetscInt r = 0; r < nr; r++) {
    w->thr[r] = (w->len[r] + lo - 1) / lo;
    left -= w->thr[r];
    if (spare && w->thr[r] < w->len[r]) {
      w->hkey[nh]   = (w->len[r] + w->thr[r] - 1) / w->thr[r];
      w->hrow[nh++] = r;
    }
  }
  if (!spare) return lo;
  for (PetscInt i = nh / 2 - 1; i >= 0; i--) MatARGCSRSiftDown(w, nh, i);
  while (left > 0 && nh > 0) {
    PetscInt r = w->hrow[0];

    w->thr[r]++;
    left--;
    if (w->thr[r] == w->len[r]) { /* chunks of one entry: out of the heap */
      nh--;
      w->hkey[0] = w->hkey[nh];
      w->hrow[0] = w->hrow[nh];
    } else w->hkey[0] = (w->len[r] + w->thr[r] - 1) / w->thr[r];
    MatARGCSRSiftDown(w, nh, 0);
  }
  return lo;
}

/* Threads a row of len entries needs for chunks of at most D entries */
static inline PetscInt64 MatARGCSRThreadsAt(PetscInt len, PetscInt D)
{
  return ((PetscInt64)len + D - 1) / D;
}

/* The group starting at row first (at most D * block entries) ends before the first row that is
   longer than D * block (it is split into pieces), that would take it over block rows, or over
   block threads for chunks of at most D entries (the sum of ceil(len / D) over its rows). The
   paper closes a group at D * block nonzeros instead, which lets one long row among block short
   ones give every chunk of the group that row's length; with the thread count, every group's
   chunk size is at most D, and no thread sums more than D entries. For D = 1 the two rules agree. */
static PetscInt MatARGCSRGroupEnd(const MatSpmvCSR *csr, PetscInt D, PetscInt block, PetscInt first)
{
  const PetscInt64 cap  = (PetscInt64)D * block;
  PetscInt64       need = MatARGCSRThreadsAt(csr->i[first + 1] - csr->i[first], D);
  PetscInt         r    = first + 1;

  while (r < csr->m && r - first < block) {
    const PetscInt len = csr->i[r + 1] - csr->i[r];

    if (len > cap) break;
    need += MatARGCSRThreadsAt(len, D);
    if (need > block) break;
    r++;
  }
  return r;
}

/* Groups, threads and chunk sizes for desired chunk size D; the groups, split rows and pieces in
   *ngroups, *nsplit, *npieces and the total slots in *nslots. With group and rowend, also the
   group info (first row, rows or MATARGCSR_PIECE, first slot, chunk size) and the threads
   mapping. Stops as soon as the slots exceed limit (the caller then rejects D). */
static void MatARGCSRPlan(const MatSpmvCSR *csr, PetscInt D, PetscInt block, MatARGCSRWork *w, PetscInt64 limit, PetscInt *group, PetscInt *rowend, PetscInt *ngroups, PetscInt *nsplit, PetscInt *npieces, PetscInt64 *nslots)
{
  const PetscInt64 cap   = (PetscInt64)D * block;
  PetscInt64       slots = 0;
  PetscInt         g = 0, ns = 0, np = 0;

  for (PetscInt first = 0, end; first < csr->m && slots <= limit; first = end) {
    const PetscInt len = csr->i[first + 1] - csr->i[first];

    if (len > cap) { /* pieces of at most cap entries; chunk ceil(piece / block) <= D */
      const PetscInt n = MatARGCSRPieces(len, cap);

      for (PetscInt p = 0; p < n && slots <= limit; p++, g++) {
        const PetscInt piece = len / n + (p < len % n ? 1 : 0), chunk = (piece + block - 1) / block;

        if (group) {
          group[4 * g]     = first;
          group[4 * g + 1] = MATARGCSR_PIECE;
          group[4 * g + 2] = (PetscInt)slots; /* at most limit, checked by the loop */
          group[4 * g + 3] = chunk;
        }
        slots += (PetscInt64)chunk * block;
      }
      if (rowend) rowend[first] = block;
      ns++;
      np += n;
      end = first + 1;
    } else {
      PetscInt chunk, nr;

      end = MatARGCSRGroupEnd(csr, D, block, first);
      nr  = end - first;
      for (PetscInt k = 0; k < nr; k++) w->len[k] = csr->i[first + k + 1] - csr->i[first + k];
      chunk = MatARGCSRDistribute(w, nr, block, group ? PETSC_TRUE : PETSC_FALSE);
      if (group) {
        PetscInt e = 0;

        group[4 * g]     = first;
        group[4 * g + 1] = nr;
        group[4 * g + 2] = (PetscInt)slots; /* at most limit, checked by the loop */
        group[4 * g + 3] = chunk;
        for (PetscInt k = 0; k < nr; k++) rowend[first + k] = (e += w->thr[k]);
      }
      slots += (PetscInt64)chunk * block;
      g++;
    }
  }
  *ngroups = g;
  *nsplit  = ns;
  *npieces = np;
  *nslots  = slots;
}

/* Automatic desired chunk size. Long chunks (the paper: 32 for very regular matrices) give each
   thread more work and a group more rows, but a group holds up to `block` rows with at least one
   thread each, so a group of short rows of unequal lengths is padded to its longest (up to D);
   chunk size 1 (the paper's robust choice) keeps the padding low on any matrix. Rows longer than
   D * block are split, so they pad less than one slot per thread at any D. The mean and standard
   deviation of the row lengths do not tell which D suits (a 27-point stencil pads little at 32,
   normally spread rows of a smaller sigma/mu pad much more), so the rule
   measures the padding itself: the largest of 32, 16, 8, 4, 2 whose layout pads at most 15%,
   else 1. A trial stops as soon as it exceeds 15%. The 15% lets the power-law matrix take chunk 2,
   much faster than chunk 1, and keeps the circuit matrix from chunk 4, slower than chunk 2
   (docs/results.md, "argcsr"). */
static PetscInt MatARGCSRChunkAuto(const MatSpmvCSR *csr, PetscInt block, MatARGCSRWork *w)
{
  const PetscInt64 limit = csr->nnz + (csr->nnz * 3) / 20;
  PetscInt         D;

  for (D = MATARGCSR_MAX_CHUNK; D > 1; D /= 2) {
    PetscInt64 slots;
    PetscInt   ng, ns, np;

    MatARGCSRPlan(csr, D, block, w, limit, NULL, NULL, &ng, &ns, &np, &slots);
    if (slots <= limit) break;
  }
  return D;
}

/* The groups of the layout from the row lengths alone (O(rows): the nonzeros are not read):
   statistics, chunk size, group info, threads per row, split rows, slots, viewer figures */
PetscErrorCode MatARGCSRPlanLayout(const MatARGCSRParams *p, const MatSpmvCSR *csr, MatSpmvLayout L)
{
  const PetscInt   m = csr->m, B = p->block;
  MatARGCSRLayout *ag;
  MatARGCSRWork    w;
  PetscInt64       nslots, cap;
  PetscInt         D, ng, ns, np;
  PetscReal        sum2 = 0;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ag));
  L->fmt    = ag;
  ag->block = B;
  ag->mu    = m ? (PetscReal)csr->nnz / m : 0;
  for (PetscInt r = 0; r < m; r++) {
    PetscInt len = csr->i[r + 1] - csr->i[r];

    sum2 += PetscSqr((PetscReal)len - ag->mu);
    ag->maxlen = PetscMax(ag->maxlen, len);
  }
  ag->sigma = m ? PetscSqrtReal(sum2 / m) : 0;
  PetscCall(PetscMalloc4(B, &w.len, B, &w.thr, B, &w.hkey, B, &w.hrow));
  ag->chunkauto = p->chunk ? PETSC_FALSE : PETSC_TRUE;
  ag->chunk     = p->chunk ? p->chunk : MatARGCSRChunkAuto(csr, B, &w);
  /* a chunk size past the longest row gives the same layout as the longest row (one thread per
     row suffices, nothing is split): clamped, chunk * block and the thread counts cannot overflow */
  D            = PetscMin(ag->chunk, PetscMax(ag->maxlen, 1));
  cap          = (PetscInt64)D * B;
  ag->splitlen = cap;
  /* sizes first (no slot limit), then the layout */
  MatARGCSRPlan(csr, D, B, &w, PETSC_INT64_MAX, NULL, NULL, &ag->ngroups, &ag->nsplit, &ag->npieces, &nslots);
  PetscCheck(nslots <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "ARGCSR needs %" PetscInt64_FMT " slots, more than the %d that 32-bit device indices address, for this %" PetscInt_FMT " x %" PetscInt_FMT " matrix with %" PetscInt_FMT " nonzeros (chunk size %" PetscInt_FMT ", %" PetscInt_FMT " threads per group): lower -mat_argcsr_chunk, split the matrix over more MPI processes or use MATAIJ", nslots, PETSC_INT32_MAX, m,
             csr->n, csr->nnz, ag->chunk, B);
  PetscCheck(4 * (PetscInt64)ag->ngroups <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "ARGCSR needs %" PetscInt_FMT " groups, more than 32-bit device indices address", ag->ngroups);
  PetscCall(PetscMalloc1(4 * ag->ngroups, &ag->group));
  PetscCall(PetscMalloc1(m, &ag->rowend));
  PetscCall(PetscMalloc1(ag->nsplit, &ag->split));
  MatARGCSRPlan(csr, D, B, &w, PETSC_INT32_MAX, ag->group, ag->rowend, &ng, &ns, &np, &nslots);
  PetscCall(PetscFree4(w.len, w.thr, w.hkey, w.hrow));
  L->nslots    = (PetscInt)nslots;
  ag->minchunk = ag->ngroups ? PETSC_INT_MAX : 0;
  ns           = 0;
  for (PetscInt g = 0; g < ag->ngroups; g++) {
    const PetscInt first = ag->group[4 * g], nr = ag->group[4 * g + 1], chunk = ag->group[4 * g + 3];
    PetscBool      tree = PETSC_FALSE;

    ag->minchunk = PetscMin(ag->minchunk, chunk);
    ag->maxchunk = PetscMax(ag->maxchunk, chunk);
    if (nr == MATARGCSR_PIECE) { /* a row's pieces are consecutive groups: list the row once */
      if (!ns || ag->split[ns - 1] != first) ag->split[ns++] = first;
      continue;
    }
    for (PetscInt k = 0; k < nr; k++) {
      const PetscInt r = first + k, nt = ag->rowend[r] - (k ? ag->rowend[r - 1] : 0);

      ag->maxthreads = PetscMax(ag->maxthreads, nt);
      if (nt > MATARGCSR_SERIAL_SUM) tree = PETSC_TRUE;
    }
    if (tree) ag->ntree++;
  }
  L->indexbytes = sizeof(int) * (4 * ag->ngroups + m + L->nslots + ag->nsplit);
  PetscFunctionReturn(PETSC_SUCCESS);
}
