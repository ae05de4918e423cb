static char help[] = "GAMG's coarsening for our matrices (MatCoarsen spmvmis) on several processes, host reference: on\n"
                     "2D and 3D grid graphs, random graphs and paths as MPIAIJ matrices, split evenly, unevenly and\n"
                     "with empty processes, at distance 1 and 2, the independent set is the one-process set of the\n"
                     "whole graph (gathered to the first process: independent and maximal at that distance), each\n"
                     "process's aggregates hold its own rows only, every row with a neighbour is in exactly one\n"
                     "(isolated rows in none), each aggregate is connected inside them, a row next to local roots\n"
                     "is in the aggregate of the highest, the lists are the arrays' (root first at its local index,\n"
                     "then increasing global ids) and the same come again. On one process the lists of an MPIAIJ\n"
                     "graph are those of the same graph as SeqAIJ (the one-process host reference), array for array.\n"
                     "With -device (a GPU, -gpu 1: otherwise skipped), the device path on the same graphs as\n"
                     "MPIAIJCUSPARSE matrices, one with empty rows and a 64^3 grid, at distance 1 and 2 and two seeds:\n"
                     "its arrays (aggregates, roots, independent set, count of new roots) and MatCoarsen spmvmis's lists\n"
                     "on the device are the host reference's exactly, on every process.\n";

#include <petscspmv.h>
#include <petsc/private/matimpl.h>
#include "../src/ksp/pc/impls/spmvgamg/spmvgamgimpl.h"
#include "gamgcheck.h"

/* A graph case: a grid of nx x ny x nz points (7-point neighbours) or nrand random edges among nx
   points (ny = nz = 0), then 'isolated' rows with their diagonal only; split evenly (small < 0), or
   'small' rows on each process but the last, which takes the rest; then 'empty' rows with no entry
   (aijcusparse keeps compressed row offsets of the diagonal block too) */
typedef struct {
  const char *name;
  PetscInt    nx, ny, nz, nrand, isolated, small, empty;
} Case;

static PetscInt Rows(const Case *c)
{
  return c->nx * PetscMax(c->ny, 1) * PetscMax(c->nz, 1) + c->isolated + c->empty;
}

/* A reproducible pseudo-random number in [0, n) */
static PetscInt Below(uint64_t *state, PetscInt n)
{
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (PetscInt)((*state >> 33) % (uint64_t)n);
}

/* Case c's graph on comm with its rows [rstart, rend) on this process (nloc of them), of type 'type'
   (MPIAIJ even on one process, or SeqAIJ); every process makes the same edges and sets those of its rows */
static PetscErrorCode Graph(MPI_Comm comm, MatType type, const Case *c, PetscInt nloc, Mat *G)
{
  const PetscInt N = Rows(c), ngrid = N - c->isolated - c->empty, ny = PetscMax(c->ny, 1), nz = PetscMax(c->nz, 1);
  PetscInt       rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatCreate(comm, G));
  PetscCall(MatSetSizes(*G, nloc, nloc, N, N));
  PetscCall(MatSetType(*G, type));
  PetscCall(MatSeqAIJSetPreallocation(*G, 8, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*G, 8, NULL, 8, NULL));
  PetscCall(MatSetOption(*G, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(*G, &rstart, &rend));
  for (PetscInt r = rstart; r < PetscMin(rend, N - c->empty); r++) PetscCall(MatSetValue(*G, r, r, 1.0, INSERT_VALUES));
  if (c->nrand) {
    uint64_t state = 12345;

    for (PetscInt e = 0; e < c->nrand; e++) {
      PetscInt i = Below(&state, ngrid), j = Below(&state, ngrid);

      if (i >= rstart && i < rend) PetscCall(MatSetValue(*G, i, j, 1.0, INSERT_VALUES));
      if (j >= rstart && j < rend) PetscCall(MatSetValue(*G, j, i, 1.0, INSERT_VALUES));
    }
  } else {
    for (PetscInt r = rstart; r < PetscMin(rend, ngrid); r++) {
      const PetscInt i = r % c->nx, j = (r / c->nx) % ny, k = r / (c->nx * ny);

      if (i > 0) PetscCall(MatSetValue(*G, r, r - 1, 1.0, INSERT_VALUES));
      if (i + 1 < c->nx) PetscCall(MatSetValue(*G, r, r + 1, 1.0, INSERT_VALUES));
      if (j > 0) PetscCall(MatSetValue(*G, r, r - c->nx, 1.0, INSERT_VALUES));
      if (j + 1 < ny) PetscCall(MatSetValue(*G, r, r + c->nx, 1.0, INSERT_VALUES));
      if (k > 0) PetscCall(MatSetValue(*G, r, r - c->nx * ny, 1.0, INSERT_VALUES));
      if (k + 1 < nz) PetscCall(MatSetValue(*G, r, r + c->nx * ny, 1.0, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*G, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*G, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The arrays of MatSpmvGAMGAggregateMPIHost() on G at distance d, checked against the lists
   MatCoarsen spmvmis hands PETSc (root first at its local index, then the others by increasing
   global id, local rows only, each row in one list) and against a second run; out: each local row's
   root's global id (-1: none) and whether it is in the independent set */
static PetscErrorCode Coarsen(const char *name, Mat G, PetscInt d, PetscInt *rootgid, PetscInt *inset, PetscInt *nagg)
{
  PetscInt   n, rstart, *agg, *roots, *ptr, *ids, *again, nagain;
  PetscBool *mis, same;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(G, &n, NULL));
  PetscCall(MatGetOwnershipRange(G, &rstart, NULL));
  PetscCall(PetscMalloc6(n, &agg, n, &roots, n + 1, &ptr, PetscMax(n, 1), &ids, n, &again, n, &mis));
  PetscCall(MatSpmvGAMGAggregateMPIHost(G, d, 0, agg, roots, nagg, mis));
  for (PetscInt a = 0; a < *nagg; a++) {
    PetscCheck(roots[a] >= 0 && roots[a] < n && agg[roots[a]] == a, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ": aggregate %" PetscInt_FMT "'s root %" PetscInt_FMT " is not a local row of it", name, d, a, roots[a]);
    PetscCheck(!a || roots[a] > roots[a - 1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ": aggregates not numbered by increasing root", name, d);
  }
  for (PetscInt i = 0; i < n; i++) {
    rootgid[i] = agg[i] >= 0 ? rstart + roots[agg[i]] : -1;
    inset[i]   = mis[i];
    PetscCheck(!mis[i] || rootgid[i] == rstart + i, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ": row %" PetscInt_FMT " of the independent set is not its aggregate's root", name, d, rstart + i);
  }
  /* the lists PETSc gets: these aggregates */
  PetscCall(SpmvMISFlatLists(G, d, 0, PETSC_FALSE, ptr, ids, NULL));
  for (PetscInt l = 0, a = 0; l < n; l++) {
    if (ptr[l + 1] == ptr[l]) continue;
    PetscCheck(a < *nagg && roots[a] == l, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ": a list at local row %" PetscInt_FMT ", which roots no aggregate", name, d, l);
    PetscCheck(ids[ptr[l]] == rstart + l, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ": the list at %" PetscInt_FMT " starts with %" PetscInt_FMT ", not its root", name, d, rstart + l, ids[ptr[l]]);
    for (PetscInt k = ptr[l]; k < ptr[l + 1]; k++) {
      const PetscInt i = ids[k] - rstart;

      PetscCheck(i >= 0 && i < n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ": the list at %" PetscInt_FMT " holds %" PetscInt_FMT ", a row of another process", name, d, rstart + l, ids[k]);
      PetscCheck(agg[i] == a, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ": the list at %" PetscInt_FMT " holds %" PetscInt_FMT ", of another aggregate", name, d, rstart + l, ids[k]);
      PetscCheck(k < ptr[l] + 2 || ids[k] > ids[k - 1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ": the list at %" PetscInt_FMT " is not in increasing order after its root", name, d, rstart + l);
    }
    a++;
  }
  for (PetscInt a = 0; a < *nagg; a++) {
    PetscInt size = 0;

    for (PetscInt i = 0; i < n; i++) size += agg[i] == a;
    PetscCheck(ptr[roots[a] + 1] - ptr[roots[a]] == size, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ": the list of aggregate %" PetscInt_FMT " holds %" PetscInt_FMT " rows, not its %" PetscInt_FMT, name, d, a, ptr[roots[a] + 1] - ptr[roots[a]], size);
  }
  /* the same again */
  PetscCall(MatSpmvGAMGAggregateMPIHost(G, d, 0, again, roots, &nagain, mis));
  PetscCall(PetscArraycmp(agg, again, n, &same));
  PetscCheck(same && nagain == *nagg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ": other aggregates the second time", name, d);
  PetscCall(PetscFree6(agg, roots, ptr, ids, again, mis));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* On the first process, the whole graph Gs (SeqAIJ) with every row's root (global id, -1: none),
   independent-set flag and owner: the independent set is the one-process host reference's of Gs
   (independent and maximal at distance d), the aggregates of local rows, connected inside them, a row
   with a neighbour in exactly one, a row next to roots of its process in the aggregate of the
   highest key; *newroots: roots not in the independent set */
static PetscErrorCode CheckWhole(const char *name, Mat Gs, PetscInt d, const PetscInt *rootgid, const PetscInt *inset, const PetscInt *owner, PetscInt *newroots, PetscInt *nset)
{
  const PetscInt *ai, *aj;
  PetscInt        N, *dist, *queue, *ptr, *ids, *isroot1;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(Gs, 0, PETSC_FALSE, PETSC_FALSE, &N, &ai, &aj, &done));
  PetscCall(PetscMalloc5(N, &dist, N, &queue, N + 1, &ptr, PetscMax(N, 1), &ids, N, &isroot1));
  /* the one-process set of the whole graph: its aggregates' roots */
  PetscCall(SpmvMISFlatLists(Gs, d, 0, PETSC_FALSE, ptr, ids, NULL));
  for (PetscInt i = 0; i < N; i++) isroot1[i] = ptr[i + 1] > ptr[i];
  *newroots = *nset = 0;
  for (PetscInt i = 0; i < N; i++) {
    PetscBool alone = PETSC_TRUE;

    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) alone = (PetscBool)(alone && aj[k] == i);
    PetscCheck(inset[i] == isroot1[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ": row %" PetscInt_FMT " is %sin the independent set, %sin the one-process set of the whole graph", name, d, i, inset[i] ? "" : "not ", isroot1[i] ? "" : "not ");
    PetscCheck(alone == (rootgid[i] < 0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ": row %" PetscInt_FMT " (%s) is %sin an aggregate", name, d, i, alone ? "isolated" : "with neighbours", rootgid[i] < 0 ? "not " : "");
    if (rootgid[i] < 0) continue;
    PetscCheck(owner[rootgid[i]] == owner[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ": row %" PetscInt_FMT " of process %" PetscInt_FMT " is in the aggregate of %" PetscInt_FMT ", of process %" PetscInt_FMT, name, d, i, owner[i], rootgid[i], owner[rootgid[i]]);
    *nset += inset[i];
    if (rootgid[i] == i) {
      *newroots += !inset[i];
      /* connected: every member reached from the root inside the aggregate */
      Distances(N, ai, aj, i, rootgid, i, PETSC_INT_MAX, dist, queue);
      for (PetscInt j = 0; j < N; j++)
        PetscCheck(rootgid[j] != i || dist[j] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ": row %" PetscInt_FMT " is not connected to its root %" PetscInt_FMT " inside their aggregate", name, d, j, i);
    }
    if (inset[i]) { /* independent: no other row of the set within d */
      Distances(N, ai, aj, i, NULL, 0, d, dist, queue);
      for (PetscInt j = 0; j < N; j++)
        PetscCheck(j == i || !inset[j] || dist[j] < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ": rows %" PetscInt_FMT " and %" PetscInt_FMT " of the independent set are %" PetscInt_FMT " apart", name, d, i, j, dist[j]);
    } else { /* maximal: a row of the set within d (of any process); next to roots of its own process: the highest's */
      PetscBool near = PETSC_FALSE;
      PetscInt  best = -1;

      Distances(N, ai, aj, i, NULL, 0, d, dist, queue);
      for (PetscInt j = 0; j < N; j++) near = (PetscBool)(near || (inset[j] && dist[j] >= 0));
      PetscCheck(near, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ": row %" PetscInt_FMT " has no row of the independent set within %" PetscInt_FMT ": not maximal", name, d, i, d);
      for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
        const PetscInt j = aj[k];

        if (j != i && inset[j] && owner[j] == owner[i] && (best < 0 || MatCoarsenSpmvAboveGlobal(j, best, 0))) best = j;
      }
      PetscCheck(best < 0 || rootgid[i] == best, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ": row %" PetscInt_FMT " is in the aggregate of %" PetscInt_FMT ", not of its adjacent local root of the highest key %" PetscInt_FMT, name, d, i, rootgid[i], best);
    }
  }
  PetscCall(PetscFree5(dist, queue, ptr, ids, isroot1));
  PetscCall(MatRestoreRowIJ(Gs, 0, PETSC_FALSE, PETSC_FALSE, &N, &ai, &aj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* The first local row where a and b (n entries) differ, -1: none */
static PetscInt FirstDiff(PetscInt n, const PetscInt *a, const PetscInt *b)
{
  for (PetscInt i = 0; i < n; i++)
    if (a[i] != b[i]) return i;
  return -1;
}

/* The device path on G (MPIAIJCUSPARSE): MatSpmvGAMGAggregateMPIDevice()'s arrays, independent set and
   count of new roots, and MatCoarsen spmvmis's lists on the device (its view says where it ran), equal
   to the host reference's (MatSpmvGAMGAggregateMPIHost(), -mat_coarsen_spmvmis_host) on every
   process, at distance 1 and 2 and two seeds */
static PetscErrorCode CompareDevice(const char *name, Mat G)
{
  const PetscInt seeds[] = {0, 12345};
  PetscInt       n, N, rstart, *agg[2], *roots[2], *set[2], *ptr[2], *ids[2];
  PetscBool     *inset[2];
  PetscMPIInt    size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)G), &size));
  PetscCall(MatGetLocalSize(G, &n, NULL));
  PetscCall(MatGetSize(G, &N, NULL));
  PetscCall(MatGetOwnershipRange(G, &rstart, NULL));
  for (int h = 0; h < 2; h++) PetscCall(PetscMalloc6(n, &agg[h], n, &roots[h], n, &set[h], n, &inset[h], n + 1, &ptr[h], PetscMax(n, 1), &ids[h]));
  for (PetscInt d = 1; d <= 2; d++) {
    for (size_t sd = 0; sd < PETSC_STATIC_ARRAY_LENGTH(seeds); sd++) {
      const PetscInt seed = seeds[sd];
      PetscInt       nagg[2], nnew[2] = {0, 0}, i, sums[2], gsums[2];
      PetscBool      device[2], same;

      PetscCall(MatSpmvGAMGAggregateMPIHost(G, d, seed, agg[0], roots[0], &nagg[0], inset[0]));
      PetscCall(MatSpmvGAMGAggregateMPIDevice(G, d, seed, agg[1], roots[1], &nagg[1], &nnew[1], inset[1]));
      for (PetscInt a = 0; a < nagg[0]; a++) nnew[0] += !inset[0][roots[0][a]];
      for (int h = 0; h < 2; h++)
        for (PetscInt r = 0; r < n; r++) set[h][r] = inset[h][r];
      PetscCheck(nagg[1] == nagg[0], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ", seed %" PetscInt_FMT ": %" PetscInt_FMT " aggregates on the device, %" PetscInt_FMT " in the host reference", name, d, seed, nagg[1], nagg[0]);
      PetscCheck((i = FirstDiff(n, set[1], set[0])) < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ", seed %" PetscInt_FMT ": row %" PetscInt_FMT " is %sin the device's independent set, %sin the host reference's", name, d, seed, rstart + i, set[1][i] ? "" : "not ", set[0][i] ? "" : "not ");
      PetscCheck((i = FirstDiff(nagg[0], roots[1], roots[0])) < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ", seed %" PetscInt_FMT ": aggregate %" PetscInt_FMT "'s root is %" PetscInt_FMT " on the device, %" PetscInt_FMT " in the host reference", name, d, seed, i, rstart + roots[1][i], rstart + roots[0][i]);
      PetscCheck((i = FirstDiff(n, agg[1], agg[0])) < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ", seed %" PetscInt_FMT ": row %" PetscInt_FMT " is in aggregate %" PetscInt_FMT " on the device, %" PetscInt_FMT " in the host reference", name, d, seed, rstart + i, agg[1][i], agg[0][i]);
      PetscCheck(nnew[1] == nnew[0], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ", seed %" PetscInt_FMT ": %" PetscInt_FMT " new roots on the device, %" PetscInt_FMT " in the host reference", name, d, seed, nnew[1], nnew[0]);
      /* the lists PETSc gets: the host reference's, then the device path's */
      for (int h = 0; h < 2; h++) PetscCall(SpmvMISFlatLists(G, d, seed, h ? PETSC_FALSE : PETSC_TRUE, ptr[h], ids[h], &device[h]));
      PetscCheck(!device[0] && device[1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ": the reference ran %s, the device path %s", name, d, device[0] ? "on the device" : "on the host", device[1] ? "on the device" : "on the host (see -info)");
      PetscCall(PetscArraycmp(ptr[0], ptr[1], n + 1, &same));
      if (same) PetscCall(PetscArraycmp(ids[0], ids[1], ptr[0][n], &same));
      PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ", seed %" PetscInt_FMT ": the device's lists differ from the host reference's", name, d, seed);
      sums[0] = nagg[0], sums[1] = nnew[0];
      PetscCallMPI(MPIU_Allreduce(sums, gsums, 2, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)G)));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok device %s (%" PetscInt_FMT " rows), %d process(es), distance %" PetscInt_FMT ", seed %" PetscInt_FMT ": %" PetscInt_FMT " aggregates (%" PetscInt_FMT " new roots), the host reference's arrays, independent set and lists exactly\n", name, N, size, d, seed, gsums[0], gsums[1]));
    }
  }
  for (int h = 0; h < 2; h++) PetscCall(PetscFree6(agg[h], roots[h], set[h], inset[h], ptr[h], ids[h]));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* The split of case cs: this process's rows (evenly, or 'small' on each process but the last) */
static PetscErrorCode LocalRows(const Case *cs, PetscMPIInt rank, PetscMPIInt size, PetscInt *nloc)
{
  PetscInt N = Rows(cs);

  PetscFunctionBegin;
  *nloc = cs->small < 0 ? PETSC_DECIDE : (rank < size - 1 ? PetscMin(cs->small, N / size) : N - (size - 1) * PetscMin(cs->small, N / size));
  if (*nloc == PETSC_DECIDE) PetscCall(PetscSplitOwnership(PETSC_COMM_WORLD, nloc, &N));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const Case cases[] = {
    {"2D grid 40x40",                      40,   40, 0,  0,    0, -1},
    {"3D grid 12^3, 3 isolated rows",      12,   12, 12, 0,    3, -1},
    {"2D grid 30x30, 7 rows on the first", 30,   30, 0,  0,    0, 7 },
    {"3D grid 10^3, 40 rows on the first", 10,   10, 10, 0,    0, 40},
    {"random graph, 2000 rows",            2000, 0,  0,  5000, 0, -1},
    {"sparse random graph, 3000 rows",     3000, 0,  0,  1200, 2, -1},
    {"path of 12, empty first processes",  12,   0,  0,  0,    0, 0 },
    {"path of 5, 1 row each but the last", 5,    0,  0,  0,    0, 1 },
  };
  const Case devcases[] = {
  /* beside the cases above: rows with no entry, and many blocks */
    {"2D grid 30x30, 2 isolated and 50 empty rows", 30, 30, 0,  0, 2, -1, 50},
    {"3D grid 64^3",                                64, 64, 64, 0, 0, -1, 0 },
  };
  PetscMPIInt rank, size;
  PetscBool   device = PETSC_FALSE, gpu = PETSC_FALSE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpmvInitializePackage());
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-device", &device, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpu", &gpu, NULL));
  if (device && !gpu) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "skipped: -device needs a GPU (-gpu 1)\n"));
    PetscCall(PetscFinalize());
    return 0;
  }
#if defined(PETSC_HAVE_CUDA)
  for (size_t c = 0; device && c < PETSC_STATIC_ARRAY_LENGTH(cases) + PETSC_STATIC_ARRAY_LENGTH(devcases); c++) { /* the device path only */
    const Case *cs = c < PETSC_STATIC_ARRAY_LENGTH(cases) ? &cases[c] : &devcases[c - PETSC_STATIC_ARRAY_LENGTH(cases)];
    PetscInt    nloc;
    Mat         G;

    PetscCall(LocalRows(cs, rank, size, &nloc));
    PetscCall(Graph(PETSC_COMM_WORLD, MATMPIAIJCUSPARSE, cs, nloc, &G));
    PetscCall(CompareDevice(cs->name, G));
    PetscCall(MatDestroy(&G));
  }
#else
  (void)devcases;
  PetscCheck(!device, PETSC_COMM_WORLD, PETSC_ERR_SUP, "-device: this PETSc has no CUDA");
#endif
  for (size_t c = 0; !device && c < PETSC_STATIC_ARRAY_LENGTH(cases); c++) {
    const Case  *cs = &cases[c];
    PetscInt     N = Rows(cs), nloc, rstart, *rootgid, *inset, *allroot = NULL, *allset = NULL, *owner = NULL;
    PetscMPIInt *counts = NULL, *displs = NULL, nl;
    Mat          G, Gs                  = NULL;

    PetscCall(LocalRows(cs, rank, size, &nloc));
    PetscCall(Graph(PETSC_COMM_WORLD, MATMPIAIJ, cs, nloc, &G));
    PetscCall(MatGetOwnershipRange(G, &rstart, NULL));
    PetscCall(PetscMalloc2(nloc, &rootgid, nloc, &inset));
    if (rank == 0) {
      PetscCall(PetscMalloc5(size, &counts, size, &displs, N, &allroot, N, &allset, N, &owner));
      PetscCall(Graph(PETSC_COMM_SELF, MATSEQAIJ, cs, N, &Gs));
    }
    PetscCall(PetscMPIIntCast(nloc, &nl));
    PetscCallMPI(MPI_Gather(&nl, 1, MPI_INT, counts, 1, MPI_INT, 0, PETSC_COMM_WORLD));
    if (rank == 0) {
      displs[0] = 0;
      for (PetscMPIInt p = 0; p < size; p++) {
        if (p) displs[p] = displs[p - 1] + counts[p - 1];
        for (PetscMPIInt k = 0; k < counts[p]; k++) owner[displs[p] + k] = p;
      }
    }
    for (PetscInt d = 1; d <= 2; d++) {
      PetscInt nagg, gnagg, newroots = 0, nset = 0;

      PetscCall(Coarsen(cs->name, G, d, rootgid, inset, &nagg));
      PetscCallMPI(MPI_Gatherv(rootgid, nl, MPIU_INT, allroot, counts, displs, MPIU_INT, 0, PETSC_COMM_WORLD));
      PetscCallMPI(MPI_Gatherv(inset, nl, MPIU_INT, allset, counts, displs, MPIU_INT, 0, PETSC_COMM_WORLD));
      PetscCallMPI(MPIU_Allreduce(&nagg, &gnagg, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
      if (rank == 0) PetscCall(CheckWhole(cs->name, Gs, d, allroot, allset, owner, &newroots, &nset));
      if (size == 1) { /* an MPIAIJ graph on one process: the one-process reference's lists of the same graph as SeqAIJ */
        PetscInt *ptr[2], *ids[2];
        PetscBool same;
        Mat       S;

        PetscCall(Graph(PETSC_COMM_SELF, MATSEQAIJ, cs, N, &S));
        for (int k = 0; k < 2; k++) PetscCall(PetscMalloc2(N + 1, &ptr[k], PetscMax(N, 1), &ids[k]));
        PetscCall(SpmvMISFlatLists(G, d, 0, PETSC_FALSE, ptr[0], ids[0], NULL));
        PetscCall(SpmvMISFlatLists(S, d, 0, PETSC_FALSE, ptr[1], ids[1], NULL));
        PetscCall(PetscArraycmp(ptr[0], ptr[1], N + 1, &same));
        if (same) PetscCall(PetscArraycmp(ids[0], ids[1], ptr[0][N], &same));
        PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, distance %" PetscInt_FMT ": the MPIAIJ graph's lists differ from the SeqAIJ graph's", cs->name, d);
        for (int k = 0; k < 2; k++) PetscCall(PetscFree2(ptr[k], ids[k]));
        PetscCall(MatDestroy(&S));
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s (%" PetscInt_FMT " rows), %d process(es), distance %" PetscInt_FMT ": independent set of %" PetscInt_FMT " (the one-process set), %" PetscInt_FMT " aggregates of local rows (%" PetscInt_FMT " new roots), connected, the same again%s\n", cs->name, N, size, d, nset, gnagg, newroots, size == 1 ? ", the SeqAIJ graph's lists" : ""));
    }
    PetscCall(PetscFree2(rootgid, inset));
    if (rank == 0) PetscCall(PetscFree5(counts, displs, allroot, allset, owner));
    PetscCall(MatDestroy(&Gs));
    PetscCall(MatDestroy(&G));
  }
  PetscCall(PetscFinalize());
  return 0;
}
