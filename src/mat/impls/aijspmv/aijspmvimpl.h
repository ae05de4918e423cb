#pragma once
/*
  The shared layer of petscspmv. With a GPU, every format is a SeqAIJCUSPARSE/MPIAIJCUSPARSE
  matrix (the base) whose four products go through the format; without one it is a
  SeqAIJ/MPIAIJ with the host reference kernels. The layer owns all PETSc plumbing (types,
  base, conversion, staleness, vectors, streams, logging, options, viewing); a format supplies
  only a MatSpmvFormat table and never knows which base is in use.
*/
#include <petscspmv.h>
#include <petsc/private/matimpl.h>

/* The CSR pattern a format builds its layout from */
typedef struct {
  PetscInt        m, n, nnz;
  const PetscInt *i, *j;
  MatSpmvColumnOrder colorder; /* the order the layout's columns will have: NATURAL, FREQUENCY or RCM */
} MatSpmvCSR;

typedef struct _n_MatSpmvFormat MatSpmvFormat;

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
  MatSpmvFormat *format;    /* the format that built it: the matrix's own, or the one a selecting format chose */
  const void    *params;    /* that format's parameters */
  char           why[320];  /* a selecting format's reason for its choice, for the viewer */
  PetscInt     m, n;        /* rows and columns the format stores: the operator's rows with entries when compressed */
  PetscInt     ym;          /* rows of the operator (the length of y) */
  PetscInt    *crow;        /* compressed (most rows empty, as in MPI off-diagonal blocks): the operator row of each
                               stored row, else NULL; the layer scatters the format's products (host) */
  int         *d_crow;      /* crow on the device */
  int         *d_ci;        /* the device build's row offsets when they are not the base's: compressed, or rows permuted */
  PetscInt     nnz;         /* true nonzeros */
  PetscInt     nslots;      /* value slots, padding included */
  PetscInt    *slot2csr;    /* CSR position of A feeding each slot, -1 for padding (host) */
  PetscScalar *val;         /* slot values, host backend only */
  PetscScalar *d_val;       /* slot values, CUDA backend only */
  PetscBool    devicebuilt; /* built by the format's builddevice: host arrays only after download */
  PetscBool    borrowed;    /* d_val is the base's device CSR value array (identity layout on aijcusparse): not ours to free */
  int         *d_slot2csr;  /* slot2csr on the device, for value refreshes */
  PetscBool    identity;    /* slot s holds CSR entry s, no padding: a refresh is a plain copy (set by the layer) */
  PetscScalar  scale;       /* the operator is scale times the slot values: the kernels multiply each row's sum by it
                               (a MatScale() since the last refresh, folded in by the layer instead of a refresh) */
  size_t       indexbytes;  /* bytes of the format's index arrays (for the footprint) */
  PetscReal    hotshare;    /* share of the nonzeros in the 1% most frequent columns; -1: not counted */
  MatSpmvColumnOrder colorder; /* the columns' order: NATURAL, FREQUENCY or RCM */
  PetscBool    rowsrcm;     /* the stored rows follow the columns' RCM order (format->maprows) */
  PetscReal    wideshare[2]; /* share of the nonzeros in groups of rows spanning MATSPMV_SPAN16 columns or more,
                                natural and in RCM order; -1: not measured */
  PetscInt    *colperm;     /* columns renumbered: layout column k is operator column colperm[k], else NULL
                               (host backend; after download() on the device) */
  int         *d_colperm;   /* colperm on the device: each product first gathers x into this order */
  int         *d_colj;      /* the renumbered device columns a format that keeps CSR order reads in place */
  void        *fmt;         /* the format's own arrays, host and device */
};

/* What a format provides. All functions receive the layout of one operator; the products are
   y = L->scale * (slot values) x (+ z). */
struct _n_MatSpmvFormat {
  const char *name;    /* "brc": option prefix -mat_brc_, root type name */
  const char *aijname; /* "aijbrc" */
  const char *seqtype; /* "seqaijbrc" */
  const char *mpitype; /* "mpiaijbrc" */
  const char *title;   /* for viewers */
  PetscBool   naturalcolumns; /* column order auto keeps the natural order for this format (renumbering measured slower) */
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

/* Each format defines its two constructors with this and registers itself with one line
   in src/sys/spmvpackage.c */
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

PETSC_INTERN PetscErrorCode MatSpmvRegisterFormat(MatSpmvFormat *);
PETSC_INTERN PetscErrorCode MatSpmvFormatFind(MatType, MatSpmvFormat **);
/* the registered formats, in registration order */
PETSC_INTERN PetscErrorCode MatSpmvGetFormats(PetscInt *, MatSpmvFormat *const **);
PETSC_INTERN PetscErrorCode MatSpmvComposeConverters(Mat, MatSpmvFormat *, PetscBool, PetscErrorCode (*)(Mat, MatType, MatReuse, Mat *), PetscErrorCode (*)(Mat, MatType, MatReuse, Mat *));
/* save the functions we override from a pristine MATSEQAIJ or MATMPIAIJ, once */
PETSC_INTERN PetscErrorCode MatSpmvSaveBaseOps(Mat);
PETSC_INTERN PetscErrorCode MatCreate_SeqAIJSpmv(Mat, MatSpmvFormat *);
PETSC_INTERN PetscErrorCode MatCreate_MPIAIJSpmv(Mat, MatSpmvFormat *);
PETSC_INTERN PetscErrorCode MatConvert_SeqAIJ_SeqAIJSpmv(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatConvert_MPIAIJ_MPIAIJSpmv(Mat, MatType, MatReuse, Mat *);
/* the format's parameters of any petscspmv matrix (the MPI type's are pushed to its blocks) */
PETSC_INTERN PetscErrorCode MatSpmvGetParams_Private(Mat, MatSpmvFormat **, void **);
PETSC_INTERN PetscErrorCode MatSpmvParamsChanged_Private(Mat);
PETSC_INTERN PetscErrorCode MatSpmvGetFormatParams_Private(Mat, MatSpmvFormat *, void **);
PETSC_INTERN PetscErrorCode MatSpmvSetParam_Private(Mat, MatSpmvFormat *, size_t, PetscInt);
/* parse -mat_<name>_* into params through a copy: a rejected value leaves params as they were */
PETSC_INTERN PetscErrorCode MatSpmvParseParams_Private(MatSpmvFormat *, PetscOptionItems, void *, PetscBool *);
PETSC_INTERN PetscErrorCode MatSpmvPrepare_SeqAIJSpmv(Mat);
PETSC_INTERN PetscErrorCode MatSpmvAdoptParams_SeqAIJSpmv(Mat, const void *, MatSpmvBackend, MatSpmvColumnOrder);
/* build (or refresh) the layout of A (0) or A^T (1) now, as the next product would */
PETSC_INTERN PetscErrorCode MatSpmvUpdateLayout_SeqAIJSpmv(Mat, int);

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
  PetscErrorCode (*setpreallocationcoo)(Mat, PetscCount, PetscInt[], PetscInt[]);                     /* mpi: MatSetPreallocationCOO_C */
  PetscErrorCode (*retrievevalues)(Mat);                                              /* seq: MatRetrieveValues_C */
  PetscErrorCode (*preallocation)(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[]); /* mpi: MatMPIAIJSetPreallocation_C */
  PetscErrorCode (*storevalues)(Mat);                                                 /* seq: MatStoreValues_C */
  PetscErrorCode (*getlocalmatmerge)(Mat, MatReuse, IS *, Mat *);                     /* mpi: MatMPIAIJGetLocalMatMerge_C (aijcusparse) */
  PetscErrorCode (*bindtocpu)(Mat, PetscBool);
  PetscErrorCode (*scale)(Mat, PetscScalar);
  PetscErrorCode (*productsetfromoptions)(Mat);
  PetscErrorCode (*eliminatezeros)(Mat, PetscBool);
  PetscErrorCode (*transpose)(Mat, MatReuse, Mat *);
  PetscBool cusparse; /* saved from MATSEQAIJCUSPARSE / MATMPIAIJCUSPARSE */
} MatSpmvBaseOps;
/* saved from pristine MATSEQAIJ, MATMPIAIJ, MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE matrices */
PETSC_INTERN MatSpmvBaseOps MatSpmvBaseSeq, MatSpmvBaseMPI, MatSpmvBaseSeqCUSPARSE, MatSpmvBaseMPICUSPARSE;

/* SeqAIJ's functions (saved from a pristine MATSEQAIJ if none was converted yet) */
PETSC_INTERN PetscErrorCode MatSpmvGetBaseSeq(MatSpmvBaseOps **);

/* Whether new petscspmv matrices are built on aijcusparse: CUDA PETSc and a visible GPU */
PETSC_INTERN PetscErrorCode MatSpmvUseCUSPARSEBase(PetscBool *);

/* The state of a SeqAIJ-derived petscspmv matrix, composed with it as a container (A->spptr
   belongs to the aijcusparse base) */
typedef struct {
  MatSpmvFormat  *format;
  MatSpmvBaseOps *base;     /* the functions we chain to */
  void           *params;
  PetscBool       paramsset; /* set by options or the API: no lazy options parse */
  MatSpmvBackend  backend;   /* as requested */
  MatSpmvColumnOrder colorder; /* as requested */
  PetscBool       resolved;  /* ondevice decided */
  PetscBool       ondevice;
  PetscBool       derived;   /* PETSc made it from the user's matrices (a product, an off-diagonal block): a format
                                that refuses its pattern gives way to MATSPMV_FALLBACK_FORMAT */
  PetscBool       offdiag;   /* an MPI off-diagonal block: its columns (ghosts) are not its rows, no graph to reorder */
  PetscBool        frommaij;   /* a MAIJ operand of a product, converted: products with it keep our type */
  PetscBool        bound;      /* bound to the CPU by MatBindToCPU() */
  PetscObjectState boundstate; /* object state then */
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
PETSC_INTERN PetscErrorCode MatSpmvSeqGetData(Mat, Mat_SeqAIJSpmv **); /* NULL if A is not one of ours */
#define MATSPMV_SEQ_DATA "MatSpmvSeqData"
/* the data of A: every function that calls this is installed only on our matrices, the data is there */
static inline Mat_SeqAIJSpmv *MatSpmvSeq(Mat A)
{
  Mat_SeqAIJSpmv *sp = NULL;

  (void)PetscObjectContainerQuery((PetscObject)A, MATSPMV_SEQ_DATA, (PetscCtxRt)&sp);
  return sp;
}
static const PetscObjectState MATSPMV_NOSTATE = -1; /* no real state has this value */
/* bring the host CSR values of A up to date (aijcusparse copies them back from the device if needed):
   before AIJ code that reads them in place */
PETSC_INTERN PetscErrorCode MatSpmvSyncHostValues(Mat);
/* -mat_spmv_product_min_rows, read once when the package is initialized */
PETSC_INTERN PetscInt MatSpmvProductMinRows;
/* Whether a new result (still the base's type) of a product whose A is ours takes A's type, for
   sequential and MPI results alike. Never after a host product into an aijcusparse matrix: it
   wrote host values aijcusparse is not told of. Measured (KSP ex56 -ne 48, GAMG with PETSc's
   defaults, H100): with its smoothed prolongator and coarse operators in our formats KSPSolve took
   1.18-1.27x aijcusparse's, with them left to aijcusparse 1.0x. So results stay the base's type,
   unless -mat_spmv_product_min_rows asks for ours from that many rows, or an operand was a MAIJ
   interpolation we converted (PCMG): the next level's MAIJ then meets one of ours, which converts it */
static inline PetscBool MatSpmvProductResultTakesType(PetscBool cusparsebase, PetscBool dev, PetscInt rows, PetscBool frommaij)
{
  if (cusparsebase && !dev) return PETSC_FALSE;
  return (PetscBool)(rows >= MatSpmvProductMinRows || frommaij);
}
/* A is an operator PETSc derived from the user's matrices (see Mat_SeqAIJSpmv.derived) */
PETSC_INTERN PetscErrorCode MatSpmvSetDerived_SeqAIJSpmv(Mat);
/* the format that takes a derived operator its own format refuses: ipcsr pads nothing and keeps no
   copy of the matrix */
#define MATSPMV_FALLBACK_FORMAT "ipcsr"

/* seqaijspmv.c: -mat_<fmt>_* read at the first product by programs that never call MatSetFromOptions() */
PETSC_INTERN PetscErrorCode MatSpmvLazyOptions(Mat);
/* seqaijspmv.c: decide once whether A's products run on the GPU (an error if cuda was asked for and none is visible) */
PETSC_INTERN PetscErrorCode MatSpmvResolveBackend(Mat);

/* spmvlayout.c: the layout engine of SeqAIJ-derived matrices, building the layout of one operator */

/* The column numbering of one operator's layout, decided once for all the candidates of a
   selecting format: frequency order when asked, or (auto) when the operator has at least
   MATSPMV_HOT_MIN_COLUMNS columns and its 1% most frequent columns hold at least
   MATSPMV_HOT_SHARE of its nonzeros. Measured on the H200 (examples/results/irregular-h200/):
   Graph500 R-MAT, whose 1% most frequent columns hold 52% of the nonzeros, runs 15% faster with
   argcsr and 19% with brc (x gather included, rows sorted by their new columns: unsorted gained
   only 8% and 16%); the power-law and circuit matrices (2%) and the
   stencils (1%) gain nothing and would pay the gather; ipcsr lost 5% on R-MAT (its format says
   naturalcolumns). */
#define MATSPMV_HOT_MIN_COLUMNS 262144 /* fewer: x (2 MB) stays close to the SMs anyway */
#define MATSPMV_HOT_SHARE       0.25

/* Otherwise, for a format with compactcolumns (16-bit column offsets within a group of rows), auto
   renumbers the columns of a square operator of regular rows in reverse Cuthill-McKee order when far groups of
   MATSPMV_SPAN_ROWS rows (MatSpmvWideShare: whose k-th columns span MATSPMV_SPAN16 or more) hold
   over MATSPMV_SPAN_SHARE of its nonzeros and RCM at least halves that share; the measurements are
   in docs/results.md */
#define MATSPMV_SPAN16     65536
#define MATSPMV_SPAN_ROWS   32
#define MATSPMV_SPAN_SAMPLE 4     /* groups measured: one in this many (a share, not a count) */
#define MATSPMV_SPAN_SHARE 0.05

/* spmvorder.c: the share of the nonzeros in groups of rows (permuted when given) whose columns
   (renumbered when given) span MATSPMV_SPAN16 or more; the RCM order of a square matrix's graph */
PETSC_INTERN PetscErrorCode MatSpmvWideShare(const MatSpmvCSR *, const PetscInt *, const PetscInt *, PetscReal *);
PETSC_INTERN PetscErrorCode MatSpmvOrderRCM(Mat, const MatSpmvCSR *, PetscInt **);

/* free a layout, host and device (NULL allowed) */
PETSC_INTERN PetscErrorCode MatSpmvLayoutDestroy(Mat_SeqAIJSpmv *, MatSpmvLayout *);
/* build sp->L[t] for A (t = 0) or A^T (t = 1) from A's CSR pattern, in A's format or its selecting format's choice */
PETSC_INTERN PetscErrorCode MatSpmvBuild(Mat, int, const MatSpmvCSR *);
/* host copies of a device-built layout (layout checks only) */
PETSC_INTERN PetscErrorCode MatSpmvLayoutDownload(Mat_SeqAIJSpmv *, MatSpmvLayout);

/* spmvapply.c: the layouts kept current with A, and the products */

/* drop the layouts and the device and work buffers: the next product builds again */
PETSC_INTERN PetscErrorCode MatSpmvReset(Mat_SeqAIJSpmv *);
/* the layout of A (t = 0) or A^T (t = 1) brought up to date with A: built, rebuilt or refreshed */
PETSC_INTERN PetscErrorCode MatSpmvUpdate(Mat, int, MatSpmvLayout *);
/* bring the values of a layout, last filled at object state *lstate, up to date with A */
PETSC_INTERN PetscErrorCode MatSpmvRefresh(Mat, MatSpmvLayout, PetscObjectState *);
/* x in the layout's column order (host): x itself, or gathered into a work array when renumbered */
PETSC_INTERN PetscErrorCode MatSpmvGatherColumnsHost(Mat_SeqAIJSpmv *, MatSpmvLayout, const PetscScalar **);
/* the same on the device, on the given cudaStream_t */
PETSC_INTERN PetscErrorCode MatSpmvGatherColumnsDevice(Mat_SeqAIJSpmv *, MatSpmvLayout, PetscScalar **, void *);
/* no GPU and no backend asked for: the products are AIJ's own */
PETSC_INTERN PetscBool MatSpmvUsesBaseProducts(Mat_SeqAIJSpmv *);
/* y = op(A) x (+ z, NULL allowed); t = 0: op(A) = A, t = 1: op(A) = A^T */
PETSC_INTERN PetscErrorCode MatSpmvApply(Mat, int, Vec, Vec, Vec);

/* seqaijspmvcusparse.c: matrix-matrix products (either base: aijcusparse's device products, or AIJ's);
   aijcusparse's factors and solves for our types */
PETSC_INTERN PetscErrorCode MatSpmvSetProductHooks_SeqAIJSpmv(Mat);
PETSC_INTERN PetscErrorCode MatSpmvClearProductHooks_SeqAIJSpmv(Mat);
PETSC_INTERN PetscErrorCode MatSpmvRegisterFactors(MatSpmvFormat *);
/* Our matrices among four (NULL allowed) carry their base's name (seqaijcusparse, seqaij) from
   MatSpmvAliasBegin() to MatSpmvAliasEnd(alias, ierr), which gives them back and returns ierr, the
   error of the call in between: aijcusparse's kernels check their operands' names */
typedef struct {
  Mat   mat[4];
  char *name[4];
} MatSpmvAlias;
PETSC_INTERN PetscErrorCode MatSpmvAliasBegin(MatSpmvAlias *, Mat, Mat, Mat, Mat);
PETSC_INTERN PetscErrorCode MatSpmvAliasEnd(MatSpmvAlias *, PetscErrorCode);
/* the base's choice of a product's implementation, made with our operands aliased; phases wrapped */
PETSC_INTERN PetscErrorCode MatSpmvProductSetFromOptionsAliased(Mat, PetscErrorCode (*)(Mat));
/* mpiaijspmv.c: MATMPIAIJCUSPARSE or MATMPIAIJ for our MPI types, NULL for others; the result rule
   of an MPI product (C, A, B, whether it ran on the device) */
PETSC_INTERN PetscErrorCode MatSpmvMPIGetBaseName(Mat, MatType *);
PETSC_INTERN PetscErrorCode MatSpmvMPIProductResult(Mat, Mat, Mat, PetscBool);
/* form aijcusparse's explicit transpose of T again if a change of values left it stale */
PETSC_INTERN PetscErrorCode MatSpmvRefreshTranspose(Mat);
/* aijcusparse's device row offsets (uncompressed) and column indices of A */
PETSC_INTERN PetscErrorCode MatSpmvCUSPARSEGetIJ(Mat, const int **, const int **);
PETSC_INTERN PetscErrorCode MatSpmvCUSPARSEGetValues(Mat, const PetscScalar **);
/* F's solve composed under key, on device vectors: host ones staged through work vectors kept with F */
PETSC_INTERN PetscErrorCode MatSpmvSolveStaged(Mat, Vec, Vec, const char *);
PETSC_INTERN PetscErrorCode MatSpmvCUSPARSERestoreValues(Mat, const PetscScalar **);
/* MATSOLVERSPMV's ILU(0) (spmvfactor.c) */
PETSC_INTERN PetscErrorCode MatSpmvRegisterSpmvFactor(void);

/* Device services (aijspmvcuda.cu); all take a cudaStream_t as void* */
PETSC_INTERN PetscErrorCode MatSpmvCUDAAvailable(PetscBool *);
PETSC_INTERN PetscErrorCode MatSpmvCUDAGetStream(void **);
PETSC_INTERN PetscErrorCode MatSpmvCUDAMalloc(void **, size_t);
PETSC_INTERN PetscErrorCode MatSpmvCUDAFree(void *);
PETSC_INTERN PetscErrorCode MatSpmvCUDACopyToDevice(void *, const void *, size_t, void *);
PETSC_INTERN PetscErrorCode MatSpmvCUDACopyToHost(void *, const void *, size_t, void *);
PETSC_INTERN PetscErrorCode MatSpmvCUDAGather(PetscInt, const int *, const PetscScalar *, PetscScalar *, void *);
/* y[crow[k]] += t[k] for k < n */
PETSC_INTERN PetscErrorCode MatSpmvCUDAAddRows(PetscInt, const int *, const PetscScalar *, PetscScalar *, void *);
PETSC_INTERN PetscErrorCode MatSpmvCUDAZero(PetscScalar *, PetscInt, void *);
PETSC_INTERN PetscErrorCode MatSpmvCUDACopyOnDevice(void *, const void *, size_t, void *);
PETSC_INTERN PetscErrorCode MatSpmvCUDASynchronize(void *);
/* the n columns ordered by how many of the nnz column indices d_j name them, most first (stable):
   a new device array *d_perm; *hot: the nonzeros in the first max(1, n / 100) */
PETSC_INTERN PetscErrorCode MatSpmvCUDAColumnFrequency(PetscInt, PetscInt, const int *, int **, PetscInt *, void *);
/* the m rows (offsets d_i) of columns d_j renumbered: column c becomes its position in d_perm (of n),
   each row sorted by the new columns: new device arrays *d_jnew of the columns and *d_pos of the
   CSR position each came from; with d_rows (not NULL) row r of the result is row d_rows[r], at the
   offsets d_inew */
PETSC_INTERN PetscErrorCode MatSpmvCUDARenumberColumns(PetscInt, PetscInt, PetscInt, const int *, const int *, const int *, const int *, const int *, int **, int **, void *);
/* map[k] = pos[map[k]] where map[k] >= 0 (n entries, on the device) */
PETSC_INTERN PetscErrorCode MatSpmvCUDAComposeMap(PetscInt, int *, const int *, void *);
/* whether the device map slot2csr of n slots is the identity */
PETSC_INTERN PetscErrorCode MatSpmvCUDAIsIdentity(PetscInt, const int *, PetscBool *, void *);
/* host PetscInt copy of a device int array (PetscFree it) */
PETSC_INTERN PetscErrorCode MatSpmvCUDADownloadInt(PetscInt **, const int *, PetscInt);
/* upload host array n*size bytes to a new device array (NULL when n is 0) */
PETSC_INTERN PetscErrorCode MatSpmvCUDAUpload(void **, const void *, size_t);

/* host array of PetscInt -> new device array of int (sizes were checked by the layer) */
static inline PetscErrorCode MatSpmvCUDAUploadInt(int **d, const PetscInt *h, PetscInt n)
{
  int *tmp;

  PetscFunctionBegin;
  if (sizeof(PetscInt) == sizeof(int)) { /* same representation: no conversion */
    PetscCall(MatSpmvCUDAUpload((void **)d, h, n * sizeof(int)));
  } else {
    PetscCall(PetscMalloc1(n, &tmp));
    for (PetscInt k = 0; k < n; k++) tmp[k] = (int)h[k];
    PetscCall(MatSpmvCUDAUpload((void **)d, tmp, n * sizeof(int)));
    PetscCall(PetscFree(tmp));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
