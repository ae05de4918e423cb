/*
  MatSOR() on the device (see spmvsorimpl.h): which calls the device takes, the plan of a nonzero
  pattern (units, their dependency levels and orders), idiag for the values, and the sweeps of a call
  in PETSc's order. What the device does not take runs PETSc's host MatSOR_SeqAIJ(), said once with
  -info: SOR_EISENSTAT, SOR_APPLY_UPPER/LOWER, a matrix bound to the CPU or without a GPU,
  -mat_sor_device 0.
*/
#include "spmvsorimpl.h"

static const char MATSPMV_SOR_DATA[] = "MatSpmvSORData";

/* PETSc's host MatSOR of the matrices we take over (MatSOR_SeqAIJ(): aijcusparse keeps SeqAIJ's), and MPIAIJ's */
static PetscErrorCode (*MatSpmvSORBase)(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec)    = NULL;
static PetscErrorCode (*MatSpmvSORBaseMPI)(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec) = NULL;

static PetscErrorCode MatSpmvSORDataDestroy(PetscCtxRt ctx)
{
  Mat_SpmvSOR *sor = *(Mat_SpmvSOR **)ctx;

  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDASORDestroy(sor));
#endif
  PetscCall(PetscFree(sor));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A's SOR data, made at its first call (a MatDuplicate() copies the function, not the data) */
static PetscErrorCode MatSpmvSORGetData(Mat A, Mat_SpmvSOR **sor)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)A, MATSPMV_SOR_DATA, (PetscCtxRt)sor));
  if (!*sor) {
    PetscCall(PetscNew(sor));
    (*sor)->device = PETSC_TRUE;
    PetscCall(PetscObjectContainerCompose((PetscObject)A, MATSPMV_SOR_DATA, *sor, MatSpmvSORDataDestroy));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Units of at most `unit` consecutive rows, a new one also at each row that does not depend on the row
   before it (no entry in that column): a grid line's first row. Units then line up from one grid
   line to the next whatever the line's length (1025 points: units of 8 cut blindly would straddle the
   lines and chain every unit to the one before it). start[] has room for n + 1 */
static PetscErrorCode MatSpmvSORUnits(PetscInt n, const PetscInt *ai, const PetscInt *aj, PetscInt unit, PetscInt *start, PetscInt *nunits)
{
  PetscFunctionBegin;
  *nunits = 0;
  for (PetscInt r = 0; r < n; r++) {
    PetscBool follows = PETSC_FALSE; /* row r has column r - 1 */

    for (PetscInt p = ai[r]; p < ai[r + 1] && aj[p] <= r - 1 && !follows; p++) follows = (PetscBool)(aj[p] == r - 1);
    if (!*nunits || r - start[*nunits - 1] == unit || !follows) start[(*nunits)++] = r;
  }
  start[*nunits] = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the level of each unit: 1 + the highest level of the units its entries before the unit (backward:
   after it) point to; stops once a level passes limit */
static PetscErrorCode MatSpmvSORLevels(PetscInt n, const PetscInt *ai, const PetscInt *aj, PetscInt nunits, const PetscInt *start, PetscBool backward, PetscInt limit, PetscInt *level, PetscInt *nlevels)
{
  PetscInt *rowlevel;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, &rowlevel));
  *nlevels = 0;
  for (PetscInt v = 0; v < nunits; v++) {
    const PetscInt u = backward ? nunits - 1 - v : v, r0 = start[u], r1 = start[u + 1];
    PetscInt       l = 0;

    for (PetscInt r = r0; r < r1; r++)
      for (PetscInt p = ai[r]; p < ai[r + 1]; p++)
        if (backward ? aj[p] >= r1 : aj[p] < r0) l = PetscMax(l, rowlevel[aj[p]]);
    level[u] = l + 1;
    for (PetscInt r = r0; r < r1; r++) rowlevel[r] = l + 1;
    *nlevels = PetscMax(*nlevels, l + 1);
    if (*nlevels > limit) break;
  }
  PetscCall(PetscFree(rowlevel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rows per unit at most 8, 4, 2 or 1 (G = 32 / unit lanes a row, a power of two for the reductions),
   by MATSOLVERSPMVFACTOR's cost model of its solves, which run the same way (MATSPMV_UNIT_ENTRIES). A grid
   line's rows fold into few units: on a 2D Laplacian of 1025^2, 8-row units take 1153 levels, single
   rows 2049 */
static PetscErrorCode MatSpmvSORChooseUnit(PetscInt n, const PetscInt *ai, const PetscInt *aj, PetscInt *start, PetscInt *unit)
{
  const PetscInt candidates[4] = {8, 4, 2, 1};
  PetscReal      best = PETSC_MAX_REAL, lower = 0;
  PetscInt      *level;

  PetscFunctionBegin;
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt p = ai[r]; p < ai[r + 1] && aj[p] < r; p++) lower++;
  if (n) lower /= (PetscReal)n;
  PetscCall(PetscMalloc1(n, &level));
  *unit = 1;
  for (int k = 0; k < 4; k++) {
    const PetscInt  c      = candidates[k];
    const PetscReal factor = 1.0 + (PetscReal)(c - 1) * lower / MATSPMV_UNIT_ENTRIES;
    const PetscInt  limit  = best < PETSC_MAX_REAL ? (PetscInt)PetscMin((PetscReal)PETSC_INT_MAX, best / factor) + 1 : PETSC_INT_MAX;
    PetscInt        nunits, nlevels;

    PetscCall(MatSpmvSORUnits(n, ai, aj, c, start, &nunits));
    PetscCall(MatSpmvSORLevels(n, ai, aj, nunits, start, PETSC_FALSE, limit, level, &nlevels));
    if ((PetscReal)nlevels * factor < best) {
      best  = (PetscReal)nlevels * factor;
      *unit = c;
    }
  }
  PetscCall(PetscFree(level));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the plan of A's nonzero pattern: every diagonal entry present (as PETSc's SOR requires), the units, the orders */
static PetscErrorCode MatSpmvSORPlan(Mat A, Mat_SpmvSOR *sor)
{
  const PetscInt *ai, *aj;
  PetscInt        n, *level, *order[2], *start;
  PetscBool       done;

  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDASORDestroy(sor));
#endif
  sor->planned  = PETSC_FALSE;
  sor->idiagset = PETSC_FALSE;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSOR() on the device needs the matrix's rows (MatGetRowIJ())");
  for (PetscInt r = 0; r < n; r++) {
    PetscBool found = PETSC_FALSE;

    for (PetscInt p = ai[r]; p < ai[r + 1] && !found; p++) found = (PetscBool)(aj[p] == r);
    PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Matrix must have all diagonal locations to invert them: row %" PetscInt_FMT " has no diagonal entry; insert one (a zero with a diagonal shift) before MatSOR()", r);
  }
  sor->n   = n;
  sor->nnz = ai[n];
  PetscCall(PetscMalloc4(n + 1, &start, PetscMax(n, 1), &level, PetscMax(n, 1), &order[0], PetscMax(n, 1), &order[1]));
  if (sor->unitopt) sor->unit = sor->unitopt;
  else PetscCall(MatSpmvSORChooseUnit(n, ai, aj, start, &sor->unit));
  PetscCall(MatSpmvSORUnits(n, ai, aj, sor->unit, start, &sor->nunits));
  for (int k = 0; k < 2; k++) {
    PetscCall(MatSpmvSORLevels(n, ai, aj, sor->nunits, start, (PetscBool)k, PETSC_INT_MAX, level, &sor->levels[k]));
    PetscCall(MatSpmvUnitsByLevel(sor->nunits, (PetscBool)k, level, sor->levels[k], order[k]));
  }
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDASORCreate(sor, start, order[0], order[1]));
#endif
  PetscCall(PetscFree4(start, level, order[0], order[1]));
  PetscCall(MatGetNonzeroState(A, &sor->nonzerostate));
  sor->planned = PETSC_TRUE;
  PetscCall(PetscInfo(A, "SOR on the device: %" PetscInt_FMT " rows in %" PetscInt_FMT " units of at most %" PetscInt_FMT ", %" PetscInt_FMT " levels forward, %" PetscInt_FMT " backward\n", sor->n, sor->nunits, sor->unit, sor->levels[0], sor->levels[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mat_sor_device, -mat_sor_unit under A's prefix, at A's first MatSOR() (listed by -help then: a block
   of its own title, since PetscObjectOptionsBegin() prints nothing for a matrix whose options
   MatSetFromOptions() already printed) */
static PetscErrorCode MatSpmvSORReadOptions(Mat A, Mat_SpmvSOR *sor)
{
  PetscInt unit = 0;

  PetscFunctionBegin;
  if (sor->optionsread) PetscFunctionReturn(PETSC_SUCCESS);
  sor->optionsread = PETSC_TRUE;
  PetscOptionsBegin(PetscObjectComm((PetscObject)A), ((PetscObject)A)->prefix, "MatSOR() on the GPU (petscspmv)", "Mat");
  PetscCall(PetscOptionsBool("-mat_sor_device", "Sweep on the GPU (false: PETSc's host SOR)", "MatSOR", sor->device, &sor->device, NULL));
  PetscCall(PetscOptionsInt("-mat_sor_unit", "Most consecutive rows a warp sweeps as one unit: 1, 2, 4 or 8 (0: chosen per nonzero pattern)", "MatSOR", unit, &unit, NULL));
  PetscOptionsEnd();
  PetscCheck(unit == 0 || unit == 1 || unit == 2 || unit == 4 || unit == 8, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_sor_unit %" PetscInt_FMT ": give 1, 2, 4 or 8 rows per unit, or 0 to let the sweeps choose", unit);
  sor->unitopt = unit;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* idiag for A's values, omega and fshift; *zerorow: a zero diagonal MatSOR_SeqAIJ() refuses (no shift), else -1 */
static PetscErrorCode MatSpmvSORDiagonal(Mat A, Mat_SpmvSOR *sor, const MatSpmvDeviceCSR *csr, PetscReal omega, PetscScalar fshift, PetscInt *zerorow, void *stream)
{
  PetscObjectState state;

  PetscFunctionBegin;
  *zerorow = -1;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (sor->idiagset && state == sor->valuestate && omega == sor->omega && fshift == sor->fshift) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvCUDASORDiagonal(sor, csr, omega, fshift, zerorow, stream));
  if (*zerorow >= 0) {
    if (PetscRealPart(fshift) == 0.0) PetscFunctionReturn(PETSC_SUCCESS); /* refused: idiag stays unset */
    PetscCall(PetscInfo(A, "Zero diagonal on row %" PetscInt_FMT "\n", *zerorow));
    A->factorerrortype             = MAT_FACTOR_NUMERIC_ZEROPIVOT;
    A->factorerror_zeropivot_value = 0.0;
    A->factorerror_zeropivot_row   = *zerorow;
    *zerorow                       = -1;
  }
  sor->valuestate = state;
  sor->omega      = omega;
  sor->fshift     = fshift;
  sor->idiagset   = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a vector's local values on the device: its own device array, or a copy of its host one in stage (when read) */
static PetscErrorCode MatSpmvSORVecGet(Vec v, PetscBool read, PetscBool write, PetscScalar **stage, PetscInt n, const PetscScalar **host, PetscScalar **d_v, void *stream)
{
  PetscMemType mtype;
  PetscScalar *array;

  PetscFunctionBegin;
  if (write) PetscCall(VecGetArrayAndMemType(v, &array, &mtype));
  else PetscCall(VecGetArrayReadAndMemType(v, (const PetscScalar **)&array, &mtype));
  *host = NULL;
  if (PetscMemTypeDevice(mtype)) *d_v = array;
  else {
    if (!*stage) PetscCall(MatSpmvCUDAMalloc((void **)stage, PetscMax(n, 1) * sizeof(PetscScalar)));
    if (read && n) {
      PetscCall(MatSpmvCUDACopyToDevice(*stage, array, n * sizeof(PetscScalar), stream));
      PetscCall(PetscLogCpuToGpu(n * sizeof(PetscScalar)));
    }
    *host = array;
    *d_v  = *stage;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The sweeps of one call, in PETSc's order: its x lits iterations, each a forward and/or backward
   sweep, the first from a zero x where asked. Sweeps alternate between x and the work buffer; the
   first sweep of a zero guess writes where the last will end in x. */
static PetscErrorCode MatSpmvSORSweeps(Mat A, Mat_SpmvSOR *sor, Vec bb, PetscReal omega, MatSORType flag, PetscReal fshift, PetscInt its, Vec xx)
{
  const PetscBool    forward  = (PetscBool)((flag & SOR_FORWARD_SWEEP) || (flag & SOR_LOCAL_FORWARD_SWEEP));
  const PetscBool    backward = (PetscBool)((flag & SOR_BACKWARD_SWEEP) || (flag & SOR_LOCAL_BACKWARD_SWEEP));
  const PetscBool    zero     = (PetscBool)((flag & SOR_ZERO_INITIAL_GUESS) != 0);
  const PetscInt     nsweeps = its * ((forward ? 1 : 0) + (backward ? 1 : 0)), n = A->rmap->n;
  const PetscScalar *d_b, *bhost, *xhost;
  PetscScalar       *d_x, *cur, *out;
  MatSpmvDeviceCSR   csr = {n, A->cmap->n, sor->nnz, NULL, NULL, NULL};
  void              *stream;
  PetscInt           zerorow;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAGetStream(&stream));
  PetscCall(MatSpmvCUSPARSEGetIJ(A, &csr.i, &csr.j));
  PetscCall(MatSpmvCUSPARSEGetValues(A, &csr.a));
  PetscCall(MatSpmvSORDiagonal(A, sor, &csr, omega, (PetscScalar)fshift, &zerorow, stream));
  if (zerorow >= 0) {
    PetscCall(MatSpmvCUSPARSERestoreValues(A, &csr.a));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Zero diagonal on row %" PetscInt_FMT ": SOR divides by it; shift the diagonal (-pc_sor_diagonal_shift, PCSORSetDiagonalShift()) or use another smoother", zerorow);
  }
  PetscCall(MatSpmvSORVecGet(bb, PETSC_TRUE, PETSC_FALSE, &sor->stage[0], n, &bhost, (PetscScalar **)&d_b, stream));
  PetscCall(MatSpmvSORVecGet(xx, (PetscBool)!zero, PETSC_TRUE, &sor->stage[1], n, &xhost, &d_x, stream));
  PetscCall(PetscLogGpuTimeBegin());
  cur = zero ? NULL : d_x;
  for (PetscInt it = 0; it < its; it++) {
    for (int dir = 0; dir < 2; dir++) {
      if (!(dir ? backward : forward)) continue;
      if (!cur) out = nsweeps % 2 ? d_x : sor->work;
      else out = cur == d_x ? sor->work : d_x;
      PetscCall(MatSpmvCUDASORSweep(sor, &csr, (PetscBool)dir, d_b, cur, out, stream));
      cur = out;
    }
  }
  if (cur && cur != d_x) PetscCall(MatSpmvCUDACopyOnDevice(d_x, cur, n * sizeof(PetscScalar), stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * (PetscLogDouble)sor->nnz * (PetscLogDouble)nsweeps));
  if (xhost) {
    PetscCall(MatSpmvCUDACopyToHost((void *)xhost, d_x, n * sizeof(PetscScalar), stream));
    PetscCall(PetscLogGpuToCpu(n * sizeof(PetscScalar)));
    PetscCall(VecRestoreArrayAndMemType(xx, (PetscScalar **)&xhost));
  } else PetscCall(VecRestoreArrayAndMemType(xx, &d_x));
  if (bhost) PetscCall(VecRestoreArrayReadAndMemType(bb, &bhost));
  else PetscCall(VecRestoreArrayReadAndMemType(bb, &d_b));
  PetscCall(MatSpmvCUSPARSERestoreValues(A, &csr.a));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode MatSOR_SpmvDevice(Mat A, Vec bb, PetscReal omega, MatSORType flag, PetscReal fshift, PetscInt its, PetscInt lits, Vec xx)
{
  Mat_SpmvSOR     *sor;
  PetscBool        device = PETSC_FALSE, sweeps;
  PetscObjectState nonzerostate;
  const char      *why = NULL;

  PetscFunctionBegin;
  PetscCall(MatSpmvSORGetData(A, &sor));
  PetscCall(MatSpmvSORReadOptions(A, sor));
  PetscCall(MatSpmvDeviceCSRUsable(A, &device));
  sweeps = (PetscBool)((flag & (SOR_FORWARD_SWEEP | SOR_BACKWARD_SWEEP | SOR_LOCAL_FORWARD_SWEEP | SOR_LOCAL_BACKWARD_SWEEP)) != 0);
  if (!sor->device) why = "-mat_sor_device 0";
  else if (!device) why = "the matrix's values are not on a GPU (bound to the CPU, no GPU, or 64-bit indices)";
  else if (flag == SOR_APPLY_UPPER || flag == SOR_APPLY_LOWER) why = "SOR_APPLY_UPPER/LOWER";
  else if (flag & SOR_EISENSTAT) why = "SOR_EISENSTAT";
  else if (!sweeps) why = "no sweep asked for";
  else if (A->rmap->n != A->cmap->n) why = "a matrix that is not square";
  if (why) {
    if (!sor->saidhost) PetscCall(PetscInfo(A, "MatSOR() by PETSc's host code: %s\n", why));
    sor->saidhost = PETSC_TRUE;
    PetscCheck(MatSpmvSORBase, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Lost PETSc's MatSOR()");
    PetscCall((*MatSpmvSORBase)(A, bb, omega, flag, fshift, its, lits, xx));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(bb != xx, PETSC_COMM_SELF, PETSC_ERR_ARG_IDN, "MatSOR() needs b and x to be different vectors");
  PetscCall(MatGetNonzeroState(A, &nonzerostate));
  if (!sor->planned || nonzerostate != sor->nonzerostate || sor->n != A->rmap->n) PetscCall(MatSpmvSORPlan(A, sor));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvSORSweeps(A, sor, bb, omega, flag, fshift, its * lits, xx));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvSetSOROps(Mat A, PetscErrorCode (*base)(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec))
{
  PetscFunctionBegin;
  if (!base || base == MatSOR_SpmvDevice) PetscFunctionReturn(PETSC_SUCCESS);
  MatSpmvSORBase = base;
  A->ops->sor    = MatSOR_SpmvDevice;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MPIAIJ's MatSOR() hands the off-diagonal block its (device) ghost vector with the caller's b: with
   host vectors aijcusparse's MatMultAdd() then writes a device copy the host b - B x never reads, and
   the sweeps after the first are wrong (MPIAIJCUSPARSE's too: docs/limits.md). Host vectors are
   staged through CUDA vectors kept with A; a matrix bound to the CPU runs MPIAIJ's as it is */
static PetscErrorCode MatSOR_MPISpmvDevice(Mat A, Vec bb, PetscReal omega, MatSORType flag, PetscReal fshift, PetscInt its, PetscInt lits, Vec xx)
{
  PetscBool bcuda, xcuda;
  Vec       w[2];

  PetscFunctionBegin;
  PetscCheck(MatSpmvSORBaseMPI, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Lost MPIAIJ's MatSOR()");
  PetscCall(PetscObjectTypeCompareAny((PetscObject)bb, &bcuda, VECMPICUDA, VECSEQCUDA, ""));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)xx, &xcuda, VECMPICUDA, VECSEQCUDA, ""));
  if ((bcuda && xcuda) || A->boundtocpu) {
    PetscCall((*MatSpmvSORBaseMPI)(A, bb, omega, flag, fshift, its, lits, xx));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSpmvGetDeviceWorkVec(A, "MatSpmvSORWorkB", A->rmap, &w[0]));
  PetscCall(MatSpmvGetDeviceWorkVec(A, "MatSpmvSORWorkX", A->rmap, &w[1]));
  PetscCall(VecCopy(bb, w[0]));
  if (!(flag & SOR_ZERO_INITIAL_GUESS) || flag == SOR_APPLY_UPPER) PetscCall(VecCopy(xx, w[1]));
  PetscCall((*MatSpmvSORBaseMPI)(A, w[0], omega, flag, fshift, its, lits, w[1]));
  PetscCall(VecCopy(w[1], xx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvSetSOROpsMPI(Mat A, PetscErrorCode (*base)(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec))
{
  PetscFunctionBegin;
  if (!base || base == MatSOR_MPISpmvDevice) PetscFunctionReturn(PETSC_SUCCESS);
  MatSpmvSORBaseMPI = base;
  A->ops->sor       = MatSOR_MPISpmvDevice;
  PetscFunctionReturn(PETSC_SUCCESS);
}
