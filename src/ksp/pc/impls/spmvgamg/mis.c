/*
  GAMG's coarsening for our matrices: a maximal independent set of the strength graph at
  distance 1 or 2, found in rounds as a GPU finds it (a node joins when its priority, a hash of its
  global index, is the largest among the undecided nodes within the distance; no squared graph), and
  the aggregates around it (roots; then their neighbours; at distance 2 the nodes two steps away join
  the neighbouring aggregate of the highest root). This file holds the host reference, the
  specification that device/aggregate.cu follows array for array: on one process
  (MatCoarsenSpmvAggregateHost()) and on several, an MPIAIJ graph, whose rounds exchange ghost values
  and whose aggregates hold each process's own rows (MatCoarsenSpmvAggregateMPIHost()). The MatCoarsen
  type that runs them, or the device's, is coarsen.c's.
*/
#include <petscsf.h>
#include "spmvgamgimpl.h"

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

PetscErrorCode MatCoarsenSpmvAggregateHost(const MatCoarsenSpmvGraph *g, PetscInt distance, PetscInt seed, MatCoarsenSpmvAggregates *out)
{
  const PetscInt  n = g->n, rstart = g->rstart, *ai = g->ai, *aj = g->aj;
  PetscInt *const agg = out->agg, *const roots = out->roots, *const nagg = &out->nagg;
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

/* Ghost values: each ghost's (leaf's) copy of its owner's local value (root); none on one process */
static PetscErrorCode MatCoarsenSpmvGhosts(PetscSF sf, const PetscInt *local, PetscInt *ghost)
{
  PetscFunctionBegin;
  if (!sf) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscSFBcastBegin(sf, MPIU_INT, local, ghost, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, MPIU_INT, local, ghost, MPI_REPLACE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* For each local row the global index of the highest key in its closed neighbourhood among from[]
   (local rows' values, -1: none) and ghost[] (the ghosts' copies of their owners' values) */
static void MatCoarsenSpmvMaxGlobal(PetscInt n, const PetscInt *ai, const PetscInt *aj, const PetscInt *bi, const PetscInt *bj, PetscInt seed, const PetscInt *from, const PetscInt *ghost, PetscInt *to)
{
  for (PetscInt i = 0; i < n; i++) {
    PetscInt best = from[i];

    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      PetscInt c = from[aj[k]];

      if (c >= 0 && (best < 0 || MatCoarsenSpmvAboveGlobal(c, best, seed))) best = c;
    }
    for (PetscInt k = bi[i]; k < bi[i + 1]; k++) {
      PetscInt c = ghost[bj[k]];

      if (c >= 0 && (best < 0 || MatCoarsenSpmvAboveGlobal(c, best, seed))) best = c;
    }
    to[i] = best;
  }
}

/*
  The rounds of MatCoarsenSpmvAggregateHost() on several processes, each step a loop over the local
  rows that a GPU runs a thread per row, with one ghost exchange (sf) before each step that reads
  neighbours' values: the independent set is the one-process set of the global graph, whatever the
  partition (priorities of global indices, maxima and "near a root" over local and ghost neighbours).

  The aggregates hold only their process's rows (PETSc's prolongator then needs no ghost data), so a
  row joins only a local root's aggregate:
  - a row next to local roots joins the one of the highest key (as on one process);
  - then rounds until none changes: a row in no aggregate joins, among its LOCAL neighbours'
    aggregates, the one whose root has the highest key (at distance 2 the rows two steps from a
    root, as on one process; here also the rows whose adjacent roots, or whose neighbouring
    aggregates, are all on other processes);
  - rows still in none (no local neighbour in an aggregate, through any chain of such rows) become
    roots of new local aggregates: those of the highest key among their local neighbours in none
    (one per group of such rows at least; a row with only ghost neighbours alone); the others join
    them by the rounds above, repeated until every row with a neighbour is in an aggregate.
  On one process none of this goes past the one-process passes: the same arrays.
*/
PetscErrorCode MatCoarsenSpmvAggregateMPIHost(const MatCoarsenSpmvGraph *g, PetscInt distance, PetscInt seed, MatCoarsenSpmvAggregates *out)
{
  PetscSF const   sf = g->sf;
  const PetscInt  n = g->n, ng = g->ng, rstart = g->rstart, *ai = g->ai, *aj = g->aj, *bi = g->bi, *bj = g->bj;
  PetscInt *const agg = out->agg, *const roots = out->roots, *const nagg = &out->nagg;
  PetscBool *const inset = out->inset;
  enum {
    UNDECIDED,
    ROOT,
    OUT,
    ISOLATED
  };
  MPI_Comm  comm = PETSC_COMM_SELF;
  PetscInt *state, *root, *w1, *w2, *ghost, *from, *to, left = 0, gleft, unassigned;
  PetscBool changed;

  PetscFunctionBegin;
  PetscCheck(distance == 1 || distance == 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The independent set's distance is 1 or 2, not %" PetscInt_FMT, distance);
  if (sf) {
    PetscInt nroots, minleaf, maxleaf;

    PetscCall(PetscObjectGetComm((PetscObject)sf, &comm));
    PetscCall(PetscSFGetGraph(sf, &nroots, NULL, NULL, NULL));
    PetscCall(PetscSFGetLeafRange(sf, &minleaf, &maxleaf));
    PetscCheck(nroots == n && maxleaf < ng, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The ghost exchange has %" PetscInt_FMT " roots and leaves up to %" PetscInt_FMT ", not the graph's %" PetscInt_FMT " rows and %" PetscInt_FMT " ghosts: pass the graph's MatGetMultPetscSF()", nroots, maxleaf, n, ng);
  } else PetscCheck(!ng, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%" PetscInt_FMT " ghosts and no ghost exchange", ng);
  PetscCall(PetscMalloc5(n, &state, n, &root, n, &w1, n, &w2, ng, &ghost));
  for (PetscInt i = 0; i < n; i++) {
    PetscBool other = (PetscBool)(bi[i + 1] > bi[i]);

    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) other = (PetscBool)(other || aj[k] != i);
    state[i] = other ? UNDECIDED : ISOLATED;
    left += other;
  }
  PetscCallMPI(MPIU_Allreduce(&left, &gleft, 1, MPIU_INT, MPI_SUM, comm));
  while (gleft) {
    /* a row whose key is the highest among the undecided within the distance becomes a root: the
       highest undecided key (a global index) in the closed neighbourhood, distance times */
    from = w1, to = w2;
    for (PetscInt i = 0; i < n; i++) from[i] = state[i] == UNDECIDED ? rstart + i : -1;
    for (PetscInt d = 0; d < distance; d++) {
      PetscInt *t;

      PetscCall(MatCoarsenSpmvGhosts(sf, from, ghost));
      MatCoarsenSpmvMaxGlobal(n, ai, aj, bi, bj, seed, from, ghost, to);
      t = from, from = to, to = t;
    }
    for (PetscInt i = 0; i < n; i++)
      if (state[i] == UNDECIDED && from[i] == rstart + i) state[i] = ROOT, left--;
    /* the undecided within the distance of a root (of any process) are out */
    from = w1, to = w2;
    for (PetscInt i = 0; i < n; i++) from[i] = state[i] == ROOT;
    for (PetscInt d = 0; d < distance; d++) {
      PetscInt *t;

      PetscCall(MatCoarsenSpmvGhosts(sf, from, ghost));
      for (PetscInt i = 0; i < n; i++) {
        PetscInt f = from[i];

        for (PetscInt k = ai[i]; k < ai[i + 1] && !f; k++) f = from[aj[k]];
        for (PetscInt k = bi[i]; k < bi[i + 1] && !f; k++) f = ghost[bj[k]];
        to[i] = f;
      }
      t = from, from = to, to = t;
    }
    for (PetscInt i = 0; i < n; i++)
      if (state[i] == UNDECIDED && from[i]) state[i] = OUT, left--;
    PetscCallMPI(MPIU_Allreduce(&left, &gleft, 1, MPIU_INT, MPI_SUM, comm));
  }
  /* aggregates of local rows (the rule above), root[i] the local root of row i's (-1: none yet) */
  for (PetscInt i = 0; i < n; i++) root[i] = state[i] == ROOT ? i : -1;
  if (inset)
    for (PetscInt i = 0; i < n; i++) inset[i] = (PetscBool)(state[i] == ROOT);
  for (PetscInt i = 0; i < n; i++) { /* next to local roots: the one of the highest key */
    PetscInt best = -1;

    if (state[i] == OUT)
      for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
        PetscInt j = aj[k];

        if (state[j] == ROOT && (best < 0 || MatCoarsenSpmvAboveGlobal(rstart + j, rstart + best, seed))) best = j;
      }
    w1[i] = best;
  }
  for (PetscInt i = 0; i < n; i++)
    if (w1[i] >= 0) root[i] = w1[i];
  do {
    do { /* rows in none join the local neighbours' aggregate of the highest root, until none changes */
      changed = PETSC_FALSE;
      for (PetscInt i = 0; i < n; i++) {
        PetscInt best = -1;

        if (state[i] == OUT && root[i] < 0)
          for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
            PetscInt r = root[aj[k]];

            if (r >= 0 && (best < 0 || MatCoarsenSpmvAboveGlobal(rstart + r, rstart + best, seed))) best = r;
          }
        w1[i] = best;
      }
      for (PetscInt i = 0; i < n; i++)
        if (w1[i] >= 0) root[i] = w1[i], changed = PETSC_TRUE;
    } while (changed);
    /* rows still in none: those of the highest key among their local neighbours in none are new roots */
    unassigned = 0;
    for (PetscInt i = 0; i < n; i++) {
      PetscBool top = PETSC_FALSE;

      if (state[i] == OUT && root[i] < 0) {
        top = PETSC_TRUE;
        for (PetscInt k = ai[i]; k < ai[i + 1] && top; k++) {
          PetscInt j = aj[k];

          if (j != i && state[j] == OUT && root[j] < 0 && MatCoarsenSpmvAboveGlobal(rstart + j, rstart + i, seed)) top = PETSC_FALSE;
        }
        unassigned++;
      }
      w1[i] = top;
    }
    for (PetscInt i = 0; i < n; i++)
      if (w1[i]) root[i] = i;
  } while (unassigned);
  /* aggregates numbered by their roots' local index */
  *nagg = 0;
  for (PetscInt i = 0; i < n; i++) {
    if (root[i] == i) roots[*nagg] = i;
    w1[i] = root[i] == i ? (*nagg)++ : -1;
  }
  for (PetscInt i = 0; i < n; i++) {
    agg[i] = root[i] >= 0 ? w1[root[i]] : -1;
    PetscCheck(state[i] == ISOLATED || agg[i] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Node %" PetscInt_FMT " is in no aggregate", rstart + i);
  }
  PetscCall(PetscFree5(state, root, w1, w2, ghost));
  PetscFunctionReturn(PETSC_SUCCESS);
}
