/*
  The bottom of the PETSc side of the layer: the functions of the base types (SeqAIJ, MPIAIJ and their
  aijcusparse types) that our types override and chain to, saved from pristine matrices, and whether
  new matrices are built on aijcusparse.
*/
#include "../spmvimpl.h"

MatSpmvBaseOps   MatSpmvBaseSeq, MatSpmvBaseMPI, MatSpmvBaseSeqCUSPARSE, MatSpmvBaseMPICUSPARSE;
static PetscBool MatSpmvBaseSaved[4];

PetscErrorCode MatSpmvUseCUSPARSEBase(PetscBool *use)
{
  PetscFunctionBegin;
  *use = PETSC_FALSE;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDAAvailable(use));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A^T x + z by aijcusparse's MatMultTransposeAdd() (or its Hermitian one), which keeps y's old
   contents where y is not z (docs/limits.md): run in place */
PetscErrorCode MatSpmvCUSPARSEMultTransposeAdd(PetscErrorCode (*multtransposeadd)(Mat, Vec, Vec, Vec), Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  if (z != y) PetscCall(VecCopy(z, y));
  PetscCall((*multtransposeadd)(A, x, y, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* aijcusparse's products read and write their vectors as device arrays: with a host vector for x,
   z or y (on 2 processes any of them) they return a wrong y without an error (docs/limits.md) */
PetscErrorCode MatSpmvCUSPARSETakesVecs(Vec x, Vec z, Vec y, PetscBool *takes)
{
  const Vec v[3] = {x, z, y};

  PetscFunctionBegin;
  *takes = PETSC_TRUE;
  for (int k = 0; k < 3; k++) {
    PetscBool cuda;

    if (!v[k]) continue;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)v[k], &cuda, VECSEQCUDA, VECMPICUDA, ""));
    if (!cuda) *takes = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Functions of a pristine base matrix, saved the first time one is converted */
PetscErrorCode MatSpmvSaveBaseOps(Mat A)
{
  const char *const names[4] = {MATSEQAIJ, MATMPIAIJ, MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE};
  MatSpmvBaseOps   *bases[4] = {&MatSpmvBaseSeq, &MatSpmvBaseMPI, &MatSpmvBaseSeqCUSPARSE, &MatSpmvBaseMPICUSPARSE};
  int               k;
  PetscBool         match = PETSC_FALSE, seq;

  PetscFunctionBegin;
  for (k = 0; k < 4 && !match; k++) PetscCall(PetscObjectTypeCompare((PetscObject)A, names[k], &match));
  PetscCheck(match, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Base functions come from MATSEQAIJ, MATMPIAIJ or their aijcusparse types, not %s", ((PetscObject)A)->type_name);
  k--;
  if (MatSpmvBaseSaved[k]) PetscFunctionReturn(PETSC_SUCCESS);
  seq = (PetscBool)(k % 2 == 0);
  {
    MatSpmvBaseOps *b = bases[k];

    b->cusparse              = (PetscBool)(k >= 2);
    b->bindtocpu             = A->ops->bindtocpu;
    b->productsetfromoptions = A->ops->productsetfromoptions;
    b->mult                  = A->ops->mult;
    b->multadd               = A->ops->multadd;
    b->multtranspose         = A->ops->multtranspose;
    b->multtransposeadd      = A->ops->multtransposeadd;
    b->destroy               = A->ops->destroy;
    b->duplicate             = A->ops->duplicate;
    b->setfromoptions        = A->ops->setfromoptions;
    b->view                  = A->ops->view;
    b->assemblyend           = A->ops->assemblyend;
    b->scale                 = A->ops->scale;
    b->shift                 = A->ops->shift;
    b->diagonalscale         = A->ops->diagonalscale;
    b->eliminatezeros        = A->ops->eliminatezeros;
    b->transpose             = A->ops->transpose;
    b->creategraph           = A->ops->creategraph;
    b->getdiagonal           = A->ops->getdiagonal;
    b->axpy                  = A->ops->axpy;
    b->sor                   = A->ops->sor;
    if (seq) {
      PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatRetrieveValues_C", &b->retrievevalues));
      PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatStoreValues_C", &b->storevalues));
    } else {
      PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatMPIAIJSetPreallocation_C", &b->preallocation));
      PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatSetPreallocationCOO_C", &b->setpreallocationcoo));
      PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatMPIAIJGetLocalMatMerge_C", &b->getlocalmatmerge));
    }
  }
  MatSpmvBaseSaved[k] = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SeqAIJ's functions, saved from a pristine MATSEQAIJ made for the purpose when no matrix was
   converted from one yet (on a GPU machine our matrices start from aijcusparse) */
PetscErrorCode MatSpmvGetBaseSeq(MatSpmvBaseOps **base)
{
  PetscFunctionBegin;
  if (!MatSpmvBaseSaved[0]) {
    Mat A;

    PetscCall(MatCreate(PETSC_COMM_SELF, &A));
    PetscCall(MatSetType(A, MATSEQAIJ));
    PetscCall(MatSpmvSaveBaseOps(A));
    PetscCall(MatDestroy(&A));
  }
  *base = &MatSpmvBaseSeq;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PetscFinalize(): the next initialization saves them again */
PetscErrorCode MatSpmvForgetBaseOps(void)
{
  PetscFunctionBegin;
  PetscCall(PetscArrayzero(MatSpmvBaseSaved, 4));
  PetscFunctionReturn(PETSC_SUCCESS);
}
