static char help[] = "GAMG's coarsening for our matrices (MatCoarsen spmvmis, host reference): on 2D and 3D grid\n"
                     "graphs, a random graph and one with isolated rows, at distance 1 and 2, the roots are\n"
                     "independent and maximal at that distance, every row with a neighbour is in exactly one\n"
                     "aggregate (isolated rows in none), each aggregate is connected and holds its root first, and\n"
                     "the same aggregates come again.\n";

#include <petscspmv.h>
#include <petsc/private/matimpl.h>

/* The symmetric graph of a grid of nx x ny x nz points (7-point neighbours), or of n random edges
   among nx points (ny = nz = 0), with rows beyond 'isolated' left without neighbours */
static PetscErrorCode Graph(PetscInt nx, PetscInt ny, PetscInt nz, PetscInt nrand, PetscInt isolated, Mat *G)
{
  PetscInt n = nx * PetscMax(ny, 1) * PetscMax(nz, 1);

  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n + isolated, n + isolated, 8, NULL, G));
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

/* Graph distances from s (BFS), only through rows with allowed[r] (NULL: all), up to maxd (beyond: -1) */
static void Distances(PetscInt n, const PetscInt *ai, const PetscInt *aj, PetscInt s, const PetscInt *allowed, PetscInt allow, PetscInt maxd, PetscInt *dist, PetscInt *queue)
{
  PetscInt head = 0, tail = 0;

  for (PetscInt i = 0; i < n; i++) dist[i] = -1;
  dist[s]       = 0;
  queue[tail++] = s;
  while (head < tail) {
    PetscInt i = queue[head++];

    if (dist[i] == maxd) continue;
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      PetscInt j = aj[k];

      if (dist[j] >= 0 || (allowed && allowed[j] != allow)) continue;
      dist[j]       = dist[i] + 1;
      queue[tail++] = j;
    }
  }
}

/* The aggregates of G at distance d: agg[i] (-1: none), root[a]; checked against their definition */
static PetscErrorCode Coarsen(Mat G, PetscInt d, PetscInt *agg, PetscInt *nagg)
{
  MatCoarsen        crs;
  PetscCoarsenData *lists;
  const PetscInt   *ai, *aj;
  PetscInt          n, *dist, *queue, *isroot;
  PetscBool         done;
  char              val[8];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(val, sizeof(val), "%" PetscInt_FMT, d));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_coarsen_spmvmis_distance", val));
  PetscCall(MatCoarsenCreate(PETSC_COMM_SELF, &crs));
  PetscCall(MatCoarsenSetType(crs, "spmvmis"));
  PetscCall(MatCoarsenSetFromOptions(crs));
  PetscCall(MatCoarsenSetAdjacency(crs, G));
  PetscCall(MatCoarsenSetStrictAggs(crs, PETSC_TRUE));
  PetscCall(MatCoarsenApply(crs));
  PetscCall(MatCoarsenGetData(crs, &lists));
  PetscCall(MatCoarsenDestroy(&crs));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_coarsen_spmvmis_distance"));
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
    PetscBool alone = (PetscBool)(ai[i + 1] - ai[i] <= 1);

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

int main(int argc, char **argv)
{
  const PetscInt cases[][5] = {
    {40,   40, 0,  0,    0}, /* 2D grid */
    {12,   12, 12, 0,    3}, /* 3D grid and 3 isolated rows */
    {2000, 0,  0,  5000, 0}, /* random graph */
    {1,    0,  0,  0,    4}  /* a single row and isolated ones: no aggregate */
  };

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpmvInitializePackage());
  for (size_t c = 0; c < PETSC_STATIC_ARRAY_LENGTH(cases); c++) {
    Mat      G;
    PetscInt n, *agg, *again, nagg, nagain;

    PetscCall(Graph(cases[c][0], cases[c][1], cases[c][2], cases[c][3], cases[c][4], &G));
    PetscCall(MatGetSize(G, &n, NULL));
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
    PetscCall(MatDestroy(&G));
  }
  PetscCall(PetscFinalize());
  return 0;
}
