static char help[] = "GAMG's coarsening for our matrices (MatCoarsen spmvmis): on 2D and 3D grid graphs, random\n"
                     "graphs (one of many components), graphs with isolated or empty rows and of 0 and 1 rows, at\n"
                     "distance 1 and 2, the host reference's roots are independent and maximal at that distance, every\n"
                     "row with a neighbour is in exactly one aggregate (isolated rows in none), each aggregate is\n"
                     "connected and holds its root first, and the same aggregates come again. With -device (a GPU:\n"
                     "otherwise skipped), the device path on the same graphs as seqaijcusparse matrices, and on a 64^3\n"
                     "grid, at both distances and two seeds, gives the host reference's lists exactly (the same\n"
                     "aggregates, roots, and members in the same order: root first, then increasing).\n"
                     "The tentative prolongator P0 on spmvmis's aggregates of 2D and 3D grids and on random ones\n"
                     "(1-node aggregates, fewer rows than modes, not contiguous, one too large for shared memory)\n"
                     "with constants, 2D and 3D rigid-body modes and a MatSetNearNullSpace() space: the host\n"
                     "reference's P0 R = B and Q^T Q = I per aggregate, and P0 and R equal to PETSc's own\n"
                     "prolongator fed the same lists; with -device the CUDA P0 and R equal to the host's.\n"
                     "-coarsen 0, -tentative 0: leave out the coarsening's or the tentative prolongator's checks.\n";

#include <petscspmv.h>
#include <petsc/private/matimpl.h>
#include <petsc/private/pcgamgimpl.h> /* PC_GAMG: PETSc's own prolongator, to compare with */
#include "../src/ksp/pc/impls/spmvgamg/spmvgamgimpl.h"
#include "gamgcheck.h"
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

/* The symmetric graph of a grid of nx x ny x nz points (7-point neighbours), or of n random edges
   among nx points (ny = nz = 0), then 'isolated' rows with only their diagonal and 'empty' rows with
   no entry (aijcusparse then keeps compressed row offsets) */
static PetscErrorCode Graph(PetscInt nx, PetscInt ny, PetscInt nz, PetscInt nrand, PetscInt isolated, PetscInt empty, Mat *G)
{
  PetscInt n = nx * PetscMax(ny, 1) * PetscMax(nz, 1);

  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n + isolated + empty, n + isolated + empty, 8, NULL, G));
  PetscCall(MatSetOption(*G, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  for (PetscInt r = 0; r < n + isolated; r++) PetscCall(MatSetValue(*G, r, r, 1.0, INSERT_VALUES));
  if (nrand) {
    PetscRandom rnd;

    PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
    for (PetscInt e = 0; e < nrand; e++) {
      PetscReal a, b;
      PetscInt  i, j;

      PetscCall(PetscRandomGetValueReal(rnd, &a));
      PetscCall(PetscRandomGetValueReal(rnd, &b));
      i = (PetscInt)(a * n), j = (PetscInt)(b * n);
      PetscCall(MatSetValue(*G, i, j, 1.0, INSERT_VALUES));
      PetscCall(MatSetValue(*G, j, i, 1.0, INSERT_VALUES));
    }
    PetscCall(PetscRandomDestroy(&rnd));
  } else {
    for (PetscInt k = 0; k < PetscMax(nz, 1); k++)
      for (PetscInt j = 0; j < PetscMax(ny, 1); j++)
        for (PetscInt i = 0; i < nx; i++) {
          PetscInt r = (k * PetscMax(ny, 1) + j) * nx + i;

          if (i + 1 < nx) {
            PetscCall(MatSetValue(*G, r, r + 1, 1.0, INSERT_VALUES));
            PetscCall(MatSetValue(*G, r + 1, r, 1.0, INSERT_VALUES));
          }
          if (j + 1 < ny) {
            PetscCall(MatSetValue(*G, r, r + nx, 1.0, INSERT_VALUES));
            PetscCall(MatSetValue(*G, r + nx, r, 1.0, INSERT_VALUES));
          }
          if (k + 1 < nz) {
            PetscCall(MatSetValue(*G, r, r + nx * ny, 1.0, INSERT_VALUES));
            PetscCall(MatSetValue(*G, r + nx * ny, r, 1.0, INSERT_VALUES));
          }
        }
  }
  PetscCall(MatAssemblyBegin(*G, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*G, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The aggregates of G at distance d: agg[i] (-1: none), root[a]; checked against their definition */
static PetscErrorCode Coarsen(Mat G, PetscInt d, PetscInt *agg, PetscInt *nagg)
{
  PetscCoarsenData *lists;
  const PetscInt   *ai, *aj;
  PetscInt          n, *dist, *queue, *isroot;
  PetscBool         done;

  PetscFunctionBegin;
  PetscCall(SpmvMISLists(G, d, 0, PETSC_FALSE, &lists, NULL));
  PetscCall(MatGetRowIJ(G, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCall(PetscMalloc3(n, &dist, n, &queue, n, &isroot));
  *nagg = 0;
  for (PetscInt i = 0; i < n; i++) agg[i] = -1, isroot[i] = 0;
  for (PetscInt l = 0; l < n; l++) {
    PetscCDIntNd *pos;
    PetscInt      count, first = PETSC_TRUE;

    PetscCall(PetscCDCountAt(lists, l, &count));
    if (!count) continue;
    PetscCall(PetscCDGetHeadPos(lists, l, &pos));
    while (pos) {
      PetscInt gid;

      PetscCall(PetscCDIntNdGetID(pos, &gid));
      PetscCheck(!first || gid == l, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The list at %" PetscInt_FMT " starts with %" PetscInt_FMT ", not its root", l, gid);
      PetscCheck(agg[gid] < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Row %" PetscInt_FMT " is in two aggregates", gid);
      agg[gid] = *nagg;
      first    = PETSC_FALSE;
      PetscCall(PetscCDGetNextPos(lists, l, &pos));
    }
    isroot[l] = 1;
    (*nagg)++;
  }
  for (PetscInt i = 0; i < n; i++) {
    PetscBool alone = PETSC_TRUE;

    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) alone = (PetscBool)(alone && aj[k] == i);

    PetscCheck(alone == (agg[i] < 0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "Row %" PetscInt_FMT " (%s) is %sin an aggregate", i, alone ? "isolated" : "with neighbours", agg[i] < 0 ? "not " : "");
    if (isroot[i]) { /* independent: no other root within d; connected: every member reached inside the aggregate */
      Distances(n, ai, aj, i, NULL, 0, d, dist, queue);
      for (PetscInt j = 0; j < n; j++) PetscCheck(j == i || !isroot[j] || dist[j] < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Roots %" PetscInt_FMT " and %" PetscInt_FMT " are %" PetscInt_FMT " apart, at most %" PetscInt_FMT, i, j, dist[j], d);
      Distances(n, ai, aj, i, agg, agg[i], PETSC_INT_MAX, dist, queue);
      for (PetscInt j = 0; j < n; j++) PetscCheck(agg[j] != agg[i] || dist[j] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Row %" PetscInt_FMT " is not connected to its root %" PetscInt_FMT " inside their aggregate", j, i);
    } else if (agg[i] >= 0) { /* maximal: a root within d */
      PetscBool near = PETSC_FALSE;

      Distances(n, ai, aj, i, NULL, 0, d, dist, queue);
      for (PetscInt j = 0; j < n; j++) near = (PetscBool)(near || (isroot[j] && dist[j] >= 0));
      PetscCheck(near, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Row %" PetscInt_FMT " has no root within %" PetscInt_FMT ": the set is not maximal", i, d);
    }
  }
  PetscCall(PetscFree3(dist, queue, isroot));
  PetscCall(MatRestoreRowIJ(G, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCall(PetscCDDestroy(lists));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device path on G (made a seqaijcusparse matrix whose CSR is on the GPU) gives the host
   reference's lists exactly, at distance 1 and 2 and two seeds */
static PetscErrorCode CompareDevice(Mat G, const char *name)
{
  Mat            Gd;
  PetscInt       n, *ptr[2], *ids[2];
  PetscMemType   mtype;
  const PetscInt seeds[] = {0, 12345};

  PetscFunctionBegin;
  PetscCall(MatConvert(G, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &Gd));
  PetscCall(MatSeqAIJGetCSRAndMemType(Gd, NULL, NULL, NULL, &mtype)); /* the CSR to the GPU */
  PetscCheck(PetscMemTypeDevice(mtype), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the seqaijcusparse graph's CSR is not on the GPU", name);
  PetscCall(MatGetLocalSize(G, &n, NULL));
  for (int k = 0; k < 2; k++) PetscCall(PetscMalloc2(n + 1, &ptr[k], PetscMax(n, 1), &ids[k]));
  for (PetscInt d = 1; d <= 2; d++) {
    for (size_t sd = 0; sd < PETSC_STATIC_ARRAY_LENGTH(seeds); sd++) {
      PetscBool device[2], same;
      PetscInt  nagg = 0;

      for (int h = 0; h < 2; h++) PetscCall(SpmvMISFlatLists(Gd, d, seeds[sd], h ? PETSC_FALSE : PETSC_TRUE, ptr[h], ids[h], &device[h])); /* the host reference, then the device */
      PetscCheck(!device[0] && device[1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ": the reference ran %s, the device path %s", name, d, device[0] ? "on the device" : "on the host", device[1] ? "on the device" : "on the host (see -info)");
      for (PetscInt l = 0; l < n; l++) nagg += ptr[0][l + 1] > ptr[0][l];
      PetscCall(PetscArraycmp(ptr[0], ptr[1], n + 1, &same));
      if (same) PetscCall(PetscArraycmp(ids[0], ids[1], ptr[0][n], &same));
      if (!same) {
        for (PetscInt l = 0; l < n; l++) {
          PetscBool eq = (PetscBool)(ptr[0][l + 1] - ptr[0][l] == ptr[1][l + 1] - ptr[1][l]);

          for (PetscInt k = 0; eq && k < ptr[0][l + 1] - ptr[0][l]; k++) eq = (PetscBool)(ids[0][ptr[0][l] + k] == ids[1][ptr[1][l] + k]);
          PetscCheck(eq, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ", seed %" PetscInt_FMT ": the list at row %" PetscInt_FMT " has %" PetscInt_FMT " rows on the device (first %" PetscInt_FMT "), %" PetscInt_FMT " in the host reference (first %" PetscInt_FMT ")", name, d, seeds[sd], l, ptr[1][l + 1] - ptr[1][l], ptr[1][l + 1] > ptr[1][l] ? ids[1][ptr[1][l]] : -1, ptr[0][l + 1] - ptr[0][l], ptr[0][l + 1] > ptr[0][l] ? ids[0][ptr[0][l]] : -1);
        }
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ", seed %" PetscInt_FMT ": the device's lists differ from the host reference's", name, d, seeds[sd]);
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok device %s (%" PetscInt_FMT " rows), distance %" PetscInt_FMT ", seed %" PetscInt_FMT ": %" PetscInt_FMT " aggregates, the host reference's lists exactly\n", name, n, d, seeds[sd], nagg));
    }
  }
  for (int k = 0; k < 2; k++) PetscCall(PetscFree2(ptr[k], ids[k]));
  PetscCall(MatDestroy(&Gd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the tentative prolongator ---- */

/* Entries compared with PETSc's and between host and device: equal to this, relative to 1 (Q) or to
   the aggregate's largest R entry; P0 R = B and Q^T Q = I: to TOL_IDENTITY */
#if defined(PETSC_USE_REAL_SINGLE)
  #define TOL_EQUAL    1e-5
  #define TOL_IDENTITY 1e-4
#else
  #define TOL_EQUAL    1e-13
  #define TOL_IDENTITY 1e-12
#endif

/* A level's nodes and near-null space: data in PETSc's layout, and how PETSc is given it */
typedef struct {
  const char *name;
  PetscInt    nloc, bs, n;   /* nodes, rows per node, near-null vectors */
  PetscReal  *data;          /* data[c * nloc * bs + node * bs + r] */
  PetscInt    dim;           /* > 0: rigid-body modes of these coordinates, by PCSetCoordinates() */
  PetscReal  *coords;        /* coords[node * dim + d] */
  PetscBool   nearnullspace; /* constants and data's other columns by MatSetNearNullSpace() */
} NearNull;

/* A reproducible pseudo-random number in [0, 1) */
static PetscReal Uniform(uint64_t *state)
{
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (PetscReal)(*state >> 11) / (PetscReal)9007199254740992.0;
}

/* Node r's coordinates on the nx x ny (x nz) grid Graph() makes: (i, j, k), moved by up to 'jitter';
   the nodes past the grid at random */
static PetscErrorCode Coordinates(PetscInt nloc, PetscInt dim, PetscInt nx, PetscInt ny, PetscReal jitter, uint64_t *state, PetscReal **coords)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nloc * dim, coords));
  for (PetscInt r = 0; r < nloc; r++) {
    const PetscInt ijk[3] = {nx ? r % nx : 0, nx ? (r / nx) % ny : 0, nx ? r / (nx * ny) : 0};

    for (PetscInt d = 0; d < dim; d++) (*coords)[r * dim + d] = (nx ? (PetscReal)ijk[d] : 10 * Uniform(state)) + jitter * (2 * Uniform(state) - 1);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The near-null space: constants (bs 1, no coordinates), the rigid-body modes of coordinates in
   dim = bs = 2 or 3 as PCSetCoordinates_AGG() makes them (agg.c: translations, then the rotations
   (-y, x) in 2D, (0, z, -y), (-z, 0, x), (y, -x, 0) per node in 3D, columns by rows as it stores
   them), or for bs 1 with 2D coordinates the constant and x, y made orthonormal to it and each other
   (MatSetNearNullSpace()'s vectors) */
static PetscErrorCode NearNullSpace(const char *name, PetscInt nloc, PetscInt bs, PetscInt dim, PetscReal *coords, PetscBool nearnullspace, NearNull *nn)
{
  PetscFunctionBegin;
  nn->name          = name;
  nn->nloc          = nloc;
  nn->bs            = bs;
  nn->dim           = nearnullspace ? 0 : dim;
  nn->coords        = coords;
  nn->nearnullspace = nearnullspace;
  nn->n             = nearnullspace ? 1 + dim : (dim == 2 ? 3 : dim == 3 ? 6 : bs);
  PetscCall(PetscCalloc1(nn->n * nloc * bs, &nn->data));
  if (nearnullspace) {
    const PetscInt ld = nloc;

    PetscCheck(bs == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "bs 1 with MatSetNearNullSpace()");
    for (PetscInt i = 0; i < nloc; i++) nn->data[i] = 1;
    for (PetscInt c = 1; c < nn->n; c++) { /* Gram-Schmidt against 1/sqrt(n) and the earlier columns */
      PetscReal *q = nn->data + c * ld, norm = 0;

      for (PetscInt i = 0; i < nloc; i++) q[i] = coords[i * dim + c - 1];
      for (PetscInt p = 0; p < c; p++) {
        const PetscReal *o  = nn->data + p * ld;
        PetscReal        on = 0, dot = 0;

        for (PetscInt i = 0; i < nloc; i++) on += o[i] * o[i], dot += o[i] * q[i];
        for (PetscInt i = 0; i < nloc; i++) q[i] -= dot / on * o[i];
      }
      for (PetscInt i = 0; i < nloc; i++) norm += q[i] * q[i];
      for (PetscInt i = 0; i < nloc; i++) q[i] /= PetscSqrtReal(norm);
    }
  } else {
    const PetscInt M = nloc * bs;

    for (PetscInt k = 0; k < nloc; k++) {
      PetscReal *d = nn->data + k * bs;

      if (nn->n == 1) {
        d[0] = 1;
        continue;
      }
      for (PetscInt i = 0; i < bs; i++) d[i * M + i] = 1;
      if (dim == 2) {
        d[2 * M + 0] = -coords[2 * k + 1];
        d[2 * M + 1] = coords[2 * k];
      } else if (dim == 3) {
        d[3 * M + 0] = 0.0, d[4 * M + 0] = coords[3 * k + 2], d[5 * M + 0] = -coords[3 * k + 1];
        d[3 * M + 1] = -coords[3 * k + 2], d[4 * M + 1] = 0.0, d[5 * M + 1] = coords[3 * k];
        d[3 * M + 2] = coords[3 * k + 1], d[4 * M + 2] = -coords[3 * k], d[5 * M + 2] = 0.0;
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ListsToAggregates(PetscCoarsenData *lists, PetscInt nloc, PetscInt *agg, PetscInt *roots, PetscInt *nagg)
{
  PetscFunctionBegin;
  *nagg = 0;
  for (PetscInt i = 0; i < nloc; i++) agg[i] = -1;
  for (PetscInt l = 0; l < nloc; l++) {
    PetscCDIntNd *pos;
    PetscInt      prev = -1;
    PetscBool     empty;

    PetscCall(PetscCDIsEmptyAt(lists, l, &empty));
    if (empty) continue;
    PetscCall(PetscCDGetHeadPos(lists, l, &pos));
    PetscCall(PetscCDIntNdGetID(pos, &roots[*nagg]));
    while (pos) {
      PetscInt gid;

      PetscCall(PetscCDIntNdGetID(pos, &gid));
      PetscCheck(gid >= 0 && gid < nloc && agg[gid] < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "List %" PetscInt_FMT ": node %" PetscInt_FMT " out of range or in two lists", l, gid);
      PetscCheck(gid == roots[*nagg] || prev == roots[*nagg] || gid > prev, PETSC_COMM_SELF, PETSC_ERR_PLIB, "List %" PetscInt_FMT " is not its first node, then the others in increasing index", l);
      agg[gid] = *nagg;
      prev     = gid;
      PetscCall(PetscCDGetNextPos(lists, l, &pos));
    }
    (*nagg)++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Random aggregates of nloc nodes: about a tenth in none, the others in about nloc / 2.5 aggregates
   (many of 1 or 2 nodes, not contiguous), a random member the root; with big > 0 also the nodes
   below 'big' in one aggregate. Numbered by increasing root, as PETSc numbers lists at their roots;
   their lists (root first, then increasing index) */
static PetscErrorCode RandomAggregates(PetscInt nloc, PetscInt big, uint64_t *state, PetscInt *agg, PetscInt *roots, PetscInt *nagg, PetscCoarsenData **lists)
{
  const PetscInt k = PetscMax(1, (PetscInt)(nloc / 2.5));
  PetscInt      *count, *pick, *num, *aggptr, *members;

  PetscFunctionBegin;
  PetscCall(PetscCalloc3(k + 1, &count, k + 1, &pick, k + 1, &num));
  for (PetscInt i = 0; i < nloc; i++) {
    agg[i] = i < big ? k : (Uniform(state) < 0.1 ? -1 : (PetscInt)(Uniform(state) * k));
    if (agg[i] >= 0) count[agg[i]]++;
  }
  for (PetscInt a = 0; a <= k; a++) pick[a] = count[a] ? (PetscInt)(Uniform(state) * count[a]) : -1;
  /* the pick-th member of each aggregate is its root; number the aggregates by their roots */
  for (PetscInt a = 0; a <= k; a++) count[a] = 0, num[a] = -1;
  *nagg = 0;
  for (PetscInt i = 0; i < nloc; i++) {
    const PetscInt a = agg[i];

    if (a >= 0 && count[a]++ == pick[a]) {
      num[a]        = (*nagg)++;
      roots[num[a]] = i;
    }
  }
  for (PetscInt i = 0; i < nloc; i++)
    if (agg[i] >= 0) agg[i] = num[agg[i]];
  PetscCall(PetscFree3(count, pick, num));
  PetscCall(PetscMalloc2(*nagg + 1, &aggptr, nloc, &members));
  PetscCall(MatSpmvGAMGAggregateMembers(nloc, *nagg, agg, roots, aggptr, members));
  PetscCall(PetscCDCreate(nloc, lists));
  for (PetscInt a = 0; a < *nagg; a++)
    for (PetscInt p = aggptr[a]; p < aggptr[a + 1]; p++) PetscCall(PetscCDAppendID(*lists, roots[a], members[p]));
  PetscCall(PetscFree2(aggptr, members));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The host reference's P0 and R against their definition: each row of a node of aggregate a holds
   the columns a n, ..., a n + n - 1 (a node in none: no entry); P0 R = B row by row; Q^T Q = I on
   every aggregate of at least n rows */
static PetscErrorCode CheckTentative(const NearNull *nn, PetscInt nagg, const PetscInt *agg, const PetscInt *pi, const PetscInt *pj, const PetscScalar *pv, const PetscReal *cdata, PetscReal *errB, PetscReal *errQ, PetscInt *northo, PetscInt *nshort)
{
  const PetscInt n = nn->n, bs = nn->bs, rows = nn->nloc * bs;
  PetscInt      *size;
  PetscReal     *gram;

  PetscFunctionBegin;
  *errB = *errQ = 0;
  *northo = *nshort = 0;
  PetscCall(PetscCalloc2(nagg, &size, nagg * n * n, &gram));
  for (PetscInt row = 0; row < rows; row++) {
    const PetscInt a = agg[row / bs];

    PetscCheck(pi[row + 1] - pi[row] == (a >= 0 ? n : 0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: row %" PetscInt_FMT " has %" PetscInt_FMT " entries", nn->name, row, pi[row + 1] - pi[row]);
    if (a < 0) continue;
    if (row % bs == 0) size[a]++;
    for (PetscInt k = 0; k < n; k++)
      PetscCheck(pj[pi[row] + k] == a * n + k, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: row %" PetscInt_FMT ", entry %" PetscInt_FMT ": column %" PetscInt_FMT ", not %" PetscInt_FMT, nn->name, row, k, pj[pi[row] + k], a * n + k);
    for (PetscInt j = 0; j < n; j++) {
      PetscReal s = 0, scale = 0;

      for (PetscInt k = 0; k < n; k++) {
        s += PetscRealPart(pv[pi[row] + k]) * cdata[j * nagg * n + a * n + k];
        scale = PetscMax(scale, PetscAbsReal(cdata[j * nagg * n + a * n + k]));
      }
      *errB = PetscMax(*errB, PetscAbsReal(s - nn->data[j * rows + row]) / PetscMax(1, scale));
      for (PetscInt k = 0; k < n; k++) gram[a * n * n + j * n + k] += PetscRealPart(pv[pi[row] + j]) * PetscRealPart(pv[pi[row] + k]);
    }
  }
  for (PetscInt a = 0; a < nagg; a++) {
    if (size[a] * bs < n) {
      (*nshort)++;
      continue;
    }
    (*northo)++;
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt k = 0; k < n; k++) *errQ = PetscMax(*errQ, PetscAbsReal(gram[a * n * n + j * n + k] - (j == k)));
  }
  PetscCheck(*errB <= TOL_IDENTITY && *errQ <= TOL_IDENTITY, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: |P0 R - B| = %g, |Q^T Q - I| = %g", nn->name, (double)*errB, (double)*errQ);
  PetscCall(PetscFree2(size, gram));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's P0 and coarse data from the same lists: a PCGAMG (type agg) on a seqaij operator of
   nloc bs rows and block size bs makes its data from the near-null space (PCSetCoordinates(),
   MatSetNearNullSpace() or its default), which must be nn->data bit for bit; then its prolongator
   (pc_gamg->ops->prolongator, static in agg.c) on the lists replaces that data with the coarse one.
   The lists' Mat is read with several processes only (ghost data, agg.c): NULL here */
static PetscErrorCode PETScTentative(const NearNull *nn, PetscCoarsenData *lists, PetscInt nagg, Mat *P, PetscReal **cdata)
{
  const PetscInt rows = nn->nloc * nn->bs;
  Mat            A;
  PC             pc;
  PC_GAMG       *pc_gamg;
  MatNullSpace   nsp = NULL;
  Vec           *vecs;
  PetscBool      same;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, &A));
  PetscCall(MatSetSizes(A, rows, rows, rows, rows));
  PetscCall(MatSetBlockSize(A, nn->bs));
  PetscCall(MatSetType(A, MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocation(A, 1, NULL));
  for (PetscInt r = 0; r < rows; r++) PetscCall(MatSetValue(A, r, r, 1.0, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  if (nn->nearnullspace) {
    PetscCall(PetscMalloc1(nn->n - 1, &vecs));
    for (PetscInt c = 1; c < nn->n; c++) {
      PetscScalar *v;

      PetscCall(MatCreateVecs(A, &vecs[c - 1], NULL));
      PetscCall(VecGetArrayWrite(vecs[c - 1], &v));
      for (PetscInt i = 0; i < rows; i++) v[i] = nn->data[c * rows + i];
      PetscCall(VecRestoreArrayWrite(vecs[c - 1], &v));
    }
    PetscCall(MatNullSpaceCreate(PETSC_COMM_SELF, PETSC_TRUE, nn->n - 1, vecs, &nsp));
    PetscCall(MatSetNearNullSpace(A, nsp));
    for (PetscInt c = 1; c < nn->n; c++) PetscCall(VecDestroy(&vecs[c - 1]));
    PetscCall(PetscFree(vecs));
  }
  PetscCall(PCCreate(PETSC_COMM_SELF, &pc));
  PetscCall(PCSetType(pc, PCGAMG));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCGAMGSetType(pc, PCGAMGAGG));
  pc_gamg = (PC_GAMG *)((PC_MG *)pc->data)->innerctx;
  if (nn->dim) PetscCall(PCSetCoordinates(pc, nn->dim, nn->nloc, nn->coords));
  else PetscCall(pc_gamg->ops->createdefaultdata(pc, A));
  PetscCheck(pc_gamg->data_cell_rows == nn->bs && pc_gamg->data_cell_cols == nn->n && pc_gamg->data_sz == rows * nn->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: PETSc's data are %" PetscInt_FMT " x %" PetscInt_FMT " per node (%" PetscInt_FMT " in all)", nn->name,
             pc_gamg->data_cell_rows, pc_gamg->data_cell_cols, pc_gamg->data_sz);
  PetscCall(PetscArraycmp(pc_gamg->data, nn->data, rows * nn->n, &same));
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: PETSc's near-null data differ from the test's", nn->name);
  PetscCall(pc_gamg->ops->prolongator(pc, A, lists, P));
  PetscCheck(*P, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: PETSc made no prolongator", nn->name);
  PetscCheck(pc_gamg->data_cell_rows == nn->n && pc_gamg->data_cell_cols == nn->n && pc_gamg->data_sz == nn->n * nn->n * nagg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: PETSc's coarse data are %" PetscInt_FMT " x %" PetscInt_FMT " per node (%" PetscInt_FMT " in all)", nn->name,
             pc_gamg->data_cell_rows, pc_gamg->data_cell_cols, pc_gamg->data_sz);
  PetscCall(PetscMalloc1(pc_gamg->data_sz, cdata));
  PetscCall(PetscArraycpy(*cdata, pc_gamg->data, pc_gamg->data_sz));
  PetscCall(PCDestroy(&pc));
  PetscCall(MatNullSpaceDestroy(&nsp));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Two sets of coarse data: equal to TOL_EQUAL relative to each aggregate's largest entry; the
   largest such difference and how many entries are the same bits */
static PetscErrorCode CompareCoarse(const char *what, PetscInt n, PetscInt nagg, const PetscReal *ref, const PetscReal *c, PetscReal *diff, PetscInt *nsame)
{
  PetscFunctionBegin;
  *diff  = 0;
  *nsame = 0;
  for (PetscInt a = 0; a < nagg; a++) {
    PetscReal scale = 0;

    for (PetscInt j = 0; j < n; j++)
      for (PetscInt i = 0; i < n; i++) scale = PetscMax(scale, PetscAbsReal(ref[j * nagg * n + a * n + i]));
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt i = 0; i < n; i++) {
        const PetscInt at = j * nagg * n + a * n + i;

        *diff = PetscMax(*diff, PetscAbsReal(c[at] - ref[at]) / PetscMax(scale, PETSC_SMALL));
        *nsame += c[at] == ref[at];
      }
  }
  PetscCheck(*diff <= TOL_EQUAL, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: coarse data differ by %g (relative)", what, (double)*diff);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's P0 against the host reference's, entry by entry (Q's entries are at most 1: absolute) */
static PetscErrorCode CompareWithPETSc(const NearNull *nn, PetscInt nagg, Mat P, const PetscInt *pi, const PetscInt *pj, const PetscScalar *pv, PetscReal *diff, PetscInt *nsame)
{
  const PetscInt rows = nn->nloc * nn->bs;
  PetscInt       m, nc, rbs, cbs;

  PetscFunctionBegin;
  *diff  = 0;
  *nsame = 0;
  PetscCall(MatGetSize(P, &m, &nc));
  PetscCall(MatGetBlockSizes(P, &rbs, &cbs));
  PetscCheck(m == rows && nc == nagg * nn->n && rbs == nn->bs && cbs == nn->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: PETSc's P0 is %" PetscInt_FMT " x %" PetscInt_FMT " in blocks of %" PetscInt_FMT " x %" PetscInt_FMT, nn->name, m, nc, rbs, cbs);
  for (PetscInt row = 0; row < rows; row++) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           len;

    PetscCall(MatGetRow(P, row, &len, &cols, &vals));
    PetscCheck(len == pi[row + 1] - pi[row], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: row %" PetscInt_FMT " has %" PetscInt_FMT " entries in PETSc's P0, %" PetscInt_FMT " in ours", nn->name, row, len, pi[row + 1] - pi[row]);
    for (PetscInt k = 0; k < len; k++) {
      PetscCheck(cols[k] == pj[pi[row] + k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: row %" PetscInt_FMT ": column %" PetscInt_FMT " in PETSc's P0, %" PetscInt_FMT " in ours", nn->name, row, cols[k], pj[pi[row] + k]);
      *diff = PetscMax(*diff, PetscAbsScalar(vals[k] - pv[pi[row] + k]));
      *nsame += vals[k] == pv[pi[row] + k];
    }
    PetscCall(MatRestoreRow(P, row, &len, &cols, &vals));
  }
  PetscCheck(*diff <= TOL_EQUAL, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: P0 differs from PETSc's by %g", nn->name, (double)*diff);
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
static PetscErrorCode UploadInt(const PetscInt *h, PetscInt n, PetscInt **d)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc((void **)d, PetscMax(n, 1) * sizeof(PetscInt)));
  PetscCallCUDA(cudaMemcpy(*d, h, n * sizeof(PetscInt), cudaMemcpyHostToDevice));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device P0 and coarse data on the same input against the host reference's: the same CSR, the
   same values to TOL_EQUAL (the same bits expected: the same operations in the same order) */
static PetscErrorCode CompareTentativeDevice(const NearNull *nn, PetscInt nagg, const PetscInt *agg, const PetscInt *roots, const PetscInt *pi, const PetscInt *pj, const PetscScalar *pv, const PetscReal *cdata, PetscReal *diff, PetscInt *nsame, PetscInt *ntotal)
{
  const PetscInt rows = nn->nloc * nn->bs, nnz = pi[rows], n = nn->n;
  PetscInt      *aggptr, *members;
  PetscInt      *d_agg, *d_aggptr, *d_members;
  int           *d_pi, *d_pj, *hi, *hj;
  PetscReal     *d_data, *d_cdata, *hc, cdiff;
  PetscScalar   *d_pv, *hv;
  PetscInt       csame;

  PetscFunctionBegin;
  *diff   = 0;
  *nsame  = 0;
  *ntotal = nnz + n * n * nagg;
  PetscCall(PetscMalloc2(nagg + 1, &aggptr, nn->nloc, &members));
  PetscCall(MatSpmvGAMGAggregateMembers(nn->nloc, nagg, agg, roots, aggptr, members));
  PetscCall(UploadInt(agg, nn->nloc, &d_agg));
  PetscCall(UploadInt(aggptr, nagg + 1, &d_aggptr));
  PetscCall(UploadInt(members, aggptr[nagg], &d_members));
  PetscCallCUDA(cudaMalloc((void **)&d_data, PetscMax(rows * n, 1) * sizeof(PetscReal)));
  PetscCallCUDA(cudaMemcpy(d_data, nn->data, rows * n * sizeof(PetscReal), cudaMemcpyHostToDevice));
  PetscCallCUDA(cudaMalloc((void **)&d_pi, (rows + 1) * sizeof(int)));
  PetscCallCUDA(cudaMalloc((void **)&d_pj, PetscMax(nnz, 1) * sizeof(int)));
  PetscCallCUDA(cudaMalloc((void **)&d_pv, PetscMax(nnz, 1) * sizeof(PetscScalar)));
  PetscCallCUDA(cudaMalloc((void **)&d_cdata, PetscMax(n * n * nagg, 1) * sizeof(PetscReal)));
  PetscCallCUDA(cudaDeviceSynchronize()); /* the copies above are on the legacy stream, the kernels on PETSc's */
  {
    const MatSpmvGAMGNearNull B    = {nn->nloc, nn->bs, n, d_data};
    const MatSpmvGAMGMembers  aggs = {nagg, d_agg, d_aggptr, d_members};
    const MatSpmvGAMGP0Device P0   = {d_pi, d_pj, d_pv, d_cdata};

    PetscCall(MatSpmvGAMGTentativeDevice(&B, &aggs, &P0, NULL));
  }
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(PetscMalloc4(rows + 1, &hi, nnz, &hj, nnz, &hv, n * n * nagg, &hc));
  PetscCallCUDA(cudaMemcpy(hi, d_pi, (rows + 1) * sizeof(int), cudaMemcpyDeviceToHost));
  PetscCallCUDA(cudaMemcpy(hj, d_pj, nnz * sizeof(int), cudaMemcpyDeviceToHost));
  PetscCallCUDA(cudaMemcpy(hv, d_pv, nnz * sizeof(PetscScalar), cudaMemcpyDeviceToHost));
  PetscCallCUDA(cudaMemcpy(hc, d_cdata, n * n * nagg * sizeof(PetscReal), cudaMemcpyDeviceToHost));
  for (PetscInt r = 0; r <= rows; r++) PetscCheck(hi[r] == pi[r], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: device row offset %" PetscInt_FMT " is %d, the host's %" PetscInt_FMT, nn->name, r, hi[r], pi[r]);
  for (PetscInt k = 0; k < nnz; k++) {
    PetscCheck(hj[k] == pj[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: device column %" PetscInt_FMT " is %d, the host's %" PetscInt_FMT, nn->name, k, hj[k], pj[k]);
    *diff = PetscMax(*diff, PetscAbsScalar(hv[k] - pv[k]));
    *nsame += hv[k] == pv[k];
  }
  PetscCheck(*diff <= TOL_EQUAL, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the device P0 differs from the host's by %g", nn->name, (double)*diff);
  PetscCall(CompareCoarse(nn->name, n, nagg, cdata, hc, &cdiff, &csame));
  *diff = PetscMax(*diff, cdiff);
  *nsame += csame;
  PetscCall(PetscFree4(hi, hj, hv, hc));
  PetscCallCUDA(cudaFree(d_agg));
  PetscCallCUDA(cudaFree(d_aggptr));
  PetscCallCUDA(cudaFree(d_members));
  PetscCallCUDA(cudaFree(d_data));
  PetscCallCUDA(cudaFree(d_pi));
  PetscCallCUDA(cudaFree(d_pj));
  PetscCallCUDA(cudaFree(d_pv));
  PetscCallCUDA(cudaFree(d_cdata));
  PetscCall(PetscFree2(aggptr, members));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* One case: the host reference checked, compared with PETSc's prolongator on the lists and, with
   device, with the CUDA version */
static PetscErrorCode Tentative(const NearNull *nn, const char *aggs, PetscCoarsenData *lists, PetscBool device)
{
  const PetscInt rows = nn->nloc * nn->bs, n = nn->n;
  PetscInt      *agg, *roots, nagg, *pi, *pj, northo, nshort, nsame, csame, nnz, largest = 0;
  PetscScalar   *pv;
  PetscReal     *cdata, *cref, errB, errQ, diff, cdiff;
  Mat            P;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(nn->nloc, &agg, nn->nloc, &roots));
  PetscCall(ListsToAggregates(lists, nn->nloc, agg, roots, &nagg));
  nnz = 0;
  for (PetscInt i = 0; i < nn->nloc; i++) nnz += agg[i] >= 0 ? nn->bs * n : 0;
  PetscCall(PetscMalloc4(rows + 1, &pi, nnz, &pj, nnz, &pv, n * n * nagg, &cdata));
  {
    const MatSpmvGAMGNearNull B  = {nn->nloc, nn->bs, n, nn->data};
    const MatSpmvGAMGP0       P0 = {pi, pj, pv, cdata};

    PetscCall(MatSpmvGAMGTentativeHost(&B, nagg, agg, roots, &P0));
  }
  PetscCall(CheckTentative(nn, nagg, agg, pi, pj, pv, cdata, &errB, &errQ, &northo, &nshort));
  { /* the largest aggregate, for the report */
    PetscInt *size;

    PetscCall(PetscCalloc1(nagg + 1, &size));
    for (PetscInt i = 0; i < nn->nloc; i++)
      if (agg[i] >= 0 && ++size[agg[i]] > largest) largest = size[agg[i]];
    PetscCall(PetscFree(size));
  }
  PetscCall(PETScTentative(nn, lists, nagg, &P, &cref));
  PetscCall(CompareWithPETSc(nn, nagg, P, pi, pj, pv, &diff, &nsame));
  PetscCall(CompareCoarse(nn->name, n, nagg, cref, cdata, &cdiff, &csame));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok tentative %s, %s: %" PetscInt_FMT " aggregates (up to %" PetscInt_FMT " nodes, %" PetscInt_FMT " with fewer rows than the %" PetscInt_FMT " modes); P0 R = B to %.1e, Q^T Q = I to %.1e on %" PetscInt_FMT "; PETSc's P0 and R equal to %.1e (%" PetscInt_FMT " of %" PetscInt_FMT " entries the same bits)\n", nn->name, aggs, nagg, largest, nshort, n, (double)errB, (double)errQ, northo, (double)PetscMax(diff, cdiff), nsame + csame, nnz + n * n * nagg));
#if defined(PETSC_HAVE_CUDA)
  if (device) {
    PetscInt ntotal = 0;

    PetscCall(CompareTentativeDevice(nn, nagg, agg, roots, pi, pj, pv, cdata, &diff, &nsame, &ntotal));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok tentative %s, %s on the device: equal to the host's to %.1e (%" PetscInt_FMT " of %" PetscInt_FMT " entries the same bits)\n", nn->name, aggs, (double)diff, nsame, ntotal));
  }
#endif
  PetscCall(MatDestroy(&P));
  PetscCall(PetscFree(cref));
  PetscCall(PetscFree4(pi, pj, pv, cdata));
  PetscCall(PetscFree2(agg, roots));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Grid graphs aggregated by spmvmis at distance 1 and 2, and random aggregates, with each kind of
   near-null space */
static PetscErrorCode TentativeCases(PetscBool device)
{
  uint64_t state = 20260115;

  PetscFunctionBegin;
  { /* 2D grid, constants */
    Mat               G;
    NearNull          nn;
    PetscCoarsenData *lists;

    PetscCall(Graph(40, 40, 0, 0, 0, 0, &G));
    PetscCall(NearNullSpace("2D grid 40x40, constants", 1600, 1, 0, NULL, PETSC_FALSE, &nn));
    for (PetscInt d = 1; d <= 2; d++) {
      PetscCall(SpmvMISLists(G, d, 0, PETSC_FALSE, &lists, NULL));
      PetscCall(Tentative(&nn, d == 1 ? "spmvmis distance 1" : "spmvmis distance 2", lists, device));
      PetscCall(PetscCDDestroy(lists));
    }
    PetscCall(PetscFree(nn.data));
    PetscCall(MatDestroy(&G));
  }
  for (PetscInt dim = 2; dim <= 3; dim++) { /* elasticity: rigid-body modes of grid coordinates, exact and moved */
    const PetscInt nx = dim == 2 ? 20 : 8, nloc = dim == 2 ? 400 : 512 + 3;
    Mat            G;

    PetscCall(Graph(nx, nx, dim == 2 ? 0 : nx, 0, dim == 2 ? 0 : 3, 0, &G));
    for (PetscInt moved = 0; moved < 2; moved++) {
      NearNull   nn;
      PetscReal *coords;

      PetscCall(Coordinates(nloc, dim, nx, nx, moved ? 0.3 : 0, &state, &coords));
      PetscCall(NearNullSpace(dim == 2 ? (moved ? "2D grid 20x20, bs 2, 3 rigid-body modes of moved nodes" : "2D grid 20x20, bs 2, 3 rigid-body modes") : (moved ? "3D grid 8x8x8 + 3 isolated, bs 3, 6 rigid-body modes of moved nodes" : "3D grid 8x8x8 + 3 isolated, bs 3, 6 rigid-body modes"), nloc, dim, dim, coords, PETSC_FALSE, &nn));
      for (PetscInt d = 1; d <= 2; d++) {
        PetscCoarsenData *lists;

        PetscCall(SpmvMISLists(G, d, 0, PETSC_FALSE, &lists, NULL));
        PetscCall(Tentative(&nn, d == 1 ? "spmvmis distance 1" : "spmvmis distance 2", lists, device));
        PetscCall(PetscCDDestroy(lists));
      }
      PetscCall(PetscFree(nn.data));
      PetscCall(PetscFree(coords));
    }
    PetscCall(MatDestroy(&G));
  }
  { /* random aggregates: 1-node ones and others of fewer rows than modes, not contiguous; each space */
    const struct {
      const char *name;
      PetscInt    nloc, bs, dim, big;
      PetscBool   nearnullspace;
    } rc[] = {
      {"random nodes, bs 3, 6 rigid-body modes",                             300,  3, 3, 0,    PETSC_FALSE},
      {"random nodes, bs 2, 3 rigid-body modes",                             300,  2, 2, 0,    PETSC_FALSE},
      {"random nodes, bs 1, constants and x, y (MatSetNearNullSpace)",       300,  1, 2, 0,    PETSC_TRUE },
      {"random nodes, bs 1, constants, one aggregate of 7000 nodes",         7300, 1, 0, 7000, PETSC_FALSE},
      {"random nodes, bs 3, 6 rigid-body modes, one aggregate of 400 nodes", 600,  3, 3, 400,  PETSC_FALSE},
    };

    for (size_t c = 0; c < PETSC_STATIC_ARRAY_LENGTH(rc); c++) {
      NearNull          nn;
      PetscReal        *coords = NULL;
      PetscInt         *agg, *roots, nagg;
      PetscCoarsenData *lists;

      if (rc[c].dim) PetscCall(Coordinates(rc[c].nloc, rc[c].dim, 0, 0, 0, &state, &coords));
      PetscCall(NearNullSpace(rc[c].name, rc[c].nloc, rc[c].bs, rc[c].dim, coords, rc[c].nearnullspace, &nn));
      PetscCall(PetscMalloc2(rc[c].nloc, &agg, rc[c].nloc, &roots));
      PetscCall(RandomAggregates(rc[c].nloc, rc[c].big, &state, agg, roots, &nagg, &lists));
      PetscCall(Tentative(&nn, "random aggregates", lists, device));
      PetscCall(PetscCDDestroy(lists));
      PetscCall(PetscFree2(agg, roots));
      PetscCall(PetscFree(nn.data));
      PetscCall(PetscFree(coords));
    }
  }
#if defined(PETSC_HAVE_CUDA)
  if (device) { /* more near-null vectors than lanes: refused, for the caller to take PETSc's path */
    const MatSpmvGAMGNearNull B    = {1, 1, MATSPMVGAMG_DEVICE_MAX_COLS + 1, NULL};
    const MatSpmvGAMGMembers  aggs = {1, NULL, NULL, NULL};
    const MatSpmvGAMGP0Device P0   = {NULL, NULL, NULL, NULL};
    PetscErrorCode            ierr;

    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatSpmvGAMGTentativeDevice(&B, &aggs, &P0, NULL);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr == PETSC_ERR_SUP, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The device tentative prolongator took %d near-null vectors (error %d)", MATSPMVGAMG_DEVICE_MAX_COLS + 1, (int)ierr);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok tentative on the device: %d near-null vectors refused (PETSC_ERR_SUP)\n", MATSPMVGAMG_DEVICE_MAX_COLS + 1));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const PetscInt cases[][6] = {
    {40,   40, 0,  0,    0, 0 }, /* 2D grid */
    {12,   12, 12, 0,    3, 0 }, /* 3D grid and 3 isolated rows */
    {2000, 0,  0,  5000, 0, 0 }, /* random graph */
    {1,    0,  0,  0,    4, 0 }, /* a single row and isolated ones: no aggregate */
    {3000, 0,  0,  1200, 0, 0 }, /* a sparser random graph: many components */
    {10,   0,  0,  0,    0, 40}, /* a path and empty rows (compressed rows) */
    {0,    0,  0,  0,    0, 0 }, /* no row */
    {1,    0,  0,  0,    0, 0 }  /* one row */
  };
  PetscBool device = PETSC_FALSE, gpu = PETSC_FALSE, coarsen = PETSC_TRUE, tentative = PETSC_TRUE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpmvInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-device", &device, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpu", &gpu, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-coarsen", &coarsen, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-tentative", &tentative, NULL));
  if (device && !gpu) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "skipped: -device needs a GPU (-gpu 1)\n"));
    PetscCall(PetscFinalize());
    return 0;
  }
#if !defined(PETSC_HAVE_CUDA)
  PetscCheck(!device, PETSC_COMM_WORLD, PETSC_ERR_SUP, "-device: this PETSc has no CUDA");
#endif
  for (size_t c = 0; coarsen && c < PETSC_STATIC_ARRAY_LENGTH(cases); c++) {
    Mat      G;
    PetscInt n, *agg, *again, nagg, nagain;
    char     name[64];

    PetscCall(Graph(cases[c][0], cases[c][1], cases[c][2], cases[c][3], cases[c][4], cases[c][5], &G));
    PetscCall(MatGetSize(G, &n, NULL));
    PetscCall(PetscSNPrintf(name, sizeof(name), "graph %d", (int)c));
    if (device) PetscCall(CompareDevice(G, name));
    else {
      PetscCall(PetscMalloc2(n, &agg, n, &again));
      for (PetscInt d = 1; d <= 2; d++) {
        PetscBool same;

        PetscCall(Coarsen(G, d, agg, &nagg));
        PetscCall(Coarsen(G, d, again, &nagain));
        PetscCall(PetscArraycmp(agg, again, n, &same));
        PetscCheck(same && nagg == nagain, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Case %d, distance %" PetscInt_FMT ": other aggregates the second time", (int)c, d);
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok graph %d (%" PetscInt_FMT " rows), distance %" PetscInt_FMT ": %" PetscInt_FMT " aggregates, independent, maximal, connected, the same again\n", (int)c, n, d, nagg));
      }
      PetscCall(PetscFree2(agg, again));
    }
    PetscCall(MatDestroy(&G));
  }
  if (coarsen && device) { /* many blocks: a 64^3 grid (its host checks would take minutes: the lists only) */
    Mat G;

    PetscCall(Graph(64, 64, 64, 0, 0, 0, &G));
    PetscCall(CompareDevice(G, "64^3 grid"));
    PetscCall(MatDestroy(&G));
  }
  if (tentative) PetscCall(TentativeCases(device));
  PetscCall(PetscFinalize());
  return 0;
}
