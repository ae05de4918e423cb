/*
  GAMG's coarsening for our matrices (issue 51): a maximal independent set of the strength graph at
  distance 1 or 2, found in rounds as a GPU finds it (a node joins when its priority, a hash of its
  global index, is the largest among the undecided nodes within the distance; no squared graph), and
  the aggregates around it (roots; then their neighbours; at distance 2 the nodes two steps away join
  the neighbouring aggregate of the highest root). This file holds the host reference, the
  specification that device/aggregate.cu follows array for array. Registered as the MatCoarsen type
  "spmvmis", on the device where the graph is a seqaijcusparse matrix not bound to the CPU: the
  lists PCGAMG's prolongator reads (root first, then the members in increasing index; isolated nodes
  in none, as PETSc's MIS leaves them). On several processes (an MPIAIJ graph) the host reference's
  rounds exchange ghost values, and each process's aggregates hold its own rows only
  (MatCoarsenSpmvAggregateMPIHost()); where both blocks of the graph are seqaijcusparse and not bound
  to the CPU (MATMPIAIJCUSPARSE, on every process) the same rounds run on the device, exchanging
  device values through the graph's PetscSF (MatCoarsenSpmvAggregateMPIDevice()), the same arrays.
  A device apply, on one process or several, keeps its aggregates on the device for GAMG's
  prolongator (MatCoarsenSpmvMISSetKeepDevice()) or brings only the lists to the host.
*/
#include <petsc/private/matimpl.h>
#include <petscsf.h>
#include "spmvgamgimpl.h"
#include "../../../../mat/impls/spmvlayer/spmvbase.h"

typedef struct {
  PetscInt  distance; /* 1 or 2 */
  PetscInt  seed;
  PetscBool host;     /* -mat_coarsen_spmvmis_host: the host reference wherever the graph is */
  PetscBool ondevice; /* where the last MatCoarsenApply() ran, for the view */
  PetscBool keep;     /* a device apply keeps its aggregates for MatCoarsenSpmvMISTakeDevice() and leaves the lists empty */
  PetscInt  kept_n, kept_nagg;
  PetscInt *d_kept; /* agg[n], roots[n], aggptr[n + 1], members[n] (MatCoarsenSpmvAggregateMembersDevice()'s) */
} MatCoarsen_SpmvMIS;

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
PetscErrorCode MatCoarsenSpmvAggregateMPIHost(PetscSF sf, PetscInt n, const PetscInt ai[], const PetscInt aj[], PetscInt ng, const PetscInt bi[], const PetscInt bj[], PetscInt rstart, PetscInt distance, PetscInt seed, PetscInt agg[], PetscInt roots[], PetscInt *nagg, PetscBool inset[])
{
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

/* Whether the device path takes G: a seqaijcusparse graph not bound to the CPU (GAMG's graph of our
   matrices, graph.c's), or an MPIAIJ graph (mpi) whose two blocks are (MATMPIAIJCUSPARSE); -info says
   why not. On several processes all take the same path (its exchanges are collective) */
static PetscErrorCode MatCoarsenSpmvUseDevice(MatCoarsen_SpmvMIS *mis, Mat G, PetscBool mpi, PetscBool *device)
{
  PetscFunctionBegin;
  *device = PETSC_FALSE;
#if defined(PETSC_HAVE_CUDA)
  {
    Mat         Ad = G, Ao = NULL; /* the blocks of an MPI graph */
    PetscBool   cusparse, ocusparse;
    PetscMPIInt mine, all;

    if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(G, &Ad, &Ao, NULL));
    PetscCall(PetscObjectTypeCompare((PetscObject)Ad, MATSEQAIJCUSPARSE, &cusparse));
    ocusparse = cusparse;
    if (Ao) PetscCall(PetscObjectTypeCompare((PetscObject)Ao, MATSEQAIJCUSPARSE, &ocusparse));
    if (mis->host) PetscCall(PetscInfo(G, "Host reference: -mat_coarsen_spmvmis_host\n"));
    else if (!mpi && !cusparse) PetscCall(PetscInfo(G, "Host reference: the graph is %s, not %s\n", ((PetscObject)G)->type_name, MATSEQAIJCUSPARSE));
    else if (mpi && !(cusparse && ocusparse))
      PetscCall(PetscInfo(G, "Host reference: the graph is %s with %s and %s blocks, not %s (%s blocks)\n", ((PetscObject)G)->type_name, ((PetscObject)Ad)->type_name, ((PetscObject)Ao)->type_name, MATMPIAIJCUSPARSE, MATSEQAIJCUSPARSE));
    else if (G->boundtocpu || Ad->boundtocpu || (Ao && Ao->boundtocpu)) PetscCall(PetscInfo(G, "Host reference: the graph is bound to the CPU\n"));
    else *device = PETSC_TRUE; /* a CSR only on the host goes up once (MatSeqAIJCUSPARSEGetIJ()): far less than the host's rounds */
    if (mpi) {
      mine = *device;
      PetscCallMPI(MPIU_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, PetscObjectComm((PetscObject)G)));
      if (mine && !all) PetscCall(PetscInfo(G, "Host reference: another process's graph is not on the device\n"));
      *device = (PetscBool)(all != 0);
    }
  }
#else
  (void)mis, (void)mpi;
  PetscCall(PetscInfo(G, "Host reference: PETSc is built without CUDA\n"));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Aggregates (agg[i] of local row i, -1: none; roots[a]) into lists, one per aggregate at its root's
   local index: the root, then the members in index order; global ids */
static PetscErrorCode MatCoarsenSpmvFillLists(PetscInt n, PetscInt rstart, PetscInt nagg, const PetscInt agg[], const PetscInt roots[], PetscCoarsenData *lists)
{
  PetscFunctionBegin;
  for (PetscInt a = 0; a < nagg; a++) PetscCall(PetscCDAppendID(lists, roots[a], rstart + roots[a]));
  for (PetscInt i = 0; i < n; i++)
    if (agg[i] >= 0 && roots[agg[i]] != i) PetscCall(PetscCDAppendID(lists, roots[agg[i]], rstart + i));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The host reference's aggregates into lists */
static PetscErrorCode MatCoarsenSpmvApplyHost(MatCoarsen_SpmvMIS *mis, Mat G, PetscInt rstart, PetscCoarsenData *lists, PetscInt *nagg)
{
  const PetscInt *ai, *aj;
  PetscInt        n, *agg, *roots;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(G, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatCoarsen spmvmis needs the graph's CSR (MatGetRowIJ), which a %s matrix does not give", ((PetscObject)G)->type_name);
  PetscCall(PetscMalloc2(n, &agg, n, &roots));
  PetscCall(MatCoarsenSpmvAggregateHost(n, ai, aj, rstart, mis->distance, mis->seed, agg, roots, nagg));
  PetscCall(MatCoarsenSpmvFillLists(n, rstart, *nagg, agg, roots, lists));
  PetscCall(PetscFree2(agg, roots));
  PetscCall(MatRestoreRowIJ(G, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What the rounds read of an MPIAIJ graph: its blocks, its ghost exchange, its first row, its ghosts */
static PetscErrorCode MatCoarsenSpmvMPIParts(Mat G, Mat *Ad, Mat *Ao, PetscSF *sf, PetscInt *rstart, PetscInt *ng)
{
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(G, Ad, Ao, NULL));
  PetscCall(MatGetMultPetscSF(G, sf));
  PetscCall(MatGetOwnershipRange(G, rstart, NULL));
  PetscCall(MatGetLocalSize(*Ao, NULL, ng));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The host reference's arrays on an MPIAIJ graph (spmvgamgimpl.h) */
PetscErrorCode MatSpmvGAMGAggregateMPIHost(Mat G, PetscInt distance, PetscInt seed, PetscInt agg[], PetscInt roots[], PetscInt *nagg, PetscBool inset[])
{
  const PetscInt *ai, *aj, *bi, *bj;
  PetscInt        n, nb, ng, rstart;
  PetscBool       done[2];
  PetscSF         sf;
  Mat             Ad, Ao;

  PetscFunctionBegin;
  PetscCall(MatCoarsenSpmvMPIParts(G, &Ad, &Ao, &sf, &rstart, &ng));
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done[0]));
  PetscCall(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nb, &bi, &bj, &done[1]));
  PetscCheck(done[0] && done[1], PETSC_COMM_SELF, PETSC_ERR_SUP, "MatCoarsen spmvmis needs the CSR (MatGetRowIJ) of the graph's blocks, which %s and %s matrices do not give", ((PetscObject)Ad)->type_name, ((PetscObject)Ao)->type_name);
  PetscCall(MatCoarsenSpmvAggregateMPIHost(sf, n, ai, aj, ng, bi, bj, rstart, distance, seed, agg, roots, nagg, inset));
  PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nb, &bi, &bj, &done[1]));
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done[0]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The host reference on an MPIAIJ graph (any number of processes): lists of local rows only, each
   at its root's local index, global ids, as on one process */
static PetscErrorCode MatCoarsenSpmvApplyMPIHost(MatCoarsen_SpmvMIS *mis, Mat G, PetscInt rstart, PetscCoarsenData *lists, PetscInt *nagg)
{
  PetscInt   n, *agg, *roots, nnew = 0;
  PetscBool *inset;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(G, &n, NULL));
  PetscCall(PetscMalloc3(n, &agg, n, &roots, n, &inset));
  PetscCall(MatSpmvGAMGAggregateMPIHost(G, mis->distance, mis->seed, agg, roots, nagg, inset));
  for (PetscInt a = 0; a < *nagg; a++) nnew += !inset[roots[a]];
  /* this process's count (G's -info would print the first process's only) */
  PetscCall(PetscInfo(NULL, "%" PetscInt_FMT " of the %" PetscInt_FMT " aggregates have new roots (rows whose neighbours in aggregates are all on other processes)\n", nnew, *nagg));
  PetscCall(MatCoarsenSpmvFillLists(n, rstart, *nagg, agg, roots, lists));
  PetscCall(PetscFree3(agg, roots, inset));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* The end of a device apply, one process or several: d_work holds agg[n] and roots[n] of local rows
   (the aggregation's), then room for aggptr[n + 1] and members[n]; each aggregate's members on the
   device, then either all kept for GAMG's prolongator (mis->keep: no lists) or the lists as the
   device orders them, which is MatCoarsenSpmvFillLists()'s order (root first, then the members in
   index order; global ids), only they coming to the host. d_work is kept or freed */
static PetscErrorCode MatCoarsenSpmvDeviceFinish(MatCoarsen_SpmvMIS *mis, PetscInt n, PetscInt rstart, PetscInt nagg, PetscInt *d_work, PetscCoarsenData *lists)
{
  PetscInt *d_roots = d_work + n, *d_aggptr = d_work + 2 * n, *d_members = d_work + 3 * n + 1, *roots, *aggptr, *members;

  PetscFunctionBegin;
  PetscCall(MatCoarsenSpmvAggregateMembersDevice(n, nagg, d_work, d_roots, d_aggptr, d_members));
  if (mis->keep) { /* GAMG's device prolongator reads them there: no lists */
    PetscCall(MatSpmvCUDAFree(mis->d_kept));
    mis->d_kept    = d_work;
    mis->kept_n    = n;
    mis->kept_nagg = nagg;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc3(nagg, &roots, nagg + 1, &aggptr, n, &members));
  PetscCall(MatSpmvCUDACopyToHost(roots, d_roots, nagg * sizeof(PetscInt), NULL));
  PetscCall(MatSpmvCUDACopyToHost(aggptr, d_aggptr, (nagg + 1) * sizeof(PetscInt), NULL));
  PetscCall(MatSpmvCUDACopyToHost(members, d_members, aggptr[nagg] * sizeof(PetscInt), NULL));
  PetscCall(MatSpmvCUDAFree(d_work));
  for (PetscInt a = 0; a < nagg; a++) {
    PetscCheck(aggptr[a] < aggptr[a + 1] && members[aggptr[a]] == roots[a], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Aggregate %" PetscInt_FMT " does not start with its root %" PetscInt_FMT ": a bug, please report it (-mat_coarsen_spmvmis_host takes the host reference)", a, rstart + roots[a]);
    for (PetscInt k = aggptr[a]; k < aggptr[a + 1]; k++) PetscCall(PetscCDAppendID(lists, roots[a], rstart + members[k]));
  }
  PetscCall(PetscFree3(roots, aggptr, members));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatCoarsenSpmvAggregateMPIDeviceInSet() on an MPIAIJ graph whose blocks are seqaijcusparse (the
   device CSR of both, uncompressed row offsets; the ghost exchange MatGetMultPetscSF()): d_agg,
   d_roots (n each), d_inset (n, NULL: not wanted) device arrays */
static PetscErrorCode MatCoarsenSpmvAggregateMPIDeviceOf(Mat G, PetscInt distance, PetscInt seed, PetscInt *d_agg, PetscInt *d_roots, PetscInt *nagg, PetscInt *nnew, PetscBool *d_inset)
{
  const PetscInt *d_ai, *d_aj, *d_bi = NULL, *d_bj = NULL;
  PetscInt        n, ng, rstart;
  PetscSF         sf;
  Mat             Ad, Ao;

  PetscFunctionBegin;
  PetscCall(MatCoarsenSpmvMPIParts(G, &Ad, &Ao, &sf, &rstart, &ng));
  PetscCall(MatGetLocalSize(Ad, &n, NULL));
  /* aijcusparse's device CSR holds PetscInt indices (MatSeqAIJCUSPARSEGetIJ()'s prototype: 64-bit ones
     with 64-bit PetscInt), row offsets uncompressed (the off-diagonal block's are compressed on the
     device: PETSC_FALSE makes the full ones) */
  PetscCall(MatSeqAIJCUSPARSEGetIJ(Ad, PETSC_FALSE, &d_ai, &d_aj));
  if (ng) PetscCall(MatSeqAIJCUSPARSEGetIJ(Ao, PETSC_FALSE, &d_bi, &d_bj)); /* no ghost: no off-diagonal entry to read */
  PetscCall(MatCoarsenSpmvAggregateMPIDeviceInSet(sf, n, d_ai, d_aj, ng, d_bi, d_bj, rstart, distance, seed, d_agg, d_roots, nagg, nnew, d_inset));
  if (ng) PetscCall(MatSeqAIJCUSPARSERestoreIJ(Ao, PETSC_FALSE, &d_bi, &d_bj));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(Ad, PETSC_FALSE, &d_ai, &d_aj));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* The one-process device path (MatCoarsenSpmvUseDevice() said yes on a seqaijcusparse graph) */
static PetscErrorCode MatCoarsenSpmvApplyDevice(MatCoarsen_SpmvMIS *mis, Mat G, PetscInt n, PetscInt rstart, PetscCoarsenData *lists, PetscInt *nagg)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  {
    const PetscInt *d_ai, *d_aj;
    PetscInt       *d_work;

    /* aijcusparse's device CSR holds PetscInt indices (64-bit ones with 64-bit PetscInt), row offsets uncompressed */
    PetscCall(MatSeqAIJCUSPARSEGetIJ(G, PETSC_FALSE, &d_ai, &d_aj));
    PetscCall(MatSpmvCUDAMalloc((void **)&d_work, (4 * (size_t)n + 1) * sizeof(PetscInt)));
    PetscCall(MatCoarsenSpmvAggregateDevice(n, d_ai, d_aj, rstart, mis->distance, mis->seed, d_work, d_work + n, nagg));
    PetscCall(MatSeqAIJCUSPARSERestoreIJ(G, PETSC_FALSE, &d_ai, &d_aj));
    PetscCall(MatCoarsenSpmvDeviceFinish(mis, n, rstart, *nagg, d_work, lists));
  }
#else
  (void)mis, (void)G, (void)n, (void)rstart, (void)lists, (void)nagg;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "MatCoarsen spmvmis runs on the device only with PETSc built with CUDA: use -mat_coarsen_spmvmis_host");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device path on several processes (MatCoarsenSpmvUseDevice() said yes on an MPIAIJ graph with
   seqaijcusparse blocks): the host reference's arrays (MatCoarsenSpmvAggregateMPIHost()), then as on
   one process, kept or the lists of local rows */
static PetscErrorCode MatCoarsenSpmvApplyMPIDevice(MatCoarsen_SpmvMIS *mis, Mat G, PetscInt n, PetscInt rstart, PetscCoarsenData *lists, PetscInt *nagg)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  {
    PetscInt *d_work, nnew;

    PetscCall(MatSpmvCUDAMalloc((void **)&d_work, (4 * (size_t)n + 1) * sizeof(PetscInt)));
    PetscCall(MatCoarsenSpmvAggregateMPIDeviceOf(G, mis->distance, mis->seed, d_work, d_work + n, nagg, &nnew, NULL));
    /* this process's count (G's -info would print the first process's only) */
    PetscCall(PetscInfo(NULL, "%" PetscInt_FMT " of the %" PetscInt_FMT " aggregates have new roots (rows whose neighbours in aggregates are all on other processes)\n", nnew, *nagg));
    PetscCall(MatCoarsenSpmvDeviceFinish(mis, n, rstart, *nagg, d_work, lists));
  }
#else
  (void)mis, (void)G, (void)n, (void)rstart, (void)lists, (void)nagg;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "MatCoarsen spmvmis runs on the device only with PETSc built with CUDA: use -mat_coarsen_spmvmis_host");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device path's arrays on an MPIAIJCUSPARSE graph, on the host (spmvgamgimpl.h) */
PetscErrorCode MatSpmvGAMGAggregateMPIDevice(Mat G, PetscInt distance, PetscInt seed, PetscInt agg[], PetscInt roots[], PetscInt *nagg, PetscInt *nnew, PetscBool inset[])
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  {
    MatCoarsen_SpmvMIS mis = {0};
    PetscBool          mpi, device;
    PetscInt           n, *d_work;
    PetscBool         *d_inset;

    PetscCall(PetscStrbeginswith(((PetscObject)G)->type_name, MATMPIAIJ, &mpi));
    PetscCheck(mpi, PetscObjectComm((PetscObject)G), PETSC_ERR_ARG_WRONG, "The graph is %s: convert it to %s", ((PetscObject)G)->type_name, MATMPIAIJCUSPARSE);
    PetscCall(MatCoarsenSpmvUseDevice(&mis, G, PETSC_TRUE, &device));
    PetscCheck(device, PetscObjectComm((PetscObject)G), PETSC_ERR_ARG_WRONG, "The graph %s is not on the device on every process (-info says why): convert it to %s, not bound to the CPU", ((PetscObject)G)->type_name, MATMPIAIJCUSPARSE);
    PetscCall(MatGetLocalSize(G, &n, NULL));
    PetscCall(MatSpmvCUDAMalloc((void **)&d_work, 2 * (size_t)n * sizeof(PetscInt) + n * sizeof(PetscBool) + 1)); /* + 1: not NULL where n is 0 */
    d_inset = (PetscBool *)(d_work + 2 * n);
    PetscCall(MatCoarsenSpmvAggregateMPIDeviceOf(G, distance, seed, d_work, d_work + n, nagg, nnew, d_inset));
    PetscCall(MatSpmvCUDACopyToHost(agg, d_work, n * sizeof(PetscInt), NULL));
    PetscCall(MatSpmvCUDACopyToHost(roots, d_work + n, *nagg * sizeof(PetscInt), NULL));
    PetscCall(MatSpmvCUDACopyToHost(inset, d_inset, n * sizeof(PetscBool), NULL));
    PetscCall(MatSpmvCUDAFree(d_work));
  }
#else
  (void)distance, (void)seed, (void)agg, (void)roots, (void)nagg, (void)nnew, (void)inset;
  SETERRQ(PetscObjectComm((PetscObject)G), PETSC_ERR_SUP, "MatCoarsen spmvmis runs on the device only with PETSc built with CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCoarsenApply_SpmvMIS(MatCoarsen coarse)
{
  MatCoarsen_SpmvMIS *mis = (MatCoarsen_SpmvMIS *)coarse->subctx;
  Mat                 G   = coarse->graph;
  PetscInt            n, rstart, nagg;
  PetscMPIInt         size;
  PetscBool           mpi;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)G), &size));
  PetscCall(PetscStrbeginswith(((PetscObject)G)->type_name, MATMPIAIJ, &mpi)); /* MatMPIAIJGetSeqAIJ()'s test: MPIAIJ and its subtypes, ours included */
  PetscCheck(size == 1 || mpi, PetscObjectComm((PetscObject)G), PETSC_ERR_SUP, "MatCoarsen spmvmis on %d processes needs an MPIAIJ graph, not %s: convert it to MATMPIAIJ or use -mat_coarsen_type mis", size, ((PetscObject)G)->type_name);
  PetscCall(MatGetOwnershipRange(G, &rstart, NULL));
  PetscCall(MatGetLocalSize(G, &n, NULL));
  if (coarse->agg_lists) PetscCall(PetscCDDestroy(coarse->agg_lists));
  PetscCall(PetscCDCreate(n, &coarse->agg_lists));
  PetscCall(MatCoarsenSpmvUseDevice(mis, G, mpi, &mis->ondevice));
  if (mpi && mis->ondevice) PetscCall(MatCoarsenSpmvApplyMPIDevice(mis, G, n, rstart, coarse->agg_lists, &nagg));
  else if (mpi) PetscCall(MatCoarsenSpmvApplyMPIHost(mis, G, rstart, coarse->agg_lists, &nagg));
  else if (mis->ondevice) PetscCall(MatCoarsenSpmvApplyDevice(mis, G, n, rstart, coarse->agg_lists, &nagg));
  else PetscCall(MatCoarsenSpmvApplyHost(mis, G, rstart, coarse->agg_lists, &nagg));
  PetscCall(PetscInfo(G, "%" PetscInt_FMT " aggregates of %" PetscInt_FMT " nodes, independent set at distance %" PetscInt_FMT " (%s)\n", nagg, n, mis->distance, mis->ondevice ? "device" : "host reference"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCoarsenSetFromOptions_SpmvMIS(MatCoarsen coarse, PetscOptionItems PetscOptionsObject)
{
  MatCoarsen_SpmvMIS *mis = (MatCoarsen_SpmvMIS *)coarse->subctx;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "MatCoarsen spmvmis options");
  PetscCall(PetscOptionsRangeInt("-mat_coarsen_spmvmis_distance", "Distance of the independent set: 1 or 2 (aggressive coarsening)", "MatCoarsenApply", mis->distance, &mis->distance, NULL, 1, 2));
  PetscCall(PetscOptionsInt("-mat_coarsen_spmvmis_seed", "Seed of the nodes' priorities (a hash of their global index)", "MatCoarsenApply", mis->seed, &mis->seed, NULL));
  PetscCall(PetscOptionsBool("-mat_coarsen_spmvmis_host", "The host reference even where the graph's CSR is on the GPU (the same aggregates)", "MatCoarsenApply", mis->host, &mis->host, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCoarsenView_SpmvMIS(MatCoarsen coarse, PetscViewer viewer)
{
  MatCoarsen_SpmvMIS *mis = (MatCoarsen_SpmvMIS *)coarse->subctx;
  PetscBool           isascii, isstring;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERSTRING, &isstring));
  if (isascii) PetscCall(PetscViewerASCIIPrintf(viewer, "  independent set at distance %" PetscInt_FMT ", seed %" PetscInt_FMT " (%s)\n", mis->distance, mis->seed, mis->ondevice ? "on the device" : "host reference"));
  else if (isstring) PetscCall(PetscViewerStringSPrintf(viewer, " distance=%" PetscInt_FMT ",seed=%" PetscInt_FMT ",%s", mis->distance, mis->seed, mis->ondevice ? "device" : "host"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCoarsenDestroy_SpmvMIS(MatCoarsen coarse)
{
  MatCoarsen_SpmvMIS *mis = (MatCoarsen_SpmvMIS *)coarse->subctx;

  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDAFree(mis->d_kept));
#endif
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

/* The distance GAMG's level asks for (2 on aggressive levels), over the option's */
PetscErrorCode MatCoarsenSpmvMISSetDistance(MatCoarsen coarse, PetscInt distance)
{
  MatCoarsen_SpmvMIS *mis = (MatCoarsen_SpmvMIS *)coarse->subctx;
  PetscBool           match;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)coarse, MATCOARSENSPMVMIS, &match));
  PetscCheck(match, PetscObjectComm((PetscObject)coarse), PETSC_ERR_ARG_WRONG, "The coarsener is %s, not %s", ((PetscObject)coarse)->type_name, MATCOARSENSPMVMIS);
  PetscCheck(distance == 1 || distance == 2, PetscObjectComm((PetscObject)coarse), PETSC_ERR_ARG_OUTOFRANGE, "The independent set's distance is 1 or 2, not %" PetscInt_FMT, distance);
  mis->distance = distance;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether a device apply keeps its aggregates on the device, leaving the lists empty */
PetscErrorCode MatCoarsenSpmvMISSetKeepDevice(MatCoarsen coarse, PetscBool keep)
{
  PetscFunctionBegin;
  ((MatCoarsen_SpmvMIS *)coarse->subctx)->keep = keep;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device aggregates the last apply kept (*d_work NULL: none, the lists hold them), handed over:
   the caller frees d_work with MatSpmvCUDAFree() */
PetscErrorCode MatCoarsenSpmvMISTakeDevice(MatCoarsen coarse, PetscInt *n, PetscInt *nagg, PetscInt **d_work)
{
  MatCoarsen_SpmvMIS *mis = (MatCoarsen_SpmvMIS *)coarse->subctx;

  PetscFunctionBegin;
  *n          = mis->kept_n;
  *nagg       = mis->kept_nagg;
  *d_work     = mis->d_kept;
  mis->d_kept = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCoarsenRegister_SpmvMIS(void)
{
  PetscFunctionBegin;
  PetscCall(MatCoarsenRegister(MATCOARSENSPMVMIS, MatCoarsenCreate_SpmvMIS));
  PetscFunctionReturn(PETSC_SUCCESS);
}
