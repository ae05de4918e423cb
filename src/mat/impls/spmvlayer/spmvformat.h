#pragma once
/*
  What a format sees of the shared layer (a format's <name>impl.h includes this alone): the CSR pattern
  it builds from, the layout of one operator, its MatSpmvFormat table and the macro that defines its
  types' constructors, the parameter setters of the public API, and (spmvbase.h) the device services.
  The layer's own floors are spmvdata.h (1), spmvengine.h (2) and spmvtypes.h (3), with spmvimpl.h
  including them all.
*/
#include <petscspmv.h>
#include <petsc/private/matimpl.h>
#include "spmvbase.h"

/* the column span 16-bit offsets reach: a format with compactcolumns stores offsets below it, and the
   layer renumbers columns where groups of rows span it (spmvengine.h) */
#define MATSPMV_SPAN16 65536

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

/* A PetscScalar in a struct that C and CUDA files share: a complex one is aligned to its size in CUDA
   files (thrust::complex), to its part's in C (_Complex); this one is aligned alike in both, so the
   struct's fields sit where both expect them (MatSpmvFormatRegister() checks the size) */
typedef PetscScalar MatSpmvScalar __attribute__((aligned(sizeof(PetscScalar))));

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
  long long         *d_slot2csr64; /* the same with 64-bit CSR positions: a layout of more than 2^31 - 1 slots (format->slots64) */
  PetscBool          identity;     /* slot s holds CSR entry s, no padding: a refresh is a plain copy (set by the layer) */
  MatSpmvScalar      scale;        /* the operator is scale times the slot values: the kernels multiply each row's sum by it
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
  PetscBool   slots64;        /* its device layout addresses slots with 64-bit offsets (with 64-bit PetscInt): it may hold
                                 more than 2^31 - 1 of them; the others' layouts stop there (their index arrays are int) */
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

/* -petscspmv_slots64_min (read by the package): a layout of a format with 64-bit slot offsets takes
   them past this many slots; 2^31 - 1 by default, where 32-bit offsets end (tests lower it) */
PETSC_INTERN PetscInt MatSpmvSlots64Min;

/* whether L's device arrays address its slots with 64-bit offsets (64-bit PetscInt only) */
static inline PetscBool MatSpmvLayoutSlots64(MatSpmvLayout L)
{
#if defined(PETSC_USE_64BIT_INDICES)
  return (PetscBool)(L->format->slots64 && L->nslots > MatSpmvSlots64Min);
#else
  (void)L;
  return PETSC_FALSE;
#endif
}

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

/* the registered formats, in registration order (formats.c; the selecting format's candidates) */
PETSC_INTERN PetscErrorCode MatSpmvGetFormats(PetscInt *, MatSpmvFormat *const **);
/* params.c: a format's parameters in any petscspmv matrix (the MPI type's are pushed to its blocks):
   what the formats' public setters and getters call */
PETSC_INTERN PetscErrorCode MatSpmvGetParams_Private(Mat, MatSpmvFormat **, void **);
PETSC_INTERN PetscErrorCode MatSpmvParamsChanged_Private(Mat);
PETSC_INTERN PetscErrorCode MatSpmvGetFormatParams_Private(Mat, MatSpmvFormat *, void **);
PETSC_INTERN PetscErrorCode MatSpmvSetParam_Private(Mat, MatSpmvFormat *, size_t, PetscInt);
/* seq.c and mpi.c: the types' constructors, which MATSPMV_DEFINE_CREATE() calls */
PETSC_INTERN PetscErrorCode MatCreate_SeqAIJSpmv(Mat, MatSpmvFormat *);
PETSC_INTERN PetscErrorCode MatCreate_MPIAIJSpmv(Mat, MatSpmvFormat *);
