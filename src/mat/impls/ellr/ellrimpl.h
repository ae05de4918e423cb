#pragma once
#include "../spmvlayer/spmvformat.h"

#define MATELLR_MAX_T     32   /* threads per row: a power of two up to a warp (their sums are combined by warp shuffles) */
#define MATELLR_MAX_BLOCK 1024 /* threads per CUDA block: a multiple of 32 up to the CUDA limit */
#define MATELLR_ALIGN     32   /* each slab of ld x T slots starts at a multiple of this many slots (256 bytes in double) */
/* automatic T: the largest power of two that leaves at least this many entries of a mean row to each thread */
#define MATELLR_AUTO_ENTRIES_PER_THREAD 64

typedef struct {
  PetscInt  T;          /* threads per row, 0: automatic (MatELLRThreadsAuto()) */
  PetscInt  block;      /* threads per CUDA block */
  PetscReal maxpadding; /* the build stops when m x (longest row) exceeds this times the nonzeros */
} MatELLRParams;

/* ELLR-T layout. Its rows are the matrix's nonempty rows (all rows when none is empty): an empty
   row holds no slot and is set to z (or 0) by a small launch of its own; this matters for the very
   sparse off-diagonal blocks of MPI matrices, whose rows are mostly empty. Every layout row is
   padded to the longest row, K entries: entry n of layout row i is slot
     (n / T) * ld * T + i * T + n % T,
   i.e. column-major in slabs of ld x T slots: in step k the T threads of row i read T consecutive
   slots and the rows after it follow, so a warp reads 32 consecutive slots (T = 1: plain
   ELLPACK-R, column-major with leading dimension ld). ld is the number of layout rows rounded up
   so that ld * T is a multiple of MATELLR_ALIGN. rl[i] is the length of layout row i: thread t of
   row i reads entries t, t + T, ... below rl[i], never the padding (slot2csr -1, column 0). */
typedef struct {
  PetscInt  T, Tasked; /* threads per row used (at most the longest row rounded up to a power of two) and asked for */
  PetscBool Tauto;
  PetscInt  block;
  PetscInt  mr;    /* layout rows: the nonempty rows */
  PetscInt  K;     /* longest row */
  PetscInt  steps; /* ceil(K / T): slabs */
  PetscInt  ld;    /* rows of a slab: mr rounded up */
  PetscReal mean;  /* mean length of the nonempty rows */
  PetscReal maxpadding;
  PetscInt *rl;     /* mr row lengths (host) */
  PetscInt *rowidx; /* mr matrix rows of the layout rows; NULL when no row is empty (layout row i is row i) */
  PetscInt  nempty;
  PetscInt *empty; /* the nempty empty rows */
  PetscInt *col;   /* nslots columns (host), 0 in padding */
  int      *d_rl, *d_rowidx, *d_empty, *d_col;
} MatELLRLayout;

PETSC_EXTERN PetscErrorCode MatCreate_SeqAIJELLR(Mat);
PETSC_EXTERN PetscErrorCode MatCreate_MPIAIJELLR(Mat);
/* ellrplan.c: the layout's shape or the refusal (host and device builds) */
PETSC_INTERN PetscErrorCode MatELLRPlan(const MatELLRParams *, PetscInt, PetscInt, PetscInt, PetscInt, MatELLRLayout *, PetscInt *);
PETSC_INTERN PetscErrorCode MatSpmvFormatUpload_ELLR(MatSpmvLayout);
PETSC_INTERN PetscErrorCode MatSpmvFormatBuildDevice_ELLR(const void *, const MatSpmvCSR *, const int *, const int *, MatSpmvLayout, void *);
PETSC_INTERN const void    *MatSpmvFormatDeviceKernel_ELLR(void);
PETSC_INTERN PetscErrorCode MatSpmvFormatDownload_ELLR(MatSpmvLayout);
PETSC_INTERN PetscErrorCode MatSpmvFormatMultDevice_ELLR(MatSpmvLayout, const PetscScalar *, const PetscScalar *, PetscScalar *, void *);
