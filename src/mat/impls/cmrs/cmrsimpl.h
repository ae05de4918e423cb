#pragma once
#include "../aijspmv/aijspmvimpl.h"

#define MATCMRS_BITS       4  /* row-in-strip bits packed under the column index */
#define MATCMRS_MAX_HEIGHT 16 /* 2^MATCMRS_BITS */

typedef struct {
  PetscInt   height; /* rows per strip, 1 to 16 */
  PetscBool3 pack;   /* row-in-strip packed in the column indices; unknown: when columns allow */
  PetscInt   lanes;  /* threads per strip, a power of two up to 32; 0: from the mean strip length */
} MatCMRSParams;

typedef struct {
  PetscInt  height, nstrips, lanes;
  PetscBool packed;    /* row-in-strip in the low 4 bits of the column index (columns < 2^28) */
  PetscInt *stripptr;  /* nstrips + 1: StripPtr[j] = RowPtr[j * height] */
  PetscInt *colind;    /* nnz, CSR order: col << 4 | row-in-strip when packed, else col */
  PetscInt *rowinstrip;/* nnz, only when not packed */
  PetscReal mu, sigma; /* mean and standard deviation of the row lengths */
  int      *d_stripptr, *d_colind, *d_rowinstrip;
} MatCMRSLayout;

PETSC_EXTERN PetscErrorCode MatCreate_SeqAIJCMRS(Mat);
PETSC_EXTERN PetscErrorCode MatCreate_MPIAIJCMRS(Mat);
PETSC_INTERN PetscErrorCode MatUpload_CMRS(MatSpmvLayout);
PETSC_INTERN PetscErrorCode MatMultDevice_CMRS(MatSpmvLayout, const PetscScalar *, const PetscScalar *, PetscScalar *, void *);
