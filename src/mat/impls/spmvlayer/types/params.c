/*
  A format's parameters inside any petscspmv matrix, for the formats' setters (through the methods
  the types compose), and the options every type reads.
*/
#include "../spmvimpl.h"

PetscInt MatSpmvLayoutMinProducts = MATSPMV_LAYOUT_MIN_PRODUCTS; /* -petscspmv_layout_min_products (read by the package) */

PetscErrorCode MatSpmvGetParams_Private(Mat A, MatSpmvFormat **format, void **params)
{
  PetscFunctionBegin;
  MatSpmvUseMethod(A, "MatSpmvGetParams_C", (Mat, MatSpmvFormat **, void **), (A, format, params));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvParamsChanged_Private(Mat A)
{
  PetscFunctionBegin;
  MatSpmvUseMethod(A, "MatSpmvParamsChanged_C", (Mat), (A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The parameters of format fmt in A: A's own when A is of that format, fmt's share of them when
   A's type selects among the formats (spmv); for the formats' public setters */
PetscErrorCode MatSpmvGetFormatParams_Private(Mat A, MatSpmvFormat *fmt, void **params)
{
  MatSpmvFormat *f;
  MatType        t;

  PetscFunctionBegin;
  PetscCall(MatSpmvGetParams_Private(A, &f, params));
  PetscCall(MatGetType(A, &t));
  PetscCheck(f == fmt || f->subparams, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Matrix of type %s is not %s: set its type with MatSetType() or -mat_type %s", t, fmt->seqtype, fmt->name);
  if (f != fmt) PetscCall(f->subparams(*params, fmt, params));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Store one integer parameter of fmt's parameters (range-checked by the caller) and drop the
   layouts built with the old value; for the formats' public setters */
PetscErrorCode MatSpmvSetParam_Private(Mat A, MatSpmvFormat *fmt, size_t offset, PetscInt value)
{
  void *p;

  PetscFunctionBegin;
  PetscCall(MatSpmvGetFormatParams_Private(A, fmt, &p));
  *(PetscInt *)((char *)p + offset) = value;
  PetscCall(MatSpmvParamsChanged_Private(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvParseOptions(MatSpmvFormat *fmt, PetscOptionItems PetscOptionsObject, MatSpmvBackend *backend, MatSpmvColumnOrder *colorder, void *params, PetscBool *changed)
{
  char           opt[64];
  void          *parsed;
  PetscBool      same;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-mat_%s_backend", fmt->name));
  PetscCall(PetscOptionsEnum(opt, "Where products run: auto (GPU if visible), cuda, host (reference kernel)", "MatSpmvSetBackend", MatSpmvBackends, (PetscEnum)*backend, (PetscEnum *)backend, NULL));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-mat_%s_column_order", fmt->name));
  PetscCall(PetscOptionsEnum(opt, "Column numbering of the layouts: auto (frequency where a few columns hold many nonzeros, RCM where rows spread over many columns), natural, frequency, rcm", "MatSpmvSetColumnOrder", MatSpmvColumnOrders, (PetscEnum)*colorder, (PetscEnum *)colorder, NULL));
  PetscCall(PetscMalloc(fmt->paramsize, &parsed));
  PetscCall(PetscMemcpy(parsed, params, fmt->paramsize));
  ierr = fmt->setfromoptions(PetscOptionsObject, parsed);
  if (ierr) { /* a rejected value: the copy goes, params stay as they were */
    PetscCall(PetscFree(parsed));
    PetscCall(ierr);
  }
  PetscCall(PetscMemcmp(parsed, params, fmt->paramsize, &same));
  if (!same) PetscCall(PetscMemcpy(params, parsed, fmt->paramsize));
  PetscCall(PetscFree(parsed));
  *changed = (PetscBool)!same;
  PetscFunctionReturn(PETSC_SUCCESS);
}
