static char help[] = "Layout invariants and every product against MATAIJ, on the shared real matrices and on edge cases.\n"
                     "  -type <brc>       petscspmv type to test\n"
                     "  -dir <path>       folder of Matrix Market files (../shared/matrices)\n"
                     "  -params <k>       test only parameter set k of the format (default: all; the sets: src/mat/impls/<type>/test-params)\n"
                     "  -srcdir <path>    the repository root, where the formats' test-params are (default: found above the program or the working directory)\n";

#include <petscspmv.h>
#include "check.h"
#include "formatfile.h"   /* a format's test-params */
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
#if defined(PETSC_USE_COMPLEX)
      v += PETSC_i * (PetscReal)((PetscInt)(Hash(j, i) % 200) - 100) / 50.0; /* transpose and Hermitian transpose differ */
#endif
      PetscCall(MatSetValues(*A, 1, &i, 1, &j, &v, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A parameter set of the format: a line of its test-params (tests/formatfile.h), and what is expected
   of it: "-> padding-limit r", the format pads every nonempty row to the longest and must refuse
   (PETSC_ERR_SUP) exactly the layouts padded beyond r times their nonzeros (CheckPaddingLimit) */
typedef struct {
  FormatItems items;
  PetscReal   paddinglimit; /* 0: every layout is built */
} ParamSet;

/* The format's parameter sets, from src/mat/impls/<type>/test-params; without that file one set,
   the defaults */
static PetscErrorCode ReadParamSets(const char type[], PetscInt *nsets, ParamSet **sets)
{
  FormatFile f;
  PetscBool  found;

  PetscFunctionBegin;
  PetscCall(FormatFileRead(type, "test-params", &f, &found));
  if (!found) {
    *nsets = 1;
    PetscCall(PetscCalloc1(1, sets));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: one parameter set, the defaults (no %s)\n", type, f.path));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(f.nlines > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s holds no parameter set: write one per line, or remove the file for the default set", f.path);
  *nsets = f.nlines;
  PetscCall(PetscCalloc1(f.nlines, sets));
  for (PetscInt l = 0; l < f.nlines; l++) {
    char  where[PETSC_MAX_PATH_LEN + 16], *items, *expect;
    char *end;

    PetscCall(PetscSNPrintf(where, sizeof(where), "%s:%" PetscInt_FMT, f.path, f.lineno[l]));
    FormatLineSplit(f.line[l], &items, &expect);
    PetscCall(FormatParseItems(where, items, &(*sets)[l].items));
    if (!expect[0]) continue;
    PetscCheck(!strncmp(expect, "padding-limit ", 14), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: expected '-> padding-limit <ratio>' or nothing after the items, not '-> %s'", where, expect);
    (*sets)[l].paddinglimit = (PetscReal)strtod(expect + 14, &end);
    PetscCheck(end != expect + 14 && !*end && (*sets)[l].paddinglimit >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: padding-limit %s must be a ratio of at least 1", where, expect + 14);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " parameter sets from %s\n", type, *nsets, f.path));
  PetscCall(FormatFileDestroy(&f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether a format that pads every nonempty row to the longest must refuse the layout of this
   process's diagonal block (one process: A) under the padding limit maxpad: it is refused when
   (nonempty rows) x (longest row) exceeds maxpad times the nonzeros, or 32-bit slot indices.
   Counted here from Aref's own block. refuse[1] says whether A^T's layout is over the limit too:
   A^T and the off-diagonal block are operators the user did not choose the format for, which the
   layer gives to its fallback format instead of refusing, so their products are checked like any
   other. */
static PetscErrorCode PaddingRefuses(Mat Aref, PetscReal maxpad, PetscBool refuse[2])
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

/* A set with a padding limit (ellr's): the layout check must fail with PETSC_ERR_SUP exactly where
   the padding is over the limit, and then the refused products too; *refused says whether any was,
   so the full product check is skipped */
static PetscErrorCode CheckPaddingLimit(Mat A, Mat Aref, MatType type, PetscReal maxpad, PetscRandom rnd, const char *label, PetscBool *refused)
{
  PetscBool      mine[2], any[2];
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PaddingRefuses(Aref, maxpad, mine));
  PetscCallMPI(MPIU_Allreduce(mine, any, 2, MPI_C_BOOL, MPI_LOR, PETSC_COMM_WORLD));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatSpmvCheckLayout(A);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == (mine[0] ? PETSC_ERR_SUP : PETSC_SUCCESS), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %s layout check returned error %d with padding limit %g, expected %s", label, type, (int)ierr, (double)maxpad, mine[0] ? "a refusal" : "success");
  *refused = any[0];
  if (*refused) {
    PetscCall(CheckProductOrRefusal(A, Aref, PETSC_FALSE, PETSC_TRUE, rnd, label));
    PetscCall(CheckProductOrRefusal(A, Aref, PETSC_TRUE, PETSC_FALSE, rnd, label));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s %s: padding over the limit %.1f refused for A%s\n", type, label, (double)maxpad, any[1] ? ", A^T given to the fallback format" : ""));
  } else if (any[1]) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s %s: A^T over the padding limit %.1f given to the fallback format\n", type, label, (double)maxpad));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestOne(Mat Aref, MatType type, PetscInt nsets, const ParamSet *sets, PetscInt only, PetscRandom rnd, const char *name)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (PetscInt k = 0; k < nsets; k++) {
    Mat       A;
    char      label[PETSC_MAX_PATH_LEN], as[64];
    PetscBool refused = PETSC_FALSE;

    if (only >= 0 && only != k) continue;
    /* MatConvert() under the root name, the aij root name and the concrete name */
    PetscCall(PetscSNPrintf(as, sizeof(as), "%s%s", k % 3 == 0 ? "" : (k % 3 == 1 ? "aij" : (size > 1 ? "mpiaij" : "seqaij")), type));
    PetscCall(MatConvert(Aref, as, MAT_INITIAL_MATRIX, &A));
    PetscCall(FormatItemsApply(&sets[k].items, A, NULL, NULL)); /* ends with MatSetFromOptions(): command-line options override */
    PetscCall(PetscSNPrintf(label, sizeof(label), "%s [params %" PetscInt_FMT "]", name, k));
    if (sets[k].paddinglimit > 0) PetscCall(CheckPaddingLimit(A, Aref, type, sets[k].paddinglimit, rnd, label, &refused));
    if (!refused) {
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
  PetscInt    only = -1, count = 0, nsets;
  ParamSet   *sets;
  PetscRandom rnd;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpmvInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dir", dir, sizeof(dir), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-params", &only, NULL));
  PetscCall(ReadParamSets(type, &nsets, &sets));
  PetscCheck(only < nsets, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-params %" PetscInt_FMT ": %s has %" PetscInt_FMT " parameter sets, 0 to %" PetscInt_FMT, only, type, nsets, nsets - 1);
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));

  for (int e = 0; e < EDGE_COUNT; e++) {
    Mat Aref;

    PetscCall(EdgeMatrix((EdgeCase)e, &Aref));
    PetscCall(TestOne(Aref, type, nsets, sets, only, rnd, EdgeNames[e]));
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
      PetscCall(TestOne(Aref, type, nsets, sets, only, rnd, names[k]));
      PetscCall(MatDestroy(&Aref));
      PetscCall(PetscFree(names[k]));
      count++;
    }
    PetscCall(PetscFree(names));
    PetscCheck(nnames > 0, PETSC_COMM_WORLD, PETSC_ERR_FILE_OPEN, "No .mtx files in %s", dir);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all %" PetscInt_FMT " matrices passed for %s\n", count, type));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFree(sets));
  PetscCall(PetscFinalize());
  return 0;
}
