/*
  MATSOLVERSPMVFACTOR's settings (see factor.c): the options of its solves and numeric phase, the reset of a
  factor's arrays, and the hand-over to cuSPARSE's package the layer composes. Called by the symbolic
  phase (symbolic.c) and the Mat plumbing (factor.c); calls neither.
*/
#include "spmvfactorimpl.h"

const char *const MatSpmvTrsvTypes[]    = {"exact", "jacobi", "isai", "MatSpmvTrsvType", "MATSPMV_TRSV_", NULL};
const char *const MatSpmvNumericTypes[] = {"auto", "device", "cusparse", "host", "MatSpmvNumericType", "MATSPMV_NUMERIC_", NULL};
const char *const MatSpmvSolvePlaces[]  = {"auto", "device", "host", "MatSpmvSolvePlace", "MATSPMV_SOLVE_", NULL};

PetscErrorCode MatSpmvFactorReset(Mat_SpmvFactor *f)
{
  PetscFunctionBegin;
  MatSpmvFactorReturnPattern(f); /* A's: an error in the symbolic phase left them here */
  PetscCall(PetscFree(f->i));
  PetscCall(PetscFree(f->j));
  PetscCall(PetscFree3(f->diag, f->lin, f->uout));
  PetscCall(PetscFree(f->vmap));
  PetscCall(PetscFree2(f->order[0], f->order[1]));
  if (f->pinned) f->a = f->idiag = NULL; /* not the host factor's own arrays */
  PetscCall(PetscFree4(f->a, f->idiag, f->work, f->m));
  PetscCall(PetscArrayzero(f->tnumeric, 4));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDAHostFree(f->pinned));
  f->pinned = NULL;
  PetscCall(MatSpmvCUDAFree(f->d_vmap)); /* an error in the symbolic phase left it here */
  f->d_vmap = NULL;
  if (f->device) PetscCall(MatSpmvCUDATriDestroy(&f->d));
#endif
  f->device = PETSC_FALSE;
  f->onhost = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the options of the triangular solves, read at the symbolic phase with F's prefix (the PC's); the
   -mat_spmv_trsv* spellings of release 1.0, whose prefix is the matrix type spmv's, still work */
PetscErrorCode MatSpmvFactorSetFromOptions(Mat F, PetscInt *unit)
{
  Mat_SpmvFactor *f = (Mat_SpmvFactor *)F->data;

  PetscFunctionBegin;
  PetscOptionsBegin(PetscObjectComm((PetscObject)F), ((PetscObject)F)->prefix, "MATSOLVERSPMVFACTOR triangular solves", "Mat");
  PetscCall(PetscOptionsDeprecated("-mat_spmv_trsv_unit", "-petscspmv_factor_trsv_unit", "1.1", NULL));
  PetscCall(PetscOptionsDeprecated("-mat_spmv_trsv", "-petscspmv_factor_trsv", "1.1", NULL));
  PetscCall(PetscOptionsDeprecated("-mat_spmv_trsv_sweeps", "-petscspmv_factor_trsv_sweeps", "1.1", NULL));
  PetscCall(PetscOptionsDeprecated("-mat_spmvfactor_trsv_unit", "-petscspmv_factor_trsv_unit", "1.3", NULL));
  PetscCall(PetscOptionsDeprecated("-mat_spmvfactor_trsv", "-petscspmv_factor_trsv", "1.3", NULL));
  PetscCall(PetscOptionsDeprecated("-mat_spmvfactor_trsv_sweeps", "-petscspmv_factor_trsv_sweeps", "1.3", NULL));
  PetscCall(PetscOptionsDeprecated("-mat_spmvfactor_numeric", "-petscspmv_factor_numeric", "1.3", NULL));
  PetscCall(PetscOptionsRangeInt("-petscspmv_factor_trsv_unit", "Consecutive rows solved together by one warp (0: the candidate whose solve is estimated fastest)", "MATSOLVERSPMVFACTOR", *unit, unit, NULL, 0, MATSPMV_TRI_MAX_UNIT));
  PetscCall(
    PetscOptionsEnum("-petscspmv_factor_trsv", "Triangular solves: exact, or approximated by block-Jacobi sweeps over units or by incomplete sparse approximate inverses", "MATSOLVERSPMVFACTOR", MatSpmvTrsvTypes, (PetscEnum)f->trsv, (PetscEnum *)&f->trsv, NULL));
  PetscCall(PetscOptionsBoundedInt("-petscspmv_factor_trsv_sweeps", "Block-Jacobi sweeps per triangle after the block-diagonal solve (-petscspmv_factor_trsv jacobi)", "MATSOLVERSPMVFACTOR", f->sweeps, &f->sweeps, NULL, 0));
  PetscCall(PetscOptionsEnum("-petscspmv_factor_numeric", "Where a factor on the GPU is computed: auto (the fastest measured), device (this package's kernel), cusparse (csrilu02: ILU(0)), or host (then uploaded)", "MATSOLVERSPMVFACTOR", MatSpmvNumericTypes,
                             (PetscEnum)f->numeric, (PetscEnum *)&f->numeric, NULL));
  PetscCall(PetscOptionsEnum("-petscspmv_factor_solve", "Where the factor of a matrix on the GPU lives: auto (the host where its dependency levels make the GPU's exact solve the slower), device, or host (numeric phase and solves)", "MATSOLVERSPMVFACTOR", MatSpmvSolvePlaces,
                             (PetscEnum)f->place, (PetscEnum *)&f->place, NULL));
  PetscOptionsEnd();
  PetscCheck(!(F->factortype == MAT_FACTOR_ICC && f->trsv == MATSPMV_TRSV_ISAI), PETSC_COMM_SELF, PETSC_ERR_SUP, "-petscspmv_factor_trsv isai is for ILU: the approximate inverses of L and of U = D L^T are not each other's transposes, and CG needs a symmetric preconditioner; use -petscspmv_factor_trsv jacobi with ICC");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvFactorGetFallback(Mat F, MatSpmvFactorFallbackFn *fallback)
{
  PetscFunctionBegin;
  *fallback = NULL;
  PetscCall(PetscObjectQueryFunction((PetscObject)F, "MatSpmvFactorFallback_C", fallback)); /* composed by the layer */
  PetscFunctionReturn(PETSC_SUCCESS);
}
