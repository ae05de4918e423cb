/*
  What the package registered into the layer: the formats (src/mat/interface/package.c holds their
  one line) and the device operations above the layer (MatSpmvDeviceOperations); finding a format by
  type name, and the converters composed under every name a user may give.
*/
#include "../spmvimpl.h"

#define MATSPMV_MAX_FORMATS 16
static MatSpmvFormat *MatSpmvFormats[MATSPMV_MAX_FORMATS];
static PetscInt       MatSpmvNFormats = 0;

MatSpmvDeviceOps MatSpmvDeviceOperations = {NULL, NULL, NULL, NULL};
PetscBool        MatSpmvFormatOnly       = PETSC_FALSE;

/* A format's table, in registration order (the selecting type tries them so); once per table */
PetscErrorCode MatSpmvFormatRegister(MatSpmvFormat *format)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCheck(sizeof(struct _n_MatSpmvLayout) == MatSpmvCUDALayoutBytes(), PETSC_COMM_SELF, PETSC_ERR_LIB, "The layout struct has %zu bytes in C and %zu in CUDA: a PetscScalar member must be a MatSpmvScalar (spmvformat.h)", sizeof(struct _n_MatSpmvLayout), MatSpmvCUDALayoutBytes());
#endif
  for (PetscInt f = 0; f < MatSpmvNFormats; f++)
    if (MatSpmvFormats[f] == format) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(MatSpmvNFormats < MATSPMV_MAX_FORMATS, PETSC_COMM_SELF, PETSC_ERR_SUP, "More than %d formats registered: raise MATSPMV_MAX_FORMATS in formats.c", MATSPMV_MAX_FORMATS);
  MatSpmvFormats[MatSpmvNFormats++] = format;
  PetscFunctionReturn(PETSC_SUCCESS);
}

const char *const MatSpmvBackends[]     = {"auto", "cuda", "host", "MatSpmvBackend", "MAT_SPMV_BACKEND_", NULL};
const char *const MatSpmvColumnOrders[] = {"auto", "natural", "frequency", "rcm", "MatSpmvColumnOrder", "MAT_SPMV_COLUMN_ORDER_", NULL};

/* The format of a type name: root ("brc", "aijbrc"), sequential or parallel */
PetscErrorCode MatSpmvFormatFind(MatType type, MatSpmvFormat **format)
{
  PetscFunctionBegin;
  *format = NULL;
  for (PetscInt f = 0; f < MatSpmvNFormats; f++) {
    MatSpmvFormat *fmt = MatSpmvFormats[f];
    PetscBool      match;

    PetscCall(PetscStrcmpAny(type, &match, fmt->name, fmt->aijname, fmt->seqtype, fmt->mpitype, ""));
    if (match) *format = fmt;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvGetFormats(PetscInt *n, MatSpmvFormat *const **formats)
{
  PetscFunctionBegin;
  *n       = MatSpmvNFormats;
  *formats = MatSpmvFormats;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatConvert() finds converters composed on the source or the target: compose ours under every
   name a user may ask for (root, aij root, concrete type), from and to AIJ and aijcusparse;
   NULL functions remove them */
PetscErrorCode MatSpmvComposeConverters(Mat B, MatSpmvFormat *f, PetscBool mpi, PetscErrorCode (*toBase)(Mat, MatType, MatReuse, Mat *), PetscErrorCode (*fromBase)(Mat, MatType, MatReuse, Mat *))
{
  const char *bases[2] = {mpi ? MATMPIAIJ : MATSEQAIJ, mpi ? MATMPIAIJCUSPARSE : MATSEQAIJCUSPARSE}, *ourtype = mpi ? f->mpitype : f->seqtype;
  char        name[128];

  PetscFunctionBegin;
  for (int b = 0; b < 2; b++) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_%s_C", ourtype, bases[b]));
    PetscCall(PetscObjectComposeFunction((PetscObject)B, name, toBase));
    for (int k = 0; k < 3; k++) {
      PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_%s_C", bases[b], k == 0 ? f->name : (k == 1 ? f->aijname : ourtype)));
      PetscCall(PetscObjectComposeFunction((PetscObject)B, name, fromBase));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
