/*
  The public API of the petscspmv types (include/petscspmv.h): each function checks its arguments and
  calls the method composed with the matrix by its type, seq.c or mpi.c.
*/
#include "../impls/spmvlayer/spmvimpl.h"

/*@
  MatSpmvSetBackend - chooses where the products of a petscspmv matrix run

  Logically Collective

  Input Parameters:
+ A       - a `MATBRC` (or other petscspmv) matrix
- backend - `MAT_SPMV_BACKEND_AUTO` (GPU when visible), `MAT_SPMV_BACKEND_CUDA` or `MAT_SPMV_BACKEND_HOST`

  Options Database Key:
. -mat_<format>_backend <auto,cuda,host> - for example `-mat_brc_backend host`

  Level: intermediate

.seealso: `MatSpmvGetBackend()`, `MatSpmvBackend`
@*/
PetscErrorCode MatSpmvSetBackend(Mat A, MatSpmvBackend backend)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(A, backend, 2);
  PetscCheck(backend >= MAT_SPMV_BACKEND_AUTO && backend <= MAT_SPMV_BACKEND_HOST, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown backend %d: use auto, cuda or host", (int)backend);
  MatSpmvUseMethod(A, "MatSpmvSetBackend_C", (Mat, MatSpmvBackend), (A, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatSpmvSetColumnOrder - chooses how a petscspmv matrix numbers the columns of its layouts

  Logically Collective

  Input Parameters:
+ A     - a petscspmv matrix
- order - `MAT_SPMV_COLUMN_ORDER_AUTO` (default), `MAT_SPMV_COLUMN_ORDER_NATURAL`, `MAT_SPMV_COLUMN_ORDER_FREQUENCY` or `MAT_SPMV_COLUMN_ORDER_RCM`

  Options Database Key:
. -mat_<format>_column_order <auto,natural,frequency,rcm> - for example `-mat_brc_column_order frequency`

  Level: intermediate

  Note:
  With the frequency order each product first gathers x into the layout's column order (one read
  and one write of x); it pays where a few columns hold many of the nonzeros, as in graphs with
  power-law degrees, whose products then read the x entries they share from fewer cache lines.
  auto takes it when the 1% most frequent columns of an operator with at least 262144 columns hold
  a quarter of its nonzeros or more, except for `MATIPCSR`, which was measured slower renumbered.

  With the rcm order the columns of a square operator follow a reverse Cuthill-McKee order of its
  graph (from a vertex of fewest entries in each component; the unknowns of a mesh node, rows with
  the same columns, kept together), so that neighbouring rows read nearby columns: `MATBRC` then keeps
  its column indices as 16-bit offsets in FEM operators whose DMPlex or partitioned numbering spreads
  them over more than 65536 columns. For `MATBRC` and `MATSPMV`, auto takes it when groups of 32 rows
  spanning 65536 columns or more hold over 5% of the nonzeros and RCM at least halves that share;
  the order is computed on the host when the layout is built (the first product, and again after a
  change of the nonzero pattern). A non-square operator (an MPI off-diagonal block) keeps its order.

  The choice is made per operator (A, A^T, each MPI block) when its layout is built;
  `-mat_view ::ascii_info` shows it.

.seealso: `MatSpmvGetColumnOrder()`, `MatSpmvColumnOrder`, `MatSpmvSetBackend()`
@*/
PetscErrorCode MatSpmvSetColumnOrder(Mat A, MatSpmvColumnOrder order)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(A, order, 2);
  PetscCheck(order >= MAT_SPMV_COLUMN_ORDER_AUTO && order <= MAT_SPMV_COLUMN_ORDER_RCM, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown column order %d: use auto, natural, frequency or rcm", (int)order);
  MatSpmvUseMethod(A, "MatSpmvSetColumnOrder_C", (Mat, MatSpmvColumnOrder), (A, order));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatSpmvGetColumnOrder - how a petscspmv matrix is asked to number the columns of its layouts

  Not Collective

  Input Parameter:
. A - a petscspmv matrix

  Output Parameter:
. order - as set by `MatSpmvSetColumnOrder()` or `-mat_<format>_column_order`

  Level: intermediate

.seealso: `MatSpmvSetColumnOrder()`
@*/
PetscErrorCode MatSpmvGetColumnOrder(Mat A, MatSpmvColumnOrder *order)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(order, 2);
  MatSpmvUseMethod(A, "MatSpmvGetColumnOrder_C", (Mat, MatSpmvColumnOrder *), (A, order));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatSpmvGetBackend - where the products of a petscspmv matrix are asked to run

  Not Collective

  Input Parameter:
. A - a petscspmv matrix

  Output Parameter:
. backend - the requested backend

  Level: intermediate

.seealso: `MatSpmvSetBackend()`
@*/
PetscErrorCode MatSpmvGetBackend(Mat A, MatSpmvBackend *backend)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  MatSpmvUseMethod(A, "MatSpmvGetBackend_C", (Mat, MatSpmvBackend *), (A, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatSpmvCheckLayout - checks the invariants of the format layouts of A and A^T against the CSR
  master copy: every nonzero stored exactly once at its row and column with its current value,
  padding slots zero. Errors with `PETSC_ERR_PLIB` on a violation. Meant for tests.

  Collective

  Input Parameter:
. A - an assembled petscspmv matrix

  Level: developer

.seealso: `MATBRC`
@*/
PetscErrorCode MatSpmvCheckLayout(Mat A)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  MatSpmvUseMethod(A, "MatSpmvCheckLayout_C", (Mat), (A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatSpmvGetStorage - the storage of a petscspmv matrix's format layout (of A, not A^T)

  Collective

  Input Parameter:
. A - an assembled petscspmv matrix

  Output Parameters:
+ nslots - value slots, padding included (local)
- bytes  - bytes of values and index arrays (local)

  Level: intermediate

.seealso: `MATBRC`
@*/
PetscErrorCode MatSpmvGetStorage(Mat A, PetscInt *nslots, PetscLogDouble *bytes)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  MatSpmvUseMethod(A, "MatSpmvGetStorage_C", (Mat, PetscInt *, PetscLogDouble *), (A, nslots, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}
