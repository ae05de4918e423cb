#pragma once
/* The shared layer's floor 1 (spmvimpl.h has the map of floors): the base types' functions we chain to, the
   registered formats, and the data of our sequential and MPI matrices */
#include "spmvformat.h"

/* ======== floor 1: base (base.c, formats.c) ======== */

/* Functions PETSc keeps hidden, saved from pristine SEQAIJ and MPIAIJ matrices */
typedef struct {
  PetscErrorCode (*mult)(Mat, Vec, Vec);
  PetscErrorCode (*multadd)(Mat, Vec, Vec, Vec);
  PetscErrorCode (*multtranspose)(Mat, Vec, Vec);
  PetscErrorCode (*multtransposeadd)(Mat, Vec, Vec, Vec);
  PetscErrorCode (*destroy)(Mat);
  PetscErrorCode (*duplicate)(Mat, MatDuplicateOption, Mat *);
  PetscErrorCode (*setfromoptions)(Mat, PetscOptionItems);
  PetscErrorCode (*view)(Mat, PetscViewer);
  PetscErrorCode (*assemblyend)(Mat, MatAssemblyType);
  PetscErrorCode (*setpreallocationcoo)(Mat, PetscCount, PetscInt[], PetscInt[]);               /* mpi: MatSetPreallocationCOO_C */
  PetscErrorCode (*retrievevalues)(Mat);                                                        /* seq: MatRetrieveValues_C */
  PetscErrorCode (*preallocation)(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[]); /* mpi: MatMPIAIJSetPreallocation_C */
  PetscErrorCode (*storevalues)(Mat);                                                           /* seq: MatStoreValues_C */
  PetscErrorCode (*getlocalmatmerge)(Mat, MatReuse, IS *, Mat *);                               /* mpi: MatMPIAIJGetLocalMatMerge_C (aijcusparse) */
  PetscErrorCode (*bindtocpu)(Mat, PetscBool);
  PetscErrorCode (*scale)(Mat, PetscScalar);
  PetscErrorCode (*shift)(Mat, PetscScalar);
  PetscErrorCode (*diagonalscale)(Mat, Vec, Vec);
  PetscErrorCode (*productsetfromoptions)(Mat);
  PetscErrorCode (*eliminatezeros)(Mat, PetscBool);
  PetscErrorCode (*transpose)(Mat, MatReuse, Mat *);
  PetscErrorCode (*creategraph)(Mat, PetscBool, PetscBool, PetscReal, PetscInt, PetscInt[], Mat *);
  PetscErrorCode (*getdiagonal)(Mat, Vec);
  PetscErrorCode (*axpy)(Mat, PetscScalar, Mat, MatStructure);
  PetscErrorCode (*sor)(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec);
  PetscBool cusparse; /* saved from MATSEQAIJCUSPARSE / MATMPIAIJCUSPARSE */
} MatSpmvBaseOps;
/* saved from pristine MATSEQAIJ, MATMPIAIJ, MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE matrices */
PETSC_INTERN MatSpmvBaseOps MatSpmvBaseSeq, MatSpmvBaseMPI, MatSpmvBaseSeqCUSPARSE, MatSpmvBaseMPICUSPARSE;
/* save the functions we override from a pristine base matrix, once */
PETSC_INTERN PetscErrorCode MatSpmvSaveBaseOps(Mat);
/* SeqAIJ's functions (saved from a pristine MATSEQAIJ if none was converted yet) */
PETSC_INTERN PetscErrorCode MatSpmvGetBaseSeq(MatSpmvBaseOps **);
/* Whether new petscspmv matrices are built on aijcusparse: CUDA PETSc and a visible GPU */
PETSC_INTERN PetscErrorCode MatSpmvUseCUSPARSEBase(PetscBool *);
/* whether aijcusparse's products take these vectors (NULL: none): CUDA vectors only (docs/limits.md) */
PETSC_INTERN PetscErrorCode MatSpmvCUSPARSETakesVecs(Vec, Vec, Vec, PetscBool *);
/* y = A^T x + z (NULL not allowed) through aijcusparse's transpose-add, run in place (docs/limits.md) */
PETSC_INTERN PetscErrorCode MatSpmvCUSPARSEMultTransposeAdd(PetscErrorCode (*)(Mat, Vec, Vec, Vec), Mat, Vec, Vec, Vec);

/* ghost.c: an MPIAIJ product y = A x (+ z) whose ghost exchange runs on a stream of its own beside
   the diagonal block's product, MPI on host buffers (taken where MPI is not CUDA-aware, with CUDA
   vectors on more than one process, no two of them on one GPU, and -petscspmv_ghost_stream, the
   default); *done false: not taken, nothing done */
typedef struct _n_MatSpmvGhosts *MatSpmvGhosts;
PETSC_INTERN PetscErrorCode      MatSpmvGhostsMult(Mat, MatSpmvGhosts *, Vec, Vec, Vec, PetscBool *);
PETSC_INTERN PetscErrorCode      MatSpmvGhostsDestroy(MatSpmvGhosts *);
/* -petscspmv_ghost_stream, -petscspmv_ghost_stream_shared (also where processes share a GPU, as
   the tests run on one): read once when the package is initialized */
PETSC_INTERN PetscBool      MatSpmvGhostStream, MatSpmvGhostStreamShared;
PETSC_INTERN PetscErrorCode MatSpmvForgetBaseOps(void);

/* formats.c: what the package registered into the layer. A format's table (once; in the order the
   selecting type tries them), and the format of a type name (root, aij root, sequential or parallel),
   NULL if none */
PETSC_INTERN PetscErrorCode MatSpmvFormatRegister(MatSpmvFormat *);
PETSC_INTERN PetscErrorCode MatSpmvFormatFind(MatType, MatSpmvFormat **);
/* compose converters from and to the bases under every name of format f (NULL functions remove them) */
PETSC_INTERN PetscErrorCode MatSpmvComposeConverters(Mat, MatSpmvFormat *, PetscBool, PetscErrorCode (*)(Mat, MatType, MatReuse, Mat *), PetscErrorCode (*)(Mat, MatType, MatReuse, Mat *));

/* The state of a SeqAIJ-derived petscspmv matrix, composed with it as a container (A->spptr
   belongs to the aijcusparse base) */
typedef struct {
  MatSpmvFormat     *format;
  MatSpmvBaseOps    *base; /* the functions we chain to */
  void              *params;
  PetscBool          paramsset; /* set by options or the API: no lazy options parse */
  MatSpmvBackend     backend;   /* as requested */
  MatSpmvColumnOrder colorder;  /* as requested */
  PetscBool          resolved;  /* ondevice decided */
  PetscBool          ondevice;
  PetscBool          derived;    /* PETSc made it from the user's matrices (a product, an off-diagonal block): a format
                                that refuses its pattern gives way to MATSPMV_FALLBACK_FORMAT */
  PetscBool          offdiag;    /* an MPI off-diagonal block: its columns (ghosts) are not its rows, no graph to reorder */
  PetscBool          frommaij;   /* a MAIJ operand of a product, converted: products with it keep our type */
  PetscBool          bound;      /* bound to the CPU by MatBindToCPU() */
  PetscObjectState   boundstate; /* object state then */
  /* products of op(A) through aijcusparse's at the nonzero pattern (state, base data) counted: a
     layout is built from -petscspmv_layout_min_products of them; an MPI block waits for its parent
     instead (not counted) */
  PetscInt         nbase[2];
  PetscObjectState countstate;
  void            *countdata;
  /* op(A)'s layout, built lazily (no backend asked for, aijcusparse underneath), was refused by the
     format (ELLR's padding limit, 32-bit slot counts) or ran out of device memory: op(A) keeps
     aijcusparse's products at this pattern and these parameters, said with -info and -mat_view */
  PetscBool declined[2];
  char      declinedwhy[2][256];
  PetscBool mpiblock;   /* a block of an MPI matrix of ours */
  PetscBool allowed[2]; /* then: its parent allows the layout of op(A) */
  /* fingerprint of the structure the layouts were built from */
  PetscObjectState nonzerostate;
  PetscInt         m, n, nnz;
  void            *data;     /* the base's data the layouts were built from */
  MatSpmvLayout    L[2];     /* A, A^T */
  PetscObjectState state[2]; /* object state whose values each layout holds */
  /* host base only: device copy of the CSR values, source of the gathers (aijcusparse keeps its own) */
  PetscScalar     *d_csrval;
  PetscObjectState d_csrstate;
  /* staging buffers for host vectors, and the products of compressed layouts */
  PetscScalar *d_x, *d_y, *d_c, *c;
  PetscInt     d_xn, d_yn, d_cn, cn;
  /* x gathered into a renumbered layout's column order */
  PetscScalar *d_xp, *xp;
  PetscInt     d_xpn, xpn;
} Mat_SeqAIJSpmv;
#define MATSPMV_SEQ_DATA "MatSpmvSeqData"
/* the data of A: every function that calls this is installed only on our matrices, the data is there.
   A composed container, found by name: A->spptr is aijcusparse's and Mat_SeqAIJ is private, so A has no
   slot of ours; the query took 7.4 ns on the build host, once per product (a GPU product
   costs 5 us or more) */
static inline Mat_SeqAIJSpmv *MatSpmvSeq(Mat A)
{
  Mat_SeqAIJSpmv *sp = NULL;

  (void)PetscObjectContainerQuery((PetscObject)A, MATSPMV_SEQ_DATA, (PetscCtxRt)&sp);
  return sp;
}
/* the data of A, NULL if A is not one of our sequential matrices */
static inline PetscErrorCode MatSpmvSeqGetData(Mat A, Mat_SeqAIJSpmv **sp)
{
  PetscFunctionBegin;
  *sp = NULL;
  PetscCall(PetscObjectContainerQuery((PetscObject)A, MATSPMV_SEQ_DATA, (PetscCtxRt)sp));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static const PetscObjectState MATSPMV_NOSTATE = -1; /* no real state has this value */

/* The state of an MPIAIJ-derived petscspmv matrix, composed with it as a container that owns it, as
   the sequential types' (A->spptr, which MPIAIJ leaves to its subclasses, points to the base's
   functions). MatHeaderMerge() (MatAXPY() with a different pattern, an in-place MatTranspose(), ...)
   replaces A's insides by those of a new matrix of our type and puts A's composed objects back over
   the new one's: A keeps its state, settings included, and only its blocks are new (data tells) */
typedef struct {
  MatSpmvFormat     *format;
  MatSpmvBaseOps    *base;
  void              *params;
  PetscBool          paramsset;
  MatSpmvBackend     backend;
  MatSpmvColumnOrder colorder;
  /* the blocks' layouts of A (0) and A^T (1) were built by all processes together at this nonzero
     state of A (MPIAIJ's assembly sums its blocks' states over the processes: the same on all) */
  PetscBool        agreed[2];
  PetscObjectState agreedstate[2];
  PetscBool        layouts[2]; /* then: some process's block has a layout (else all wait: aijcusparse's products) */
  /* parallel products of op(A) at the nonzero pattern (state, data): the blocks' layouts allowed from
     -petscspmv_layout_min_products of them */
  PetscInt         nproducts[2];
  PetscObjectState countstate;
  void            *countdata;
  PetscBool        allow[2];
  PetscBool        frommaij; /* a MAIJ operand of a product, converted: products with it keep our type */
  PetscBool        derived;  /* PETSc made it (a transpose): its blocks are derived operators too */
  void            *data;     /* A->data when the blocks last got these settings: another means new insides */
  MatSpmvGhosts    ghosts;   /* the ghost exchange beside the diagonal block's product (ghost.c) */
} Mat_MPIAIJSpmv;
#define MATSPMV_MPI_DATA "MatSpmvMPIData"
/* the data of A, NULL if A is not one of our MPI matrices */
static inline PetscErrorCode MatSpmvMPIGetData(Mat A, Mat_MPIAIJSpmv **sp)
{
  PetscFunctionBegin;
  *sp = NULL;
  PetscCall(PetscObjectContainerQuery((PetscObject)A, MATSPMV_MPI_DATA, (PetscCtxRt)sp));
  PetscFunctionReturn(PETSC_SUCCESS);
}
/* the data of A: every function that calls this is installed only on our MPI matrices */
static inline Mat_MPIAIJSpmv *MatSpmvMPI(Mat A)
{
  Mat_MPIAIJSpmv *sp = NULL;

  (void)PetscObjectContainerQuery((PetscObject)A, MATSPMV_MPI_DATA, (PetscCtxRt)&sp);
  return sp;
}

/* the name our matrix X carries under an alias (its base's, sequential or parallel), NULL if X is
   not ours (cusparse.c) */
PETSC_INTERN PetscErrorCode MatSpmvAliasName(Mat, MatType *);
