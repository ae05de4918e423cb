static char help[] = "GAMG's coarsening for our matrices (MatCoarsen spmvmis): on 2D and 3D grid graphs, random\n"
                     "graphs (one of many components), graphs with isolated or empty rows and of 0 and 1 rows, at\n"
                     "distance 1 and 2, the host reference's roots are independent and maximal at that distance, every\n"
                     "row with a neighbour is in exactly one aggregate (isolated rows in none), each aggregate is\n"
                     "connected and holds its root first, and the same aggregates come again. With -device (a GPU:\n"
                     "otherwise skipped), the device path on the same graphs as seqaijcusparse matrices, and on a 64^3\n"
                     "grid, at both distances and two seeds, gives the host reference's lists exactly (the same\n"
                     "aggregates, roots, and members in the same order: root first, then increasing).\n";

#include <petscspmv.h>
#include <petsc/private/matimpl.h>

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

/* The lists of MatCoarsen spmvmis on G (distance d, seed; the host reference with host), flattened:
   list l's ids at ids[ptr[l]] to ids[ptr[l + 1] - 1]; *device: whether it ran on the device (its view) */
static PetscErrorCode Lists(Mat G, PetscInt d, PetscInt seed, PetscBool host, PetscInt *ptr, PetscInt *ids, PetscBool *device)
{
  MatCoarsen        crs;
  PetscCoarsenData *lists;
  PetscViewer       viewer;
  PetscInt          n;
  char              val[32], view[256] = "";

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(val, sizeof(val), "%" PetscInt_FMT, d));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_coarsen_spmvmis_distance", val));
  PetscCall(PetscSNPrintf(val, sizeof(val), "%" PetscInt_FMT, seed));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_coarsen_spmvmis_seed", val));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_coarsen_spmvmis_host", host ? "1" : "0"));
  PetscCall(MatCoarsenCreate(PETSC_COMM_SELF, &crs));
  PetscCall(MatCoarsenSetType(crs, "spmvmis"));
  PetscCall(MatCoarsenSetFromOptions(crs));
  PetscCall(MatCoarsenSetAdjacency(crs, G));
  PetscCall(MatCoarsenSetStrictAggs(crs, PETSC_TRUE));
  PetscCall(MatCoarsenApply(crs));
  PetscCall(MatCoarsenGetData(crs, &lists));
  PetscCall(PetscViewerStringOpen(PETSC_COMM_SELF, view, sizeof(view), &viewer));
  PetscCall(MatCoarsenView(crs, viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  *device = strstr(view, ",device") ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(MatCoarsenDestroy(&crs));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_coarsen_spmvmis_distance"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_coarsen_spmvmis_seed"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_coarsen_spmvmis_host"));
  PetscCall(MatGetLocalSize(G, &n, NULL));
  ptr[0] = 0;
  for (PetscInt l = 0; l < n; l++) {
    PetscCDIntNd *pos;

    ptr[l + 1] = ptr[l];
    PetscCall(PetscCDGetHeadPos(lists, l, &pos));
    while (pos) {
      PetscCheck(ptr[l + 1] < n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The lists hold more than the %" PetscInt_FMT " rows", n);
      PetscCall(PetscCDIntNdGetID(pos, &ids[ptr[l + 1]++]));
      PetscCall(PetscCDGetNextPos(lists, l, &pos));
    }
  }
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

      PetscCall(Lists(Gd, d, seeds[sd], PETSC_TRUE, ptr[0], ids[0], &device[0]));
      PetscCall(Lists(Gd, d, seeds[sd], PETSC_FALSE, ptr[1], ids[1], &device[1]));
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
  PetscBool device = PETSC_FALSE, gpu = PETSC_FALSE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpmvInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-device", &device, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpu", &gpu, NULL));
  if (device && !gpu) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "skipped: -device needs a GPU (-gpu 1)\n"));
    PetscCall(PetscFinalize());
    return 0;
  }
  for (size_t c = 0; c < PETSC_STATIC_ARRAY_LENGTH(cases); c++) {
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
  if (device) { /* many blocks: a 64^3 grid (its host checks would take minutes: the lists only) */
    Mat G;

    PetscCall(Graph(64, 64, 64, 0, 0, 0, &G));
    PetscCall(CompareDevice(G, "64^3 grid"));
    PetscCall(MatDestroy(&G));
  }
  PetscCall(PetscFinalize());
  return 0;
}
