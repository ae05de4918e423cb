#pragma once

#include <petscmat.h>

/* SUBMANSEC = Mat */

/*MC
   MATBRC - "brc" - Blocked Row-Column storage (Ashari et al., ICS'14) for GPU SpMV.

   A `MATSEQAIJ`/`MATMPIAIJ` matrix that keeps AIJ's CSR as its master copy (so ILU, LU,
   assembly and every other AIJ operation are inherited) and performs `MatMult()`,
   `MatMultAdd()`, `MatMultTranspose()` and `MatMultTransposeAdd()` on the GPU from a BRC copy.
   Resolves to `MATSEQAIJBRC` on one process and `MATMPIAIJBRC` otherwise.

   Options Database Keys:
+  -mat_type brc              - selects the type
.  -mat_brc_b1 <32>           - rows per block (a power of two from 1 to 256)
.  -mat_brc_b2 <0>            - maximal block width; 0 picks the paper's Eq. 3, min(round(mu+sigma), max row length, b2_max)
.  -mat_brc_b2_max <200>      - cap of the automatic block width
.  -mat_brc_window <32768>    - rows per length-sorting window; 0 sorts all rows as the paper does
.  -mat_brc_coarsen <1>       - blocks per thread; 0 picks the paper's rule, 4 when sigma > mu, else 1
-  -mat_brc_backend <auto>    - auto, cuda or host (host reference kernel)

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATAIJ`, `MATAIJCUSPARSE`, `MatBRCSetBlockWidth()`
M*/
#define MATBRC       "brc"
#define MATAIJBRC    "aijbrc"
#define MATSEQAIJBRC "seqaijbrc"
#define MATMPIAIJBRC "mpiaijbrc"

/*E
   MatSpmvBackend - where a petscspmv matrix runs its products

$  MAT_SPMV_BACKEND_AUTO - the CUDA kernels when a GPU is visible, otherwise the host reference kernel
$  MAT_SPMV_BACKEND_CUDA - the CUDA kernels; an error if no GPU is visible
$  MAT_SPMV_BACKEND_HOST - the host reference kernel (same layout, plain C loops)

   Level: intermediate
E*/
typedef enum {
  MAT_SPMV_BACKEND_AUTO,
  MAT_SPMV_BACKEND_CUDA,
  MAT_SPMV_BACKEND_HOST
} MatSpmvBackend;
PETSC_EXTERN const char *const MatSpmvBackends[];

PETSC_EXTERN PetscErrorCode PetscSpmvInitializePackage(void);
PETSC_EXTERN PetscErrorCode PetscSpmvFinalizePackage(void);

/* For any petscspmv type */
PETSC_EXTERN PetscErrorCode MatSpmvSetBackend(Mat, MatSpmvBackend);
PETSC_EXTERN PetscErrorCode MatSpmvGetBackend(Mat, MatSpmvBackend *);
PETSC_EXTERN PetscErrorCode MatSpmvCheckLayout(Mat);
PETSC_EXTERN PetscErrorCode MatSpmvGetStorage(Mat, PetscInt *, PetscLogDouble *);

/* MATBRC */
PETSC_EXTERN PetscErrorCode MatBRCSetBlockHeight(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatBRCSetBlockWidth(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatBRCSetCoarsening(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatBRCSetSortWindow(Mat, PetscInt);

/*MC
   MATCMRS - "cmrs" - Compressed Multi-Row Storage (Koza et al.) for GPU SpMV.

   A `MATSEQAIJ`/`MATMPIAIJ` matrix whose products run on the GPU from a CMRS copy: strips of
   `height` rows in CSR order, the row-in-strip packed into the column indices, one warp per strip.
   Resolves to `MATSEQAIJCMRS` on one process and `MATMPIAIJCMRS` otherwise.

   Options Database Keys:
+  -mat_type cmrs            - selects the type
.  -mat_cmrs_height <2>      - rows per strip, 1 to 16
.  -mat_cmrs_lanes <0>       - threads per strip, 4, 8, 16 or 32; 0 chooses from the row lengths
.  -mat_cmrs_pack <bool>     - pack the row-in-strip into the column indices (default: when the columns allow)
-  -mat_cmrs_backend <auto>  - auto, cuda or host (host reference kernel)

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATAIJ`, `MATBRC`, `MatCMRSSetHeight()`
M*/
#define MATCMRS       "cmrs"
#define MATAIJCMRS    "aijcmrs"
#define MATSEQAIJCMRS "seqaijcmrs"
#define MATMPIAIJCMRS "mpiaijcmrs"

PETSC_EXTERN PetscErrorCode MatCMRSSetHeight(Mat, PetscInt);
