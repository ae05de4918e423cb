#pragma once
#include "../spmvlayer/spmvformat.h"

/* Threads per thread block of both kernels: IPCSR (Algorithm 3's T, rows per block at most this)
   and CSR-M (the paper's section 5.1 (5): 256 threads per block) */
#define MATIPCSR_THREADS 256
#define MATIPCSR_WARPS   (MATIPCSR_THREADS / 32)

/* Defaults and limits of the options */
#define MATIPCSR_FRAGMENT_DEFAULT 1024 /* CSR-M: nonzeros per thread block (the paper's section 5.2) */
/* ipcsr: bytes of shared memory per thread block. 16 KB is the fastest or near it on every
   generated matrix; the paper's formula (28 KB on the H200) is slower on the irregular ones
   (docs/results.md, "ipcsr") */
#define MATIPCSR_SHARED_DEFAULT 16384
#define MATIPCSR_MAX_FRAGMENT   8192   /* its products sit in shared memory: 128 KB in complex double */
#define MATIPCSR_MAX_SHARED     232448 /* bytes: the largest opt-in shared memory of a block on sm_90 (227 KB) */

/* The automatic shared-memory budget when no GPU is visible: the paper's formula (see
   MatIPCSRSharedFormula()) with the figures of its Tesla C2050, 1536 threads, 48 KB and 8 blocks
   per multiprocessor: 48 KB / min(8, 1536 / 256) = 8 KB, 1024 entries in double precision */
#define MATIPCSR_C2050_THREADS_SM 1536
#define MATIPCSR_C2050_SHARED_SM  49152
#define MATIPCSR_C2050_BLOCKS_SM  8

/* Row blocks (the parallel form of Algorithm 4, see MatIPCSRNewRun()): a row longer than
   own = min(budget / MATIPCSR_OWN_DIV, longest row) entries takes a thread block of its own
   (Algorithm 6), shorter rows are grouped by windows of budget - own + 1 entries of the row offsets */
#define MATIPCSR_OWN_DIV 4

/* The decision tree of the paper's Figure 1: threads per row of a block of nrows rows (nrows >= 2;
   a block of one row reduces it with all its threads, Algorithm 8). More than MATIPCSR_TREE_1 rows:
   one thread per row (Algorithm 3's scalar reduction); more than MATIPCSR_TREE_2: 2 threads; ...;
   at most MATIPCSR_TREE_16: a warp per row. The thresholds keep threads per row x rows within the
   block's 256 threads (to be re-derived on the H200) */
#define MATIPCSR_TREE_1  128
#define MATIPCSR_TREE_2  64
#define MATIPCSR_TREE_4  32
#define MATIPCSR_TREE_8  16
#define MATIPCSR_TREE_16 8

/* CSR-M rows are summed by half-warps (the paper's section 5.1 (1)) */
#define MATIPCSR_CSRM_LANES 16

#define MATIPCSR_PIECE (-1) /* rows of a block descriptor: one piece of a row split over several blocks */

/* Fields are PetscInt so that MatSpmvSetParam_Private() can set each of them */
typedef struct {
  PetscInt kernel;   /* MatIPCSRKernel */
  PetscInt shared;   /* bytes of shared memory per IPCSR thread block for its products; 0: automatic */
  PetscInt fragment; /* CSR-M: nonzeros per thread block */
} MatIPCSRParams;

/* Statistics of the row blocks, for the viewer (host and device builds compute the same) */
typedef struct {
  PetscInt tpr[6];           /* multi-row blocks reduced with 1, 2, 4, 8, 16, 32 threads per row */
  PetscInt single, pieces;   /* blocks of one row (Algorithm 8), blocks of a piece of a split row */
  PetscInt minrows, maxrows; /* rows of the multi-row blocks */
} MatIPCSRBlockStats;

/*
  The layout is the CSR itself: slot s is CSR entry s (identity, no padding). On the device the
  kernels read aijcusparse's row offsets, column indices and values in place (d_ai and d_aj
  borrowed); a host-built layout (A^T, a host base, 64-bit PetscInt) uploads its own copies.

  ipcsr: block b is blocks[4b .. 4b+3] = {first row, rows, first nonzero, end nonzero}; rows is
  MATIPCSR_PIECE for a piece of a row split over several blocks (the rows listed in split[],
  preset to z or 0, the pieces adding atomically).
  csrm: fragment f holds the nonzeros [f F, min((f + 1) F, nnz)) and writes the rows
  bound[2f] .. bound[2f+1] (the paper's Bound); a row in several fragments is combined by a
  second kernel from the fragments' partial sums part[2f] (its first row), part[2f+1] (its last).
*/
typedef struct {
  MatIPCSRKernel kernel;     /* the kernel chosen for this matrix */
  PetscBool      kernelauto; /* chosen from the row lengths */
  PetscReal      mu, sigma;  /* mean and standard deviation of the row lengths */
  PetscInt       maxlen;
  PetscInt       m, nnz;
  PetscInt      *ai, *aj; /* host copies of the CSR pattern (host kernel, upload, layout checks) */
  /* ipcsr */
  PetscInt           shared;    /* bytes of shared memory per block */
  PetscInt           sharedhow; /* 0 set, 1 the formula on this GPU, 2 the formula with the C2050's figures */
  PetscInt           S;         /* entries per block: shared / sizeof(PetscScalar) */
  PetscInt           own;       /* rows longer than this take a block of their own */
  PetscInt           window;    /* shorter rows are grouped by windows of this many entries of the row offsets */
  PetscInt           nblocks;
  PetscInt          *blocks; /* 4 * nblocks */
  PetscInt           nsplit;
  PetscInt          *split;
  MatIPCSRBlockStats bs;
  /* csrm */
  PetscInt     fragment, nfrag;
  PetscInt    *bound;             /* 2 * nfrag */
  PetscInt     nshared, maxfrows; /* rows in several fragments; most rows of one fragment */
  PetscScalar *part;              /* host kernel: 2 * nfrag partial sums */
  /* device */
  const int   *d_ai, *d_aj;
  PetscBool    borrowedij; /* d_ai, d_aj are aijcusparse's: not ours to free */
  int         *d_blocks, *d_split, *d_bound;
  PetscScalar *d_part;
} MatIPCSRLayout;

PETSC_EXTERN PetscErrorCode MatCreate_SeqAIJIPCSR(Mat);
PETSC_EXTERN PetscErrorCode MatCreate_MPIAIJIPCSR(Mat);
/* ipcsrplan.c: the kernel and its sizes (host and device builds) */
PETSC_INTERN PetscErrorCode MatIPCSRSetup(const MatIPCSRParams *, PetscInt, MatIPCSRLayout *);
PETSC_INTERN PetscErrorCode MatSpmvFormatUpload_IPCSR(MatSpmvLayout);
PETSC_INTERN PetscErrorCode MatSpmvFormatBuildDevice_IPCSR(const void *, const MatSpmvCSR *, const int *, const int *, MatSpmvLayout, void *);
PETSC_INTERN const void    *MatSpmvFormatDeviceKernel_IPCSR(void);
PETSC_INTERN PetscErrorCode MatSpmvFormatDownload_IPCSR(MatSpmvLayout);
PETSC_INTERN PetscErrorCode MatSpmvFormatMultDevice_IPCSR(MatSpmvLayout, const PetscScalar *, const PetscScalar *, PetscScalar *, void *);
PETSC_INTERN PetscErrorCode MatIPCSRDeviceShared(PetscInt *);

/* ---- The rules, shared by the host build, the device build and the kernels ---- */
#if defined(__CUDACC__)
  #define MATIPCSR_HD __host__ __device__
#else
  #define MATIPCSR_HD
#endif

/* The paper's shared memory per block for blocks of MATIPCSR_THREADS threads: the multiprocessor's
   shared memory over the blocks it runs at once, min(blocks per SM, threads per SM / threads),
   less what CUDA reserves for each block */
static inline long long MatIPCSRSharedFormula(long long sharedSM, long long threadsSM, long long blocksSM, long long reserved)
{
  long long nb = threadsSM / MATIPCSR_THREADS < blocksSM ? threadsSM / MATIPCSR_THREADS : blocksSM;

  return sharedSM / (nb > 0 ? nb : 1) - reserved;
}

/*
  Row blocks in parallel (Algorithm 4 with Algorithm 6, written as scans). The greedy of the paper
  (add rows while they fit) is sequential; instead each row decides alone, from its row offsets,
  whether it starts a new run of rows:
  - a row longer than `own` entries is a run of its own (Algorithm 6; split into pieces of at most
    `budget` entries, a block each, when longer than the budget), and so starts a run, as does the
    row after it;
  - otherwise a row starts a run when its first nonzero falls in another window of `window`
    entries than the previous row's: key(r) = ai[r] / window (the floor of the prefix sum of the
    row lengths over the window) changes.
  A run is then cut into blocks of at most MATIPCSR_THREADS rows (a block starts at every
  MATIPCSR_THREADS-th row of its run: the run's first row comes from a max-scan of the run
  starts). Why a block fits its budget: its rows all start in one window [k w, (k + 1) w) and none
  is longer than own, so it spans at most w - 1 + own entries; window = budget - own + 1 makes
  that the budget. Blocks thus hold on average about `window` entries where the greedy fills the
  budget up to less than one row: with own = the longest row (all rows at most budget / 4) that is
  nearly the same; on matrices with longer rows own = budget / MATIPCSR_OWN_DIV, windows are 3/4 of
  the budget, and rows of own + 1 to budget entries get a block each where the greedy would group a few.
*/
static inline MATIPCSR_HD int MatIPCSRNewRun(int first, long long aprev, long long a, long long anext, long long own, long long window)
{
  return first || anext - a > own || a - aprev > own || a / window != aprev / window;
}

/* pieces of a row of len entries (len > own): blocks of at most S entries, of equal length +-1 */
static inline MATIPCSR_HD long long MatIPCSRPieces(long long len, long long S)
{
  return len > S ? (len + S - 1) / S : 1;
}

/* first entry (from the row's start) of piece p of np of a row of len entries */
static inline MATIPCSR_HD long long MatIPCSRPieceStart(long long len, long long np, long long p)
{
  return p * (len / np) + (p < len % np ? p : len % np);
}

/* The decision tree: threads per row for a block of nrows >= 2 rows */
static inline MATIPCSR_HD int MatIPCSRThreadsPerRow(int nrows)
{
  return nrows > MATIPCSR_TREE_1 ? 1 : nrows > MATIPCSR_TREE_2 ? 2 : nrows > MATIPCSR_TREE_4 ? 4 : nrows > MATIPCSR_TREE_8 ? 8 : nrows > MATIPCSR_TREE_16 ? 16 : 32;
}

/* CSR-M: fragments of F nonzeros; a matrix with rows and no nonzero has one (empty) fragment, which writes them */
static inline MATIPCSR_HD long long MatIPCSRFragments(long long m, long long nnz, long long F)
{
  return m ? (nnz ? (nnz + F - 1) / F : 1) : 0;
}
