#pragma once
/* What test_gamg.c and test_gamg_mpi.c share: spmvmis's lists of a graph and the graph distances that
   check them. Static, one copy per test program, as check.h. */
#include <petscmatcoarsen.h>
#include <string.h>

/* Graph distances from s (BFS), only through rows with allowed[r] == allow (allowed NULL: all), up
   to maxd (beyond: -1) */
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

/* MatCoarsen spmvmis's lists of G at distance d with seed (host: -mat_coarsen_spmvmis_host), set by
   options as a user would; *device (unless NULL): whether it ran on the device, as its view says */
static PetscErrorCode SpmvMISLists(Mat G, PetscInt d, PetscInt seed, PetscBool host, PetscCoarsenData **lists, PetscBool *device)
{
  MatCoarsen crs;
  char       val[32];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(val, sizeof(val), "%" PetscInt_FMT, d));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_coarsen_spmvmis_distance", val));
  PetscCall(PetscSNPrintf(val, sizeof(val), "%" PetscInt_FMT, seed));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_coarsen_spmvmis_seed", val));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_coarsen_spmvmis_host", host ? "1" : "0"));
  PetscCall(MatCoarsenCreate(PetscObjectComm((PetscObject)G), &crs));
  PetscCall(MatCoarsenSetType(crs, "spmvmis"));
  PetscCall(MatCoarsenSetFromOptions(crs));
  PetscCall(MatCoarsenSetAdjacency(crs, G));
  PetscCall(MatCoarsenSetStrictAggs(crs, PETSC_TRUE));
  PetscCall(MatCoarsenApply(crs));
  PetscCall(MatCoarsenGetData(crs, lists));
  if (device) {
    PetscViewer viewer;
    char        view[256] = "";

    PetscCall(PetscViewerStringOpen(PETSC_COMM_SELF, view, sizeof(view), &viewer));
    PetscCall(MatCoarsenView(crs, viewer));
    PetscCall(PetscViewerDestroy(&viewer));
    *device = strstr(view, ",device") ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscCall(MatCoarsenDestroy(&crs));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_coarsen_spmvmis_distance"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_coarsen_spmvmis_seed"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_coarsen_spmvmis_host"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same lists flattened: list l of G's local rows holds ids[ptr[l]] to ids[ptr[l + 1] - 1] (global ids) */
static PetscErrorCode SpmvMISFlatLists(Mat G, PetscInt d, PetscInt seed, PetscBool host, PetscInt *ptr, PetscInt *ids, PetscBool *device)
{
  PetscCoarsenData *lists;
  PetscInt          n;

  PetscFunctionBegin;
  PetscCall(SpmvMISLists(G, d, seed, host, &lists, device));
  PetscCall(MatGetLocalSize(G, &n, NULL));
  ptr[0] = 0;
  for (PetscInt l = 0; l < n; l++) {
    PetscCDIntNd *pos;

    ptr[l + 1] = ptr[l];
    PetscCall(PetscCDGetHeadPos(lists, l, &pos));
    while (pos) {
      PetscCheck(ptr[l + 1] < n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The lists hold more than the %" PetscInt_FMT " local rows", n);
      PetscCall(PetscCDIntNdGetID(pos, &ids[ptr[l + 1]++]));
      PetscCall(PetscCDGetNextPos(lists, l, &pos));
    }
  }
  PetscCall(PetscCDDestroy(lists));
  PetscFunctionReturn(PETSC_SUCCESS);
}
