/*
  The registered formats (one line) and their names: finding a format by type name, and
  the converters composed under every name a user may give.
*/
#include "../spmvimpl.h"

/* The registered formats, in this order, on one line: F(<NAME>) for each format's table
   MatSpmvFormat_<NAME>, which its directory defines. A new format adds its F(<NAME>) here and
   nothing else outside its directory; scripts/formats.sh reads this line */
#define MATSPMV_FORMATS(F) F(BRC) F(CMRS) F(ARGCSR) F(IPCSR) F(ELLR) F(SPMV)

#define MATSPMV_FORMAT_DECLARE(NAME) PETSC_INTERN MatSpmvFormat MatSpmvFormat_##NAME;
#define MATSPMV_FORMAT_ADDRESS(NAME) &MatSpmvFormat_##NAME,
MATSPMV_FORMATS(MATSPMV_FORMAT_DECLARE)
static MatSpmvFormat *const MatSpmvFormats[] = {MATSPMV_FORMATS(MATSPMV_FORMAT_ADDRESS)};

const char *const MatSpmvBackends[]     = {"auto", "cuda", "host", "MatSpmvBackend", "MAT_SPMV_BACKEND_", NULL};
const char *const MatSpmvColumnOrders[] = {"auto", "natural", "frequency", "rcm", "MatSpmvColumnOrder", "MAT_SPMV_COLUMN_ORDER_", NULL};

/* The format of a type name: root ("brc", "aijbrc"), sequential or parallel */
PetscErrorCode MatSpmvFormatFind(MatType type, MatSpmvFormat **format)
{
  PetscFunctionBegin;
  *format = NULL;
  for (size_t f = 0; f < PETSC_STATIC_ARRAY_LENGTH(MatSpmvFormats); f++) {
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
  *n       = (PetscInt)PETSC_STATIC_ARRAY_LENGTH(MatSpmvFormats);
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
