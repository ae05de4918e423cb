static char help[] = "Layout invariants and every product against MATAIJ, on the shared real matrices and on edge cases.\n"
                     "  -type <brc>       petscspmv type to test\n"
                     "  -dir <path>       folder of Matrix Market files (../shared/matrices)\n"
                     "  -params <k>       test only parameter set k of the format (default: all)\n";

#include <petscspmv.h>
#include "check.h"
#include "matrixmarket.h" /* util/: MatLoadMatrixMarket(), Hash() */
#include <dirent.h>

static int CompareNames(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef enum {
  EDGE_EMPTY_0x0,
  EDGE_ROWS_NO_COLS,
  EDGE_COLS_NO_ROWS,
  EDGE_EMPTY_ROWS,
  EDGE_LONG_ROW,
  EDGE_TALL,
  EDGE_WIDE,
  EDGE_POWERLAW,
  EDGE_ALL_ZERO_PATTERN,
  EDGE_ARGCSR_PAPER,
  EDGE_ARGCSR_PAPER_BIG,
  EDGE_ARGCSR_SPLIT,
  EDGE_IPCSR_THRESHOLDS,
  EDGE_ELLR_AT_LIMIT,
  EDGE_ELLR_LENGTHS,
  EDGE_WIDE_SPAN,
  EDGE_HOT_COLUMNS,
  EDGE_COUNT
} EdgeCase;
static const char *EdgeNames[] = {"0x0", "40x0", "0x40", "empty-rows", "one-long-row", "tall-300x50", "wide-50x300", "power-law", "no-entries", "argcsr-paper-12x8", "argcsr-paper-5000x4000", "argcsr-split-rows", "ipcsr-thresholds", "ellr-padding-at-limit", "ellr-row-lengths-0-69", "wide-span-128x140000", "hot-columns-3000x300000"};

/* EDGE_ELLR_AT_LIMIT: 30 rows padded to the longest (9) store exactly 3 slots per nonzero, ELLR's
   default limit (on one process): the row of 9, 23 rows of 3 and 6 of 2 */
static PetscInt AtLimitRowLength(PetscInt i)
{
  return i == 11 ? 9 : (i % 5 == 0 ? 2 : 3);
}

/* EDGE_ARGCSR_SPLIT: long rows, several of them adjacent, at the first and last rows and around
   the split thresholds chunk * block of the argcsr parameter sets and their doubles (32, 33, 64,
   65, 160, 161, 256, 257, 288, 289, 576, 577), among short rows and empty rows */
static PetscInt SplitRowLength(PetscInt i, PetscInt m)
{
  static const PetscInt run[] = {500, 650, 333, 0, 32, 33, 64, 65, 160, 161, 256, 257, 288, 289, 576, 577, 599};

  if (i == 0 || i == m - 1) return m;
  if (i >= 1 && i <= (PetscInt)PETSC_STATIC_ARRAY_LENGTH(run)) return run[i - 1];
  if (i >= 300 && i < 304) return 400 + 50 * (i - 300);
  return i % 5 == 0 ? 0 : 1 + Hash(i, 5) % 6;
}

/* EDGE_IPCSR_THRESHOLDS: a run of 300 one-entry rows and one of 300 empty rows (more than the 256
   rows of an IPCSR block), then rows at and around the thresholds of the ipcsr parameter sets
   (budgets S of 1, 2, 7, 33, 100, 1000 entries and the automatic 512, 1024, 2048; a row longer
   than S / 4 takes a block of its own, one longer than S is split), three short rows between
   them, and a full last row (which keeps the own-block length at S / 4, not the longest row) */
static PetscInt ThresholdRowLength(PetscInt i, PetscInt m, PetscInt n)
{
  static const PetscInt run[] = {0, 1, 2, 3, 6, 7, 8, 9, 24, 25, 26, 32, 33, 34, 99, 100, 101, 127, 128, 129, 249, 250, 251, 255, 256, 257, 511, 512, 513, 999, 1000, 1001, 1023, 1024, 1025, 2047, 2048, 2049};

  if (i == m - 1) return n;
  if (i < 300) return 1;
  if (i < 600) return 0;
  if ((i - 600) % 4 == 0 && (i - 600) / 4 < (PetscInt)PETSC_STATIC_ARRAY_LENGTH(run)) return run[(i - 600) / 4];
  return 2 + Hash(i, 7) % 3;
}

static PetscErrorCode EdgeMatrix(EdgeCase e, Mat *A)
{
  PetscInt m = 0, n = 0, rstart, rend;

  PetscFunctionBegin;
  switch (e) {
  case EDGE_EMPTY_0x0:
    break;
  case EDGE_ROWS_NO_COLS:
    m = 40;
    break;
  case EDGE_COLS_NO_ROWS:
    n = 40;
    break;
  case EDGE_EMPTY_ROWS:
  case EDGE_ALL_ZERO_PATTERN:
    m = n = 200;
    break;
  case EDGE_LONG_ROW:
    m = n = 1000;
    break;
  case EDGE_TALL:
    m = 300, n = 50;
    break;
  case EDGE_WIDE:
    m = 50, n = 300;
    break;
  case EDGE_POWERLAW:
    m = n = 3000;
    break;
  case EDGE_ARGCSR_PAPER: /* the ARGCSR paper's example: one nonzero per row, the last row full */
    m = 12, n = 8;
    break;
  case EDGE_ARGCSR_PAPER_BIG:
    m = 5000, n = 4000;
    break;
  case EDGE_ARGCSR_SPLIT:
    m = n = 700;
    break;
  case EDGE_IPCSR_THRESHOLDS:
    m = 900, n = 2101; /* prime to 3: columns (i + 3 k) % n differ for k < n */
    break;
  case EDGE_ELLR_AT_LIMIT:
    m = n = 30;
    break;
  case EDGE_ELLR_LENGTHS:
    m = n = 280;
    break;
  case EDGE_WIDE_SPAN: /* rows of 13 entries (brc compresses from 12), the first 96 within 13 columns,
                         the last 32 reaching 70000 columns further: brc blocks with 16-bit column
                         offsets beside a quarter of the slots that keep 32-bit ones (the most it
                         allows), or all 32-bit with one block of 128 rows */
    m = 128, n = 140000;
    break;
  case EDGE_HOT_COLUMNS: /* enough columns for the automatic frequency order, which it takes: each
                           row's first entry in one of 7 columns (over 255 entries each, past the
                           device count's shared bins), the others spread */
    m = 3000, n = 300000;
    break;
  default:
    break;
  }
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, m, n));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSetUp(*A));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt len = 0;

    switch (e) {
    case EDGE_EMPTY_ROWS:
      len = i % 3 ? 0 : 1 + i % 7;
      break;
    case EDGE_LONG_ROW:
      len = i == 17 ? n : 2;
      break;
    case EDGE_TALL:
    case EDGE_WIDE:
      len = 1 + Hash(i, 1) % PetscMin(n, 12);
      break;
    case EDGE_POWERLAW: /* lengths ~ 1 / u^2: many short rows, a few up to n */
      len = PetscMin(n, (PetscInt)(1.0 / PetscSqr(0.02 + (Hash(i, 2) % 1000) / 1000.0)));
      break;
    case EDGE_ARGCSR_PAPER:
    case EDGE_ARGCSR_PAPER_BIG:
      len = i == m - 1 ? n : 1;
      break;
    case EDGE_ARGCSR_SPLIT:
      len = SplitRowLength(i, m);
      break;
    case EDGE_IPCSR_THRESHOLDS:
      len = ThresholdRowLength(i, m, n);
      break;
    case EDGE_ELLR_AT_LIMIT:
      len = AtLimitRowLength(i);
      break;
    case EDGE_ELLR_LENGTHS: /* every length 0 to 69 (every remainder modulo each T), in mixed order */
      len = (i * 37) % 70;
      break;
    case EDGE_WIDE_SPAN:
      len = 13;
      break;
    case EDGE_HOT_COLUMNS:
      len = 1 + Hash(i, 4) % 6;
      break;
    default:
      len = 0;
    }
    for (PetscInt k = 0; k < len; k++) {
      PetscInt    j = e == EDGE_HOT_COLUMNS && k == 0                                                                           ? 1000 * (i % 7)
                    : e == EDGE_WIDE_SPAN                                                                                       ? (k < 12 || i < 96 ? i + k : 70000 + i)
                    : (e == EDGE_LONG_ROW && i == 17) || ((e == EDGE_ARGCSR_PAPER || e == EDGE_ARGCSR_PAPER_BIG) && i == m - 1) ? k
                                                                                                                                : (e == EDGE_ARGCSR_SPLIT || e == EDGE_IPCSR_THRESHOLDS || e == EDGE_ELLR_AT_LIMIT || e == EDGE_ELLR_LENGTHS ? (i + 3 * k) % n : (k == 0 && i < n ? i : Hash(i, k + 3) % n));
      PetscScalar v = 1.0 + (PetscReal)(Hash(i, j) % 1000) / 100.0;
      PetscCall(MatSetValues(*A, 1, &i, 1, &j, &v, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Format parameter sets that stress the layout: defaults, extremes, coarsening */
static PetscErrorCode SetParams(Mat A, MatType type, PetscInt k, PetscBool *exists, PetscReal *ellrlimit)
{
  PetscBool brc, cmrs;
  PetscBool argcsr, ipcsr, ellr;

  PetscFunctionBegin;
  *exists = PETSC_FALSE;
  PetscCall(PetscStrcmp(type, MATIPCSR, &ipcsr));
  PetscCall(PetscStrcmp(type, MATELLR, &ellr));
  PetscCall(PetscStrcmp(type, MATBRC, &brc));
  PetscCall(PetscStrcmp(type, MATCMRS, &cmrs));
  PetscCall(PetscStrcmp(type, MATARGCSR, &argcsr));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_cmrs_pack"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_cmrs_lanes"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_cmrs_modulo"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_ipcsr_kernel"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_ipcsr_fragment"));
  if (ipcsr) {
    /* kernel 0 ipcsr, 1 csrm, 2 automatic. ipcsr: budgets in matrix entries (-1: the default
       16 KB, 0: the paper's formula); 1 and 2 entries split every longer row into pieces of one or two entries, 7 to 1000
       put the ipcsr-thresholds rows on both sides of "a block of its own" (S / 4) and "split"
       (S); 14000 entries need more than 48 KB of shared memory in double and complex (the opt-in
       path on a GPU). csrm: fragments of 1 to 8192 nonzeros, fragment ends at row ends, inside
       rows, and rows spanning many fragments. The last sets take their values from the options. */
    const PetscInt    kernel[]  = {2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2};
    const PetscInt    shared[]  = {-1, 0, 1, 2, 7, 33, 100, 1000, 14000, 0, 0, 0, 0, 0, 0, 5, 0};
    const PetscInt    frag[]    = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 7, 32, 1024, 8192, 3, 0};
    const char *const okernel[] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "csrm"};
    const char *const ofrag[]   = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "50"};
    if (k >= (PetscInt)PETSC_STATIC_ARRAY_LENGTH(kernel)) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(MatIPCSRSetKernel(A, (MatIPCSRKernel)kernel[k]));
    if (shared[k] >= 0) PetscCall(MatIPCSRSetSharedSize(A, shared[k] * (PetscInt)sizeof(PetscScalar)));
    if (frag[k]) PetscCall(MatIPCSRSetFragmentSize(A, frag[k]));
    /* read by MatSetFromOptions() below */
    if (okernel[k]) PetscCall(PetscOptionsSetValue(NULL, "-mat_ipcsr_kernel", okernel[k]));
    if (ofrag[k]) PetscCall(PetscOptionsSetValue(NULL, "-mat_ipcsr_fragment", ofrag[k]));
    *exists = PETSC_TRUE;
  } else if (ellr) {
    /* every T (0: automatic) and block sizes from one warp to 1024 threads. Limit 0: the default,
       3 slots per nonzero, which many of the matrices exceed (their builds must be refused); 64
       lets all but the most irregular through; 400 also the one-long-row case (333) and rajat01
       (228), never the arrow matrix (15500). The set with 0 block goes through the options. */
    const PetscInt  T[]     = {0, 1, 2, 4, 8, 16, 32, 4, 32, 1, 0};
    const PetscInt  block[] = {0, 32, 64, 128, 256, 1024, 96, 0, 32, 1024, 0};
    const PetscReal limit[] = {0, 64, 64, 64, 64, 64, 64, 16, 400, 400, 64};
    PetscCall(PetscOptionsClearValue(NULL, "-mat_ellr_t"));
    PetscCall(PetscOptionsClearValue(NULL, "-mat_ellr_block"));
    PetscCall(PetscOptionsClearValue(NULL, "-mat_ellr_max_padding"));
    if (k >= (PetscInt)PETSC_STATIC_ARRAY_LENGTH(T)) PetscFunctionReturn(PETSC_SUCCESS);
    *ellrlimit = limit[k] > 0 ? limit[k] : 3.0;
    if (block[k]) {
      PetscCall(MatELLRSetThreadsPerRow(A, T[k]));
      PetscCall(MatELLRSetBlockSize(A, block[k]));
      if (limit[k] > 0) PetscCall(MatELLRSetMaxPadding(A, limit[k]));
    } else if (k) { /* read by MatSetFromOptions() below */
      char buf[32];

      PetscCall(PetscSNPrintf(buf, sizeof(buf), "%" PetscInt_FMT, T[k]));
      PetscCall(PetscOptionsSetValue(NULL, "-mat_ellr_t", buf));
      PetscCall(PetscOptionsSetValue(NULL, "-mat_ellr_block", "160"));
      PetscCall(PetscSNPrintf(buf, sizeof(buf), "%g", (double)limit[k]));
      PetscCall(PetscOptionsSetValue(NULL, "-mat_ellr_max_padding", buf));
    }
    *exists = PETSC_TRUE;
  } else if (argcsr) {
    /* chunk 0: automatic; block 0: 128 through -mat_argcsr_block (read by MatSetFromOptions() below).
       Rows longer than chunk * block are split into pieces: chunk 1 with block 32 splits rows of
       more than 32 entries into many pieces of one entry per thread, chunk 2 and 5 give pieces of
       several entries per thread (5: more than one batch of loads on the device); the last set,
       a huge chunk, splits nothing and groups up to block rows */
    const PetscInt chunk[] = {0, 1, 32, 0, 1, 3, 32, 2, 5, 1000000000}, block[] = {256, 32, 64, 1024, 1024, 96, 0, 32, 32, 64};
    PetscCall(PetscOptionsClearValue(NULL, "-mat_argcsr_block"));
    if (k >= (PetscInt)PETSC_STATIC_ARRAY_LENGTH(chunk)) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(MatARGCSRSetChunkSize(A, chunk[k]));
    if (block[k]) PetscCall(MatARGCSRSetBlockSize(A, block[k]));
    else PetscCall(PetscOptionsSetValue(NULL, "-mat_argcsr_block", "128"));
    *exists = PETSC_TRUE;
  } else if (brc) {
    /* the last set: 32-bit column indices on the GPU (the others compress where the spans allow);
       the one before: one offset per slot, no column runs */
    const PetscInt  b1[] = {32, 1, 8, 256, 32, 16, 32, 32, 32}, b2[] = {0, 1, 3, 0, 7, 0, 0, 0, 0}, rep[] = {0, 1, 3, 2, 1, 5, 1, 1, 1}, window[] = {0, 0, 7, 100, 64, 1000, -1, -1, 0};
    const PetscBool compress[] = {1, 1, 1, 1, 1, 1, 1, 1, 0}, runs[] = {1, 1, 1, 1, 1, 1, 1, 0, 1};
    if (k >= (PetscInt)PETSC_STATIC_ARRAY_LENGTH(b1)) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(MatBRCSetCompress(A, compress[k]));
    PetscCall(MatBRCSetColumnRuns(A, runs[k]));
    PetscCall(MatBRCSetBlockHeight(A, b1[k]));
    PetscCall(MatBRCSetBlockWidth(A, b2[k]));
    PetscCall(MatBRCSetCoarsening(A, rep[k]));
    PetscCall(MatBRCSetSortWindow(A, window[k]));
    *exists = PETSC_TRUE;
  } else if (cmrs) {
    /* height 0: the kernel's default; kernel 1: modified; modulo and lanes 0: automatic */
    const PetscInt    height[] = {4, 1, 3, 16, 8, 13, 2, 0, 0, 16, 4, 5, 1, 7};
    const PetscInt    kernel[] = {0, 0, 0, 2, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2}; /* 2: automatic */
    const PetscBool   sort[]   = {0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1};
    const PetscBool   pack[]   = {1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 1, 1};
    const char *const lanes[]  = {NULL, "4", "32", NULL, "8", "16", "4", NULL, NULL, NULL, NULL, NULL, NULL, "8"};
    const char *const modulo[] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "2", "8", "32", "32", NULL};
    if (k >= (PetscInt)PETSC_STATIC_ARRAY_LENGTH(height)) PetscFunctionReturn(PETSC_SUCCESS);
    if (height[k]) PetscCall(MatCMRSSetHeight(A, height[k]));
    PetscCall(MatCMRSSetKernel(A, (MatCMRSKernel)kernel[k]));
    PetscCall(MatCMRSSetSort(A, sort[k]));
    /* read by MatSetFromOptions() below */
    if (!pack[k]) PetscCall(PetscOptionsSetValue(NULL, "-mat_cmrs_pack", "0")); /* the unpacked variant */
    if (lanes[k]) PetscCall(PetscOptionsSetValue(NULL, "-mat_cmrs_lanes", lanes[k]));
    if (modulo[k]) PetscCall(PetscOptionsSetValue(NULL, "-mat_cmrs_modulo", modulo[k]));
    *exists = PETSC_TRUE;
  } else *exists = k == 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether ELLR must refuse the layout of this process's diagonal block (one process: A) under the
   padding limit maxpad: a layout pads its nonempty rows to the longest, and is refused when that
   exceeds maxpad times the nonzeros, or 32-bit slot indices. Counted here from Aref's own block.
   refuse[1] says whether A^T's layout is over the limit too: A^T and the off-diagonal block are
   operators the user did not choose ELLR for, which ELLR gives to ipcsr instead of refusing, so
   their products are checked like any other. */
static PetscErrorCode ELLRRefuses(Mat Aref, PetscReal maxpad, PetscBool refuse[2])
{
  Mat             blk = Aref;
  PetscMPIInt     size;
  const PetscInt *ai, *aj;
  PetscInt        m, n, mm, nnz, *cnt, len[2] = {0, 0}, nonempty[2] = {0, 0};
  PetscBool       done;

  PetscFunctionBegin;
  refuse[0] = refuse[1] = PETSC_FALSE;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)Aref), &size));
  if (size > 1) PetscCall(MatMPIAIJGetSeqAIJ(Aref, &blk, NULL, NULL));
  PetscCall(MatGetSize(blk, &m, &n));
  PetscCall(MatGetRowIJ(blk, 0, PETSC_FALSE, PETSC_FALSE, &mm, &ai, &aj, &done));
  nnz = m ? ai[m] : 0;
  PetscCall(PetscCalloc1(n + 1, &cnt));
  for (PetscInt r = 0; r < m; r++) {
    len[0] = PetscMax(len[0], ai[r + 1] - ai[r]);
    nonempty[0] += ai[r + 1] > ai[r];
    for (PetscInt k = ai[r]; k < ai[r + 1]; k++) cnt[aj[k]]++;
  }
  for (PetscInt c = 0; c < n; c++) {
    len[1] = PetscMax(len[1], cnt[c]);
    nonempty[1] += cnt[c] > 0;
  }
  for (int t = 0; t < 2; t++) {
    const double padded = (double)nonempty[t] * len[t];

    if (padded > (double)maxpad * nnz || padded > PETSC_INT32_MAX) refuse[t] = PETSC_TRUE;
  }
  PetscCall(PetscFree(cnt));
  PetscCall(MatRestoreRowIJ(blk, 0, PETSC_FALSE, PETSC_FALSE, &mm, &ai, &aj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = op(A) x against MATAIJ, or, when op(A)'s layout is refused on some process, PETSC_ERR_SUP
   on every process (a refusal must stop the MPI product everywhere, before its scatter) */
static PetscErrorCode CheckProductOrRefusal(Mat A, Mat Aref, PetscBool transpose, PetscBool refused, PetscRandom rnd, const char *name)
{
  Vec            x, y, yref;
  Mat            Aabs;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  if (transpose) PetscCall(MatCreateVecs(Aref, &y, &x));
  else PetscCall(MatCreateVecs(Aref, &x, &y));
  PetscCall(VecDuplicate(y, &yref));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = transpose ? MatMultTranspose(A, x, y) : MatMult(A, x, y);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == (refused ? PETSC_ERR_SUP : PETSC_SUCCESS), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %s returned error %d, expected %d", name, transpose ? "MatMultTranspose" : "MatMult", (int)ierr, refused ? (int)PETSC_ERR_SUP : 0);
  if (!refused) {
    PetscCall(AbsoluteMatrix(Aref, &Aabs));
    if (transpose) PetscCall(MatMultTranspose(Aref, x, yref));
    else PetscCall(MatMult(Aref, x, yref));
    PetscCall(CheckClose(Aabs, transpose, x, NULL, y, yref, transpose ? "MatMultTranspose" : "MatMult", name));
    PetscCall(MatDestroy(&Aabs));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ELLR: the layout check must fail with PETSC_ERR_SUP exactly where the padding is over the limit,
   and then the refused products too; *refused says whether any was, so the full product check is skipped */
static PetscErrorCode CheckELLRLimit(Mat A, Mat Aref, PetscReal maxpad, PetscRandom rnd, const char *label, PetscBool *refused)
{
  PetscBool      mine[2], any[2];
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(ELLRRefuses(Aref, maxpad, mine));
  PetscCallMPI(MPIU_Allreduce(mine, any, 2, MPI_C_BOOL, MPI_LOR, PETSC_COMM_WORLD));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatSpmvCheckLayout(A);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == (mine[0] ? PETSC_ERR_SUP : PETSC_SUCCESS), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: ELLR layout check returned error %d with padding limit %g, expected %s", label, (int)ierr, (double)maxpad, mine[0] ? "a refusal" : "success");
  *refused = any[0];
  if (*refused) {
    PetscCall(CheckProductOrRefusal(A, Aref, PETSC_FALSE, PETSC_TRUE, rnd, label));
    PetscCall(CheckProductOrRefusal(A, Aref, PETSC_TRUE, PETSC_FALSE, rnd, label));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok ellr %s: padding over the limit %.1f refused for A%s\n", label, (double)maxpad, any[1] ? ", A^T given to ipcsr" : ""));
  } else if (any[1]) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok ellr %s: A^T over the padding limit %.1f given to ipcsr\n", label, (double)maxpad));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestOne(Mat Aref, MatType type, PetscInt only, PetscRandom rnd, const char *name)
{
  PetscFunctionBegin;
  for (PetscInt k = 0;; k++) {
    Mat       A;
    PetscBool exists;
    char      label[PETSC_MAX_PATH_LEN];

    char        as[64];
    PetscMPIInt size;
    PetscReal   ellrlimit = 0;

    /* MatConvert() under the root name, the aij root name and the concrete name */
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    PetscCall(PetscSNPrintf(as, sizeof(as), "%s%s", k % 3 == 0 ? "" : (k % 3 == 1 ? "aij" : (size > 1 ? "mpiaij" : "seqaij")), type));
    PetscCall(MatConvert(Aref, as, MAT_INITIAL_MATRIX, &A));
    PetscCall(SetParams(A, type, k, &exists, &ellrlimit));
    if (!exists) {
      PetscCall(MatDestroy(&A));
      break;
    }
    if (only < 0 || only == k) {
      PetscBool isellr, refused = PETSC_FALSE;

      PetscCall(MatSetFromOptions(A)); /* command-line options override */
      PetscCall(PetscSNPrintf(label, sizeof(label), "%s [params %" PetscInt_FMT "]", name, k));
      PetscCall(PetscStrcmp(type, MATELLR, &isellr));
      if (isellr) PetscCall(CheckELLRLimit(A, Aref, ellrlimit, rnd, label, &refused));
      if (refused) {
        PetscCall(MatDestroy(&A));
        continue;
      }
      PetscCall(MatSpmvCheckLayout(A));
      PetscCall(CheckProducts(A, Aref, rnd, label));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s %s\n", type, label));
    }
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        type[64] = MATBRC, dir[PETSC_MAX_PATH_LEN] = "../shared/matrices";
  PetscInt    only = -1, count = 0;
  PetscRandom rnd;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpmvInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dir", dir, sizeof(dir), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-params", &only, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));

  for (int e = 0; e < EDGE_COUNT; e++) {
    Mat Aref;

    PetscCall(EdgeMatrix((EdgeCase)e, &Aref));
    PetscCall(TestOne(Aref, type, only, rnd, EdgeNames[e]));
    PetscCall(MatDestroy(&Aref));
    count++;
  }
  {
    DIR           *d = opendir(dir);
    struct dirent *ent;
    char         **names  = NULL;
    int            nnames = 0;

    PetscCheck(d, PETSC_COMM_WORLD, PETSC_ERR_FILE_OPEN, "Cannot open %s: give the matrices folder with -dir", dir);
    while ((ent = readdir(d))) {
      size_t len = strlen(ent->d_name);
      if (len > 4 && !strcmp(ent->d_name + len - 4, ".mtx")) {
        PetscCall(PetscRealloc(sizeof(char *) * (nnames + 1), &names));
        PetscCall(PetscStrallocpy(ent->d_name, &names[nnames++]));
      }
    }
    closedir(d);
    qsort(names, nnames, sizeof(char *), CompareNames); /* same order on every rank */
    for (int k = 0; k < nnames; k++) {
      Mat  Aref;
      char path[PETSC_MAX_PATH_LEN];

      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", dir, names[k]));
      PetscCall(MatLoadMatrixMarket(PETSC_COMM_WORLD, path, MATAIJ, &Aref));
      PetscCall(TestOne(Aref, type, only, rnd, names[k]));
      PetscCall(MatDestroy(&Aref));
      PetscCall(PetscFree(names[k]));
      count++;
    }
    PetscCall(PetscFree(names));
    PetscCheck(nnames > 0, PETSC_COMM_WORLD, PETSC_ERR_FILE_OPEN, "No .mtx files in %s", dir);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all %" PetscInt_FMT " matrices passed for %s\n", count, type));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}
