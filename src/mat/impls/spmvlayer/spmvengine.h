#pragma once
/* The shared layer's floor 2 (spmvimpl.h has the map of floors): the engine, a format's layout of one
   operator built, kept current and applied */
#include "spmvdata.h"

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
#define MATSPMV_SPAN_ROWS   32
#define MATSPMV_SPAN_SAMPLE 4 /* groups measured: one in this many (a share, not a count) */
#define MATSPMV_SPAN_SHARE  0.05

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
PETSC_INTERN PetscErrorCode MatSpmvUpdateValues(Mat, Mat_SeqAIJSpmv *, MatSpmvLayout, PetscObjectState *);
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
   its values updated), and y = op(A) x (+ z, NULL allowed) through the current layout. The caller has
   read the options and resolved the backend (the type's MatSpmvUpdateSettings_SeqAIJSpmv()), and passes A's
   data (looked up once a product) */
PETSC_INTERN PetscErrorCode MatSpmvUpdate(Mat, Mat_SeqAIJSpmv *, MatSpmvOp, MatSpmvLayout *);
PETSC_INTERN PetscErrorCode MatSpmvApply(Mat, Mat_SeqAIJSpmv *, MatSpmvOp, Vec, Vec, Vec);
/* The steady state of op(A)'s products, one check: a layout whose values were last updated at A's
   object state (PETSc raises it with every change of values or pattern) on A's data (MatHeaderMerge()
   swaps in new data); then MatSpmvApply() alone */
static inline PetscBool MatSpmvLayoutCurrent(Mat A, const Mat_SeqAIJSpmv *sp, MatSpmvOp t)
{
  return (PetscBool)(sp->L[t] && sp->state[t] == ((PetscObject)A)->state && sp->data == A->data);
}

/* check.c: layout invariants of A's and A^T's layouts against the CSR (tests) */
PETSC_INTERN PetscErrorCode MatSpmvCheckLayouts(Mat);
