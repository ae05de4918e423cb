/*
  MATCMRS: Compressed Multi-Row Storage (Koza, Matyka, Szkoda, Miroslaw).

  Strips of `height` consecutive rows; values and column indices stay in CSR order, so the
  conversion is StripPtr[j] = RowPtr[j * height] plus the row-in-strip of every entry, packed
  into the low 4 bits of its column index. A warp processes a strip; each lane keeps one partial
  sum per row of the strip.
*/
#include "cmrsimpl.h"

/* height 2 with automatic lanes measured fastest on the regular test matrices on the H200 (README) */
static const MatCMRSParams MatCMRSParamsDefault = {2, PETSC_BOOL3_UNKNOWN, 0};

static PetscErrorCode MatSetFromOptions_CMRS(PetscOptionItems PetscOptionsObject, void *params)
{
  MatCMRSParams *p = (MatCMRSParams *)params;
  PetscBool      set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsRangeInt("-mat_cmrs_height", "Rows per strip", "MatCMRSSetHeight", p->height, &p->height, &set, 1, MATCMRS_MAX_HEIGHT));
  PetscCall(PetscOptionsRangeInt("-mat_cmrs_lanes", "Threads per strip: 4, 8, 16 or 32 (the paper: 32), raised to the height; 0: 32 if row lengths vary more than their mean, else half the mean strip length", "", p->lanes, &p->lanes, &set, 0, 32));
  PetscCheck(p->lanes == 0 || p->lanes == 4 || p->lanes == 8 || p->lanes == 16 || p->lanes == 32, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_cmrs_lanes %" PetscInt_FMT " must be 0 (automatic), 4, 8, 16 or 32", p->lanes);
  PetscCall(PetscOptionsBool3("-mat_cmrs_pack", "Pack the row-in-strip into the column indices (default: when there are fewer than 2^27 columns)", "", PETSC_TRUE, &p->pack, &set));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatBuild_CMRS(const void *params, const MatSpmvCSR *csr, MatSpmvLayout L)
{
  const MatCMRSParams *p = (const MatCMRSParams *)params;
  MatCMRSLayout       *cm;
  PetscInt             h = p->height;

  PetscFunctionBegin;
  PetscCall(PetscNew(&cm));
  L->fmt      = cm;
  cm->height  = h;
  cm->nstrips = (csr->m + h - 1) / h;
  cm->packed  = csr->n <= (PETSC_INT32_MAX >> MATCMRS_BITS) ? PETSC_TRUE : PETSC_FALSE;
  PetscCheck(cm->packed || p->pack != PETSC_BOOL3_TRUE, PETSC_COMM_SELF, PETSC_ERR_SUP, "-mat_cmrs_pack needs fewer than 2^27 columns, this matrix has %" PetscInt_FMT ": leave -mat_cmrs_pack unset", csr->n);
  if (p->pack == PETSC_BOOL3_FALSE) cm->packed = PETSC_FALSE;
  cm->mu      = csr->m ? (PetscReal)csr->nnz / csr->m : 0;
  {
    PetscReal sum2 = 0;
    for (PetscInt r = 0; r < csr->m; r++) sum2 += PetscSqr((PetscReal)(csr->i[r + 1] - csr->i[r]) - cm->mu);
    cm->sigma = csr->m ? PetscSqrtReal(sum2 / csr->m) : 0;
  }
  if (p->lanes) cm->lanes = p->lanes;
  else if (cm->sigma > cm->mu) cm->lanes = 32; /* irregular rows: a whole warp per strip balances best (measured) */
  else { /* about two entries per lane on an average strip */
    PetscReal half = cm->nstrips ? 0.5 * (PetscReal)csr->nnz / cm->nstrips : 1;
    for (cm->lanes = 4; cm->lanes < 32 && 2 * cm->lanes <= half; cm->lanes *= 2);
  }
  while (cm->lanes < h) cm->lanes *= 2; /* lane r of a group writes row r of the strip */
  PetscCall(PetscMalloc1(cm->nstrips + 1, &cm->stripptr));
  for (PetscInt s = 0; s < cm->nstrips; s++) cm->stripptr[s] = csr->i[s * h];
  cm->stripptr[cm->nstrips] = csr->nnz;
  L->nslots = csr->nnz; /* CSR order: slot s holds CSR entry s */
  PetscCall(PetscMalloc1(csr->nnz, &L->slot2csr));
  PetscCall(PetscMalloc1(csr->nnz, &cm->colind));
  if (!cm->packed) PetscCall(PetscMalloc1(csr->nnz, &cm->rowinstrip));
  for (PetscInt r = 0; r < csr->m; r++) {
    for (PetscInt k = csr->i[r]; k < csr->i[r + 1]; k++) {
      L->slot2csr[k] = k;
      if (cm->packed) cm->colind[k] = (csr->j[k] << MATCMRS_BITS) | (r % h);
      else {
        cm->colind[k]     = csr->j[k];
        cm->rowinstrip[k] = r % h;
      }
    }
  }
  L->indexbytes = sizeof(int) * (cm->nstrips + 1 + csr->nnz * (cm->packed ? 1 : 2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline void MatCMRSEntry(const MatCMRSLayout *cm, PetscInt k, PetscInt *col, PetscInt *r)
{
  if (cm->packed) {
    *col = cm->colind[k] >> MATCMRS_BITS;
    *r   = cm->colind[k] & (MATCMRS_MAX_HEIGHT - 1);
  } else {
    *col = cm->colind[k];
    *r   = cm->rowinstrip[k];
  }
}

static PetscErrorCode MatSlotRowCol_CMRS(MatSpmvLayout L, PetscInt *row, PetscInt *col)
{
  MatCMRSLayout *cm = (MatCMRSLayout *)L->fmt;

  PetscFunctionBegin;
  for (PetscInt s = 0; s < cm->nstrips; s++)
    for (PetscInt k = cm->stripptr[s]; k < cm->stripptr[s + 1]; k++) {
      PetscInt r;

      MatCMRSEntry(cm, k, &col[k], &r);
      row[k] = s * cm->height + r;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Host reference kernel: per strip, one partial sum per row, as a warp does */
static PetscErrorCode MatMultHost_CMRS(MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
{
  MatCMRSLayout *cm = (MatCMRSLayout *)L->fmt;

  PetscFunctionBegin;
  for (PetscInt s = 0; s < cm->nstrips; s++) {
    PetscScalar sum[MATCMRS_MAX_HEIGHT] = {0};

    for (PetscInt k = cm->stripptr[s]; k < cm->stripptr[s + 1]; k++) {
      PetscInt c, r;

      MatCMRSEntry(cm, k, &c, &r);
      sum[r] += L->val[k] * x[c];
    }
    for (PetscInt r = 0; r < cm->height && s * cm->height + r < L->m; r++) {
      PetscInt row = s * cm->height + r;
      y[row]       = z ? z[row] + sum[r] : sum[r];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatLayoutDestroy_CMRS(MatSpmvLayout L)
{
  MatCMRSLayout *cm = (MatCMRSLayout *)L->fmt;

  PetscFunctionBegin;
  if (!cm) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(cm->stripptr));
  PetscCall(PetscFree(cm->colind));
  PetscCall(PetscFree(cm->rowinstrip));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDAFree(cm->d_stripptr));
  PetscCall(MatSpmvCUDAFree(cm->d_colind));
  PetscCall(MatSpmvCUDAFree(cm->d_rowinstrip));
#endif
  PetscCall(PetscFree(L->fmt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatLayoutView_CMRS(MatSpmvLayout L, PetscViewer viewer)
{
  MatCMRSLayout *cm = (MatCMRSLayout *)L->fmt;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "height %" PetscInt_FMT " rows per strip, %" PetscInt_FMT " strips, %.2f nonzeros per strip on average\n", cm->height, cm->nstrips, cm->nstrips ? (double)L->nnz / cm->nstrips : 0.0));
  PetscCall(PetscViewerASCIIPrintf(viewer, "row-in-strip %s; basic kernel, %" PetscInt_FMT " threads per strip\n", cm->packed ? "packed in the column indices" : "in its own array", cm->lanes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

MatSpmvFormat MatSpmvFormat_CMRS = {
  .name           = "cmrs",
  .aijname        = MATAIJCMRS,
  .seqtype        = MATSEQAIJCMRS,
  .mpitype        = MATMPIAIJCMRS,
  .title          = "Compressed Multi-Row Storage (CMRS)",
  .paramsize      = sizeof(MatCMRSParams),
  .paramsdefault  = &MatCMRSParamsDefault,
  .setfromoptions = MatSetFromOptions_CMRS,
  .build          = MatBuild_CMRS,
  .slotrowcol     = MatSlotRowCol_CMRS,
  .multhost       = MatMultHost_CMRS,
#if defined(PETSC_HAVE_CUDA)
  .upload     = MatUpload_CMRS,
  .multdevice = MatMultDevice_CMRS,
#endif
  .destroy    = MatLayoutDestroy_CMRS,
  .view       = MatLayoutView_CMRS,
  .createseq  = MatCreate_SeqAIJCMRS,
  .creatempi  = MatCreate_MPIAIJCMRS,
};

MATSPMV_DEFINE_CREATE(CMRS, MatSpmvFormat_CMRS)

/*@
  MatCMRSSetHeight - sets the rows per CMRS strip

  Logically Collective

  Input Parameters:
+ A      - a `MATCMRS` matrix
- height - from 1 to 16

  Options Database Key:
. -mat_cmrs_height <height> - rows per strip

  Level: advanced

.seealso: `MATCMRS`
@*/
PetscErrorCode MatCMRSSetHeight(Mat A, PetscInt height)
{
  PetscFunctionBegin;
  PetscValidLogicalCollectiveInt(A, height, 2);
  PetscCheck(height >= 1 && height <= MATCMRS_MAX_HEIGHT, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "CMRS strip height %" PetscInt_FMT " must be from 1 to %d", height, MATCMRS_MAX_HEIGHT);
  PetscCall(MatSpmvSetParam_Private(A, &MatSpmvFormat_CMRS, offsetof(MatCMRSParams, height), height));
  PetscFunctionReturn(PETSC_SUCCESS);
}
