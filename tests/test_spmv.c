static char help[] = "MATSPMV: the format of each operator is chosen from its row lengths, the same way every time,\n"
                     "again when the nonzero pattern changes, among -mat_spmv_formats only; products match MATAIJ's.\n";

#include <petscspmv.h>
#include <unistd.h>
#include "check.h"

/* n x n tridiagonal plus, when longevery > 0, entries spread over the columns in every
   longevery-th row: longlen in one of ten such rows, 2 in the others (irregular rows: their
   std. dev. exceeds the mean). The spread entries lie in the other half of the columns: on two
   processes they are the off-diagonal block (irregular) and the diagonal blocks stay tridiagonal. */
static PetscErrorCode Build(MatType type, PetscInt n, PetscInt longevery, PetscInt longlen, Mat *A)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, longevery ? longlen + 3 : 3, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, longevery ? longlen + 3 : 3, NULL, longevery ? longlen + 3 : 2, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt    c[3] = {i - 1, i, i + 1};
    PetscScalar v[3] = {-1.0, 2.5 + i % 4, -1.1};

    PetscCall(MatSetValues(*A, 1, &i, 3 - (i == 0) - (i == n - 1), i ? c : c + 1, i ? v : v + 1, ADD_VALUES));
    if (longevery && i % longevery == 0)
      for (PetscInt k = 0, len = (i / longevery) % 10 ? 2 : longlen; k < len; k++) {
        PetscInt    col = (i < n / 2 ? n / 2 : 0) + (i + k * (n / 2 / len)) % (n / 2); /* in the other half */
        PetscScalar val = 0.5 + (k % 5) * 0.125;

        PetscCall(MatSetValues(*A, 1, &i, 1, &col, &val, ADD_VALUES));
      }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The sequential matrix S's -mat_view ::ascii_info in a temporary file, open for reading */
static PetscErrorCode ViewInfoOpen(Mat S, char *fname, size_t flen, FILE **fp)
{
  PetscViewer v;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(fname, flen, "/tmp/test_spmv-%d.txt", (int)getpid()));
  PetscCall(PetscViewerASCIIOpen(PETSC_COMM_SELF, fname, &v));
  PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(S, v));
  PetscCall(PetscViewerPopFormat(v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(PetscFOpen(PETSC_COMM_SELF, fname, "r", fp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ViewInfoClose(const char *fname, FILE **fp)
{
  PetscFunctionBegin;
  PetscCall(PetscFClose(PETSC_COMM_SELF, *fp));
  (void)unlink(fname);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The format named by the "format <name>: <why>" line of S's -mat_view ::ascii_info (the layout
   of A; the reason goes to -info and, when why is not NULL, to why) */
static PetscErrorCode Chosen(Mat S, char *formats, size_t len, char *why, size_t wlen)
{
  char  fname[PETSC_MAX_PATH_LEN], line[512];
  FILE *fp;

  PetscFunctionBegin;
  formats[0] = 0;
  PetscCall(ViewInfoOpen(S, fname, sizeof(fname), &fp));
  while (fgets(line, sizeof(line), fp)) {
    char *f = strstr(line, "format "), *colon = f ? strchr(f, ':') : NULL;

    if (!f || !colon || colon - f > 16) continue;
    *colon = 0;
    if (formats[0]) PetscCall(PetscStrlcat(formats, " ", len));
    PetscCall(PetscStrlcat(formats, f + 7, len));
    PetscCall(PetscInfo(S, "%s: %s", f + 7, colon + 1));
    if (why) PetscCall(PetscStrncpy(why, colon + 1, wlen));
  }
  PetscCall(ViewInfoClose(fname, &fp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A's choice on this process's diagonal block (the matrix itself on one process) or its off-diagonal block */
static PetscErrorCode ChosenBlock(Mat A, PetscBool offdiag, char *formats, size_t len, char *why, size_t wlen)
{
  PetscMPIInt size;
  Mat         Ad, Ao;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size == 1) PetscCall(Chosen(A, formats, len, why, wlen));
  else {
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
    PetscCall(Chosen(offdiag ? Ao : Ad, formats, len, why, wlen));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Expect(Mat A, PetscBool offdiag, const char *expected, const char *what)
{
  char      got[256];
  PetscBool same;

  PetscFunctionBegin;
  PetscCall(ChosenBlock(A, offdiag, got, sizeof(got), NULL, 0));
  PetscCall(PetscStrcmp(got, expected, &same));
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: spmv chose \"%s\", expected \"%s\"", what, got, expected);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s: %s\n", what, got));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n x n: the diagonal, one to three entries in 100 hot columns per row, and every 1000th row 2000
   entries spread over all columns (irregular rows; the hot columns hold about 60% of the nonzeros) */
static PetscErrorCode BuildHot(PetscInt n, Mat *A)
{
  PetscInt *nnz;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, &nnz));
  for (PetscInt i = 0; i < n; i++) nnz[i] = 1 + (i % 3 + 1) + (i % 1000 ? 0 : 2000);
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 0, nnz, A));
  PetscCall(PetscFree(nnz));
  for (PetscInt i = 0; i < n; i++) {
    PetscScalar d = 4.0 + i % 3;

    PetscCall(MatSetValue(*A, i, i, d, ADD_VALUES));
    for (PetscInt k = 0; k <= i % 3; k++) PetscCall(MatSetValue(*A, i, ((i + 37 * k) % 100) * (n / 100), -0.5 - 0.25 * k, ADD_VALUES));
    if (i % 1000 == 0)
      for (PetscInt k = 0; k < 2000; k++) PetscCall(MatSetValue(*A, i, (i + 149 * k + 1) % n, 0.125, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether -mat_view ::ascii_info of the sequential matrix S contains text */
static PetscErrorCode ViewContains(Mat S, const char *text, PetscBool *has)
{
  char  fname[PETSC_MAX_PATH_LEN], line[512];
  FILE *fp;

  PetscFunctionBegin;
  *has = PETSC_FALSE;
  PetscCall(ViewInfoOpen(S, fname, sizeof(fname), &fp));
  while (fgets(line, sizeof(line), fp))
    if (strstr(line, text)) *has = PETSC_TRUE;
  PetscCall(ViewInfoClose(fname, &fp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The reason printed for the choice on A's diagonal block contains text */
static PetscErrorCode ExpectWhy(Mat A, const char *text, const char *what)
{
  char got[256], why[512];

  PetscFunctionBegin;
  PetscCall(ChosenBlock(A, PETSC_FALSE, got, sizeof(got), why, sizeof(why)));
  PetscCheck(strstr(why, text), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the reason for %s is \"%s\", without \"%s\"", what, got, why, text);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s: the reason says \"%s\"\n", what, text));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat            A, A2, B, Aref;
  PetscRandom    rnd;
  PetscMPIInt    size;
  PetscInt       n = 2000, ns, nsb;
  PetscLogDouble bytes, bytesb;
  char           a[256], b[256];
  PetscBool      same, spread;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpmvInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  spread = (PetscBool)(size > 1); /* the irregular rows' spread entries: in the off-diagonal block on several processes */
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));

  /* regular rows: brc; A^T (built by the transpose products) is regular too */
  PetscCall(Build(MATAIJ, n, 0, 0, &Aref));
  PetscCall(MatConvert(Aref, MATSPMV, MAT_INITIAL_MATRIX, &A));
  PetscCall(CheckProducts(A, Aref, rnd, "spmv, regular rows"));
  PetscCall(Expect(A, PETSC_FALSE, "brc", "regular rows"));

  /* the same matrix again: the same choice and the same layout */
  PetscCall(MatConvert(Aref, MATSPMV, MAT_INITIAL_MATRIX, &B));
  PetscCall(CheckProducts(B, Aref, rnd, "spmv, regular rows, second matrix"));
  PetscCall(ChosenBlock(A, PETSC_FALSE, a, sizeof(a), NULL, 0));
  PetscCall(ChosenBlock(B, PETSC_FALSE, b, sizeof(b), NULL, 0));
  PetscCall(MatSpmvGetStorage(A, &ns, &bytes));
  PetscCall(MatSpmvGetStorage(B, &nsb, &bytesb));
  PetscCall(PetscStrcmp(a, b, &same));
  PetscCheck(same && ns == nsb && bytes == bytesb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Two conversions of one matrix chose differently: %s (%" PetscInt_FMT " slots) and %s (%" PetscInt_FMT " slots)", a, ns, b, nsb);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok the same matrix gets the same choice and layout\n"));
  PetscCall(MatDestroy(&B));

  /* the pattern changes: long rows make it irregular, the choice follows and the products stay right */
  PetscCall(MatDestroy(&Aref));
  PetscCall(Build(MATAIJ, n, 50, 400, &Aref));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatCopy(Aref, A, DIFFERENT_NONZERO_PATTERN));
  PetscCall(CheckProducts(A, Aref, rnd, "spmv after the pattern became irregular"));
  PetscCall(Expect(A, spread, "ipcsr", "irregular rows after a pattern change"));

  /* a value change keeps the choice */
  PetscCall(MatScale(A, 2.0));
  PetscCall(MatScale(Aref, 2.0));
  PetscCall(CheckProducts(A, Aref, rnd, "spmv after MatScale"));
  PetscCall(Expect(A, spread, "ipcsr", "irregular rows after MatScale"));

  /* candidates limited by -mat_spmv_formats: the first of the rule's list among them */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_spmv_formats", "cmrs,brc"));
  PetscCall(MatSetFromOptions(A));
  PetscCall(CheckProducts(A, Aref, rnd, "spmv among cmrs and brc"));
  PetscCall(Expect(A, spread, "brc", "irregular rows among cmrs,brc"));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_spmv_formats", "cmrs"));
  PetscCall(MatSetFromOptions(A));
  PetscCall(CheckProducts(A, Aref, rnd, "spmv among cmrs"));
  PetscCall(Expect(A, spread, "cmrs", "irregular rows among cmrs"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_spmv_formats"));

  /* a candidate's setter reaches its parameters inside spmv */
  PetscCall(MatDestroy(&A));
  PetscCall(Build(MATAIJ, n, 0, 0, &B));
  PetscCall(MatConvert(B, MATSPMV, MAT_INITIAL_MATRIX, &A));
  PetscCall(MatSetFromOptions(A)); /* -mat_spmv_backend: the setter below marks the options as read */
  PetscCall(MatBRCSetBlockHeight(A, 4));
  PetscCall(CheckProducts(A, B, rnd, "spmv with brc's block height 4"));
  PetscCall(Expect(A, PETSC_FALSE, "brc", "regular rows with a brc setting"));
  PetscCall(MatDestroy(&B));

  /* a candidate that refuses the pattern passes to the next: ELLR pads the tridiagonal's two short
     rows, more than a padding limit of 1 allows; with the default limit it takes the pattern */
  PetscCall(Build(MATAIJ, n, 0, 0, &B));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_spmv_formats", "ipcsr,ellr"));
  PetscCall(MatSetFromOptions(A));
  PetscCall(CheckProducts(A, B, rnd, "spmv among ipcsr and ellr"));
  PetscCall(Expect(A, PETSC_FALSE, "ellr", "regular rows among ipcsr,ellr"));
  PetscCall(MatELLRSetMaxPadding(A, 1.0));
  PetscCall(CheckProducts(A, B, rnd, "spmv among ipcsr and ellr, ellr refusing"));
  PetscCall(Expect(A, PETSC_FALSE, "ipcsr", "regular rows among ipcsr,ellr, ellr refusing"));
  PetscCall(ExpectWhy(A, "ellr refused", "ellr refusing"));
  /* no candidate takes the pattern: the last refusal is the error */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_spmv_formats", "ellr"));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatELLRSetMaxPadding(A, 1.0));
  {
    Vec            x, y;
    PetscErrorCode ierr;

    PetscCall(MatCreateVecs(A, &x, &y));
    PetscCall(VecSet(x, 1.0));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatMult(A, x, y);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr == PETSC_ERR_SUP, PETSC_COMM_SELF, PETSC_ERR_PLIB, "spmv with ellr alone, ellr refusing: MatMult gave error %d, expected ELLR's PETSC_ERR_SUP", (int)ierr);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok the only candidate refusing is an error\n"));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
  }
  PetscCall(MatELLRSetMaxPadding(A, 3.0));
  PetscCall(CheckProducts(A, B, rnd, "spmv with ellr alone after raising its padding limit"));
  PetscCall(Expect(A, PETSC_FALSE, "ellr", "ellr alone after raising its padding limit"));

  /* tuning: every candidate is timed and the fastest kept; which one depends on the machine, the products do not */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_spmv_formats", "brc,ipcsr,argcsr"));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_spmv_tune_reps", "3"));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatSPMVSetTune(A, PETSC_TRUE));
  PetscCall(CheckProducts(A, B, rnd, "spmv tuned among brc, ipcsr, argcsr"));
  PetscCall(ExpectWhy(A, "timed: brc ", "tuned"));
  PetscCall(ExpectWhy(A, " us, ipcsr ", "tuned"));
  PetscCall(ExpectWhy(A, " us, argcsr ", "tuned"));
  /* no time left after the first candidate: the rules' first is kept */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_spmv_tune_max_time", "0"));
  PetscCall(MatSetFromOptions(A));
  PetscCall(CheckProducts(A, B, rnd, "spmv tuned with no time"));
  PetscCall(Expect(A, PETSC_FALSE, "brc", "tuned with no time"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_spmv_tune_max_time"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_spmv_tune_reps"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_spmv_formats"));
  PetscCall(MatDestroy(&B));

  /* hot columns: the layer renumbers the columns by frequency (auto: the 1% most frequent hold over a
     quarter of the nonzeros) and spmv takes brc for the irregular rows; natural order: ipcsr */
  if (size == 1) {
    PetscBool has;

    PetscCall(BuildHot(300000, &B));
    PetscCall(MatConvert(B, MATSPMV, MAT_INITIAL_MATRIX, &A2));
    PetscCall(CheckProducts(A2, B, rnd, "spmv with hot columns"));
    PetscCall(MatSpmvCheckLayout(A2));
    PetscCall(ViewContains(A2, "columns renumbered by frequency (column order auto)", &has));
    PetscCheck(has, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Hot columns: spmv did not renumber them");
    PetscCall(Expect(A2, PETSC_FALSE, "brc", "irregular rows, hot columns renumbered"));
    PetscCall(MatSpmvSetColumnOrder(A2, MAT_SPMV_COLUMN_ORDER_NATURAL));
    PetscCall(CheckProducts(A2, B, rnd, "spmv with hot columns, natural order"));
    PetscCall(ViewContains(A2, "natural column order", &has));
    PetscCheck(!has, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Column order natural: the columns should not even be counted");
    PetscCall(ViewContains(A2, "columns renumbered", &has));
    PetscCheck(!has, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Column order natural: columns renumbered all the same");
    PetscCall(Expect(A2, PETSC_FALSE, "ipcsr", "irregular rows, natural column order"));
    PetscCall(MatDestroy(&A2));
    PetscCall(MatDestroy(&B));
    /* the regular matrix of 2000 columns: too few to count them */
    PetscCall(Build(MATAIJ, n, 0, 0, &B));
    PetscCall(MatConvert(B, MATSPMV, MAT_INITIAL_MATRIX, &A2));
    PetscCall(ViewContains(A2, "column order", &has));
    PetscCheck(!has, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A matrix of %" PetscInt_FMT " columns had its columns counted", n);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok hot columns renumbered (auto), kept (natural), not counted on a small matrix\n"));
    PetscCall(MatDestroy(&A2));
    PetscCall(MatDestroy(&B));
  }

  if (size > 1) { /* blocks chosen on their own: a regular diagonal block, an irregular off-diagonal one */
    PetscCall(MatDestroy(&A));
    PetscCall(Build(MATAIJ, n, 25, 200, &B));
    PetscCall(MatConvert(B, MATSPMV, MAT_INITIAL_MATRIX, &A));
    PetscCall(CheckProducts(A, B, rnd, "spmv, 2 processes"));
    PetscCall(Expect(A, PETSC_FALSE, "brc", "tridiagonal diagonal block"));
    PetscCall(Expect(A, PETSC_TRUE, "ipcsr", "off-diagonal block with a few long rows"));
    PetscCall(MatDestroy(&B));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all spmv choices as expected\n"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}
