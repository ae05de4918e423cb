/*
  DMDA interpolation in the DM's matrix type. PETSc's DMDA builds its interpolation as the DM's
  matrix type only when that name begins with "aij", "seqaij" or "mpiaij" (dainterp.c's
  ConvertToAIJ()); for "-dm_mat_type brc" it is a host MATAIJ, so every PCMG level's interpolation
  and restriction ran on the host and moved the vectors across at each V-cycle (aijcusparse's
  interpolation, "aijcusparse" beginning with "aij", stays on the device); with several fields it is a
  MAIJ of that host AIJ, made explicit first. DMDA's creator is
  registered again under its own name (DMList keeps one entry per name): it calls PETSc's and wraps
  the new DM's createinterpolation, which converts a plain AIJ result to the DM's type when that is
  one of ours. -petscspmv_dm_interpolation 0 keeps PETSc's.
*/
#include "../spmvimpl.h"

PetscBool MatSpmvDMInterpolation = PETSC_TRUE; /* -petscspmv_dm_interpolation (read by the package) */
#include <petsc/private/dmimpl.h>
#include <petscdmda.h>

static PetscErrorCode (*MatSpmvDMDACreate)(DM)                                = NULL;
static PetscErrorCode (*MatSpmvDMDACreateInterpolation)(DM, DM, Mat *, Vec *) = NULL;

static PetscErrorCode DMCreateInterpolation_DA_Spmv(DM dac, DM daf, Mat *A, Vec *scale)
{
  MatSpmvFormat *fmt = NULL;
  PetscBool      plain, maij;

  PetscFunctionBegin;
  if (MatSpmvDMInterpolation && dac->mattype) PetscCall(MatSpmvFormatFind(dac->mattype, &fmt));
  if (!fmt) {
    PetscCall(MatSpmvDMDACreateInterpolation(dac, daf, A, scale));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* the restriction's scaling (a product with the interpolation's transpose) after the conversion:
     with the host AIJ its vectors would go to the host and back */
  PetscCall(MatSpmvDMDACreateInterpolation(dac, daf, A, NULL));
  /* Several fields: PETSc's MAIJ of a host AIJ, whose products read the inner matrix on the host and
     move the vectors across at every level. MatCreateMAIJ() makes it explicit on the device for
     aijcusparse ("until we have device implementations of MAIJ"); ours the same: an explicit AIJ of
     dof x the entries, then the DM's type */
  PetscCall(PetscObjectTypeCompareAny((PetscObject)*A, &maij, MATSEQMAIJ, MATMPIMAIJ, ""));
  if (maij) {
    PetscCall(PetscInfo(*A, "DMDA interpolation %" PetscInt_FMT " x %" PetscInt_FMT " of several fields (MAIJ) made explicit\n", (*A)->rmap->N, (*A)->cmap->N));
    PetscCall(MatConvert(*A, MATAIJ, MAT_INPLACE_MATRIX, A));
  }
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
