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

/* The format named by the "format <name>: <why>" line of the sequential matrix S's
   -mat_view ::ascii_info (the layout of A; the reason goes to -info) */
static PetscErrorCode Chosen(Mat S, char *formats, size_t len)
{
  char        fname[PETSC_MAX_PATH_LEN], line[512];
  PetscViewer v;
  FILE       *fp;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(fname, sizeof(fname), "/tmp/test_spmv-%d.txt", (int)getpid()));
  PetscCall(PetscViewerASCIIOpen(PETSC_COMM_SELF, fname, &v));
  PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(S, v));
  PetscCall(PetscViewerPopFormat(v));
  PetscCall(PetscViewerDestroy(&v));
  formats[0] = 0;
  PetscCall(PetscFOpen(PETSC_COMM_SELF, fname, "r", &fp));
  while (fgets(line, sizeof(line), fp)) {
    char *f = strstr(line, "format "), *colon = f ? strchr(f, ':') : NULL;

    if (!f || !colon || colon - f > 16) continue;
    *colon = 0;
    if (formats[0]) PetscCall(PetscStrlcat(formats, " ", len));
    PetscCall(PetscStrlcat(formats, f + 7, len));
    PetscCall(PetscInfo(S, "%s: %s", f + 7, colon + 1));
  }
  PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
  (void)unlink(fname);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A's choice on this process's diagonal block (the matrix itself on one process) or its off-diagonal block */
static PetscErrorCode ChosenBlock(Mat A, PetscBool offdiag, char *formats, size_t len)
{
  PetscMPIInt size;
  Mat         Ad, Ao;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size == 1) PetscCall(Chosen(A, formats, len));
  else {
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
    PetscCall(Chosen(offdiag ? Ao : Ad, formats, len));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Expect(Mat A, PetscBool offdiag, const char *expected, const char *what)
{
  char      got[256];
  PetscBool same;

  PetscFunctionBegin;
  PetscCall(ChosenBlock(A, offdiag, got, sizeof(got)));
  PetscCall(PetscStrcmp(got, expected, &same));
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: spmv chose \"%s\", expected \"%s\"", what, got, expected);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s: %s\n", what, got));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat         A, B, Aref;
  PetscRandom rnd;
  PetscMPIInt size;
  PetscInt    n = 2000, ns, nsb;
  PetscLogDouble bytes, bytesb;
  char        a[256], b[256];
  PetscBool   same, spread;

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
  PetscCall(ChosenBlock(A, PETSC_FALSE, a, sizeof(a)));
  PetscCall(ChosenBlock(B, PETSC_FALSE, b, sizeof(b)));
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
  PetscCall(MatBRCSetBlockHeight(A, 4));
  PetscCall(CheckProducts(A, B, rnd, "spmv with brc's block height 4"));
  PetscCall(Expect(A, PETSC_FALSE, "brc", "regular rows with a brc setting"));
  PetscCall(MatDestroy(&B));

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
