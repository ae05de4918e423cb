/*
  MATIPCSR: Improved Perfect CSR (Yang, Li, Xie, Li, 2017) with CSR-M's nonzero partition (Yin,
  Zhang, Xu, Hu, He, 2012, section 5.2) as a second kernel, both on the CSR itself.

  The layout is the identity: slot s is CSR entry s. With a GPU the kernels read aijcusparse's
  device row offsets, column indices and values in place; the format adds only the row blocks
  (ipcsr: first row, rows, first and end nonzero of each thread block) or the fragments' row
  bounds (csrm), built on the device in O(rows). A change of values costs nothing (the values are
  the CSR's), a build is the row-blocks pass only.

  CSR-M's other idea, a Col_x array holding the x entries of the matrix's nonzeros in place of the
  column indices, is not built: it ties the matrix to one vector (it would have to be refilled,
  a gather of nnz entries, for every new x, i.e. every product), which a PETSc Mat cannot be.
*/
#include "ipcsrimpl.h"

const char *const MatIPCSRKernels[] = {"ipcsr", "csrm", "auto", "MatIPCSRKernel", "MAT_IPCSR_KERNEL_", NULL};

/* the automatic kernel, 16 KB per block (docs/results.md, "ipcsr"), CSR-M's 1024 */
static const MatIPCSRParams MatIPCSRParamsDefault = {MAT_IPCSR_KERNEL_AUTO, MATIPCSR_SHARED_DEFAULT, MATIPCSR_FRAGMENT_DEFAULT};

static PetscErrorCode MatSpmvFormatSetFromOptions_IPCSR(PetscOptionItems PetscOptionsObject, void *params)
{
  MatIPCSRParams *p      = (MatIPCSRParams *)params;
  MatIPCSRKernel  kernel = (MatIPCSRKernel)p->kernel;
  PetscBool       set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsEnum("-mat_ipcsr_kernel", "Kernel: ipcsr (row blocks fitting shared memory), csrm (equal fragments of nonzeros) or auto (ipcsr, measured faster on every benchmark matrix)", "MatIPCSRSetKernel", MatIPCSRKernels, (PetscEnum)kernel, (PetscEnum *)&kernel, &set));
  p->kernel = kernel;
  PetscCall(PetscOptionsRangeInt("-mat_ipcsr_shared", "ipcsr: bytes of shared memory per thread block for its products (the paper's SHARED_SIZE in bytes); 0: the paper's formula for the GPU, 8192 without one", "MatIPCSRSetSharedSize", p->shared, &p->shared, &set, 0, MATIPCSR_MAX_SHARED));
  PetscCheck(p->shared == 0 || p->shared >= (PetscInt)sizeof(PetscScalar), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ipcsr_shared %" PetscInt_FMT " must be 0 (automatic) or at least %d bytes (one matrix entry), e.g. 8192", p->shared, (int)sizeof(PetscScalar));
  PetscCall(PetscOptionsRangeInt("-mat_ipcsr_fragment", "csrm: nonzeros per thread block (the paper: 1024)", "MatIPCSRSetFragmentSize", p->fragment, &p->fragment, &set, 1, MATIPCSR_MAX_FRAGMENT));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define MATIPCSR_QUAL static inline
#define MATIPCSR_IDX  PetscInt
#include "ipcsrrows.h"

/* Rows per block, reduction, single rows and pieces of the row blocks (the device build computes the same) */
static void MatIPCSRBlockStatsHost(MatIPCSRLayout *ip)
{
  MatIPCSRBlockStats *bs   = &ip->bs;
  MatIPCSRBlockStats  zero = {
     {0, 0, 0, 0, 0, 0},
     0, 0, PETSC_INT_MAX, 0
  };

  *bs = zero;
  for (PetscInt b = 0; b < ip->nblocks; b++) {
    const PetscInt nr = ip->blocks[4 * b + 1];

    if (nr == MATIPCSR_PIECE) bs->pieces++;
    else if (nr == 1) bs->single++;
    else {
      const int tpr = MatIPCSRThreadsPerRow((int)nr);

      for (int k = 0; k < 6; k++)
        if (tpr == 1 << k) bs->tpr[k]++;
      bs->minrows = PetscMin(bs->minrows, nr);
      bs->maxrows = PetscMax(bs->maxrows, nr);
    }
  }
  if (bs->minrows == PETSC_INT_MAX) bs->minrows = 0;
}

/* The row blocks with the device build's steps (ipcsrrows.h), its scans done sequentially: run
   starts and their max-scan, blocks per row and their sum, then each row's block descriptors */
static PetscErrorCode MatIPCSRPlanHost(MatIPCSRLayout *ip)
{
  const PetscInt *ai = ip->ai, m = ip->m;
  PetscInt       *head;
  PetscInt64      nb = 0, b = 0;
  PetscInt        ns = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(m, &head));
  for (PetscInt r = 0; r < m; r++) {
    head[r] = MatIPCSRRunStart(r, ai, ip->own, ip->window);
    if (r) head[r] = PetscMax(head[r], head[r - 1]);
    nb += MatIPCSRBlocksAt(r, ai, head[r], ip->own, ip->S);
    if (ai[r + 1] - ai[r] > ip->S) ip->nsplit++;
  }
  PetscCheck(nb <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "IPCSR needs %" PetscInt64_FMT " thread blocks for this %" PetscInt_FMT "-row matrix, more than a CUDA grid holds: raise -mat_ipcsr_shared, use -mat_ipcsr_kernel csrm, or split the matrix over more MPI processes", nb, m);
  ip->nblocks = (PetscInt)nb;
  PetscCall(PetscMalloc1(4 * ip->nblocks, &ip->blocks));
  PetscCall(PetscMalloc1(ip->nsplit, &ip->split));
  for (PetscInt r = 0; r < m; r++) {
    MatIPCSRFillRow(r, m, ai, head, b, ip->own, ip->S, ip->blocks);
    b += MatIPCSRBlocksAt(r, ai, head[r], ip->own, ip->S);
    if (ai[r + 1] - ai[r] > ip->S) ip->split[ns++] = r;
  }
  PetscCall(PetscFree(head));
  /* the rule's promises, which the device kernel relies on (the device build takes the same steps):
     the blocks cover the rows and the nonzeros in order, each once, and none holds more than the budget */
  {
    PetscInt next = 0, pos = 0;

    for (PetscInt k = 0; k < ip->nblocks; k++) {
      const PetscInt r = ip->blocks[4 * k], nr = ip->blocks[4 * k + 1], begin = ip->blocks[4 * k + 2], end = ip->blocks[4 * k + 3];
      const PetscInt rend = r + (nr == MATIPCSR_PIECE ? 1 : nr);

      PetscCheck(begin == pos && end - begin <= ip->S && (r == next || (nr == MATIPCSR_PIECE && r == next - 1 && begin > ai[r])) && (nr == MATIPCSR_PIECE ? begin >= ai[r] && end <= ai[r + 1] : begin == ai[r] && end == ai[rend]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "IPCSR block %" PetscInt_FMT " {%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT "} does not follow row %" PetscInt_FMT ", entry %" PetscInt_FMT " or exceeds the budget of %" PetscInt_FMT " entries", k, r, nr, begin, end, next, pos, ip->S);
      next = rend;
      pos  = end;
    }
    PetscCheck(next == m && pos == ip->nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "IPCSR blocks end at row %" PetscInt_FMT " and entry %" PetscInt_FMT ", not %" PetscInt_FMT " and %" PetscInt_FMT, next, pos, m, ip->nnz);
  }
  MatIPCSRBlockStatsHost(ip);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CSR-M's Bound array from the row offsets, with the device build's steps (ipcsrrows.h) */
static PetscErrorCode MatIPCSRPlanHostCSRM(MatIPCSRLayout *ip)
{
  const PetscInt *ai = ip->ai, m = ip->m, F = ip->fragment;

  PetscFunctionBegin;
  ip->nfrag = (PetscInt)MatIPCSRFragments(m, ip->nnz, F);
  PetscCall(PetscMalloc1(2 * ip->nfrag, &ip->bound));
  if (ip->nfrag) ip->bound[0] = 0;
  for (PetscInt r = 0; r < m; r++) MatIPCSRBoundFirst(r, ai, F, ip->bound);
  for (PetscInt f = 0; f < ip->nfrag; f++) MatIPCSRBoundLast(f, m, ip->nfrag, ai, F, ip->bound);
  for (PetscInt f = 0; f < ip->nfrag; f++) {
    const PetscInt b0 = ip->bound[2 * f], b1 = ip->bound[2 * f + 1], next = f + 1 < ip->nfrag ? ip->bound[2 * f + 2] : m;

    /* the fragments' rows cover all rows in order, consecutive fragments sharing at most one */
    PetscCheck(b0 <= b1 && (next == b1 || next == b1 + 1) && (f || !b0) && ai[b0] <= (PetscInt64)f * F && (!ip->nnz || (PetscInt64)f * F < ai[b0 + 1] || !f), PETSC_COMM_SELF, PETSC_ERR_PLIB, "CSR-M fragment %" PetscInt_FMT " has rows %" PetscInt_FMT " to %" PetscInt_FMT ", the next starts at %" PetscInt_FMT, f, b0, b1, next);
    ip->maxfrows = PetscMax(ip->maxfrows, b1 - b0 + 1);
    ip->nshared += MatIPCSROwnsShared(f, ip->nnz, ai, F, ip->bound);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvFormatBuild_IPCSR(const void *params, const MatSpmvCSR *csr, MatSpmvLayout L)
{
  MatIPCSRLayout *ip;
  PetscReal       sum2 = 0;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ip));
  L->fmt  = ip;
  ip->m   = csr->m;
  ip->nnz = csr->nnz;
  PetscCheck(csr->nnz <= PETSC_INT32_MAX && csr->m < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "IPCSR indexes the CSR with 32-bit integers on the device: this %" PetscInt_FMT " x %" PetscInt_FMT " matrix has %" PetscInt_FMT " nonzeros; split it over more MPI processes or use MATAIJ",
             csr->m, csr->n, csr->nnz);
  for (PetscInt r = 0; r < csr->m; r++) {
    const PetscInt len = csr->i[r + 1] - csr->i[r];

    sum2 += (PetscReal)len * len;
    ip->maxlen = PetscMax(ip->maxlen, len);
  }
  ip->mu    = csr->m ? (PetscReal)csr->nnz / csr->m : 0;
  ip->sigma = csr->m ? PetscSqrtReal(PetscMax(sum2 / csr->m - ip->mu * ip->mu, 0)) : 0;
  {
    PetscInt  gpushared = 0;
    PetscBool gpu       = PETSC_FALSE;

#if defined(PETSC_HAVE_CUDA)
    PetscCall(MatSpmvCUDAAvailable(&gpu));
    if (gpu) PetscCall(MatIPCSRDeviceShared(&gpushared));
#endif
    PetscCall(MatIPCSRSetup((const MatIPCSRParams *)params, gpushared, ip));
  }
  /* the CSR is the layout: our copy of the pattern (the layer's is valid only during this call), the identity map */
  PetscCall(PetscMalloc1(csr->m + 1, &ip->ai));
  PetscCall(PetscMalloc1(csr->nnz, &ip->aj));
  PetscCall(PetscArraycpy(ip->ai, csr->i, csr->m + 1));
  PetscCall(PetscArraycpy(ip->aj, csr->j, csr->nnz));
  L->nslots = csr->nnz;
  PetscCall(PetscMalloc1(csr->nnz, &L->slot2csr));
  for (PetscInt s = 0; s < csr->nnz; s++) L->slot2csr[s] = s;
  if (ip->kernel == MAT_IPCSR_KERNEL_IPCSR) PetscCall(MatIPCSRPlanHost(ip));
  else PetscCall(MatIPCSRPlanHostCSRM(ip));
  /* our arrays: the pattern (uploaded for a host-built layout) and the blocks or bounds */
  L->indexbytes = sizeof(int) * ((size_t)csr->m + 1 + csr->nnz + 4 * ip->nblocks + ip->nsplit + 2 * ip->nfrag);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvFormatSlotRowCol_IPCSR(MatSpmvLayout L, PetscInt *row, PetscInt *col)
{
  MatIPCSRLayout *ip = (MatIPCSRLayout *)L->fmt;

  PetscFunctionBegin;
  for (PetscInt r = 0; r < ip->m; r++)
    for (PetscInt k = ip->ai[r]; k < ip->ai[r + 1]; k++) {
      row[k] = r;
      col[k] = ip->aj[k];
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A warp's butterfly sum (shuffles with offsets width/2 .. 1) as lane 0 gets it: p[l] holds lane
   l's value; the lanes l < o add lane l + o's at each step */
static inline PetscScalar MatIPCSRLaneTree(PetscScalar *p, int width)
{
  for (int o = width / 2; o > 0; o /= 2)
    for (int l = 0; l < o; l++) p[l] += p[l + o];
  return p[0];
}

/* IPCSR host reference: the device kernel's arithmetic in its order. Split rows preset to z (or 0),
   then each block: one row (or a piece) summed by MATIPCSR_THREADS strided threads, each warp's
   sums by a butterfly, then the warps' sums by a butterfly in warp 0; several rows summed by tpr
   threads each (strided over the row), then a butterfly of the tpr lanes */
static PetscErrorCode MatMultHostIPCSR(MatIPCSRLayout *ip, const PetscScalar *val, PetscScalar alpha, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
{
  const PetscInt *ai = ip->ai, *aj = ip->aj;
  PetscScalar     p[MATIPCSR_THREADS], w[32];

  PetscFunctionBegin;
  for (PetscInt k = 0; k < ip->nsplit; k++) y[ip->split[k]] = z ? z[ip->split[k]] : 0.0;
  for (PetscInt b = 0; b < ip->nblocks; b++) {
    const PetscInt r0 = ip->blocks[4 * b], nr = ip->blocks[4 * b + 1], begin = ip->blocks[4 * b + 2], end = ip->blocks[4 * b + 3];

    if (nr == 1 || nr == MATIPCSR_PIECE) {
      PetscScalar sum;

      for (int t = 0; t < MATIPCSR_THREADS; t++) {
        p[t] = 0;
        for (PetscInt k = begin + t; k < end; k += MATIPCSR_THREADS) p[t] += val[k] * x[aj[k]];
      }
      for (int v = 0; v < 32; v++) w[v] = v < MATIPCSR_WARPS ? MatIPCSRLaneTree(p + 32 * v, 32) : 0.0;
      sum = alpha * MatIPCSRLaneTree(w, 32);
      if (nr == 1) y[r0] = z ? z[r0] + sum : sum;
      else y[r0] += sum;
      continue;
    }
    {
      const int tpr = MatIPCSRThreadsPerRow((int)nr);

      for (PetscInt r = r0; r < r0 + nr; r++) {
        PetscScalar sum;

        for (int l = 0; l < tpr; l++) {
          p[l] = 0;
          for (PetscInt k = ai[r] + l; k < ai[r + 1]; k += tpr) {
            const PetscScalar prod = val[k] * x[aj[k]]; /* staged in shared memory on the device */
            p[l] += prod;
          }
        }
        sum  = alpha * MatIPCSRLaneTree(p, tpr);
        y[r] = z ? z[r] + sum : sum;
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CSR-M host reference: each fragment's rows summed by 16 lanes (strided over the row's entries in
   the fragment) and a butterfly; rows inside the fragment written, the fragment's first and last
   rows' partial sums kept when they are shared; then each shared row, from the fragment where it
   starts: its partial there, then the partials of the fragments it goes on into, in order */
static PetscErrorCode MatMultHostCSRM(MatIPCSRLayout *ip, const PetscScalar *val, PetscScalar alpha, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
{
  const PetscInt *ai = ip->ai, *aj = ip->aj, F = ip->fragment;
  PetscScalar     p[MATIPCSR_CSRM_LANES];

  PetscFunctionBegin;
  if (!ip->part && ip->nfrag) PetscCall(PetscMalloc1(2 * ip->nfrag, &ip->part));
  for (PetscInt f = 0; f < ip->nfrag; f++) {
    const PetscInt64 lo = (PetscInt64)f * F, hi = PetscMin(lo + F, (PetscInt64)ip->nnz);
    const PetscInt   b0 = ip->bound[2 * f], b1 = ip->bound[2 * f + 1];

    for (PetscInt r = b0; r <= b1; r++) {
      const PetscInt64 s = PetscMax((PetscInt64)ai[r], lo), e = PetscMin((PetscInt64)ai[r + 1], hi);
      PetscScalar      sum;

      for (int l = 0; l < MATIPCSR_CSRM_LANES; l++) {
        p[l] = 0;
        for (PetscInt64 k = s + l; k < e; k += MATIPCSR_CSRM_LANES) {
          const PetscScalar prod = val[k] * x[aj[k]]; /* staged in shared memory on the device */
          p[l] += prod;
        }
      }
      sum = MatIPCSRLaneTree(p, MATIPCSR_CSRM_LANES);
      if (ai[r] >= lo && ai[r + 1] <= hi) {
        sum *= alpha;
        y[r] = z ? z[r] + sum : sum;
      } else {
        if (r == b0) ip->part[2 * f] = sum;
        if (r == b1) ip->part[2 * f + 1] = sum;
      }
    }
  }
  for (PetscInt f = 0; f < ip->nfrag; f++) {
    const PetscInt r = ip->bound[2 * f + 1];

    if (MatIPCSROwnsShared(f, ip->nnz, ai, F, ip->bound)) {
      PetscScalar sum = ip->part[2 * f + 1];

      for (PetscInt g = f + 1;; g++) {
        sum += ip->part[2 * g];
        if (ai[r + 1] <= PetscMin((PetscInt64)(g + 1) * F, (PetscInt64)ip->nnz)) break;
      }
      sum *= alpha;
      y[r] = z ? z[r] + sum : sum;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvFormatMultHost_IPCSR(MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
{
  MatIPCSRLayout *ip = (MatIPCSRLayout *)L->fmt;

  PetscFunctionBegin;
  if (ip->kernel == MAT_IPCSR_KERNEL_IPCSR) PetscCall(MatMultHostIPCSR(ip, L->val, L->scale, x, z, y));
  else PetscCall(MatMultHostCSRM(ip, L->val, L->scale, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvFormatDestroy_IPCSR(MatSpmvLayout L)
{
  MatIPCSRLayout *ip = (MatIPCSRLayout *)L->fmt;

  PetscFunctionBegin;
  if (!ip) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(ip->ai));
  PetscCall(PetscFree(ip->aj));
  PetscCall(PetscFree(ip->blocks));
  PetscCall(PetscFree(ip->split));
  PetscCall(PetscFree(ip->bound));
  PetscCall(PetscFree(ip->part));
#if defined(PETSC_HAVE_CUDA)
  if (!ip->borrowedij) { /* aijcusparse's own arrays are not ours to free */
    PetscCall(MatSpmvCUDAFree((void *)ip->d_ai));
    PetscCall(MatSpmvCUDAFree((void *)ip->d_aj));
  }
  PetscCall(MatSpmvCUDAFree(ip->d_blocks));
  PetscCall(MatSpmvCUDAFree(ip->d_split));
  PetscCall(MatSpmvCUDAFree(ip->d_bound));
  PetscCall(MatSpmvCUDAFree(ip->d_part));
#endif
  PetscCall(PetscFree(L->fmt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvFormatView_IPCSR(MatSpmvLayout L, PetscViewer viewer)
{
  MatIPCSRLayout *ip = (MatIPCSRLayout *)L->fmt;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "row lengths: mean %.2f, std. dev. %.2f, max %" PetscInt_FMT "\n", (double)ip->mu, (double)ip->sigma, ip->maxlen));
  if (ip->kernelauto) PetscCall(PetscViewerASCIIPrintf(viewer, "kernel %s (automatic)\n", MatIPCSRKernels[ip->kernel]));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "kernel %s (set)\n", MatIPCSRKernels[ip->kernel]));
  if (ip->kernel == MAT_IPCSR_KERNEL_IPCSR) {
    const MatIPCSRBlockStats *bs    = &ip->bs;
    const PetscInt            multi = ip->nblocks - bs->single - bs->pieces;
    const char *const         how[] = {"-mat_ipcsr_shared, default 16384", "the paper's formula for this GPU", "the paper's formula with its C2050's figures, no GPU visible"};

    PetscCall(PetscViewerASCIIPrintf(viewer, "shared memory per thread block %" PetscInt_FMT " bytes = %" PetscInt_FMT " entries (%s), %d threads per block\n", ip->shared, ip->S, how[ip->sharedhow], MATIPCSR_THREADS));
    PetscCall(PetscViewerASCIIPrintf(viewer, "%" PetscInt_FMT " row blocks: %" PetscInt_FMT " of several rows (rows per block min %" PetscInt_FMT ", mean %.1f, max %" PetscInt_FMT "), %" PetscInt_FMT " of one row (reduced by the whole block)\n", ip->nblocks, multi, bs->minrows, multi ? (double)(ip->m - bs->single - ip->nsplit) / (double)multi : 0.0, bs->maxrows, bs->single));
    PetscCall(PetscViewerASCIIPrintf(viewer, "rows longer than %" PetscInt_FMT " entries take a block of their own; %" PetscInt_FMT " rows longer than %" PetscInt_FMT " split into %" PetscInt_FMT " blocks (atomic sums)\n", ip->own, ip->nsplit, ip->S, bs->pieces));
    PetscCall(PetscViewerASCIIPrintf(viewer, "blocks of several rows reduced with 1/2/4/8/16/32 threads per row: %" PetscInt_FMT "/%" PetscInt_FMT "/%" PetscInt_FMT "/%" PetscInt_FMT "/%" PetscInt_FMT "/%" PetscInt_FMT "; mean %.1f nonzeros per block\n", bs->tpr[0], bs->tpr[1], bs->tpr[2], bs->tpr[3], bs->tpr[4], bs->tpr[5],
                                     ip->nblocks ? (double)ip->nnz / (double)ip->nblocks : 0.0));
  } else {
    PetscCall(PetscViewerASCIIPrintf(viewer, "%" PetscInt_FMT " fragments of %" PetscInt_FMT " nonzeros (a thread block of %d threads each, rows summed by half-warps), up to %" PetscInt_FMT " rows per fragment\n", ip->nfrag, ip->fragment, MATIPCSR_THREADS, ip->maxfrows));
    PetscCall(PetscViewerASCIIPrintf(viewer, "%" PetscInt_FMT " rows shared by several fragments, combined by a second kernel\n", ip->nshared));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "CSR arrays %s\n", ip->borrowedij ? "read in place (aijcusparse's)" : "copied"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

MatSpmvFormat MatSpmvFormat_IPCSR = {
  .name           = "ipcsr",
  .aijname        = MATAIJIPCSR,
  .seqtype        = MATSEQAIJIPCSR,
  .mpitype        = MATMPIAIJIPCSR,
  .title          = "Improved Perfect CSR (IPCSR) and CSR-M",
  .paramsize      = sizeof(MatIPCSRParams),
  .paramsdefault  = &MatIPCSRParamsDefault,
  .setfromoptions = MatSpmvFormatSetFromOptions_IPCSR,
  .build          = MatSpmvFormatBuild_IPCSR,
  .slotrowcol     = MatSpmvFormatSlotRowCol_IPCSR,
  .multhost       = MatSpmvFormatMultHost_IPCSR,
#if defined(PETSC_HAVE_CUDA)
  .upload       = MatSpmvFormatUpload_IPCSR,
  .multdevice   = MatSpmvFormatMultDevice_IPCSR,
  .builddevice  = MatSpmvFormatBuildDevice_IPCSR,
  .devicekernel = MatSpmvFormatDeviceKernel_IPCSR,
  .download     = MatSpmvFormatDownload_IPCSR,
#endif
  .destroy = MatSpmvFormatDestroy_IPCSR,
  .view    = MatSpmvFormatView_IPCSR,
  /* on Graph500 R-MAT renumbered columns made ipcsr slower where brc and argcsr gained
     (docs/results.md, "Irregular matrices: what was tried") */
  .naturalcolumns = PETSC_TRUE,
  .readscsr       = PETSC_TRUE, /* its layout is the device CSR's row blocks */
  .createseq      = MatCreate_SeqAIJIPCSR,
  .creatempi      = MatCreate_MPIAIJIPCSR,
};

MATSPMV_DEFINE_CREATE(IPCSR, MatSpmvFormat_IPCSR)

/*@
  MatIPCSRSetKernel - selects the CUDA kernel of an IPCSR matrix

  Logically Collective

  Input Parameters:
+ A      - a `MATIPCSR` matrix
- kernel - `MAT_IPCSR_KERNEL_IPCSR` (row blocks fitting a shared-memory budget), `MAT_IPCSR_KERNEL_CSRM`
           (equal fragments of nonzeros) or `MAT_IPCSR_KERNEL_AUTO` (the default: ipcsr, measured faster than
           csrm on every benchmark matrix on the H200, the irregular ones included)

  Options Database Key:
. -mat_ipcsr_kernel <ipcsr,csrm,auto> - the kernel

  Level: advanced

.seealso: `MATIPCSR`, `MatIPCSRKernel`, `MatIPCSRSetSharedSize()`, `MatIPCSRSetFragmentSize()`
@*/
PetscErrorCode MatIPCSRSetKernel(Mat A, MatIPCSRKernel kernel)
{
  PetscFunctionBegin;
  PetscValidLogicalCollectiveEnum(A, kernel, 2);
  PetscCheck(kernel >= MAT_IPCSR_KERNEL_IPCSR && kernel <= MAT_IPCSR_KERNEL_AUTO, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown IPCSR kernel %d: use MAT_IPCSR_KERNEL_IPCSR, MAT_IPCSR_KERNEL_CSRM or MAT_IPCSR_KERNEL_AUTO", (int)kernel);
  PetscCall(MatSpmvSetParam_Private(A, &MatSpmvFormat_IPCSR, offsetof(MatIPCSRParams, kernel), kernel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatIPCSRSetSharedSize - sets the shared memory of an IPCSR thread block (the paper's SHARED_SIZE), in bytes

  Logically Collective

  Input Parameters:
+ A     - a `MATIPCSR` matrix
- bytes - at least one matrix entry (`sizeof(PetscScalar)`), at most 232448 (227 KB, and no more than the GPU gives a
          block); or 0 for the paper's formula: the multiprocessor's shared memory over the blocks of 256
          threads it holds at once, less CUDA's per-block reservation (28160 bytes on an H100 or H200; 8192, the paper's
          C2050 figure, when no GPU is visible). The default, 16384, was measured fastest on the H200

  Options Database Key:
. -mat_ipcsr_shared <bytes> - shared memory per thread block

  Notes:
  A block takes consecutive rows whose products with x fit in bytes / sizeof(`PetscScalar`) entries (so
  single precision holds twice the entries of double, as in the paper); a row longer than that is split
  over several blocks whose sums are added atomically. Used by the ipcsr kernel only.

  Level: advanced

.seealso: `MATIPCSR`, `MatIPCSRSetKernel()`, `MatIPCSRSetFragmentSize()`
@*/
PetscErrorCode MatIPCSRSetSharedSize(Mat A, PetscInt bytes)
{
  PetscFunctionBegin;
  PetscValidLogicalCollectiveInt(A, bytes, 2);
  PetscCheck(bytes == 0 || (bytes >= (PetscInt)sizeof(PetscScalar) && bytes <= MATIPCSR_MAX_SHARED), PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "IPCSR shared memory %" PetscInt_FMT " bytes must be from %d (one matrix entry) to %d, or 0 for the paper's formula", bytes, (int)sizeof(PetscScalar), MATIPCSR_MAX_SHARED);
  PetscCall(MatSpmvSetParam_Private(A, &MatSpmvFormat_IPCSR, offsetof(MatIPCSRParams, shared), bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatIPCSRSetFragmentSize - sets the nonzeros per thread block of the csrm kernel (CSR-M's fragments)

  Logically Collective

  Input Parameters:
+ A        - a `MATIPCSR` matrix
- fragment - from 1 to 8192; 1024 (the paper's) by default

  Options Database Key:
. -mat_ipcsr_fragment <fragment> - nonzeros per fragment

  Note:
  A fragment's products with x sit in shared memory (fragment x sizeof(`PetscScalar`) bytes). Used by the
  csrm kernel only.

  Level: advanced

.seealso: `MATIPCSR`, `MatIPCSRSetKernel()`, `MatIPCSRSetSharedSize()`
@*/
PetscErrorCode MatIPCSRSetFragmentSize(Mat A, PetscInt fragment)
{
  PetscFunctionBegin;
  PetscValidLogicalCollectiveInt(A, fragment, 2);
  PetscCheck(fragment >= 1 && fragment <= MATIPCSR_MAX_FRAGMENT, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "IPCSR fragment size %" PetscInt_FMT " must be from 1 to %d, e.g. 1024", fragment, MATIPCSR_MAX_FRAGMENT);
  PetscCall(MatSpmvSetParam_Private(A, &MatSpmvFormat_IPCSR, offsetof(MatIPCSRParams, fragment), fragment));
  PetscFunctionReturn(PETSC_SUCCESS);
}
