/*
  MatSOR() on the device (see spmvsorimpl.h): which calls the device takes, the plan of a nonzero
  pattern (units, their dependency levels and orders), idiag for the values, and the sweeps of a call
  in PETSc's order. What the device does not take runs PETSc's host MatSOR_SeqAIJ(), said once with
  -info: SOR_EISENSTAT, SOR_APPLY_UPPER/LOWER, a matrix bound to the CPU or without a GPU,
  -petscspmv_sor_device 0, and a pattern whose sweeps the cost model predicts faster on the host with the
  copies they make (short grids, box stencils: the device sweep is bound by its chain of levels).
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

/* the path of A's sweeps, for -info and the views */
static const char *MatSpmvSORPath(const Mat_SpmvSOR *sor)
{
  return sor->ondevice ? "on the device" : "by PETSc's host code";
}

/* -mat_view ::ascii_info and -ksp_view: which path A's sweeps take and why (after A's first MatSOR()) */
static PetscErrorCode MatSpmvSORView(Mat A, PetscViewer viewer)
{
  Mat_SpmvSOR *sor;

  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)A, MATSPMV_SOR_DATA, (PetscCtxRt)&sor));
  if (sor && sor->why[0]) {
    PetscBool isstring;

    PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERSTRING, &isstring)); /* sorbench reads it */
    if (isstring) PetscCall(PetscViewerStringSPrintf(viewer, "MatSOR() %s: %s\n", MatSpmvSORPath(sor), sor->why));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "MatSOR() %s: %s\n", MatSpmvSORPath(sor), sor->why));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A's SOR data, made at its first call (a MatDuplicate() copies the function, not the data) */
static PetscErrorCode MatSpmvSORGetData(Mat A, Mat_SpmvSOR **sor)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)A, MATSPMV_SOR_DATA, (PetscCtxRt)sor));
  if (!*sor) {
    PetscCall(PetscNew(sor));
    (*sor)->deviceopt = PETSC_BOOL3_UNKNOWN;
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSpmvSORView_C", MatSpmvSORView));
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

/* The cost model of one MatSOR() call of a symmetric sweep (PCSOR's, PCMG's Chebyshev/SOR), in
   microseconds, fitted by bench/sor-fit.py to bench/sorbench -sweep (H200 and its host, docs/sor.md:
   2D 5- and 9-point, 3D 7- and 27-point, 1-4 unknowns a node, 33^2 to 4097^2 and 17^3 to 129^3).
   Device, a sweep: a launch, then the chain of dependency levels, each a wait on the units before
   it plus the loads a lane makes after it (a row's entries over 32 / unit lanes), or the matrix's
   bytes once where many units run at once.
   Host (PETSc's MatSOR_SeqAIJ()), a sweep: a pass over the rows and entries; the call copies b and
   x to the host and x back to the device for the operation after it (CUDA vectors).
   Predictions within MATSPMV_SOR_TRIAL of each other are settled by timing both paths (sor.c) */
#define MATSPMV_SOR_DEV_LAUNCH 11.1    /* us a sweep */
#define MATSPMV_SOR_DEV_LEVEL  1.94    /* us a level */
#define MATSPMV_SOR_DEV_LOAD   0.113   /* us a level per entry a lane loads */
#define MATSPMV_SOR_DEV_ENTRY  5.0e-6  /* us an entry: 12 bytes at ~2.4 TB/s */
#define MATSPMV_SOR_HOST_ENTRY 6.81e-4 /* us an entry */
#define MATSPMV_SOR_HOST_ROW   9.83e-4 /* us a row */
#define MATSPMV_SOR_COPY       10.8    /* us a copy */
#define MATSPMV_SOR_COPY_VALUE 1.47e-3 /* us a value copied */
#define MATSPMV_SOR_TRIAL      1.5     /* the largest ratio of the predictions that a trial settles */
#define MATSPMV_SOR_SCREEN     2.0     /* the first estimate's ratio from which the host takes a pattern unplanned */

static void MatSpmvSORCost(const Mat_SpmvSOR *sor, PetscReal *device, PetscReal *host)
{
  const PetscReal n = (PetscReal)sor->n, nnz = (PetscReal)sor->nnz, lanes = 32.0 / (PetscReal)sor->unit;
  const PetscReal lane = n > 0 ? PetscCeilReal(nnz / n / lanes) : 0.0; /* entries a lane loads */
  PetscReal       sweeps[2];

  for (int k = 0; k < 2; k++) sweeps[k] = MATSPMV_SOR_DEV_LAUNCH + PetscMax((PetscReal)sor->levels[k] * (MATSPMV_SOR_DEV_LEVEL + MATSPMV_SOR_DEV_LOAD * lane), nnz * MATSPMV_SOR_DEV_ENTRY);
  *device = sweeps[0] + sweeps[1];
  *host   = 2.0 * (nnz * MATSPMV_SOR_HOST_ENTRY + n * MATSPMV_SOR_HOST_ROW) + 3.0 * (MATSPMV_SOR_COPY + n * MATSPMV_SOR_COPY_VALUE);
}

/* The path of A's nonzero pattern and, for the device, its plan: every diagonal entry present (as
   PETSc's SOR requires), the units, the orders. A first estimate from units of 8 and the forward
   levels (two passes over the pattern) leaves a pattern the host clearly takes unplanned: the plan's
   passes cost as much as several host sweeps, which a small multigrid level does not repay */
static PetscErrorCode MatSpmvSORPlan(Mat A, Mat_SpmvSOR *sor)
{
  const PetscInt *ai, *aj;
  PetscInt        n, *level, *order[2], *start;
  PetscBool       done, screened = PETSC_FALSE;

  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDASORDestroy(sor));
#endif
  sor->planned  = PETSC_FALSE;
  sor->idiagset = PETSC_FALSE;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSOR() on the device needs the matrix's rows (MatGetRowIJ())");
  sor->n   = n;
  sor->nnz = ai[n];
  PetscCall(PetscMalloc4(n + 1, &start, PetscMax(n, 1), &level, PetscMax(n, 1), &order[0], PetscMax(n, 1), &order[1]));
  if (sor->deviceopt == PETSC_BOOL3_UNKNOWN) {
    PetscInt nunits;

    sor->unit = sor->unitopt ? sor->unitopt : MATSPMV_SOR_MAX_UNIT;
    PetscCall(MatSpmvSORUnits(n, ai, aj, sor->unit, start, &nunits));
    PetscCall(MatSpmvSORLevels(n, ai, aj, nunits, start, PETSC_FALSE, PETSC_INT_MAX, level, &sor->levels[0]));
    sor->levels[1] = sor->levels[0];
    MatSpmvSORCost(sor, &sor->costdevice, &sor->costhost);
    screened = (PetscBool)(sor->costdevice >= MATSPMV_SOR_SCREEN * sor->costhost);
  }
  if (!screened) {
    for (PetscInt r = 0; r < n; r++) {
      PetscBool found = PETSC_FALSE;

      for (PetscInt p = ai[r]; p < ai[r + 1] && !found; p++) found = (PetscBool)(aj[p] == r);
      PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Matrix must have all diagonal locations to invert them: row %" PetscInt_FMT " has no diagonal entry; insert one (a zero with a diagonal shift) before MatSOR()", r);
    }
    if (sor->unitopt) sor->unit = sor->unitopt;
    else PetscCall(MatSpmvSORChooseUnit(n, ai, aj, start, &sor->unit));
    PetscCall(MatSpmvSORUnits(n, ai, aj, sor->unit, start, &sor->nunits));
    for (int k = 0; k < 2; k++) {
      PetscCall(MatSpmvSORLevels(n, ai, aj, sor->nunits, start, (PetscBool)k, PETSC_INT_MAX, level, &sor->levels[k]));
      PetscCall(MatSpmvUnitsByLevel(sor->nunits, (PetscBool)k, level, sor->levels[k], order[k]));
    }
  }
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  if (screened) {
    sor->ondevice = PETSC_FALSE;
    sor->trial    = 0;
    PetscCall(PetscSNPrintf(sor->why, sizeof(sor->why), "chosen by cost; %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros, units of at most %" PetscInt_FMT " rows, %" PetscInt_FMT " levels forward (the estimate); predicted %.0f us a symmetric sweep on the device, %.0f us on the host with its copies",
                            sor->n, sor->nnz, sor->unit, sor->levels[0], (double)sor->costdevice, (double)sor->costhost));
  } else {
    MatSpmvSORCost(sor, &sor->costdevice, &sor->costhost);
    sor->ondevice = sor->deviceopt == PETSC_BOOL3_UNKNOWN ? (PetscBool)(sor->costdevice <= sor->costhost) : PETSC_TRUE;
    sor->trial    = sor->deviceopt == PETSC_BOOL3_UNKNOWN && sor->costdevice < MATSPMV_SOR_TRIAL * sor->costhost && sor->costhost < MATSPMV_SOR_TRIAL * sor->costdevice ? 4 : 0;
    PetscCall(PetscSNPrintf(sor->why, sizeof(sor->why), "%s; %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros, units of at most %" PetscInt_FMT " rows, %" PetscInt_FMT " levels forward, %" PetscInt_FMT " backward; predicted %.0f us a symmetric sweep on the device, %.0f us on the host with its copies", sor->deviceopt == PETSC_BOOL3_TRUE ? "-petscspmv_sor_device 1" : (sor->trial ? "chosen by cost, timed" : "chosen by cost"),
                            sor->n, sor->nnz, sor->unit, sor->levels[0], sor->levels[1], (double)sor->costdevice, (double)sor->costhost));
#if defined(PETSC_HAVE_CUDA)
    if (sor->ondevice || sor->trial) { /* out of device memory for the plan: PETSc's host sweeps */
      PetscErrorCode ierr;

      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = MatSpmvCUDASORCreate(sor, start, order[0], order[1]);
      PetscCall(PetscPopErrorHandler());
      if (ierr == PETSC_ERR_MEM) {
        PetscCall(MatSpmvCUDASORDestroy(sor));
        sor->ondevice = PETSC_FALSE;
        sor->trial    = 0;
        PetscCall(PetscStrlcat(sor->why, "; out of device memory for the sweeps' plan", sizeof(sor->why)));
      } else PetscCall(ierr);
    }
#endif
  }
  PetscCall(PetscFree4(start, level, order[0], order[1]));
  PetscCall(MatGetNonzeroState(A, &sor->nonzerostate));
  sor->planned = PETSC_TRUE;
  if (sor->trial) PetscCall(PetscInfo(A, "MatSOR(): %s; both paths timed over the next calls\n", sor->why));
  else PetscCall(PetscInfo(A, "MatSOR() %s: %s\n", MatSpmvSORPath(sor), sor->why));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -petscspmv_sor_device, -petscspmv_sor_unit under A's prefix, at A's first MatSOR() (listed by -help then: a block
   of its own title, since PetscObjectOptionsBegin() prints nothing for a matrix whose options
   MatSetFromOptions() already printed) */
static PetscErrorCode MatSpmvSORReadOptions(Mat A, Mat_SpmvSOR *sor)
{
  PetscInt unit = 0;

  PetscFunctionBegin;
  if (sor->optionsread) PetscFunctionReturn(PETSC_SUCCESS);
  sor->optionsread = PETSC_TRUE;
  PetscOptionsBegin(PetscObjectComm((PetscObject)A), ((PetscObject)A)->prefix, "MatSOR() on the GPU (petscspmv)", "Mat");
  PetscCall(PetscOptionsDeprecated("-mat_sor_device", "-petscspmv_sor_device", "1.3", NULL));
  PetscCall(PetscOptionsDeprecated("-mat_sor_unit", "-petscspmv_sor_unit", "1.3", NULL));
  PetscCall(PetscOptionsBool3("-petscspmv_sor_device", "Sweep on the GPU (true), on the host by PETSc's SOR (false); unset: the path a cost model predicts faster for the matrix", "MatSOR", sor->deviceopt, &sor->deviceopt, NULL));
  PetscCall(PetscOptionsInt("-petscspmv_sor_unit", "Most consecutive rows a warp sweeps as one unit: 1, 2, 4 or 8 (0: chosen per nonzero pattern)", "MatSOR", unit, &unit, NULL));
  PetscOptionsEnd();
  PetscCheck(unit == 0 || unit == 1 || unit == 2 || unit == 4 || unit == 8, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-petscspmv_sor_unit %" PetscInt_FMT ": give 1, 2, 4 or 8 rows per unit, or 0 to let the sweeps choose", unit);
  sor->unitopt = unit;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* idiag for A's values, omega and fshift; *zerorow: a zero diagonal MatSOR_SeqAIJ() refuses (no shift), else -1 */
static PetscErrorCode MatSpmvSORDiagonal(Mat A, Mat_SpmvSOR *sor, const MatSpmvDeviceCSR *csr, PetscReal omega, PetscReal fshift, PetscInt *zerorow, void *stream)
{
  PetscObjectState state;

  PetscFunctionBegin;
  *zerorow = -1;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (sor->idiagset && state == sor->valuestate && omega == sor->omega && fshift == sor->fshift) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvCUDASORDiagonal(sor, csr, omega, fshift, zerorow, stream));
  if (*zerorow >= 0) {
    if (fshift == 0.0) PetscFunctionReturn(PETSC_SUCCESS); /* refused: idiag stays unset */
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
  PetscCall(MatSpmvSORDiagonal(A, sor, &csr, omega, fshift, &zerorow, stream));
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

#if defined(PETSC_HAVE_CUDA)
/* One call of a trial of both paths, whose predictions are too close to call: calls 4 and 3 on the
   device, 2 and 1 on the host (PETSc's), the second of each timed (the first loads the kernels or
   inverts the diagonal); a host call's time takes in x's copy back to the device, which the
   operation after a smoother (a product, a residual) makes. Then the faster path stays */
static PetscErrorCode MatSpmvSORTrial(Mat A, Mat_SpmvSOR *sor, Vec bb, PetscReal omega, MatSORType flag, PetscReal fshift, PetscInt its, PetscInt lits, Vec xx)
{
  const PetscBool device = (PetscBool)(sor->trial > 2), timed = (PetscBool)(sor->trial % 2 == 1);
  PetscLogDouble  t0 = 0, t1;
  void           *stream;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAGetStream(&stream));
  if (timed) {
    PetscCall(MatSpmvCUDASynchronize(stream));
    PetscCall(PetscTime(&t0));
  }
  if (device) PetscCall(MatSpmvSORSweeps(A, sor, bb, omega, flag, fshift, its * lits, xx));
  else PetscCall((*MatSpmvSORBase)(A, bb, omega, flag, fshift, its, lits, xx));
  if (timed) {
    PetscBool cuda;

    PetscCall(PetscObjectTypeCompareAny((PetscObject)xx, &cuda, VECSEQCUDA, VECMPICUDA, ""));
    if (!device && cuda) {
      const PetscScalar *dx;

      PetscCall(VecCUDAGetArrayRead(xx, &dx));
      PetscCall(VecCUDARestoreArrayRead(xx, &dx));
    }
    PetscCall(MatSpmvCUDASynchronize(stream));
    PetscCall(PetscTime(&t1));
    sor->trialtime[device ? 0 : 1] = t1 - t0;
  }
  if (!--sor->trial) {
    char measured[96];

    sor->ondevice = (PetscBool)(sor->trialtime[0] <= sor->trialtime[1]);
    PetscCall(PetscSNPrintf(measured, sizeof(measured), "; measured %.0f us on the device, %.0f us on the host", 1e6 * sor->trialtime[0], 1e6 * sor->trialtime[1]));
    PetscCall(PetscStrlcat(sor->why, measured, sizeof(sor->why)));
    PetscCall(PetscInfo(A, "MatSOR() %s: %s\n", MatSpmvSORPath(sor), sor->why));
  }
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
  if (sor->deviceopt == PETSC_BOOL3_FALSE) why = "-petscspmv_sor_device 0";
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
  PetscCall(MatGetNonzeroState(A, &nonzerostate));
  if (!sor->planned || nonzerostate != sor->nonzerostate || sor->n != A->rmap->n) PetscCall(MatSpmvSORPlan(A, sor));
  if (!sor->ondevice && !sor->trial) { /* the cost model's choice for this pattern (said by the plan) */
    PetscCall((*MatSpmvSORBase)(A, bb, omega, flag, fshift, its, lits, xx));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(bb != xx, PETSC_COMM_SELF, PETSC_ERR_ARG_IDN, "MatSOR() needs b and x to be different vectors");
#if defined(PETSC_HAVE_CUDA)
  if (sor->trial) PetscCall(MatSpmvSORTrial(A, sor, bb, omega, flag, fshift, its, lits, xx));
  else PetscCall(MatSpmvSORSweeps(A, sor, bb, omega, flag, fshift, its * lits, xx));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvSetSOROps(Mat A, MatSpmvSORFunction base)
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

static PetscErrorCode MatSpmvSetSOROpsMPI(Mat A, MatSpmvSORFunction base)
{
  PetscFunctionBegin;
  if (!base || base == MatSOR_MPISpmvDevice) PetscFunctionReturn(PETSC_SUCCESS);
  MatSpmvSORBaseMPI = base;
  A->ops->sor       = MatSOR_MPISpmvDevice;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The layer reaches MatSOR() on the device through its table (called by the package) */
PETSC_INTERN PetscErrorCode MatSpmvSORRegister(void)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCheck(sizeof(Mat_SpmvSOR) == MatSpmvCUDASORBytes(), PETSC_COMM_SELF, PETSC_ERR_LIB, "Mat_SpmvSOR has %zu bytes in C and %zu in CUDA: a PetscScalar member must be a MatSpmvScalar (spmvformat.h)", sizeof(Mat_SpmvSOR), MatSpmvCUDASORBytes());
#endif
  MatSpmvDeviceOperations.setsor    = MatSpmvSetSOROps;
  MatSpmvDeviceOperations.setsormpi = MatSpmvSetSOROpsMPI;
  PetscFunctionReturn(PETSC_SUCCESS);
}
