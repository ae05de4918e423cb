/*
  MATCMRS: Compressed Multi-Row Storage (Koza, Matyka, Szkoda, Miroslaw).

  Strips of `height` consecutive rows; the row-in-strip of every entry is packed into the low 4
  bits of its column index. The basic kernel keeps values and column indices in CSR order, so
  the conversion is StripPtr[j] = RowPtr[j * height] plus the packing, and a values-only refresh
  is a plain copy. The modified kernel (the paper's section 6.7) reorders each strip into rounds
  of 32 entries, one per lane, in which a row never has two entries on lanes that are equal
  modulo M, and pads every round to 32: lane l then adds into buffer row (l mod M) without
  conflicts, so a warp needs only M x height partial sums.
*/
#include "cmrsimpl.h"

const char *const MatCMRSKernels[] = {"basic", "modified", "auto", "MatCMRSKernel", "MAT_CMRS_KERNEL_", NULL};

/* height 0: 2 for the basic kernel, 16 for the modified one (docs/results.md, "cmrs") */
static const MatCMRSParams MatCMRSParamsDefault = {0, PETSC_BOOL3_UNKNOWN, 0, MAT_CMRS_KERNEL_AUTO, PETSC_FALSE, 0};

static PetscErrorCode MatSpmvFormatSetFromOptions_CMRS(PetscOptionItems PetscOptionsObject, void *params)
{
  MatCMRSParams *p      = (MatCMRSParams *)params;
  MatCMRSKernel  kernel = (MatCMRSKernel)p->kernel;
  PetscBool      set, sort = (PetscBool)p->sort;

  PetscFunctionBegin;
  PetscCall(PetscOptionsEnum("-mat_cmrs_kernel", "CMRS kernel: basic, modified, or auto (modified when the row lengths vary less than their mean and it is 10 to 50)", "MatCMRSSetKernel", MatCMRSKernels, (PetscEnum)kernel, (PetscEnum *)&kernel, &set));
  p->kernel = kernel;
  PetscCall(PetscOptionsRangeInt("-mat_cmrs_height", "Rows per strip; 0: the kernel's default (basic 2, modified 16)", "MatCMRSSetHeight", p->height, &p->height, &set, 0, MATCMRS_MAX_HEIGHT));
  PetscCall(PetscOptionsBool("-mat_cmrs_sort", "Order the entries of each strip by column", "MatCMRSSetSort", sort, &sort, &set));
  p->sort = sort;
  PetscCall(PetscOptionsRangeInt("-mat_cmrs_lanes", "Basic kernel: threads per strip, 4, 8, 16 or 32 (the paper: 32), raised to the height; 0: 32 if row lengths vary more than their mean, else half the mean strip length", "", p->lanes, &p->lanes, &set, 0, 32));
  PetscCheck(p->lanes == 0 || p->lanes == 4 || p->lanes == 8 || p->lanes == 16 || p->lanes == 32, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_cmrs_lanes %" PetscInt_FMT " must be 0 (automatic), 4, 8, 16 or 32", p->lanes);
  PetscCall(PetscOptionsRangeInt("-mat_cmrs_modulo", "Modified kernel: partial sums per row and warp, 2, 4, 8, 16 or 32 (0: the paper's 8), raised to 32 / height", "", p->modulo, &p->modulo, &set, 0, MATCMRS_WARP));
  PetscCheck(p->modulo == 0 || (p->modulo >= 2 && (p->modulo & (p->modulo - 1)) == 0), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_cmrs_modulo %" PetscInt_FMT " must be 0 (automatic), 2, 4, 8, 16 or 32", p->modulo);
  PetscCall(PetscOptionsBool3("-mat_cmrs_pack", "Pack the row-in-strip into the column indices (default: when there are fewer than 2^27 columns)", "", PETSC_TRUE, &p->pack, &set));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define MATCMRS_QUAL    static inline
#define MATCMRS_IDX     PetscInt
#define MATCMRS_IDX_MAX PETSC_INT_MAX
#define MATCMRS_MIN     PetscMin
#include "cmrsstrip.h"

static void MatCMRSStripArgsSet(const MatCMRSLayout *cm, const MatSpmvCSR *csr, MatSpmvLayout L, MatCMRSStripArgs *a)
{
  a->kernel     = (int)cm->kernel;
  a->sorted     = (int)cm->sorted;
  a->packed     = (int)cm->packed;
  a->height     = cm->height;
  a->modulo     = cm->modulo;
  a->m          = csr->m;
  a->ai         = csr->i;
  a->aj         = csr->j;
  a->colind     = cm->colind;
  a->rowinstrip = cm->rowinstrip;
  a->slot2csr   = L->slot2csr;
}

static PetscErrorCode MatSpmvFormatBuild_CMRS(const void *params, const MatSpmvCSR *csr, MatSpmvLayout L)
{
  const MatCMRSParams *p = (const MatCMRSParams *)params;
  MatCMRSLayout       *cm;
  MatCMRSStripArgs     args;

  PetscFunctionBegin;
  PetscCall(PetscNew(&cm));
  L->fmt = cm;
  cm->mu = csr->m ? (PetscReal)csr->nnz / csr->m : 0;
  {
    PetscReal sum2 = 0;
    for (PetscInt r = 0; r < csr->m; r++) sum2 += PetscSqr((PetscReal)(csr->i[r + 1] - csr->i[r]) - cm->mu);
    cm->sigma = csr->m ? PetscSqrtReal(sum2 / csr->m) : 0;
  }
  PetscCall(MatCMRSChoose(p, csr->m, csr->n, csr->nnz, cm));

  /* a counting pass sizes the slots (the modified kernel pads), then the filling pass */
  MatCMRSStripArgsSet(cm, csr, L, &args);
  PetscCall(PetscMalloc1(cm->nstrips + 1, &cm->stripptr));
  cm->stripptr[0] = 0;
  for (PetscInt s = 0; s < cm->nstrips; s++) cm->stripptr[s + 1] = cm->stripptr[s] + (cm->kernel == MAT_CMRS_KERNEL_BASIC ? csr->i[PetscMin((s + 1) * cm->height, csr->m)] - csr->i[s * cm->height] : MatCMRSStrip(&args, s, 0));
  L->nslots = cm->stripptr[cm->nstrips];
  PetscCall(PetscMalloc1(L->nslots, &L->slot2csr));
  PetscCall(PetscMalloc1(L->nslots, &cm->colind));
  if (!cm->packed) PetscCall(PetscMalloc1(L->nslots, &cm->rowinstrip));
  MatCMRSStripArgsSet(cm, csr, L, &args);
  for (PetscInt s = 0; s < cm->nstrips; s++) (void)MatCMRSStrip(&args, s, cm->stripptr[s]);
  L->indexbytes = sizeof(int) * (cm->nstrips + 1 + L->nslots * (cm->packed ? 1 : 2));
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

static PetscErrorCode MatSpmvFormatSlotRowCol_CMRS(MatSpmvLayout L, PetscInt *row, PetscInt *col)
{
  MatCMRSLayout *cm = (MatCMRSLayout *)L->fmt;

  PetscFunctionBegin;
  for (PetscInt s = 0; s < cm->nstrips; s++)
    for (PetscInt k = cm->stripptr[s]; k < cm->stripptr[s + 1]; k++) {
      PetscInt r;

      MatCMRSEntry(cm, k, &col[k], &r);
      row[k] = L->slot2csr[k] < 0 ? -1 : s * cm->height + r; /* padding belongs to no row */
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Host reference kernel: per strip, one partial sum per row, as a warp does */
static PetscErrorCode MatSpmvFormatMultHost_CMRS(MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
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
      y[row]       = z ? z[row] + L->scale * sum[r] : L->scale * sum[r];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvFormatDestroy_CMRS(MatSpmvLayout L)
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

static PetscErrorCode MatSpmvFormatView_CMRS(MatSpmvLayout L, PetscViewer viewer)
{
  MatCMRSLayout *cm = (MatCMRSLayout *)L->fmt;
  char           how[128];

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s kernel, height %" PetscInt_FMT " rows per strip, %" PetscInt_FMT " strips, %.2f nonzeros per strip on average%s\n", MatCMRSKernels[cm->kernel], cm->height, cm->nstrips, cm->nstrips ? (double)L->nnz / cm->nstrips : 0.0, cm->sorted ? ", sorted by column" : ""));
  if (cm->kernel == MAT_CMRS_KERNEL_BASIC) PetscCall(PetscSNPrintf(how, sizeof(how), "%" PetscInt_FMT " threads per strip", cm->lanes));
  else PetscCall(PetscSNPrintf(how, sizeof(how), "a warp per strip, modulo %" PetscInt_FMT ", padding %.1f%% of the slots", cm->modulo, L->nslots ? 100.0 * (double)(L->nslots - L->nnz) / (double)L->nslots : 0.0));
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s; row-in-strip %s\n", how, cm->packed ? "packed in the column indices" : "in its own array"));
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
  .setfromoptions = MatSpmvFormatSetFromOptions_CMRS,
  .build          = MatSpmvFormatBuild_CMRS,
  .slotrowcol     = MatSpmvFormatSlotRowCol_CMRS,
  .multhost       = MatSpmvFormatMultHost_CMRS,
#if defined(PETSC_HAVE_CUDA)
  .upload       = MatSpmvFormatUpload_CMRS,
  .multdevice   = MatSpmvFormatMultDevice_CMRS,
  .builddevice  = MatSpmvFormatBuildDevice_CMRS,
  .devicekernel = MatSpmvFormatDeviceKernel_CMRS,
  .download     = MatSpmvFormatDownload_CMRS,
#endif
  .destroy   = MatSpmvFormatDestroy_CMRS,
  .view      = MatSpmvFormatView_CMRS,
  .createseq = MatCreate_SeqAIJCMRS,
  .creatempi = MatCreate_MPIAIJCMRS,
};

MATSPMV_DEFINE_CREATE(CMRS, MatSpmvFormat_CMRS)

/*@
  MatCMRSSetHeight - sets the rows per CMRS strip

  Logically Collective

  Input Parameters:
+ A      - a `MATCMRS` matrix
- height - from 1 to 16 (the default: 2 with the basic kernel, 16 with the modified one)

  Options Database Key:
. -mat_cmrs_height <height> - rows per strip

  Level: advanced

.seealso: `MATCMRS`, `MatCMRSSetKernel()`
@*/
PetscErrorCode MatCMRSSetHeight(Mat A, PetscInt height)
{
  PetscFunctionBegin;
  PetscValidLogicalCollectiveInt(A, height, 2);
  PetscCheck(height >= 1 && height <= MATCMRS_MAX_HEIGHT, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "CMRS strip height %" PetscInt_FMT " must be from 1 to %d", height, MATCMRS_MAX_HEIGHT);
  PetscCall(MatSpmvSetParam_Private(A, &MatSpmvFormat_CMRS, offsetof(MatCMRSParams, height), height));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatCMRSSetKernel - selects the CUDA kernel of a CMRS matrix

  Logically Collective

  Input Parameters:
+ A      - a `MATCMRS` matrix
- kernel - `MAT_CMRS_KERNEL_BASIC` (strips in CSR order), `MAT_CMRS_KERNEL_MODIFIED` (strips reordered and padded to whole warps)
           or `MAT_CMRS_KERNEL_AUTO` (the default: modified for rows of similar lengths, 10 to 50 entries on average, else basic)

  Options Database Key:
. -mat_cmrs_kernel <basic,modified,auto> - the kernel

  Level: advanced

.seealso: `MATCMRS`, `MatCMRSKernel`, `MatCMRSSetHeight()`
@*/
PetscErrorCode MatCMRSSetKernel(Mat A, MatCMRSKernel kernel)
{
  PetscFunctionBegin;
  PetscValidLogicalCollectiveEnum(A, kernel, 2);
  PetscCheck(kernel >= MAT_CMRS_KERNEL_BASIC && kernel <= MAT_CMRS_KERNEL_AUTO, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown CMRS kernel %d: use MAT_CMRS_KERNEL_BASIC, MAT_CMRS_KERNEL_MODIFIED or MAT_CMRS_KERNEL_AUTO", (int)kernel);
  PetscCall(MatSpmvSetParam_Private(A, &MatSpmvFormat_CMRS, offsetof(MatCMRSParams, kernel), kernel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatCMRSSetSort - orders the entries of each CMRS strip by column (the paper's fourth optimization)

  Logically Collective

  Input Parameters:
+ A    - a `MATCMRS` matrix
- sort - `PETSC_TRUE` to sort; neighbouring lanes then read neighbouring entries of x

  Options Database Key:
. -mat_cmrs_sort <bool> - sort the strips

  Level: advanced

  Note:
  Sorting makes the values a permutation of the CSR values, so a values-only refresh becomes a gather.

.seealso: `MATCMRS`, `MatCMRSSetKernel()`
@*/
PetscErrorCode MatCMRSSetSort(Mat A, PetscBool sort)
{
  PetscFunctionBegin;
  PetscValidLogicalCollectiveBool(A, sort, 2);
  PetscCall(MatSpmvSetParam_Private(A, &MatSpmvFormat_CMRS, offsetof(MatCMRSParams, sort), sort));
  PetscFunctionReturn(PETSC_SUCCESS);
}
