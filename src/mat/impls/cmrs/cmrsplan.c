/*
  CMRS's plan: the kernel, strip height, lanes, modulo and packing for a matrix's row statistics, read
  by the host build (cmrs.c) and the device build (cmrs.cu) alike.
*/
#include "cmrsimpl.h"

/* The kernel, strip height, lanes, modulo and packing for a matrix with these row-length
   statistics (host and device builds alike) */
PetscErrorCode MatCMRSChoose(const MatCMRSParams *p, PetscInt m, PetscInt n, PetscInt nnz, MatCMRSLayout *cm)
{
  PetscInt h;

  PetscFunctionBegin;
  cm->sorted = (PetscBool)p->sort;
  /* auto, measured in double and single precision (docs/results.md, "cmrs"): the modified kernel for
     rows of similar lengths with 10 to 50 entries on average. Shorter rows pay its padding to
     whole warps, longer rows are read well by the basic kernel, and rows whose lengths vary more
     than their mean pad far more and leave one warp with a whole long strip. */
  cm->kernel = (MatCMRSKernel)p->kernel;
  if (cm->kernel == MAT_CMRS_KERNEL_AUTO) cm->kernel = cm->sigma <= cm->mu && cm->mu >= 10 && cm->mu <= 50 ? MAT_CMRS_KERNEL_MODIFIED : MAT_CMRS_KERNEL_BASIC;
  h = cm->height = p->height ? p->height : (cm->kernel == MAT_CMRS_KERNEL_MODIFIED ? 16 : 2);
  cm->nstrips    = (m + h - 1) / h;
  if (cm->kernel == MAT_CMRS_KERNEL_MODIFIED) {
    /* a round of a warp has 32 / M entries per lane class, each on its own row: M x height >= 32 */
    for (cm->modulo = p->modulo ? p->modulo : 8; cm->modulo * h < MATCMRS_WARP; cm->modulo *= 2)
      ;
  }
  cm->packed = n <= (PETSC_INT32_MAX >> MATCMRS_BITS) ? PETSC_TRUE : PETSC_FALSE;
  PetscCheck(cm->packed || p->pack != PETSC_BOOL3_TRUE, PETSC_COMM_SELF, PETSC_ERR_SUP, "-mat_cmrs_pack needs fewer than 2^27 columns, this matrix has %" PetscInt_FMT ": leave -mat_cmrs_pack unset", n);
  if (p->pack == PETSC_BOOL3_FALSE) cm->packed = PETSC_FALSE;
  if (cm->kernel == MAT_CMRS_KERNEL_MODIFIED) cm->lanes = MATCMRS_WARP;
  else if (p->lanes) cm->lanes = p->lanes;
  else if (cm->sigma > cm->mu) cm->lanes = 32; /* irregular rows: a whole warp per strip balances best (measured) */
  else { /* about two entries per lane on an average strip */ PetscReal half = cm->nstrips ? 0.5 * (PetscReal)nnz / cm->nstrips : 1;
    for (cm->lanes = 4; cm->lanes < 32 && 2 * cm->lanes <= half; cm->lanes *= 2)
      ;
  }
  while (cm->lanes < h) cm->lanes *= 2; /* lane r of a group writes row r of the strip */
  PetscFunctionReturn(PETSC_SUCCESS);
}
