/*
  DMDA interpolation in the DM's matrix type. PETSc's DMDA builds its interpolation as the DM's
  matrix type only when that name begins with "aij", "seqaij" or "mpiaij" (dainterp.c's
  ConvertToAIJ()); for "-dm_mat_type brc" it is a host MATAIJ, so every PCMG level's interpolation
  and restriction ran on the host and moved the vectors across at each V-cycle (aijcusparse's
  interpolation, "aijcusparse" beginning with "aij", stays on the device). DMDA's creator is
  registered again under its own name (DMList keeps one entry per name): it calls PETSc's and wraps
  the new DM's createinterpolation, which converts a plain AIJ result to the DM's type when that is
  one of ours. -petscspmv_dm_interpolation 0 keeps PETSc's.
*/
#include "../spmvimpl.h"
#include <petsc/private/dmimpl.h>
#include <petscdmda.h>

static PetscErrorCode (*MatSpmvDMDACreate)(DM)                                = NULL;
static PetscErrorCode (*MatSpmvDMDACreateInterpolation)(DM, DM, Mat *, Vec *) = NULL;

static PetscErrorCode DMCreateInterpolation_DA_Spmv(DM dac, DM daf, Mat *A, Vec *scale)
{
  MatSpmvFormat *fmt = NULL;
  PetscBool      plain;

  PetscFunctionBegin;
  if (MatSpmvDMInterpolation && dac->mattype) PetscCall(MatSpmvFormatFind(dac->mattype, &fmt));
  if (!fmt) {
    PetscCall(MatSpmvDMDACreateInterpolation(dac, daf, A, scale));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* the restriction's scaling (a product with the interpolation's transpose) after the conversion:
     with the host AIJ its vectors would go to the host and back */
  PetscCall(MatSpmvDMDACreateInterpolation(dac, daf, A, NULL));
  /* MAIJ (several fields) keeps PETSc's: its products read the inner matrix on the host for every type */
  PetscCall(PetscObjectTypeCompareAny((PetscObject)*A, &plain, MATSEQAIJ, MATMPIAIJ, ""));
  if (plain) {
    PetscCall(PetscInfo(*A, "DMDA interpolation %" PetscInt_FMT " x %" PetscInt_FMT " made %s, the DM's matrix type (PETSc's DMDA leaves types not named aij* as host AIJ)\n", (*A)->rmap->N, (*A)->cmap->N, dac->mattype));
    PetscCall(MatConvert(*A, dac->mattype, MAT_INPLACE_MATRIX, A));
  }
  if (scale) PetscCall(DMCreateInterpolationScale(dac, daf, *A, scale));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DMCreate_DA_Spmv(DM da)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvDMDACreate(da));
  MatSpmvDMDACreateInterpolation = da->ops->createinterpolation;
  da->ops->createinterpolation   = DMCreateInterpolation_DA_Spmv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* DMDA's creator replaced by ours, which calls the one registered before (PETSc's DM types are
   registered first, so that ours stays) */
PetscErrorCode MatSpmvRegisterDMDA(void)
{
  PetscErrorCode (*create)(DM) = NULL;

  PetscFunctionBegin;
  PetscCall(DMInitializePackage());
  PetscCall(PetscFunctionListFind(DMList, DMDA, &create));
  if (!create || create == DMCreate_DA_Spmv) PetscFunctionReturn(PETSC_SUCCESS);
  MatSpmvDMDACreate = create;
  PetscCall(DMRegister(DMDA, DMCreate_DA_Spmv));
  PetscFunctionReturn(PETSC_SUCCESS);
}
