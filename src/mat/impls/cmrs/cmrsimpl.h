#pragma once
#include "../spmvlayer/spmvformat.h"

#define MATCMRS_BITS       4  /* row-in-strip bits packed under the column index */
#define MATCMRS_MAX_HEIGHT 16 /* 2^MATCMRS_BITS */
#define MATCMRS_WARP       32 /* the modified kernel's strips are padded to multiples of a warp */

/* Fields are PetscInt so that MatSpmvSetParam_Private() can set each of them */
typedef struct {
  PetscInt   height; /* rows per strip, 1 to 16; 0: the kernel's default */
  PetscBool3 pack;   /* row-in-strip packed in the column indices; unknown: when columns allow */
  PetscInt   lanes;  /* basic kernel: threads per strip, a power of two up to 32; 0: from the mean strip length */
  PetscInt   kernel; /* MatCMRSKernel */
  PetscInt   sort;   /* entries of a strip ordered by column */
  PetscInt   modulo; /* modified kernel: partial sums per row and warp (the paper's M); 0: 8 */
} MatCMRSParams;

typedef struct {
  PetscInt      height, nstrips, lanes, modulo;
  MatCMRSKernel kernel;
  PetscBool     packed, sorted;
  PetscInt     *stripptr;   /* nstrips + 1: basic kernel StripPtr[j] = RowPtr[j * height]; modified: padded */
  PetscInt     *colind;     /* nslots: col << 4 | row-in-strip when packed, else col */
  PetscInt     *rowinstrip; /* nslots, only when not packed */
  PetscReal     mu, sigma;  /* mean and standard deviation of the row lengths */
  int          *d_stripptr, *d_colind, *d_rowinstrip;
} MatCMRSLayout;

PETSC_EXTERN PetscErrorCode MatCreate_SeqAIJCMRS(Mat);
PETSC_EXTERN PetscErrorCode MatCreate_MPIAIJCMRS(Mat);
PETSC_INTERN PetscErrorCode MatSpmvFormatUpload_CMRS(MatSpmvLayout);
/* cmrsplan.c: the kernel and its sizes (host and device builds) */
PETSC_INTERN PetscErrorCode MatCMRSChoose(const MatCMRSParams *, PetscInt, PetscInt, PetscInt, MatCMRSLayout *);
PETSC_INTERN PetscErrorCode MatSpmvFormatBuildDevice_CMRS(const void *, const MatSpmvCSR *, const int *, const int *, MatSpmvLayout, void *);
PETSC_INTERN const void    *MatSpmvFormatDeviceKernel_CMRS(void);
PETSC_INTERN PetscErrorCode MatSpmvFormatDownload_CMRS(MatSpmvLayout);
PETSC_INTERN PetscErrorCode MatSpmvFormatMultDevice_CMRS(MatSpmvLayout, const PetscScalar *, const PetscScalar *, PetscScalar *, void *);
