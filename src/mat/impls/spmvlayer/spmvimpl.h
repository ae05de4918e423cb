#pragma once
/*
  The shared layer of petscspmv, in floors: each file calls only files of its own floor or below
  (scripts/check-layers.py checks it against the table in docs/design.md).

    0 device services        device.cu (spmvkernels.h: device helpers for the formats' kernels)
    1 base                   base.c (saved base operations), formats.c (the registered formats),
                             cusparse.c (aijcusparse access); spmvbase.h declares floors 0-1
    2 engine                 order.c, layout.c, build.c, apply.c, select.c, operator.c, check.c:
                             a format's layout of one operator, built, kept current and applied
    3 PETSc types            params.c, product.c, cusparsefactor.c, seq.c, mpi.c
    4 package and API        src/mat/interface/: package.c, api.c

  With a GPU, every format is a SeqAIJCUSPARSE/MPIAIJCUSPARSE matrix (the base) whose four products
  go through the format; without one it is a SeqAIJ/MPIAIJ with the host reference kernels. The
  layer owns all PETSc plumbing; a format supplies only a MatSpmvFormat table and never knows which
  base is in use. The caller prepares (options read, backend resolved): the engine never calls up.
*/
#include <petscspmv.h>
#include <petsc/private/matimpl.h>
#include "spmvbase.h"

/* The CSR pattern a format builds its layout from */
typedef struct {
  PetscInt               m, n, nnz;
  const PetscInt        *i, *j;
  MatSpmvColumnOrder     colorder; /* the order the layout's columns will have: NATURAL, FREQUENCY or RCM */
  const MatSpmvRowStats *stats;    /* its rows' lengths (counted once per build, on the device where it can), or NULL */
} MatSpmvCSR;

typedef struct _n_MatSpmvFormat MatSpmvFormat;

/* the operator a layout holds: A, for MatMult() and MatMultAdd(), or A^T, for the transpose products
   (the index of a matrix's layouts, L[t]) */
typedef enum {
  MATSPMV_OP_A,
  MATSPMV_OP_AT
} MatSpmvOp;

#define MATSPMV_MAX_CANDIDATES 16 /* formats a selecting format may offer for one operator */

/* A selecting format's request to time its candidates on the operator when its layout is built */
typedef struct {
  PetscInt  reps;    /* timed products per candidate after one untimed one; 0: no timing, the first candidate that builds */
  PetscReal maxtime; /* milliseconds: no candidate after the first is tried once the tuning has taken this long */
} MatSpmvTune;

/* One product operator (A, or A^T for the transpose products) in a format's layout.
   The layer owns the values; the format owns fmt, its index arrays. */
typedef struct _n_MatSpmvLayout *MatSpmvLayout;
struct _n_MatSpmvLayout {
  MatSpmvFormat     *format;       /* the format that built it: the matrix's own, or the one a selecting format chose */
  const void        *params;       /* that format's parameters */
  char               why[320];     /* a selecting format's reason for its choice, for the viewer */
  PetscInt           m, n;         /* rows and columns the format stores: the operator's rows with entries when compressed */
  PetscInt           ym;           /* rows of the operator (the length of y) */
  PetscInt          *crow;         /* compressed (most rows empty, as in MPI off-diagonal blocks): the operator row of each
                               stored row, else NULL; the layer scatters the format's products (host) */
  int               *d_crow;       /* crow on the device */
  int               *d_ci;         /* the device build's row offsets when they are not the base's: compressed, or rows permuted */
  int               *d_tcsr[2];    /* A^T's device CSR (row offsets, columns), kept for a format that reads it in place (readscsr) */
  PetscInt           nnz;          /* true nonzeros */
  PetscInt           nslots;       /* value slots, padding included */
  PetscInt          *slot2csr;     /* CSR position of A feeding each slot, -1 for padding (host) */
  PetscScalar       *val;          /* slot values, host backend only */
  PetscScalar       *d_val;        /* slot values, CUDA backend only */
  PetscBool          devicebuilt;  /* built by the format's builddevice: host arrays only after download */
  PetscBool          borrowed;     /* d_val is the base's device CSR value array (identity layout on aijcusparse): not ours to free */
  int               *d_slot2csr;   /* slot2csr on the device, for value refreshes */
  PetscBool          identity;     /* slot s holds CSR entry s, no padding: a refresh is a plain copy (set by the layer) */
  PetscScalar        scale;        /* the operator is scale times the slot values: the kernels multiply each row's sum by it
                               (a MatScale() since the last refresh, folded in by the layer instead of a refresh) */
  size_t             indexbytes;   /* bytes of the format's index arrays (for the footprint) */
  PetscReal          hotshare;     /* share of the nonzeros in the 1% most frequent columns; -1: not counted */
  MatSpmvColumnOrder colorder;     /* the columns' order: NATURAL, FREQUENCY or RCM */
  PetscBool          rowsrcm;      /* the stored rows follow the columns' RCM order (format->maprows) */
  PetscReal          wideshare[2]; /* share of the nonzeros in groups of rows spanning MATSPMV_SPAN16 columns or more,
                                natural and in RCM order; -1: not measured */
  PetscInt          *colperm;      /* columns renumbered: layout column k is operator column colperm[k], else NULL
                               (host backend; after download() on the device) */
  int               *d_colperm;    /* colperm on the device: each product first gathers x into this order */
  int               *d_colj;       /* the renumbered device columns a format that keeps CSR order reads in place */
  void              *fmt;          /* the format's own arrays, host and device */
};

/* What a format provides. All functions receive the layout of one operator; the products are
   y = L->scale * (slot values) x (+ z). */
struct _n_MatSpmvFormat {
  const char *name;           /* "brc": option prefix -mat_brc_, root type name */
  const char *aijname;        /* "aijbrc" */
  const char *seqtype;        /* "seqaijbrc" */
  const char *mpitype;        /* "mpiaijbrc" */
  const char *title;          /* for viewers */
  PetscBool   naturalcolumns; /* column order auto keeps the natural order for this format (renumbering measured slower) */
  PetscBool   readscsr;       /* its device build keeps the device CSR it is given and reads it in place (A^T's is then kept with the layout) */
  PetscBool   compactcolumns; /* column order auto takes RCM where the natural one spreads groups of rows over
                                 MATSPMV_SPAN16 columns or more and RCM does not (the format stores short column
                                 offsets); for a selecting format, its first choice's flag counts */
  size_t      paramsize;
  const void *paramsdefault;
  /* parse -mat_<name>_* inside an open options block */
  PetscErrorCode (*setfromoptions)(PetscOptionItems, void *params);
  /* host layout from the CSR pattern: set L->nslots, L->slot2csr (CSR positions of csr), L->fmt, L->indexbytes */
  PetscErrorCode (*build)(const void *params, const MatSpmvCSR *csr, MatSpmvLayout L);
  /* row and column of every slot (row -1 for a slot no row owns) for layout checks */
  PetscErrorCode (*slotrowcol)(MatSpmvLayout L, PetscInt *row, PetscInt *col);
  /* y = A x (+ z, when z is not NULL; z may equal y) with the host reference kernel, from L->val */
  PetscErrorCode (*multhost)(MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y);
  /* copy the index arrays to the device */
  PetscErrorCode (*upload)(MatSpmvLayout L);
  /* same as multhost on device arrays, from L->d_val, on the given cudaStream_t */
  PetscErrorCode (*multdevice)(MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y, void *stream);
  /* optional, GPU path on aijcusparse: the layout built from the device CSR (d_i, d_j: int row
     offsets and columns) with the format's device kernels and no host loop over the nonzeros;
     pattern->i (host row offsets) may be read for per-row planning, pattern->j is NULL. Sets
     L->nslots, L->d_slot2csr, the device arrays of L->fmt, L->indexbytes and what view() prints
     (logging any upload it makes); host arrays stay NULL until download(). A format that keeps
     the CSR order sets L->identity and no d_slot2csr: on aijcusparse its slot values are then
     aijcusparse's device values (L->borrowed), and it may keep d_i and d_j themselves, which stay
     valid as long as the layout (the layer rebuilds it when the nonzero pattern changes) */
  PetscErrorCode (*builddevice)(const void *params, const MatSpmvCSR *pattern, const int *d_i, const int *d_j, MatSpmvLayout L, void *stream);
  /* optional: any __global__ function of the format's device code (MATSPMV_DEVICE_KERNEL()), whose
     module the layer loads in the background during the CSR upload of a first build */
  const void *(*devicekernel)(void);
  /* host copies of a device-built layout's arrays (for layout checks) */
  PetscErrorCode (*download)(MatSpmvLayout L);
  /* optional: the layout was built from a CSR whose row r is operator row rowmap[r] (the layer's RCM
     order): make the products write each row into y's row rowmap[r], in whichever of the host arrays
     (host build, before upload) and device arrays (device build; d_rowmap on the device) exist.
     A format with this gets its rows in the RCM order of its columns; the others keep their rows */
  PetscErrorCode (*maprows)(MatSpmvLayout L, const PetscInt *rowmap, const int *d_rowmap, void *stream);
  PetscErrorCode (*destroy)(MatSpmvLayout L); /* free L->fmt, host and device */
  PetscErrorCode (*view)(MatSpmvLayout L, PetscViewer viewer);
  /* A selecting format (spmv) has none of the above but these two. select: the formats that may
     build and run the layout of this operator, best first (at most MATSPMV_MAX_CANDIDATES), from its
     pattern (pattern->i only), each with its parameters inside params; one line saying why; and
     whether the layer should time them (tune). The layer takes the first that accepts the pattern,
     or, when tuning, the fastest of those it times. subparams: the parameters of format inside
     params, for that format's setters */
  PetscErrorCode (*select)(const void *params, const MatSpmvCSR *pattern, PetscInt *ncand, MatSpmvFormat **cand, const void **candparams, MatSpmvTune *tune, char *why, size_t whylen);
  PetscErrorCode (*subparams)(void *params, MatSpmvFormat *format, void **fparams);
  /* filled in at registration */
  PetscLogEvent event_build, event_refresh, event_mult, event_multT;
  PetscErrorCode (*createseq)(Mat);
  PetscErrorCode (*creatempi)(Mat);
};

/* In a format's .cu: MatSpmvFormatDeviceKernel_<SUFFIX>() for its table's devicekernel */
#define MATSPMV_DEVICE_KERNEL(SUFFIX, kernel) \
  const void *MatSpmvFormatDeviceKernel_##SUFFIX(void) \
  { \
    return (const void *)(kernel); \
  }

/* Each format defines its two constructors with this and registers itself with one line in
   formats.c */
#define MATSPMV_DEFINE_CREATE(SUFFIX, format) \
  PETSC_EXTERN PetscErrorCode MatCreate_SeqAIJ##SUFFIX(Mat A) \
  { \
    PetscFunctionBegin; \
    PetscCall(MatCreate_SeqAIJSpmv(A, &(format))); \
    PetscFunctionReturn(PETSC_SUCCESS); \
  } \
  PETSC_EXTERN PetscErrorCode MatCreate_MPIAIJ##SUFFIX(Mat A) \
  { \
    PetscFunctionBegin; \
    PetscCall(MatCreate_MPIAIJSpmv(A, &(format))); \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }

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

/* the format of a type name (root, aij root, sequential or parallel), NULL if none */
PETSC_INTERN PetscErrorCode MatSpmvFormatFind(MatType, MatSpmvFormat **);
/* the registered formats, in registration order */
PETSC_INTERN PetscErrorCode MatSpmvGetFormats(PetscInt *, MatSpmvFormat *const **);
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
  PetscBool        mpiblock;   /* a block of an MPI matrix of ours */
  PetscBool        allowed[2]; /* then: its parent allows the layout of op(A) */
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
/* the data of A: every function that calls this is installed only on our matrices, the data is there */
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

/* ======== floor 2: the engine ======== */

/* The column numbering of one operator's layout, decided once for all the candidates of a
   selecting format: frequency order when asked, or (auto) when the operator has at least
   MATSPMV_HOT_MIN_COLUMNS columns and its 1% most frequent columns hold at least
   MATSPMV_HOT_SHARE of its nonzeros: where a few columns hold many nonzeros (graphs with power-law
   degrees) products then read the shared x entries from fewer cache lines; the measurements behind
   the thresholds are in docs/results.md */
#define MATSPMV_HOT_MIN_COLUMNS 262144 /* fewer: x (2 MB) stays close to the SMs anyway */
#define MATSPMV_HOT_SHARE       0.25

/* Otherwise, for a format with compactcolumns (16-bit column offsets within a group of rows), auto
   renumbers the columns of a square operator of regular rows in reverse Cuthill-McKee order when far groups of
   MATSPMV_SPAN_ROWS rows (MatSpmvWideShare: whose k-th columns span MATSPMV_SPAN16 or more) hold
   over MATSPMV_SPAN_SHARE of its nonzeros and RCM at least halves that share; the measurements are
   in docs/results.md */
#define MATSPMV_SPAN16      65536
#define MATSPMV_SPAN_ROWS   32
#define MATSPMV_SPAN_SAMPLE 4 /* groups measured: one in this many (a share, not a count) */
#define MATSPMV_SPAN_SHARE  0.05

#define MATSPMV_SPAN_SHARE 0.05
/* the format that takes a derived operator its own format refuses: ipcsr pads nothing and keeps no
   copy of the matrix */
#define MATSPMV_FALLBACK_FORMAT "ipcsr"

/* order.c: the share of the nonzeros in groups of rows (permuted when given) whose columns
   (renumbered when given) span MATSPMV_SPAN16 or more; the RCM order of a square matrix's graph */
PETSC_INTERN PetscErrorCode MatSpmvWideShare(const MatSpmvCSR *, const PetscInt *, const PetscInt *, PetscReal *);
PETSC_INTERN PetscErrorCode MatSpmvOrderRCM(Mat, const MatSpmvCSR *, PetscInt **);

/* layout.c: free a layout, host and device (NULL allowed); drop all layouts and work buffers (the
   next product builds again); host copies of a device-built layout (layout checks only) */
PETSC_INTERN PetscErrorCode MatSpmvLayoutDestroy(MatSpmvLayout *);
PETSC_INTERN PetscErrorCode MatSpmvReset(Mat_SeqAIJSpmv *);
PETSC_INTERN PetscErrorCode MatSpmvLayoutDownload(MatSpmvLayout);

/* build.c: the column numbering of one operator, and its layout in one format */
typedef struct {
  PetscBool          renumber;
  MatSpmvColumnOrder order;        /* NATURAL, FREQUENCY or RCM */
  PetscReal          hotshare;     /* -1: not counted */
  PetscReal          wideshare[2]; /* natural, RCM; -1: not measured */
  PetscInt          *perm;         /* host order (NULL until needed when made on the device) */
  int               *d_perm;       /* device order, when made there or needed by a device build */
} MatSpmvColumnPlan;
/* the frequency order, decided before a selecting format chooses (its rules read it) */
PETSC_INTERN PetscErrorCode MatSpmvColumnPlanMake(Mat, MatSpmvOp, const MatSpmvCSR *, MatSpmvColumnPlan *);
/* the RCM order, decided for the format that builds the layout (a selecting format's first choice) */
PETSC_INTERN PetscErrorCode MatSpmvColumnPlanBand(Mat, MatSpmvOp, const MatSpmvCSR *, MatSpmvFormat *, MatSpmvColumnPlan *);
PETSC_INTERN PetscErrorCode MatSpmvColumnPlanDestroy(MatSpmvColumnPlan *);
/* the row offsets of op(A)'s pattern (t = 1: A^T's, counted from A's columns: PetscFree *ti) */
PETSC_INTERN PetscErrorCode MatSpmvOperatorRows(const MatSpmvCSR *, MatSpmvOp, MatSpmvCSR *, PetscInt **);
PETSC_INTERN PetscErrorCode MatSpmvRowLengthStats(Mat, MatSpmvOp, const MatSpmvCSR *, MatSpmvRowStats *);
/* device code loaded in the background from a matrix's creation; waited for before a device build */
PETSC_INTERN PetscErrorCode MatSpmvPreloadDeviceCode(MatSpmvFormat *);
PETSC_INTERN PetscErrorCode MatSpmvPrepareDeviceBuild(Mat, MatSpmvOp);
/* the build's stages as log events inside the format's MatXXXBuild: row statistics, frequency plan,
   RCM plan, the layout itself (registered by the package) */
PETSC_INTERN PetscLogEvent  MATSPMV_RowStats, MATSPMV_FrequencyPlan, MATSPMV_RCMPlan, MATSPMV_Layout;
PETSC_INTERN PetscErrorCode MatSpmvRegisterBuildEvents(void);
/* a new layout of op(A) in format: NULL in *L, and the format's error in *ierr, when the format
   refuses the structure; quiet: the refusal is handled by the caller (another candidate follows) */
PETSC_INTERN PetscErrorCode MatSpmvTryBuild(Mat, MatSpmvOp, const MatSpmvCSR *, MatSpmvFormat *, const void *, MatSpmvColumnPlan *, PetscBool, MatSpmvLayout *, PetscErrorCode *);

/* apply.c: values and products of one layout */
/* bring the values of a layout, last filled at object state *lstate, up to date with A (sp: A's data) */
PETSC_INTERN PetscErrorCode MatSpmvRefresh(Mat, Mat_SeqAIJSpmv *, MatSpmvLayout, PetscObjectState *);
/* x in the layout's column order (host): x itself, or gathered into a work array when renumbered */
PETSC_INTERN PetscErrorCode MatSpmvGatherColumnsHost(Mat_SeqAIJSpmv *, MatSpmvLayout, const PetscScalar **);
/* the same on the device, on the given cudaStream_t */
PETSC_INTERN PetscErrorCode MatSpmvGatherColumnsDevice(Mat_SeqAIJSpmv *, MatSpmvLayout, PetscScalar **, void *);
/* y = L x (+ z, NULL allowed; z may be y) on host arrays / device arrays (x in the operator's order) */
PETSC_INTERN PetscErrorCode MatSpmvLayoutMultHost(Mat_SeqAIJSpmv *, MatSpmvLayout, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode MatSpmvLayoutMultDevice(Mat_SeqAIJSpmv *, MatSpmvLayout, PetscScalar *, const PetscScalar *, PetscScalar *, void *);

/* select.c: build sp->L[t] for A (t = 0) or A^T (t = 1) from A's CSR pattern, in A's format or its
   selecting format's choice (the first candidate that builds, or the fastest when it asks for tuning) */
PETSC_INTERN PetscErrorCode MatSpmvSelectLayout(Mat, MatSpmvOp, const MatSpmvCSR *);

/* operator.c: the layout of A (t = 0) or A^T (t = 1) brought up to date with A (built, rebuilt or
   refreshed), and y = op(A) x (+ z, NULL allowed) through it. The caller has read the options and
   resolved the backend (the type's MatSpmvPrepare_SeqAIJSpmv()), and passes A's data (looked up once a product) */
PETSC_INTERN PetscErrorCode MatSpmvUpdate(Mat, Mat_SeqAIJSpmv *, MatSpmvOp, MatSpmvLayout *);
PETSC_INTERN PetscErrorCode MatSpmvApply(Mat, Mat_SeqAIJSpmv *, MatSpmvOp, Vec, Vec, Vec);

/* check.c: layout invariants of A's and A^T's layouts against the CSR (tests) */
PETSC_INTERN PetscErrorCode MatSpmvCheckLayouts(Mat);

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
PETSC_INTERN PetscErrorCode MatSpmvGetParams_Private(Mat, MatSpmvFormat **, void **);
PETSC_INTERN PetscErrorCode MatSpmvParamsChanged_Private(Mat);
PETSC_INTERN PetscErrorCode MatSpmvGetFormatParams_Private(Mat, MatSpmvFormat *, void **);
PETSC_INTERN PetscErrorCode MatSpmvSetParam_Private(Mat, MatSpmvFormat *, size_t, PetscInt);
/* -mat_<name>_backend, -mat_<name>_column_order and the format's -mat_<name>_* into params (through
   a copy: a rejected value leaves params as they were); *changed: the format's parameters changed */
PETSC_INTERN PetscErrorCode MatSpmvParseOptions(MatSpmvFormat *, PetscOptionItems, MatSpmvBackend *, MatSpmvColumnOrder *, void *, PetscBool *);

/* product.c: matrix-matrix products (either base: aijcusparse's device products, or AIJ's) */
PETSC_INTERN PetscErrorCode MatSpmvSetProductHooks_SeqAIJSpmv(Mat);
PETSC_INTERN PetscErrorCode MatSpmvClearProductHooks_SeqAIJSpmv(Mat);
PETSC_INTERN PetscErrorCode MatProductSetFromOptions_MPIAIJSpmv(Mat);
PETSC_INTERN PetscErrorCode MatMPIAIJGetLocalMatMerge_MPIAIJSpmv(Mat, MatReuse, IS *, Mat *);
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
PETSC_INTERN PetscErrorCode MatSpmvSetValueOps_MPIAIJSpmv(Mat, MatSpmvBaseOps *);
PETSC_INTERN PetscErrorCode MatSpmvSetValueOps_AIJCUSPARSEResult(Mat);
/* graph.c: MatCreateGraph() from aijcusparse's device CSR; MPI: PETSc's on an aijcusparse copy */
PETSC_INTERN PetscErrorCode MatSpmvSetGraphOps_SeqAIJSpmv(Mat);
PETSC_INTERN PetscErrorCode MatSpmvSetGraphOps_MPIAIJSpmv(Mat, MatSpmvBaseOps *);
PETSC_INTERN PetscErrorCode MatSpmvSetGraphOps_AIJCUSPARSEResult(Mat);

/* cusparsefactor.c: aijcusparse's factors and cuSPARSE's solves for our types (MATSOLVERCUSPARSE) */
PETSC_INTERN PetscErrorCode MatSpmvRegisterFactors(MatSpmvFormat *);

/* seq.c and mpi.c: the types */
PETSC_INTERN PetscErrorCode MatCreate_SeqAIJSpmv(Mat, MatSpmvFormat *);
PETSC_INTERN PetscErrorCode MatCreate_MPIAIJSpmv(Mat, MatSpmvFormat *);
PETSC_INTERN PetscErrorCode MatConvert_SeqAIJ_SeqAIJSpmv(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatConvert_MPIAIJ_MPIAIJSpmv(Mat, MatType, MatReuse, Mat *);
/* options read and backend resolved: errors surface here, before MatMult_MPIAIJ starts its scatter */
PETSC_INTERN PetscErrorCode MatSpmvPrepare_SeqAIJSpmv(Mat);
/* a block of an MPI matrix takes the parallel matrix's parameters (its own options are not read) */
PETSC_INTERN PetscErrorCode MatSpmvAdoptParams_SeqAIJSpmv(Mat, const void *, MatSpmvBackend, MatSpmvColumnOrder);
/* build (or refresh) the layout of A (0) or A^T (1) now, as the next product would */
PETSC_INTERN PetscErrorCode MatSpmvUpdateLayout_SeqAIJSpmv(Mat, MatSpmvOp);
/* whether op(A)'s products are its base's, no layout (bound to the CPU, no GPU, or op(A) waiting
   for its layout): after MatSpmvPrepare_SeqAIJSpmv() */
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

/* MatSOR() on the device (src/mat/impls/spmvsor/) for a matrix whose CSR aijcusparse keeps there, PETSc's
   host one (the second argument) where the device does not take a call */
PETSC_INTERN PetscErrorCode MatSpmvSetSOROps(Mat, PetscErrorCode (*)(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec));
/* our MPI matrices on aijcusparse: MPIAIJ's MatSOR() (the second argument) with host vectors staged through CUDA ones */
PETSC_INTERN PetscErrorCode MatSpmvSetSOROpsMPI(Mat, PetscErrorCode (*)(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec));

/* the solver package MATSOLVERSPMV (src/mat/impls/spmvfactor/), registered by src/mat/interface/package.c */
PETSC_INTERN PetscErrorCode MatSolverTypeRegister_Spmv(void);
