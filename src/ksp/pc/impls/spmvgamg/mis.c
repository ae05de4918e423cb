/*
  GAMG's coarsening for our matrices, host reference (issue 51, step 1): a maximal independent set of
  the strength graph at distance 1 or 2, found in rounds as a GPU finds it (a node joins when its
  priority, a hash of its global index, is the largest among the undecided nodes within the distance;
  no squared graph), and the aggregates around it (roots; then their neighbours; at distance 2 the
  nodes two steps away join the neighbouring aggregate of the highest root). Registered as the
  MatCoarsen type "spmvmis": the lists PCGAMG's prolongator reads (root first, then the members in
  increasing index; isolated nodes in none, as PETSc's MIS leaves them). One process for now.
*/
#include <petsc/private/matimpl.h>
#include "spmvgamgimpl.h"

typedef struct {
  PetscInt distance; /* 1 or 2 */
  PetscInt seed;
} MatCoarsen_SpmvMIS;

/* A node's priority: splitmix64 of (global index, seed); ties (none in practice) go to the larger index */
static inline uint64_t MatCoarsenSpmvHash(PetscInt gid, PetscInt seed)
{
  uint64_t z = (uint64_t)gid + 0x9e3779b97f4a7c15ULL * (uint64_t)(seed + 1);

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static inline PetscBool MatCoarsenSpmvAbove(const uint64_t *prio, PetscInt a, PetscInt b) /* a's key above b's */
{
  return (PetscBool)(prio[a] > prio[b] || (prio[a] == prio[b] && a > b));
}

/* For each node the undecided node of the highest key in its closed neighbourhood (-1: none) */
static void MatCoarsenSpmvMaxUndecided(PetscInt n, const PetscInt *ai, const PetscInt *aj, const uint64_t *prio, const PetscInt *from, PetscInt *to)
{
  for (PetscInt i = 0; i < n; i++) {
    PetscInt best = from[i];

    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      PetscInt c = from[aj[k]];

      if (c >= 0 && (best < 0 || MatCoarsenSpmvAbove(prio, c, best))) best = c;
    }
    to[i] = best;
  }
}

PetscErrorCode MatCoarsenSpmvAggregateHost(PetscInt n, const PetscInt ai[], const PetscInt aj[], PetscInt rstart, PetscInt distance, PetscInt seed, PetscInt agg[], PetscInt roots[], PetscInt *nagg)
{
  enum {
    UNDECIDED,
    ROOT,
    OUT,
    ISOLATED
  };
  PetscInt *state, *m1, *m2, *near, *root, left = 0;
  uint64_t *prio;

  PetscFunctionBegin;
  PetscCheck(distance == 1 || distance == 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The independent set's distance is 1 or 2, not %" PetscInt_FMT, distance);
  PetscCall(PetscMalloc6(n, &state, n, &m1, n, &m2, n, &near, n, &root, n, &prio));
  for (PetscInt i = 0; i < n; i++) {
    PetscBool other = PETSC_FALSE;

    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) other = (PetscBool)(other || aj[k] != i);
    state[i] = other ? UNDECIDED : ISOLATED;
    prio[i]  = MatCoarsenSpmvHash(rstart + i, seed);
    left += other;
  }
  while (left) {
    /* a node whose key is the highest among the undecided within the distance becomes a root */
    for (PetscInt i = 0; i < n; i++) m1[i] = state[i] == UNDECIDED ? i : -1;
    MatCoarsenSpmvMaxUndecided(n, ai, aj, prio, m1, m2);
    if (distance == 2) {
      MatCoarsenSpmvMaxUndecided(n, ai, aj, prio, m2, m1);
      PetscCall(PetscArraycpy(m2, m1, n));
    }
    for (PetscInt i = 0; i < n; i++)
      if (state[i] == UNDECIDED && m2[i] == i) state[i] = ROOT, left--;
    /* the undecided within the distance of a root are out */
    for (PetscInt i = 0; i < n; i++) near[i] = state[i] == ROOT;
    for (PetscInt d = 0; d < distance; d++) {
      for (PetscInt i = 0; i < n; i++) {
        PetscInt f = near[i] & 1;

        for (PetscInt k = ai[i]; k < ai[i + 1] && !f; k++) f = near[aj[k]] & 1;
        near[i] |= f << 1;
      }
      for (PetscInt i = 0; i < n; i++) near[i] = (near[i] >> 1) | (near[i] & 1);
    }
    for (PetscInt i = 0; i < n; i++)
      if (state[i] == UNDECIDED && near[i]) state[i] = OUT, left--;
  }
  /* aggregates: roots numbered in index order; neighbours join the adjacent root of the highest key;
     at distance 2 the rest join the neighbouring aggregate whose root has the highest key */
  *nagg = 0;
  for (PetscInt i = 0; i < n; i++) {
    if (state[i] == ROOT) roots[*nagg] = i;
    agg[i]  = state[i] == ROOT ? (*nagg)++ : -1;
    root[i] = state[i] == ROOT ? i : -1;
  }
  for (int pass = 0; pass < distance; pass++) {
    for (PetscInt i = 0; i < n; i++) {
      PetscInt best = -1;

      if (state[i] != OUT || root[i] >= 0) continue;
      for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
        PetscInt r = root[aj[k]];

        if (r >= 0 && (pass == 1 || state[aj[k]] == ROOT) && (best < 0 || MatCoarsenSpmvAbove(prio, r, best))) best = r;
      }
      m1[i] = best;
    }
    for (PetscInt i = 0; i < n; i++)
      if (state[i] == OUT && root[i] < 0 && m1[i] >= 0) root[i] = m1[i], agg[i] = agg[m1[i]];
  }
  for (PetscInt i = 0; i < n; i++) PetscCheck(state[i] == ISOLATED || agg[i] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Node %" PetscInt_FMT " is in no aggregate", rstart + i);
  PetscCall(PetscFree6(state, m1, m2, near, root, prio));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCoarsenApply_SpmvMIS(MatCoarsen coarse)
{
  MatCoarsen_SpmvMIS *mis = (MatCoarsen_SpmvMIS *)coarse->subctx;
  Mat                 G   = coarse->graph;
  const PetscInt     *ai, *aj;
  PetscInt            n, rstart, nagg, *agg, *roots;
  PetscBool           done;
  PetscMPIInt         size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)G), &size));
  PetscCheck(size == 1, PetscObjectComm((PetscObject)G), PETSC_ERR_SUP, "MatCoarsen spmvmis runs on one process for now: use -mat_coarsen_type mis or misk on %d", size);
  PetscCall(MatGetOwnershipRange(G, &rstart, NULL));
  PetscCall(MatGetRowIJ(G, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatCoarsen spmvmis needs the graph's CSR (MatGetRowIJ), which a %s matrix does not give", ((PetscObject)G)->type_name);
  PetscCall(PetscMalloc2(n, &agg, n, &roots));
  PetscCall(MatCoarsenSpmvAggregateHost(n, ai, aj, rstart, mis->distance, mis->seed, agg, roots, &nagg));
  PetscCall(MatGetLocalSize(G, &n, NULL)); /* MatRestoreRowIJ() below zeroes it */
  {
    PetscInt m;

    PetscCall(MatRestoreRowIJ(G, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  }
  /* one list per aggregate at its root's index: the root, then the members in index order */
  if (coarse->agg_lists) PetscCall(PetscCDDestroy(coarse->agg_lists));
  PetscCall(PetscCDCreate(n, &coarse->agg_lists));
  for (PetscInt a = 0; a < nagg; a++) PetscCall(PetscCDAppendID(coarse->agg_lists, roots[a], rstart + roots[a]));
  for (PetscInt i = 0; i < n; i++)
    if (agg[i] >= 0 && roots[agg[i]] != i) PetscCall(PetscCDAppendID(coarse->agg_lists, roots[agg[i]], rstart + i));
  PetscCall(PetscInfo(G, "%" PetscInt_FMT " aggregates of %" PetscInt_FMT " nodes, independent set at distance %" PetscInt_FMT "\n", nagg, n, mis->distance));
  PetscCall(PetscFree2(agg, roots));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCoarsenSetFromOptions_SpmvMIS(MatCoarsen coarse, PetscOptionItems PetscOptionsObject)
{
  MatCoarsen_SpmvMIS *mis = (MatCoarsen_SpmvMIS *)coarse->subctx;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "MatCoarsen spmvmis options");
  PetscCall(PetscOptionsRangeInt("-mat_coarsen_spmvmis_distance", "Distance of the independent set: 1 or 2 (aggressive coarsening)", "MatCoarsenApply", mis->distance, &mis->distance, NULL, 1, 2));
  PetscCall(PetscOptionsInt("-mat_coarsen_spmvmis_seed", "Seed of the nodes' priorities (a hash of their global index)", "MatCoarsenApply", mis->seed, &mis->seed, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCoarsenView_SpmvMIS(MatCoarsen coarse, PetscViewer viewer)
{
  MatCoarsen_SpmvMIS *mis = (MatCoarsen_SpmvMIS *)coarse->subctx;
  PetscBool           isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (isascii) PetscCall(PetscViewerASCIIPrintf(viewer, "  independent set at distance %" PetscInt_FMT ", seed %" PetscInt_FMT " (host reference)\n", mis->distance, mis->seed));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCoarsenDestroy_SpmvMIS(MatCoarsen coarse)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(coarse->subctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCoarsenCreate_SpmvMIS(MatCoarsen coarse)
{
  MatCoarsen_SpmvMIS *mis;

  PetscFunctionBegin;
  PetscCall(PetscNew(&mis));
  mis->distance               = 1;
  coarse->subctx              = mis;
  coarse->ops->apply          = MatCoarsenApply_SpmvMIS;
  coarse->ops->setfromoptions = MatCoarsenSetFromOptions_SpmvMIS;
  coarse->ops->view           = MatCoarsenView_SpmvMIS;
  coarse->ops->destroy        = MatCoarsenDestroy_SpmvMIS;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCoarsenRegister_SpmvMIS(void)
{
  PetscFunctionBegin;
  PetscCall(MatCoarsenRegister(MATCOARSENSPMVMIS, MatCoarsenCreate_SpmvMIS));
  PetscFunctionReturn(PETSC_SUCCESS);
}
