static char help[] = "Sparse matrix-matrix products of a petscspmv type (the device SpGEMM on a GPU) against MATAIJ's,\n"
                     "entry by entry and pattern for pattern: A B, A^T B, A B^T, P^T A P, R A R^T of random sparse matrices\n"
                     "with empty rows and columns and a row of many products, block size 3, reused after new values;\n"
                     "GAMG's chain (a product of the coarse operator, a result, and the next Galerkin product of results);\n"
                     "on one process with a GPU, an operand replaced by one of the same pattern, and one of another refused.\n"
                     "  -type <brc>  petscspmv type of the operands\n"
                     "  -m <300>     rows of A (square for P^T A P and R A R^T)\n"
                     "  -heavy <1>   one row of A dense and one row of B long (a row of many products)\n";

#include <petscspmv.h>

/* a random sparse m x n matrix: about nz entries a row, every 7th row empty, columns = 5 mod 11 never
   used; with heavy, row 1 has every column; nz < 0: no entry at all */
static PetscErrorCode FillRandom(Mat X, PetscInt nz, PetscBool heavy, PetscRandom rnd)
{
  PetscInt rstart, rend, M, N;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(X, &rstart, &rend));
  PetscCall(MatGetSize(X, &M, &N));
  for (PetscInt i = rstart; i < rend && nz >= 0; i++) {
    if (i % 7 == 3) continue;
    if (heavy && i == 1) {
      for (PetscInt j = 0; j < N; j++) {
        PetscScalar v;

        if (j % 11 == 5) continue;
        PetscCall(PetscRandomGetValue(rnd, &v));
        PetscCall(MatSetValue(X, i, j, v, INSERT_VALUES));
      }
      continue;
    }
    for (PetscInt k = 0; k < nz; k++) {
      PetscReal   r;
      PetscScalar v;
      PetscInt    j;

      PetscCall(PetscRandomGetValueReal(rnd, &r));
      j = (PetscInt)(r * N) % N;
      if (j % 11 == 5) j = (j + 1) % N;
      PetscCall(PetscRandomGetValue(rnd, &v));
      PetscCall(MatSetValue(X, i, j, v, INSERT_VALUES));
    }
    if (i < N) PetscCall(MatSetValue(X, i, i, 4.0, INSERT_VALUES)); /* a diagonal: rows the product keeps */
  }
  PetscCall(MatAssemblyBegin(X, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(X, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreatePair(MatType type, PetscInt m, PetscInt n, PetscInt bs, PetscInt nz, PetscBool heavy, PetscInt seed, Mat *X, Mat *Xref)
{
  PetscRandom rnd;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, Xref));
  PetscCall(MatSetSizes(*Xref, PETSC_DECIDE, PETSC_DECIDE, m, n));
  PetscCall(MatSetBlockSizes(*Xref, bs, bs));
  PetscCall(MatSetType(*Xref, MATAIJ));
  PetscCall(MatSetUp(*Xref));
  PetscCall(MatSetOption(*Xref, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)(17 + seed)));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(FillRandom(*Xref, nz, heavy, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatConvert(*Xref, type, MAT_INITIAL_MATRIX, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* on several processes: C's ghost map (the global columns of its off-diagonal block, and that block's
   width) MATAIJ's, which MPIAIJ's assembly makes on the host (ours on the device, types/coo.c) */
static PetscErrorCode CheckGhostMap(Mat C, Mat Cref, const char *what)
{
  Mat             Ao, Aoref;
  const PetscInt *g, *gref;
  PetscInt        n, nref;
  PetscMPIInt     size;
  PetscBool       same;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)C), &size));
  if (size == 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatMPIAIJGetSeqAIJ(C, NULL, &Ao, &g));
  PetscCall(MatMPIAIJGetSeqAIJ(Cref, NULL, &Aoref, &gref));
  PetscCall(MatGetSize(Ao, NULL, &n));
  PetscCall(MatGetSize(Aoref, NULL, &nref));
  PetscCheck(n == nref, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %" PetscInt_FMT " ghost columns, MATAIJ's %" PetscInt_FMT, what, n, nref);
  PetscCall(PetscArraycmp(g, gref, n, &same));
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the ghost columns are not MATAIJ's", what);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C against Cref: the same sizes, as many entries (both patterns are the symbolic products'), the same ghost map, values within 1e-12 of the largest (NaN fails) */
static PetscErrorCode CheckProduct(Mat C, Mat Cref, const char *what)
{
  Mat       D;
  MatInfo   info, iref;
  PetscReal err, ref;
  PetscInt  m, n, mr, nr;

  PetscFunctionBegin;
  PetscCall(MatGetSize(C, &m, &n));
  PetscCall(MatGetSize(Cref, &mr, &nr));
  PetscCheck(m == mr && n == nr, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: %" PetscInt_FMT " x %" PetscInt_FMT ", MATAIJ's %" PetscInt_FMT " x %" PetscInt_FMT, what, m, n, mr, nr);
  PetscCall(MatGetInfo(C, MAT_GLOBAL_SUM, &info));
  PetscCall(MatGetInfo(Cref, MAT_GLOBAL_SUM, &iref));
  PetscCheck(info.nz_used == iref.nz_used, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: %g entries, MATAIJ's %g", what, info.nz_used, iref.nz_used);
  PetscCall(CheckGhostMap(C, Cref, what));
  PetscCall(MatConvert(C, MATAIJ, MAT_INITIAL_MATRIX, &D));
  PetscCall(MatAXPY(D, -1.0, Cref, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(D, NORM_MAX, &err));
  PetscCall(MatNorm(Cref, NORM_MAX, &ref));
  PetscCall(MatDestroy(&D));
  PetscCheck(err <= 1e-12 * ref, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: max error %g of %g", what, (double)err, (double)ref);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool CheckReplace = PETSC_FALSE; /* our SpGEMM takes the products (one process, a GPU, 32-bit indices, not -petscspmv_spgemm 0) */

/* one product type: first product, then reused after MatScale() of A and after new values of B (same pattern) */
static PetscErrorCode CheckType(MatProductType type, Mat A, Mat Aref, Mat B, Mat Bref)
{
  Mat  C, Cref;
  char what[128];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s", MatProductTypes[type]));
  PetscCall(MatProductCreate(A, B, NULL, &C));
  PetscCall(MatProductSetType(C, type));
  PetscCall(MatProductSetFromOptions(C));
  PetscCall(MatProductSymbolic(C));
  PetscCall(MatProductNumeric(C));
  PetscCall(MatProductCreate(Aref, Bref, NULL, &Cref));
  PetscCall(MatProductSetType(Cref, type));
  PetscCall(MatProductSetFromOptions(Cref));
  PetscCall(MatProductSymbolic(Cref));
  PetscCall(MatProductNumeric(Cref));
  PetscCall(CheckProduct(C, Cref, what));

  /* numeric reuse: new values of A (scaled) */
  PetscCall(MatScale(A, 2.5));
  PetscCall(MatScale(Aref, 2.5));
  PetscCall(MatProductNumeric(C));
  PetscCall(MatProductNumeric(Cref));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s after MatScale(A)", MatProductTypes[type]));
  PetscCall(CheckProduct(C, Cref, what));

  /* numeric reuse: new values of B, its pattern kept (a new Jacobian) */
  PetscCall(MatScale(Bref, -0.7));
  PetscCall(MatCopy(Bref, B, SAME_NONZERO_PATTERN));
  PetscCall(MatProductNumeric(C));
  PetscCall(MatProductNumeric(Cref));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s after new values of B", MatProductTypes[type]));
  PetscCall(CheckProduct(C, Cref, what));

  /* our SpGEMM on one process (GPU): an operand replaced by one of the same pattern goes on, by one of
     another pattern (the rows reversed: as many entries) is refused, not multiplied wrongly */
  if (type == MATPRODUCT_AB && CheckReplace) {
    Mat            B2, B3, B3ref;
    IS             rows, cols;
    PetscInt       m, n;
    PetscErrorCode ierr;
    MatType        btype;
    MatInfo        info;

    PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &B2));
    PetscCall(MatProductReplaceMats(NULL, B2, NULL, C));
    PetscCall(MatProductNumeric(C));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s after MatProductReplaceMats() of the same pattern", MatProductTypes[type]));
    PetscCall(CheckProduct(C, Cref, what));
    PetscCall(MatGetSize(Bref, &m, &n));
    PetscCall(ISCreateStride(PETSC_COMM_SELF, m, m - 1, -1, &rows));
    PetscCall(ISCreateStride(PETSC_COMM_SELF, n, 0, 1, &cols));
    PetscCall(MatPermute(Bref, rows, cols, &B3ref));
    PetscCall(MatGetType(B, &btype));
    PetscCall(MatConvert(B3ref, btype, MAT_INITIAL_MATRIX, &B3));
    PetscCall(MatProductReplaceMats(NULL, B3, NULL, C));
    PetscCall(MatGetInfo(Bref, MAT_LOCAL, &info));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatProductNumeric(C);
    PetscCall(PetscPopErrorHandler());
    if (info.nz_used > 0) { /* an empty B reversed is the same pattern: it goes on */
      PetscCheck(ierr == PETSC_ERR_ARG_WRONGSTATE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A B with B replaced by one of another pattern: error %d, not PETSC_ERR_ARG_WRONGSTATE", (int)ierr);
    } else {
      PetscCheck(ierr == PETSC_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A B with an empty B replaced by an empty one: error %d", (int)ierr);
    }
    PetscCall(MatProductReplaceMats(NULL, B, NULL, C));
    PetscCall(ISDestroy(&rows));
    PetscCall(ISDestroy(&cols));
    PetscCall(MatDestroy(&B3));
    PetscCall(MatDestroy(&B3ref));
    PetscCall(MatDestroy(&B2));
  }

  /* the API's own calls, reused */
  if (type == MATPRODUCT_PtAP) {
    Mat D, Dref;

    PetscCall(MatPtAP(A, B, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &D));
    PetscCall(MatPtAP(Aref, Bref, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Dref));
    PetscCall(CheckProduct(D, Dref, "MatPtAP"));
    PetscCall(MatScale(A, 0.5));
    PetscCall(MatScale(Aref, 0.5));
    PetscCall(MatPtAP(A, B, MAT_REUSE_MATRIX, PETSC_DETERMINE, &D));
    PetscCall(MatPtAP(Aref, Bref, MAT_REUSE_MATRIX, PETSC_DETERMINE, &Dref));
    PetscCall(CheckProduct(D, Dref, "MatPtAP reused"));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&Dref));
  }
  /* a product result assembled again from a user's COO entries: first each process's in its own rows
     (repeats summed; on several processes with a GPU ours sorts them on the device, types/coo.c), then
     also one in another process's row and one ignored (a negative row): aijcusparse's path */
  if (type == MATPRODUCT_AB) {
    for (PetscInt pass = 0; pass < 2; pass++) {
      PetscInt     rstart, rend, M, N, n = 0, *ci, *cj, *ci2, *cj2;
      PetscScalar *cv;

      PetscCall(MatGetOwnershipRange(C, &rstart, &rend));
      PetscCall(MatGetSize(C, &M, &N));
      PetscCall(PetscMalloc3(3 * (rend - rstart) + 2, &ci, 3 * (rend - rstart) + 2, &cj, 3 * (rend - rstart) + 2, &cv));
      PetscCall(PetscMalloc2(3 * (rend - rstart) + 2, &ci2, 3 * (rend - rstart) + 2, &cj2));
      for (PetscInt r = rstart; r < rend; r++) {
        const PetscInt cols[3] = {r % N, (7 * r + 3) % N, r % N};

        for (PetscInt k = 0; k < 3; k++, n++) {
          ci[n] = r;
          cj[n] = cols[k];
          cv[n] = 1.0 + r + 0.5 * k;
        }
      }
      if (pass) { /* (PETSc's products leave their results refusing other processes' rows) */
        PetscCall(MatSetOption(C, MAT_NO_OFF_PROC_ENTRIES, PETSC_FALSE));
        PetscCall(MatSetOption(Cref, MAT_NO_OFF_PROC_ENTRIES, PETSC_FALSE));
        ci[n] = rend % M, cj[n] = N - 1, cv[n++] = 3.0;
        ci[n] = -1, cj[n] = 0, cv[n++] = 1e30;
      }
      PetscCall(PetscArraycpy(ci2, ci, n)); /* MatSetPreallocationCOO() may sort the arrays it is given */
      PetscCall(PetscArraycpy(cj2, cj, n));
      PetscCall(MatSetPreallocationCOO(C, n, ci2, cj2));
      PetscCall(MatSetValuesCOO(C, cv, INSERT_VALUES));
      PetscCall(MatSetValuesCOO(C, cv, ADD_VALUES));
      PetscCall(MatSetPreallocationCOO(Cref, n, ci, cj));
      PetscCall(MatSetValuesCOO(Cref, cv, INSERT_VALUES));
      PetscCall(MatSetValuesCOO(Cref, cv, ADD_VALUES));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s's result from COO entries%s", MatProductTypes[type], pass ? " (one in another process's row, one ignored)" : ""));
      PetscCall(CheckProduct(C, Cref, what));
      PetscCall(PetscFree3(ci, cj, cv));
      PetscCall(PetscFree2(ci2, cj2));
    }
  }
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&Cref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* GAMG's chain of products: A1 = P^T A P (a result), A1 P0 with P0 of A1's type (GAMG's smoothing of
   the next level's prolongator: a product of a result), A2 = S^T A1 S (a result of results; on several
   processes the MPI products of results' blocks and merged rows); then all reused after MatScale(A) */
static PetscErrorCode CheckChain(Mat A, Mat Aref, Mat P, Mat Pref, PetscInt bs, PetscBool heavy)
{
  Mat      A1, A1ref, P0, P0ref, S, Sref, A2, A2ref;
  MatType  t1;
  PetscInt n, n2;

  PetscFunctionBegin;
  PetscCall(MatGetSize(P, NULL, &n));
  n2 = n / 2 - (n / 2) % bs;
  PetscCall(MatPtAP(A, P, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &A1));
  PetscCall(MatPtAP(Aref, Pref, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &A1ref));
  PetscCall(CheckProduct(A1, A1ref, "chain: A1 = P^T A P"));
  PetscCall(MatGetType(A1, &t1));
  PetscCall(CreatePair(t1, n, n2, bs, 3, heavy, 10, &P0, &P0ref));
  PetscCall(MatMatMult(A1, P0, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &S));
  PetscCall(MatMatMult(A1ref, P0ref, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Sref));
  PetscCall(CheckProduct(S, Sref, "chain: S = A1 P0"));
  PetscCall(MatPtAP(A1, S, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &A2));
  PetscCall(MatPtAP(A1ref, Sref, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &A2ref));
  PetscCall(CheckProduct(A2, A2ref, "chain: A2 = S^T A1 S"));
  for (int k = 0; k < 2; k++) { /* a new Newton step: the same patterns, new values */
    PetscCall(MatScale(k ? Aref : A, 0.5));
    PetscCall(MatPtAP(k ? Aref : A, k ? Pref : P, MAT_REUSE_MATRIX, PETSC_DETERMINE, k ? &A1ref : &A1));
    PetscCall(MatMatMult(k ? A1ref : A1, k ? P0ref : P0, MAT_REUSE_MATRIX, PETSC_DETERMINE, k ? &Sref : &S));
    PetscCall(MatPtAP(k ? A1ref : A1, k ? Sref : S, MAT_REUSE_MATRIX, PETSC_DETERMINE, k ? &A2ref : &A2));
  }
  PetscCall(CheckProduct(A1, A1ref, "chain reused: A1"));
  PetscCall(CheckProduct(S, Sref, "chain reused: S"));
  PetscCall(CheckProduct(A2, A2ref, "chain reused: A2"));
  PetscCall(MatDestroy(&A2));
  PetscCall(MatDestroy(&A2ref));
  PetscCall(MatDestroy(&S));
  PetscCall(MatDestroy(&Sref));
  PetscCall(MatDestroy(&P0));
  PetscCall(MatDestroy(&P0ref));
  PetscCall(MatDestroy(&A1));
  PetscCall(MatDestroy(&A1ref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char      type[64] = "brc";
  PetscInt  m = 300, bss[] = {1, 3};
  PetscBool heavy = PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpmvInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m", &m, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-heavy", &heavy, NULL));
  m -= m % 3;
  { /* our SpGEMM runs where the operands are on a GPU; on one process its products are the test's own */
    Mat         X;
    Vec         v;
    PetscBool   cuda, ours = PETSC_TRUE;
    PetscMPIInt size;

    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, 3, 3, 1, NULL, 0, NULL, &X));
    PetscCall(MatSetType(X, type));
    PetscCall(MatCreateVecs(X, &v, NULL));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)v, &cuda, VECSEQCUDA, VECMPICUDA, ""));
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-petscspmv_spgemm", &ours, NULL));
    /* with 64-bit indices the products are aijcusparse's, which does not look for a replaced pattern */
    CheckReplace = (PetscBool)(cuda && size == 1 && ours && sizeof(PetscInt) == sizeof(int));
    PetscCall(VecDestroy(&v));
    PetscCall(MatDestroy(&X));
  }
  for (size_t b = 0; b < PETSC_STATIC_ARRAY_LENGTH(bss); b++) {
    const PetscInt bs = bss[b], k = m + 3 * 7, n = m / 2 - (m / 2) % 3;
    Mat            A, Aref, B, Bref, Asq, Asqref, P, Pref;

    /* rectangular operands for A B (m x k times k x n), A^T B (k x m ^T times k x n), A B^T */
    PetscCall(CreatePair(type, m, k, bs, 5, heavy, 1, &A, &Aref));
    PetscCall(CreatePair(type, k, n, bs, 4, heavy, 2, &B, &Bref));
    PetscCall(CheckType(MATPRODUCT_AB, A, Aref, B, Bref));
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&Bref));
    PetscCall(CreatePair(type, m, n, bs, 4, heavy, 3, &B, &Bref));
    PetscCall(CheckType(MATPRODUCT_AtB, A, Aref, B, Bref));
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&Bref));
    PetscCall(CreatePair(type, n, k, bs, 4, heavy, 4, &B, &Bref));
    PetscCall(CheckType(MATPRODUCT_ABt, A, Aref, B, Bref));
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&Bref));
    /* P^T A P and R A R^T: a square A, P m x n (a prolongator's shape), R n x m */
    PetscCall(CreatePair(type, m, m, bs, 7, heavy, 5, &Asq, &Asqref));
    PetscCall(CreatePair(type, m, n, bs, 3, heavy, 6, &P, &Pref));
    PetscCall(CheckType(MATPRODUCT_PtAP, Asq, Asqref, P, Pref));
    PetscCall(CheckChain(Asq, Asqref, P, Pref, bs, heavy));
    PetscCall(MatDestroy(&P));
    PetscCall(MatDestroy(&Pref));
    PetscCall(CreatePair(type, n, m, bs, 3, heavy, 7, &P, &Pref));
    PetscCall(CheckType(MATPRODUCT_RARt, Asq, Asqref, P, Pref));
    PetscCall(MatDestroy(&P));
    PetscCall(MatDestroy(&Pref));
    /* an operand without entries: empty products */
    PetscCall(CreatePair(type, m, n, bs, -1, PETSC_FALSE, 8, &P, &Pref));
    PetscCall(CheckType(MATPRODUCT_PtAP, Asq, Asqref, P, Pref));
    PetscCall(CheckType(MATPRODUCT_AB, Asq, Asqref, P, Pref));
    PetscCall(MatDestroy(&P));
    PetscCall(MatDestroy(&Pref));
    PetscCall(MatDestroy(&Asq));
    PetscCall(MatDestroy(&Asqref));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&Aref));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "spgemm: all products agree with MATAIJ\n"));
  PetscCall(PetscFinalize());
  return 0;
}
