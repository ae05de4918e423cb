/*
  The solver package MATSOLVERSPMVFACTOR ("spmvfactor"): ILU(k) and ICC(k) whose numeric factorization and
  triangular solves run on the GPU without level synchronization (spmvfactorimpl.h, ilu.cu, trsv.cu), for
  our sequential types and aijcusparse; the numeric factorization runs where it was measured
  fastest (its kernel, cuSPARSE's csrilu02 for ILU(0), or the host: MatSpmvNumericType). cuSPARSE's solves (aijcusparse's factor) synchronize once per
  dependency level: about two thousand levels per triangle on SNES ex19's Jacobian. Without a GPU
  (a matrix on the AIJ base, or SeqAIJ) the same algorithm runs on the host, sequentially.

  Selected with -pc_factor_mat_solver_type spmvfactor (-sub_pc_factor_mat_solver_type spmvfactor under block
  Jacobi or ASM).

  This file: the Mat plumbing (MatGetFactor(), the numeric phase's choice and MatSolve()'s dispatch
  between the GPU and the host reference, viewing, registration); settings.c: the factor's options,
  its reset and the hand-over to cuSPARSE's package; symbolic.c: the symbolic phase; host.c: the host
  reference; ilu.cu, trsv.cu: the kernels. factor.c calls symbolic.c, both call settings.c.
*/
#include "spmvfactorimpl.h"

static PetscErrorCode MatFactorGetSolverType_Spmv(Mat F, MatSolverType *type)
{
  PetscFunctionBegin;
  *type = MATSOLVERSPMVFACTOR;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_SpmvFactor(Mat F)
{
  Mat_SpmvFactor *f = (Mat_SpmvFactor *)F->data;

  PetscFunctionBegin;
  PetscCall(MatSpmvFactorReset(f));
  PetscCall(PetscFree(F->data));
  PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatFactorGetSolverType_C", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* As PCFactor's default package (MatSpmvFactorFallback_C composed by the layer), an ICC whose pivot of
   row `row` needs the positive-definite shift, PCICC's default, which this package does not apply:
   F becomes cuSPARSE's factor of A in place, factored on the host by PETSc's ICC, which shifts as
   MATAIJ's does (aijcusparse's device ICC(0) would not shift either), and is factored now. F's own
   data is gone after this. */
static PetscErrorCode MatSpmvFactorShiftOnHost(Mat F, Mat A, const MatFactorInfo *info, MatSpmvFactorFallbackFn fallback, PetscInt row)
{
  MatFactorInfo use = *info;
  IS            perm;
  char          why[160];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(why, sizeof(why), "the pivot of row %" PetscInt_FMT " is not positive: the positive-definite shift is applied by the host factorization", row));
  use.factoronhost = PETSC_TRUE;
  PetscCall(ISCreateStride(PETSC_COMM_SELF, A->rmap->n, 0, 1, &perm)); /* this package's natural ordering */
  PetscCall(ISSetIdentity(perm));
  PetscCall((*fallback)(F, A, perm, perm, &use, why)); /* F: cuSPARSE's factor, its symbolic phase done */
  PetscCall(ISDestroy(&perm));
  PetscCall((*F->ops->choleskyfactornumeric)(F, A, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* where this numeric phase of a factor on the GPU runs (MatSpmvNumericType): where asked, if it can
   take the factor (cuSPARSE: ILU(0) on A's own pattern; the host: not ICC's device-made map), else
   auto's choice: the kernel first, then each other place once, the host only where the best time so
   far is above what the host could take, then the fastest measured */
static PetscErrorCode MatSpmvFactorNumericWhere(Mat F, MatSpmvNumericType *where)
{
  Mat_SpmvFactor    *f = (Mat_SpmvFactor *)F->data;
  PetscBool          can[4];
  MatSpmvNumericType best = MATSPMV_NUMERIC_DEVICE;

  PetscFunctionBegin;
  can[MATSPMV_NUMERIC_AUTO]     = PETSC_TRUE;
  can[MATSPMV_NUMERIC_DEVICE]   = PETSC_TRUE;
  can[MATSPMV_NUMERIC_CUSPARSE] = (PetscBool)(F->factortype == MAT_FACTOR_ILU && !f->fill && !f->vmap && !f->d.vmap);
  can[MATSPMV_NUMERIC_HOST]     = (PetscBool)(f->vmap || !f->d.vmap);
  *where                        = f->numeric;
  if (!can[*where]) {
    PetscCall(PetscInfo(F, "-petscspmv_factor_numeric %s takes %s: the numeric factorization runs on the GPU's kernel\n", MatSpmvNumericTypes[*where], *where == MATSPMV_NUMERIC_CUSPARSE ? "ILU(0) only" : "no ICC made on the device"));
    *where = MATSPMV_NUMERIC_DEVICE;
  }
  if (*where != MATSPMV_NUMERIC_AUTO) PetscFunctionReturn(PETSC_SUCCESS);
  for (int k = MATSPMV_NUMERIC_DEVICE; k <= MATSPMV_NUMERIC_HOST; k++)
    if (f->tnumeric[k] > 0.0 && f->tnumeric[k] < f->tnumeric[best]) best = (MatSpmvNumericType)k;
  *where = best;
  if (!f->tnumeric[MATSPMV_NUMERIC_DEVICE]) PetscFunctionReturn(PETSC_SUCCESS);
  if (can[MATSPMV_NUMERIC_CUSPARSE] && !f->tnumeric[MATSPMV_NUMERIC_CUSPARSE]) *where = MATSPMV_NUMERIC_CUSPARSE;
  else if (can[MATSPMV_NUMERIC_HOST] && !f->tnumeric[MATSPMV_NUMERIC_HOST] && f->tnumeric[best] > MATSPMV_HOST_NUMERIC_SECONDS_PER_NONZERO * f->nnz) *where = MATSPMV_NUMERIC_HOST;
  if (*where != best)
    PetscCall(PetscInfo(F, "Numeric factorization %.3g ms on %s so far: this one tried on %s\n", 1e3 * f->tnumeric[best], best == MATSPMV_NUMERIC_DEVICE ? "the GPU's kernel" : "cuSPARSE", *where == MATSPMV_NUMERIC_HOST ? "the host" : "cuSPARSE"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the host reference's numeric phase for a factor on the GPU, its values then uploaded (A's pattern
   read again where the factor's is A's) */
static PetscErrorCode MatSpmvFactorNumericHostToDevice(Mat F, Mat A, const MatFactorInfo *info, PetscBool positive, PetscInt *zerorow)
{
  Mat_SpmvFactor    *f        = (Mat_SpmvFactor *)F->data;
  const PetscBool    borrowed = (PetscBool)!f->i;
  const PetscScalar *v;
  const PetscInt    *ai = NULL, *aj = NULL;
  PetscInt           n;
  PetscBool          done;

  PetscFunctionBegin;
  if (borrowed) { /* rows and nonzeros checked against the symbolic phase's by the caller */
    PetscCall(MatSpmvFactorGetRows(A, &n, &ai, &aj));
    f->i = (PetscInt *)ai;
    f->j = (PetscInt *)aj;
  }
  PetscCall(MatSeqAIJGetArrayRead(A, &v));
  PetscCall(MatSpmvILUHost(f, v, info->zeropivot, positive, zerorow));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &v));
  if (borrowed) {
    f->i = f->j = NULL;
    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  }
  PetscCall(MatSpmvCUDATriSetValues(&f->d, f->a, f->idiag));
  PetscCall(PetscLogCpuToGpu((f->nnz + f->n) * sizeof(PetscScalar)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode MatLUFactorNumeric_SpmvFactor(Mat F, Mat A, const MatFactorInfo *info)
{
  Mat_SpmvFactor *f        = (Mat_SpmvFactor *)F->data;
  const PetscBool positive = (PetscBool)(info->shifttype == (PetscReal)MAT_SHIFT_POSITIVE_DEFINITE);
  PetscInt        zerorow, nnz = 0;
  MatInfo         ainfo;

  PetscFunctionBegin;
  PetscCall(MatGetInfo(A, MAT_LOCAL, &ainfo));
  nnz = (PetscInt)ainfo.nz_used;
  PetscCheck(A->rmap->n == f->n && nnz == f->annz, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The matrix has %" PetscInt_FMT " rows and %" PetscInt_FMT " nonzeros, its symbolic factorization %" PetscInt_FMT " and %" PetscInt_FMT ": call the symbolic factorization again after a change of nonzero pattern",
             A->rmap->n, nnz, f->n, f->annz);
  if (f->device) {
#if defined(PETSC_HAVE_CUDA)
    const PetscScalar *v;
    MatSpmvNumericType where;
    PetscLogDouble     t0, t1, tv;
    void              *stream;

    PetscCall(MatSpmvFactorNumericWhere(F, &where));
    /* one-time work out of the time measured: cuSPARSE's analysis, the host's page-locked values */
    if (where == MATSPMV_NUMERIC_CUSPARSE) PetscCall(MatSpmvCUDAILUCuSPARSESetUp(&f->d));
    if (where == MATSPMV_NUMERIC_HOST && !f->pinned) {
      PetscCall(MatSpmvCUDAHostAlloc((void **)&f->pinned, (f->nnz + f->n) * sizeof(PetscScalar)));
      f->a     = f->pinned;
      f->idiag = f->pinned + f->nnz;
    }
    PetscCall(MatSpmvCUDAGetStream(&stream));
    PetscCall(MatSpmvCUDASynchronize(stream)); /* the time measured is this phase's only */
    PetscCall(PetscTime(&t0));
    tv = t0;
    if (where == MATSPMV_NUMERIC_HOST) PetscCall(MatSpmvFactorNumericHostToDevice(F, A, info, positive, &zerorow));
    else {
      PetscCall(MatSpmvCUSPARSEGetValues(A, &v));
      if (!f->tnumeric[where]) { /* the upload's share, for -info at the first time measured */
        PetscCall(MatSpmvCUDASynchronize(stream));
        PetscCall(PetscTime(&tv));
      }
      PetscCall(PetscLogGpuTimeBegin());
      if (where == MATSPMV_NUMERIC_CUSPARSE) PetscCall(MatSpmvCUDAILUCuSPARSE(&f->d, v, info->zeropivot, positive, &zerorow));
      else PetscCall(MatSpmvCUDAILU(&f->d, v, info->zeropivot, positive, &zerorow));
      PetscCall(PetscLogGpuTimeEnd());
      PetscCall(MatSpmvCUSPARSERestoreValues(A, &v));
    }
    PetscCall(PetscTime(&t1));
    if (!f->tnumeric[where])
      PetscCall(PetscInfo(F, "Numeric factorization by %s: %.3g ms (%.3g ms of it to bring A's values to the device)\n",
                          where == MATSPMV_NUMERIC_HOST       ? "the host, uploaded"
                          : where == MATSPMV_NUMERIC_CUSPARSE ? "cuSPARSE"
                                                              : "the GPU's kernel",
                          1e3 * (t1 - t0), 1e3 * (tv - t0)));
    f->tnumeric[where] = t1 - t0;
    if (f->trsv == MATSPMV_TRSV_ISAI) {
      PetscCall(PetscLogGpuTimeBegin());
      PetscCall(MatSpmvCUDAISAISetUp(&f->d));
      PetscCall(PetscLogGpuTimeEnd());
    }
#endif
  } else {
    const PetscScalar *v;

    PetscCall(MatSeqAIJGetArrayRead(A, &v));
    PetscCall(MatSpmvILUHost(f, v, info->zeropivot, positive, &zerorow));
    PetscCall(MatSeqAIJRestoreArrayRead(A, &v));
    if (f->trsv == MATSPMV_TRSV_ISAI) PetscCall(MatSpmvISAIHost(f));
  }
  F->factorerrortype = MAT_FACTOR_NOERROR;
  if (zerorow >= 0 && positive) {
    MatSpmvFactorFallbackFn fallback;

    PetscCall(MatSpmvFactorGetFallback(F, &fallback));
    if (fallback) {
      PetscCall(MatSpmvFactorShiftOnHost(F, A, info, fallback, zerorow));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  if (zerorow >= 0) {
    if (positive)
      PetscCall(PetscInfo(F, "Pivot in row %" PetscInt_FMT " not positive: ICC with a positive-definite shift needs the shift, which -pc_factor_mat_solver_type spmvfactor does not apply (use -pc_factor_mat_solver_type petsc)\n", zerorow));
    else PetscCall(PetscInfo(F, "Zero pivot in row %" PetscInt_FMT " (magnitude at most %g)\n", zerorow, (double)info->zeropivot));
    F->factorerrortype             = MAT_FACTOR_NUMERIC_ZEROPIVOT;
    F->factorerror_zeropivot_value = 0.0;
    F->factorerror_zeropivot_row   = zerorow;
  }
  F->assembled    = PETSC_TRUE;
  F->preallocated = PETSC_TRUE;
  PetscCall(MatSpmvTransposeFactorNumeric(F, A, info)); /* for ILU's transpose solves */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ILU: x = (LU)^{-T} b. The package's solves run L and U forward only; the transposed triangles
   have other dependencies. So A is factored again by the package PETSc has for it on the same
   memory (cuSPARSE's on the GPU, PETSc's on the host), with the same settings, at the first
   transpose solve after each numeric factorization (BiCG, CGNE and KSPLSQR call it every
   iteration): the same ILU(k) of the same values, rounding aside */
static PetscErrorCode MatSolveTranspose_SpmvFactor(Mat F, Vec b, Vec x)
{
  Mat_SpmvFactor *f = (Mat_SpmvFactor *)F->data;

  PetscFunctionBegin;
  PetscCall(MatSpmvTransposeFactorSolve(F, f->device ? MATSOLVERCUSPARSE : MATSOLVERPETSC, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* flops of one MatSolve(): both triangles once, or once per sweep */
static PetscLogDouble MatSpmvFactorSolveFlops(const Mat_SpmvFactor *f)
{
  return (f->trsv == MATSPMV_TRSV_JACOBI ? f->sweeps + 1 : 1) * (2.0 * f->nnz - f->n);
}

/* on device vectors (MatSpmvSolveStaged() brings host ones) */
static PetscErrorCode MatSolveDevice_SpmvFactor(Mat F, Vec b, Vec x)
{
#if defined(PETSC_HAVE_CUDA)
  Mat_SpmvFactor    *f = (Mat_SpmvFactor *)F->data;
  const PetscScalar *bv;
  PetscScalar       *xv;
#endif

  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(VecCUDAGetArrayRead(b, &bv));
  PetscCall(VecCUDAGetArrayWrite(x, &xv));
  PetscCall(PetscLogGpuTimeBegin());
  if (f->trsv == MATSPMV_TRSV_EXACT) PetscCall(MatSpmvCUDATriSolve(&f->d, bv, xv));
  else if (f->trsv == MATSPMV_TRSV_JACOBI) PetscCall(MatSpmvCUDATriSweeps(&f->d, f->sweeps, bv, xv));
  else PetscCall(MatSpmvCUDAISAISolve(&f->d, bv, xv));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(VecCUDARestoreArrayRead(b, &bv));
  PetscCall(VecCUDARestoreArrayWrite(x, &xv));
  PetscCall(PetscLogGpuFlops(MatSpmvFactorSolveFlops(f)));
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "Built without CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolve_SpmvFactor(Mat F, Vec b, Vec x)
{
  Mat_SpmvFactor    *f = (Mat_SpmvFactor *)F->data;
  const PetscScalar *bv;
  PetscScalar       *xv;

  PetscFunctionBegin;
  if (f->device) {
    PetscCall(MatSpmvSolveStaged(F, b, x, MatSolveDevice_SpmvFactor));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecGetArrayRead(b, &bv));
  PetscCall(VecGetArrayWrite(x, &xv));
  switch (f->trsv) {
  case MATSPMV_TRSV_EXACT:
    MatSpmvTriSolveHost(f, bv, xv);
    break;
  case MATSPMV_TRSV_JACOBI:
    MatSpmvTriSweepsHost(f, bv, xv);
    break;
  case MATSPMV_TRSV_ISAI:
    MatSpmvISAISolveHost(f, bv, xv);
    break;
  }
  PetscCall(VecRestoreArrayRead(b, &bv));
  PetscCall(VecRestoreArrayWrite(x, &xv));
  PetscCall(PetscLogFlops(MatSpmvFactorSolveFlops(f)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetInfo_SpmvFactor(Mat F, MatInfoType flag, MatInfo *info)
{
  Mat_SpmvFactor *f = (Mat_SpmvFactor *)F->data;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(info, sizeof(*info)));
  info->block_size        = (PetscLogDouble)f->unit;
  info->nz_allocated      = (PetscLogDouble)f->nnz;
  info->nz_used           = (PetscLogDouble)f->nnz;
  info->fill_ratio_given  = 1.0;
  info->fill_ratio_needed = f->annz ? (PetscLogDouble)f->nnz / f->annz : 1.0; /* ILU(k)'s fill */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_SpmvFactor(Mat F, PetscViewer viewer)
{
  Mat_SpmvFactor *f = (Mat_SpmvFactor *)F->data;
  PetscBool       ascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "spmv %s(%" PetscInt_FMT "): %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros, solved in units of %" PetscInt_FMT " rows without level synchronization, %s\n", F->factortype == MAT_FACTOR_ICC ? "ICC" : "ILU", f->fill, f->n, f->nnz, f->unit, f->device ? "on the GPU" : (f->onhost ? "on the host (-petscspmv_factor_solve: its dependency levels, or asked)" : "host reference")));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  dependency levels of units (taken in level order): %" PetscInt_FMT " in L, %" PetscInt_FMT " in U (%" PetscInt_FMT " units)\n", f->levels[0], f->levels[1], f->nunits));
  if (f->device && (f->tnumeric[MATSPMV_NUMERIC_CUSPARSE] > 0.0 || f->tnumeric[MATSPMV_NUMERIC_HOST] > 0.0))
    PetscCall(PetscViewerASCIIPrintf(viewer, "  numeric factorization, last measured: %.3g ms by the GPU's kernel, %.3g ms by cuSPARSE, %.3g ms on the host and uploaded (0: not tried)\n", 1e3 * f->tnumeric[MATSPMV_NUMERIC_DEVICE], 1e3 * f->tnumeric[MATSPMV_NUMERIC_CUSPARSE], 1e3 * f->tnumeric[MATSPMV_NUMERIC_HOST]));
  if (f->trsv == MATSPMV_TRSV_JACOBI) PetscCall(PetscViewerASCIIPrintf(viewer, "  triangular solves approximated: the units' block-diagonal solve and %" PetscInt_FMT " block-Jacobi sweep(s) per triangle\n", f->sweeps));
  if (f->trsv == MATSPMV_TRSV_ISAI) PetscCall(PetscViewerASCIIPrintf(viewer, "  triangular solves approximated: incomplete sparse approximate inverses of L and U on their patterns (a product each)\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatGetFactor() for MATSOLVERSPMVFACTOR: a factor matrix of its own (the umfpack pattern) */
static PetscErrorCode MatGetFactor_SeqAIJ_Spmv(Mat A, MatFactorType ftype, Mat *F)
{
  Mat             B;
  Mat_SpmvFactor *f;

  PetscFunctionBegin;
  PetscCheck(ftype == MAT_FACTOR_ILU || ftype == MAT_FACTOR_ICC, PETSC_COMM_SELF, PETSC_ERR_SUP, "-pc_factor_mat_solver_type spmvfactor gives ILU(k) and ICC(k) factors only: use -pc_type ilu or icc");
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &B));
  PetscCall(MatSetSizes(B, A->rmap->n, A->cmap->n, A->rmap->n, A->cmap->n));
  PetscCall(PetscStrallocpy("spmvfactor", &((PetscObject)B)->type_name));
  PetscCall(MatSetUp(B));
  PetscCall(PetscNew(&f));
  f->sweeps                     = 2;
  B->data                       = f;
  B->ops->getinfo               = MatGetInfo_SpmvFactor;
  B->ops->ilufactorsymbolic     = MatILUFactorSymbolic_SpmvFactor;
  B->ops->lufactornumeric       = MatLUFactorNumeric_SpmvFactor;
  B->ops->iccfactorsymbolic     = MatICCFactorSymbolic_SpmvFactor;
  B->ops->choleskyfactornumeric = MatLUFactorNumeric_SpmvFactor;
  B->ops->solve                 = MatSolve_SpmvFactor;
  /* ICC's L D L^T is symmetric: its transpose solve is its solve */
  B->ops->solvetranspose = ftype == MAT_FACTOR_ICC ? MatSolve_SpmvFactor : MatSolveTranspose_SpmvFactor;
  B->ops->destroy        = MatDestroy_SpmvFactor;
  B->ops->view           = MatView_SpmvFactor;
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatFactorGetSolverType_C", MatFactorGetSolverType_Spmv));
  B->factortype   = ftype;
  B->assembled    = PETSC_TRUE; /* -ksp_view */
  B->preallocated = PETSC_TRUE;
  PetscCall(PetscFree(B->solvertype));
  PetscCall(PetscStrallocpy(MATSOLVERSPMVFACTOR, &B->solvertype));
  B->canuseordering = PETSC_FALSE; /* natural ordering: PCFactor passes none */
  PetscCall(PetscStrallocpy(MATORDERINGNATURAL, (char **)&B->preferredordering[ftype]));
  *F = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "spmv", the package's name before 1.2 (the matrix type MATSPMV's name too), still selects it, with
   a warning in the manner of PETSc's deprecated options: once per process, on the first process,
   not under -options_suppress_deprecated_warnings */
static PetscErrorCode MatGetFactor_SeqAIJ_SpmvOldName(Mat A, MatFactorType ftype, Mat *F)
{
  static PetscBool warned = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatSpmvWarnRenamed("the solver type spmv", "spmvfactor (MATSOLVERSPMVFACTOR)", "1.2", &warned));
  PetscCall(MatGetFactor_SeqAIJ_Spmv(A, ftype, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* For -pc_factor_mat_solver_type spmvfactor, MatGetFactor() takes the handler of the longest
   registered type its matrix type begins with: SeqAIJ's covers ours, aijcusparse and SeqAIJ.
   PCFactor's default (no solver type) looks for exact type names first, so this changes no default. */
PETSC_INTERN PetscErrorCode MatSolverTypeRegister_Spmv(void)
{
  const MatFactorType ftypes[2] = {MAT_FACTOR_ILU, MAT_FACTOR_ICC};

  PetscFunctionBegin;
  for (int k = 0; k < 2; k++) {
    PetscCall(MatSolverTypeRegister(MATSOLVERSPMVFACTOR, MATSEQAIJ, ftypes[k], MatGetFactor_SeqAIJ_Spmv));
    PetscCall(MatSolverTypeRegister("spmv", MATSEQAIJ, ftypes[k], MatGetFactor_SeqAIJ_SpmvOldName));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
