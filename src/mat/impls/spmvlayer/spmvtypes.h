#pragma once
/* The shared layer's floor 3 (spmvimpl.h has the map of floors): the PETSc types, their operations,
   and what of them the package registers */
#include "spmvengine.h"

/* ======== floor 3: the PETSc types ======== */

/* MatSpmvUseMethod() with an error that tells the user what to do */
#define MatSpmvUseMethod(A, name, types, args) \
  do { \
    PetscErrorCode(*f_) types; \
    MatType t_; \
    PetscCall(PetscObjectQueryFunction((PetscObject)(A), name, &f_)); \
    PetscCall(MatGetType(A, &t_)); \
    PetscCheck(f_, PetscObjectComm((PetscObject)(A)), PETSC_ERR_ARG_WRONG, "Matrix of type %s is not a petscspmv type: create it with -mat_type brc (or MatSetType(A, MATBRC)) or convert it with MatConvert()", t_ ? t_ : "(not set)"); \
    PetscCall((*f_)args); \
  } while (0)

/* params.c: a format's parameters in any petscspmv matrix (the MPI type's are pushed to its blocks),
   and the options every type reads */
/* -mat_<name>_backend, -mat_<name>_column_order and the format's -mat_<name>_* into params (through
   a copy: a rejected value leaves params as they were); *changed: the format's parameters changed */
PETSC_INTERN PetscErrorCode MatSpmvParseOptions(MatSpmvFormat *, PetscOptionItems, MatSpmvBackend *, MatSpmvColumnOrder *, void *, PetscBool *);

/* product.c: matrix-matrix products (either base: aijcusparse's device products, or AIJ's) */
PETSC_INTERN PetscErrorCode MatSpmvSetProductHooks_SeqAIJSpmv(Mat);
PETSC_INTERN PetscErrorCode MatSpmvClearProductHooks_SeqAIJSpmv(Mat);
PETSC_INTERN PetscErrorCode MatProductSetFromOptions_MPIAIJSpmv(Mat);
PETSC_INTERN PetscErrorCode MatMPIAIJGetLocalMatMerge_MPIAIJSpmv(Mat, MatReuse, IS *, Mat *);
/* the phases recorded per product forgotten (the package's end) */
PETSC_INTERN PetscErrorCode MatSpmvForgetProductPhases(void);
/* the default of -petscspmv_ptap_host_min_rows (rows on A's largest process): cuSPARSE refused the
   product from 1.69 M rows a process (KSP ex45 150^3 on 2); the host's was faster at 1.37 M (140^3
   on 2), slower at 0.69 M (140^3 on 4) */
#define MATSPMV_PTAP_HOST_MIN_ROWS 1000000
/* -petscspmv_product_min_rows, -petscspmv_ptap_host_min_rows: read once when the package is initialized */
PETSC_INTERN PetscInt MatSpmvProductMinRows, MatSpmvPtAPHostMinRows;

/* values.c: MatShift() and MatDiagonalScale() on aijcusparse's device CSR; MPI: MatAXPY() of a
   block-diagonal X by the diagonal blocks' (ours on the aijcusparse base and aijcusparse results of
   our products) */
PETSC_INTERN PetscErrorCode MatSpmvSetValueOps_SeqAIJSpmv(Mat);
PETSC_INTERN PetscErrorCode MatSpmvScaleValues(Mat, PetscScalar); /* the base's MatScale(), or ours past cuBLAS's 32-bit count */
PETSC_INTERN PetscInt       MatSpmvBLASCountMax;                  /* -petscspmv_blas_count_max: below cuBLAS's count, for tests */
PETSC_INTERN PetscErrorCode MatSpmvSetValueOps_MPIAIJSpmv(Mat, MatSpmvBaseOps *);
PETSC_INTERN PetscErrorCode MatSpmvSetValueOps_AIJCUSPARSEResult(Mat);
/* graph.c: MatCreateGraph() from aijcusparse's device CSR; MPI: PETSc's on an aijcusparse copy */
PETSC_INTERN PetscErrorCode MatSpmvSetGraphOps_SeqAIJSpmv(Mat);
PETSC_INTERN PetscErrorCode MatSpmvSetGraphOps_MPIAIJSpmv(Mat, MatSpmvBaseOps *);
PETSC_INTERN PetscErrorCode MatSpmvSetGraphOps_AIJCUSPARSEResult(Mat);
/* GAMG's graph left on the device where only a device reader takes its pattern (a kept graph, a
   MATSHELL of its layout): made so inside MatSpmvGraphDeviceOnlyBegin()/End() (unless filtered or
   viewed), read by MatSpmvGraphGetDevice() (the diagonal block's CSR ai, aj of n rows, local columns;
   on several processes the off-diagonal block's bi, bj over ng ghosts, exchanged through sf; int
   indices, device arrays), made the host graph for any other reader by MatSpmvGraphMaterialize() */
typedef struct {
  PetscSF    sf;
  PetscInt   n, ng, rstart;
  const int *ai, *aj, *bi, *bj;
} MatSpmvGraphDeviceParts;
PETSC_INTERN PetscErrorCode MatSpmvGraphDeviceOnlyBegin(PetscBool *);
PETSC_INTERN PetscErrorCode MatSpmvGraphDeviceOnlyEnd(PetscBool);
PETSC_INTERN PetscErrorCode MatSpmvGraphGetDevice(Mat, MatSpmvGraphDeviceParts *, PetscBool *);
PETSC_INTERN PetscErrorCode MatSpmvGraphMaterialize(Mat *);

/* coo.c: MPI product results assembled from COO entries on the device (-petscspmv_mpi_coo, read once when
   the package is initialized); C, a new MPI aijcusparse result, takes it before the product's symbolic phase;
   its events (the sort, the making of the matrix) registered by the package */
PETSC_INTERN PetscBool      MatSpmvMPICOO;
PETSC_INTERN PetscErrorCode MatSpmvSetCOOOps_MPIResult(Mat);
PETSC_INTERN PetscErrorCode MatSpmvRegisterCOOEvents(void);
PETSC_INTERN PetscErrorCode MatSpmvCOOPreallocateOnDevice(Mat, PetscCount, const int *, const int *);

/* mpiproduct.c: the MPI products A B and P^T A P on the device (-petscspmv_mpi_product, read once when
   the package is initialized): C's symbolic phase run where every process can (*done), else nothing */
PETSC_INTERN PetscBool      MatSpmvMPIProduct;
PETSC_INTERN PetscErrorCode MatSpmvMPIProductSymbolicOnDevice(Mat, PetscBool *);

/* cusparsefactor.c: aijcusparse's factors and cuSPARSE's solves for our types (MATSOLVERCUSPARSE) */
PETSC_INTERN PetscErrorCode MatSpmvRegisterFactors(MatSpmvFormat *);

/* seq.c and mpi.c: the types */
PETSC_INTERN PetscErrorCode MatConvert_SeqAIJ_SeqAIJSpmv(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatConvert_MPIAIJ_MPIAIJSpmv(Mat, MatType, MatReuse, Mat *);
/* options read and backend resolved: errors surface here, before MatMult_MPIAIJ starts its scatter */
PETSC_INTERN PetscErrorCode MatSpmvUpdateSettings_SeqAIJSpmv(Mat);
/* a block of an MPI matrix takes the parallel matrix's parameters (its own options are not read) */
PETSC_INTERN PetscErrorCode MatSpmvAdoptParams_SeqAIJSpmv(Mat, const void *, MatSpmvBackend, MatSpmvColumnOrder);
/* build (or refresh) the layout of A (0) or A^T (1) now, as the next product would */
PETSC_INTERN PetscErrorCode MatSpmvUpdateLayout_SeqAIJSpmv(Mat, MatSpmvOp);
/* whether op(A)'s products are its base's, no layout (bound to the CPU, no GPU, or op(A) waiting
   for its layout): after MatSpmvUpdateSettings_SeqAIJSpmv() */
PETSC_INTERN PetscBool MatSpmvUsesBase_SeqAIJSpmv(Mat, MatSpmvOp);
/* a block of an MPI matrix: the layouts of A and A^T allowed (all processes together) or not yet */
PETSC_INTERN PetscErrorCode MatSpmvAllowLayouts_SeqAIJSpmv(Mat, const PetscBool[2]);
/* -petscspmv_layout_min_products: on the GPU, op(A) takes aijcusparse's products until it has taken
   this many at its nonzero pattern, then its layout is built. The default: docs/results.md, "Never
   slower than aijcusparse" */
#define MATSPMV_LAYOUT_MIN_PRODUCTS 100
PETSC_INTERN PetscInt MatSpmvLayoutMinProducts;

/* dmda.c: DMDA's interpolation made the DM's matrix type where that is ours (PETSc leaves types not
   named aij* as host AIJ); -petscspmv_dm_interpolation */
PETSC_INTERN PetscErrorCode MatSpmvRegisterDMDA(void);
PETSC_INTERN PetscBool      MatSpmvDMInterpolation;
