/*
  MATARGCSR: Adaptive Row-Grouped CSR (Heller, Oberhuber).

  Consecutive rows form groups of at most block rows whose chunks need at most desiredChunkSize
  entries; every group gets `block` threads (one CUDA block), given to its rows one at a time,
  each to the row whose chunks are fullest. A row's nonzeros are dealt round-robin over as many
  chunks as it has threads; all chunks of a group have the group's chunk size and are stored like
  the rows of sliced ELLPACK (element e of chunk t at offset + e * block + t), so a group's
  threads read consecutive slots. A thread sums its chunk, then each row sums the partial sums of
  its chunks. A row longer than desiredChunkSize * block is cut into pieces of at most that many
  entries, each a group of its own whose block threads all work on the piece; the pieces of a
  row add their sums atomically into y, preset to z (or 0).
*/
#include "argcsrimpl.h"

/* 256 threads per group; the chunk size chosen from the row lengths (see MatARGCSRChunkAuto()) */
static const MatARGCSRParams MatARGCSRParamsDefault = {0, 256};

static PetscErrorCode MatSpmvFormatSetFromOptions_ARGCSR(PetscOptionItems PetscOptionsObject, void *params)
{
  MatARGCSRParams *p = (MatARGCSRParams *)params;
  PetscBool        set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsRangeInt("-mat_argcsr_chunk", "Desired chunk size: nonzeros per thread a group of rows aims at (the paper's desiredChunkSize); 0: the largest of 32, 16, 8, 4, 2 whose layout pads at most 15% (regular rows: 32, the paper's best there), else 1 (the paper's robust choice)", "MatARGCSRSetChunkSize", p->chunk, &p->chunk, &set, 0, PETSC_INT_MAX));
  PetscCall(PetscOptionsRangeInt("-mat_argcsr_block", "Threads per group of rows (the CUDA block size), a multiple of 32 up to 1024", "MatARGCSRSetBlockSize", p->block, &p->block, &set, 32, MATARGCSR_MAX_BLOCK));
  PetscCheck(p->block % 32 == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_argcsr_block %" PetscInt_FMT " must be a multiple of 32 from 32 to %d, e.g. 256", p->block, MATARGCSR_MAX_BLOCK);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvFormatBuild_ARGCSR(const void *params, const MatSpmvCSR *csr, MatSpmvLayout L)
{
  MatARGCSRLayout *ag;
  PetscInt         piece = 0, npiece = 0, pos = 0;

  PetscFunctionBegin;
  PetscCall(MatARGCSRPlanLayout((const MatARGCSRParams *)params, csr, L));
  ag = (MatARGCSRLayout *)L->fmt;
  PetscCall(PetscMalloc1(L->nslots, &L->slot2csr));
  PetscCall(PetscMalloc1(L->nslots, &ag->col));
  for (PetscInt s = 0; s < L->nslots; s++) { /* padding until filled: column -1 stops the thread */
    ag->col[s]     = -1;
    L->slot2csr[s] = -1;
  }
  for (PetscInt g = 0; g < ag->ngroups; g++) {
    const PetscInt first = ag->group[4 * g], nr = ag->group[4 * g + 1], off = ag->group[4 * g + 2], B = ag->block;

    if (nr == MATARGCSR_PIECE) { /* piece `piece` of row first: entry k to chunk k % B, element k / B, i.e. slot off + k */
      const PetscInt len = csr->i[first + 1] - csr->i[first];
      PetscInt       cnt;

      if (!piece) { /* the row's first piece */
        npiece = MatARGCSRPieces(len, ag->splitlen);
        pos    = csr->i[first];
      }
      cnt = len / npiece + (piece < len % npiece ? 1 : 0);
      for (PetscInt k = 0; k < cnt; k++, pos++) {
        ag->col[off + k]     = csr->j[pos];
        L->slot2csr[off + k] = pos;
      }
      if (++piece == npiece) piece = 0;
      continue;
    }
    for (PetscInt k = 0; k < nr; k++) {
      const PetscInt r = first + k, b = k ? ag->rowend[r - 1] : 0, nt = ag->rowend[r] - b;
      const PetscInt pos0 = csr->i[r], len = csr->i[r + 1] - pos0;

      /* the row's nonzeros dealt round-robin over its chunks: entry q to chunk q % nt, element
         q / nt, so the threads of one row read neighbouring entries at once (the first len % nt
         chunks hold one more) */
      for (PetscInt q = 0; q < len; q++) {
        const PetscInt s = off + (q / nt) * B + b + q % nt;

        ag->col[s]     = csr->j[pos0 + q];
        L->slot2csr[s] = pos0 + q;
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvFormatSlotRowCol_ARGCSR(MatSpmvLayout L, PetscInt *row, PetscInt *col)
{
  MatARGCSRLayout *ag = (MatARGCSRLayout *)L->fmt;

  PetscFunctionBegin;
  for (PetscInt s = 0; s < L->nslots; s++) { /* padding is never read (its thread stops at the -1): column 0 for the check */
    row[s] = -1;
    col[s] = PetscMax(ag->col[s], 0);
  }
  for (PetscInt g = 0; g < ag->ngroups; g++) {
    const PetscInt first = ag->group[4 * g], nr = ag->group[4 * g + 1], off = ag->group[4 * g + 2], chunk = ag->group[4 * g + 3];

    if (nr == MATARGCSR_PIECE) { /* every chunk of the group belongs to row first */
      for (PetscInt s = off; s < off + chunk * ag->block; s++)
        if (ag->col[s] >= 0) row[s] = first;
      continue;
    }
    for (PetscInt k = 0; k < nr; k++) {
      const PetscInt r = first + k;

      for (PetscInt t = k ? ag->rowend[r - 1] : 0; t < ag->rowend[r]; t++)
        for (PetscInt e = 0; e < chunk; e++) {
          const PetscInt s = off + e * ag->block + t;

          if (ag->col[s] >= 0) row[s] = r;
        }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sum of chunk t of the group at slot off, up to its -1 */
static inline PetscScalar MatARGCSRChunkSum(MatSpmvLayout L, const MatARGCSRLayout *ag, PetscInt off, PetscInt chunk, PetscInt t, const PetscScalar *x)
{
  PetscScalar part = 0;

  for (PetscInt e = 0, s = off + t; e < chunk && ag->col[s] >= 0; e++, s += ag->block) part += L->val[s] * x[ag->col[s]];
  return part;
}

/* Host reference kernel: split rows preset to z (or 0); each chunk summed up to its -1, then each
   row's chunks in order, as a group whose rows have at most MATARGCSR_SERIAL_SUM chunks does on
   the device; a piece of a split row adds all its chunks into its row */
static PetscErrorCode MatSpmvFormatMultHost_ARGCSR(MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
{
  MatARGCSRLayout *ag = (MatARGCSRLayout *)L->fmt;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < ag->nsplit; k++) y[ag->split[k]] = z ? z[ag->split[k]] : 0.0;
  for (PetscInt g = 0; g < ag->ngroups; g++) {
    const PetscInt first = ag->group[4 * g], nr = ag->group[4 * g + 1], off = ag->group[4 * g + 2], chunk = ag->group[4 * g + 3];

    if (nr == MATARGCSR_PIECE) {
      PetscScalar sum = 0;

      for (PetscInt t = 0; t < ag->block; t++) sum += MatARGCSRChunkSum(L, ag, off, chunk, t, x);
      y[first] += L->scale * sum;
      continue;
    }
    for (PetscInt k = 0; k < nr; k++) {
      const PetscInt r   = first + k;
      PetscScalar    sum = 0;

      for (PetscInt t = k ? ag->rowend[r - 1] : 0; t < ag->rowend[r]; t++) sum += MatARGCSRChunkSum(L, ag, off, chunk, t, x);
      sum *= L->scale;
      y[r] = z ? z[r] + sum : sum;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvFormatDestroy_ARGCSR(MatSpmvLayout L)
{
  MatARGCSRLayout *ag = (MatARGCSRLayout *)L->fmt;

  PetscFunctionBegin;
  if (!ag) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(ag->group));
  PetscCall(PetscFree(ag->rowend));
  PetscCall(PetscFree(ag->col));
  PetscCall(PetscFree(ag->split));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDAFree(ag->d_group));
  PetscCall(MatSpmvCUDAFree(ag->d_rowend));
  PetscCall(MatSpmvCUDAFree(ag->d_col));
  PetscCall(MatSpmvCUDAFree(ag->d_split));
#endif
  PetscCall(PetscFree(L->fmt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvFormatView_ARGCSR(MatSpmvLayout L, PetscViewer viewer)
{
  MatARGCSRLayout *ag = (MatARGCSRLayout *)L->fmt;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "row lengths: mean %.2f, std. dev. %.2f, max %" PetscInt_FMT "\n", (double)ag->mu, (double)ag->sigma, ag->maxlen));
  PetscCall(PetscViewerASCIIPrintf(viewer, "desired chunk size %" PetscInt_FMT " (%s), %" PetscInt_FMT " threads per group\n", ag->chunk, ag->chunkauto ? "automatic" : "set", ag->block));
  PetscCall(PetscViewerASCIIPrintf(viewer, "%" PetscInt_FMT " groups, %.2f rows per group; chunk size min %" PetscInt_FMT ", mean %.2f, max %" PetscInt_FMT "\n", ag->ngroups, ag->ngroups ? (double)L->m / ag->ngroups : 0.0, ag->minchunk,
                                   ag->ngroups ? (double)L->nslots / ((double)ag->ngroups * ag->block) : 0.0, ag->maxchunk));
  PetscCall(PetscViewerASCIIPrintf(viewer, "%" PetscInt_FMT " rows longer than %" PetscInt64_FMT " split into %" PetscInt_FMT " pieces (a group each, added atomically)\n", ag->nsplit, ag->splitlen, ag->npieces));
  PetscCall(
    PetscViewerASCIIPrintf(viewer, "padding %.1f%% of the slots; at most %" PetscInt_FMT " threads on one unsplit row; %" PetscInt_FMT " groups sum rows of more than %d chunks by a tree\n", L->nslots ? 100.0 * (double)(L->nslots - L->nnz) / (double)L->nslots : 0.0, ag->maxthreads, ag->ntree, MATARGCSR_SERIAL_SUM));
  PetscFunctionReturn(PETSC_SUCCESS);
}

MatSpmvFormat MatSpmvFormat_ARGCSR = {
  .name           = "argcsr",
  .aijname        = MATAIJARGCSR,
  .seqtype        = MATSEQAIJARGCSR,
  .mpitype        = MATMPIAIJARGCSR,
  .title          = "Adaptive Row-Grouped CSR (ARGCSR)",
  .paramsize      = sizeof(MatARGCSRParams),
  .paramsdefault  = &MatARGCSRParamsDefault,
  .setfromoptions = MatSpmvFormatSetFromOptions_ARGCSR,
  .build          = MatSpmvFormatBuild_ARGCSR,
  .slotrowcol     = MatSpmvFormatSlotRowCol_ARGCSR,
  .multhost       = MatSpmvFormatMultHost_ARGCSR,
#if defined(PETSC_HAVE_CUDA)
  .upload       = MatSpmvFormatUpload_ARGCSR,
  .multdevice   = MatSpmvFormatMultDevice_ARGCSR,
  .builddevice  = MatSpmvFormatBuildDevice_ARGCSR,
  .devicekernel = MatSpmvFormatDeviceKernel_ARGCSR,
  .download     = MatSpmvFormatDownload_ARGCSR,
#endif
  .destroy   = MatSpmvFormatDestroy_ARGCSR,
  .view      = MatSpmvFormatView_ARGCSR,
  .createseq = MatCreate_SeqAIJARGCSR,
  .creatempi = MatCreate_MPIAIJARGCSR,
};

MATSPMV_DEFINE_CREATE(ARGCSR, MatSpmvFormat_ARGCSR)

/*@
  MatARGCSRSetChunkSize - sets the desired chunk size of ARGCSR, the nonzeros per thread a group
  of rows aims at (the paper's desiredChunkSize)

  Logically Collective

  Input Parameters:
+ A     - a `MATARGCSR` matrix
- chunk - positive, or 0 (the default) for automatic: the largest of 32, 16, 8, 4, 2 whose layout pads at most 15%, else 1

  Options Database Key:
. -mat_argcsr_chunk <chunk> - desired chunk size

  Note:
  A group of rows closes before the row that would take it over (threads per group) rows or
  over (threads per group) chunks of at most chunk entries, so no chunk is longer than chunk; a
  row longer than chunk * (threads per group) is split into pieces of at most that many entries,
  a group each, whose sums are added atomically. Larger chunks suit regular matrices (the paper
  measured 32 best there), 1 is the robust choice for irregular ones.

  Level: advanced

.seealso: `MATARGCSR`, `MatARGCSRSetBlockSize()`
@*/
PetscErrorCode MatARGCSRSetChunkSize(Mat A, PetscInt chunk)
{
  PetscFunctionBegin;
  PetscValidLogicalCollectiveInt(A, chunk, 2);
  PetscCheck(chunk >= 0, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "ARGCSR chunk size %" PetscInt_FMT " must be positive, or 0 for automatic", chunk);
  PetscCall(MatSpmvSetParam_Private(A, &MatSpmvFormat_ARGCSR, offsetof(MatARGCSRParams, chunk), chunk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatARGCSRSetBlockSize - sets the threads per ARGCSR group of rows (the CUDA block size)

  Logically Collective

  Input Parameters:
+ A     - a `MATARGCSR` matrix
- block - a multiple of 32 from 32 to 1024; 256 by default

  Options Database Key:
. -mat_argcsr_block <block> - threads per group

  Level: advanced

.seealso: `MATARGCSR`, `MatARGCSRSetChunkSize()`
@*/
PetscErrorCode MatARGCSRSetBlockSize(Mat A, PetscInt block)
{
  PetscFunctionBegin;
  PetscValidLogicalCollectiveInt(A, block, 2);
  PetscCheck(block >= 32 && block <= MATARGCSR_MAX_BLOCK && block % 32 == 0, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "ARGCSR block size %" PetscInt_FMT " must be a multiple of 32 from 32 to %d, e.g. 256", block, MATARGCSR_MAX_BLOCK);
  PetscCall(MatSpmvSetParam_Private(A, &MatSpmvFormat_ARGCSR, offsetof(MatARGCSRParams, block), block));
  PetscFunctionReturn(PETSC_SUCCESS);
}
