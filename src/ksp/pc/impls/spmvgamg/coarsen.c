/*
  MatCoarsen "spmvmis": GAMG's coarsening for our matrices by mis.c's host reference or,
  where the graph's CSR is on the GPU, by device/aggregate.cu's rounds (the same arrays): on the device
  where the graph is a seqaijcusparse matrix not bound to the CPU, or an MPIAIJ graph whose blocks are
  (MATMPIAIJCUSPARSE, on every process; the ghost values exchanged through the graph's PetscSF). Its
  result is the lists PCGAMG's prolongator reads (root first, then the members in increasing index;
  isolated nodes in none, as PETSc's MIS leaves them), or, kept on the device for GAMG's device
  prolongator (MatCoarsenSpmvMISSetKeepDevice()), the aggregates themselves. Also the test entry
  points that return the arrays of the host and device rounds on an MPIAIJ graph.
*/
#include <petsc/private/matimpl.h>
#include <petscsf.h>
#include <petscversion.h>
#include "spmvgamgimpl.h"
#include "../../../../mat/impls/spmvlayer/spmvimpl.h"

typedef struct {
  PetscInt  distance; /* 1 or 2 */
  PetscInt  seed;
  PetscBool host;     /* -mat_coarsen_spmvmis_host: the host reference wherever the graph is */
  PetscBool ondevice; /* where the last MatCoarsenApply() ran, for the view */
  PetscBool keep;     /* a device apply keeps its aggregates for MatCoarsenSpmvMISTakeDevice() and leaves the lists empty */
  PetscInt  kept_n, kept_nagg;
  PetscInt *d_kept; /* agg[n], roots[n], aggptr[n + 1], members[n] (MatCoarsenSpmvAggregateMembersDevice()'s) */
} MatCoarsen_SpmvMIS;

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
  {
    const MatCoarsenSpmvGraph g   = {NULL, n, 0, rstart, ai, aj, NULL, NULL};
    MatCoarsenSpmvAggregates  out = {agg, roots, 0, 0, NULL};

    PetscCall(MatCoarsenSpmvAggregateHost(&g, mis->distance, mis->seed, &out));
    *nagg = out.nagg;
  }
  PetscCall(MatCoarsenSpmvFillLists(n, rstart, *nagg, agg, roots, lists));
  PetscCall(PetscFree2(agg, roots));
  PetscCall(MatRestoreRowIJ(G, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What the rounds read of an MPIAIJ graph: its blocks, its ghost exchange (a reference the caller
   destroys), its first row, its ghosts */
static PetscErrorCode MatCoarsenSpmvMPIParts(Mat G, Mat *Ad, Mat *Ao, PetscSF *sf, PetscInt *rstart, PetscInt *ng)
{
  const PetscInt *garray;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(G, Ad, Ao, &garray));
  PetscCall(MatGetOwnershipRange(G, rstart, NULL));
  PetscCall(MatGetLocalSize(*Ao, NULL, ng));
#if PETSC_VERSION_GE(3, 26, 0)
  PetscCall(MatGetMultPetscSF(G, sf));
  PetscCall(PetscObjectReference((PetscObject)*sf));
#else /* no MatGetMultPetscSF(): the same exchange, from the ghosts' global indices (G is square) */
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)G), sf));
  PetscCall(PetscSFSetGraphLayout(*sf, G->cmap, *ng, NULL, PETSC_COPY_VALUES, garray));
  PetscCall(PetscSFSetUp(*sf));
#endif
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
  {
    const MatCoarsenSpmvGraph g   = {sf, n, ng, rstart, ai, aj, bi, bj};
    MatCoarsenSpmvAggregates  out = {agg, roots, 0, 0, inset};

    PetscCall(MatCoarsenSpmvAggregateMPIHost(&g, distance, seed, &out));
    *nagg = out.nagg;
  }
  PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nb, &bi, &bj, &done[1]));
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done[0]));
  PetscCall(PetscSFDestroy(&sf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The host reference on an MPIAIJ graph (any number of processes): lists of local rows only, each
   at its root's local index, global ids, as on one process; *nnew: the aggregates with new roots */
static PetscErrorCode MatCoarsenSpmvApplyMPIHost(MatCoarsen_SpmvMIS *mis, Mat G, PetscInt rstart, PetscCoarsenData *lists, PetscInt *nagg, PetscInt *nnew)
{
  PetscInt   n, *agg, *roots;
  PetscBool *inset;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(G, &n, NULL));
  PetscCall(PetscMalloc3(n, &agg, n, &roots, n, &inset));
  PetscCall(MatSpmvGAMGAggregateMPIHost(G, mis->distance, mis->seed, agg, roots, nagg, inset));
  *nnew = 0;
  for (PetscInt a = 0; a < *nagg; a++) *nnew += !inset[roots[a]];
  PetscCall(MatCoarsenSpmvFillLists(n, rstart, *nagg, agg, roots, lists));
  PetscCall(PetscFree3(agg, roots, inset));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* The device apply's work of n local rows: agg[n] and roots[n] for the aggregation, then
   MatCoarsenSpmvDeviceFinish()'s aggptr[n + 1] and members[n] (the layout GAMG's prolongator reads) */
static PetscErrorCode MatCoarsenSpmvDeviceWork(PetscInt n, PetscInt **d_work)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAMalloc((void **)d_work, (4 * (size_t)n + 1) * sizeof(PetscInt)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

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

/* MatCoarsenSpmvAggregateMPIDevice() on an MPIAIJ graph whose blocks are seqaijcusparse (the
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
  {
    const MatCoarsenSpmvGraph g   = {sf, n, ng, rstart, d_ai, d_aj, d_bi, d_bj};
    MatCoarsenSpmvAggregates  out = {d_agg, d_roots, 0, 0, d_inset};

    PetscCall(MatCoarsenSpmvAggregateMPIDevice(&g, distance, seed, &out));
    *nagg = out.nagg;
    *nnew = out.nnew;
  }
  if (ng) PetscCall(MatSeqAIJCUSPARSERestoreIJ(Ao, PETSC_FALSE, &d_bi, &d_bj));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(Ad, PETSC_FALSE, &d_ai, &d_aj));
  PetscCall(PetscSFDestroy(&sf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device rounds on g's device arrays (on several processes where it has a ghost exchange), then
   the aggregates kept or made lists (MatCoarsenSpmvDeviceFinish()); *nnew as the MPI rounds give it */
static PetscErrorCode MatCoarsenSpmvApplyDeviceGraph(MatCoarsen_SpmvMIS *mis, const MatCoarsenSpmvGraph *g, PetscCoarsenData *lists, PetscInt *nagg, PetscInt *nnew)
{
  PetscInt *d_work;

  PetscFunctionBegin;
  PetscCall(MatCoarsenSpmvDeviceWork(g->n, &d_work));
  {
    MatCoarsenSpmvAggregates out = {d_work, d_work + g->n, 0, 0, NULL};

    if (g->sf) PetscCall(MatCoarsenSpmvAggregateMPIDevice(g, mis->distance, mis->seed, &out));
    else PetscCall(MatCoarsenSpmvAggregateDevice(g, mis->distance, mis->seed, &out));
    *nagg = out.nagg;
    *nnew = out.nnew;
  }
  PetscCall(MatCoarsenSpmvDeviceFinish(mis, g->n, g->rstart, *nagg, d_work, lists));
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
    PetscInt        nnew;

    /* aijcusparse's device CSR holds PetscInt indices (64-bit ones with 64-bit PetscInt), row offsets uncompressed */
    PetscCall(MatSeqAIJCUSPARSEGetIJ(G, PETSC_FALSE, &d_ai, &d_aj));
    {
      const MatCoarsenSpmvGraph g = {NULL, n, 0, rstart, d_ai, d_aj, NULL, NULL};

      PetscCall(MatCoarsenSpmvApplyDeviceGraph(mis, &g, lists, nagg, &nnew));
    }
    PetscCall(MatSeqAIJCUSPARSERestoreIJ(G, PETSC_FALSE, &d_ai, &d_aj));
  }
#else
  (void)mis, (void)G, (void)n, (void)rstart, (void)lists, (void)nagg;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "MatCoarsen spmvmis runs on the device only with PETSc built with CUDA: use -mat_coarsen_spmvmis_host");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device path on several processes (MatCoarsenSpmvUseDevice() said yes on an MPIAIJ graph with
   seqaijcusparse blocks): the device rounds (the host reference's arrays), then as on one process,
   kept or the lists of local rows; *nnew: the aggregates with new roots */
static PetscErrorCode MatCoarsenSpmvApplyMPIDevice(MatCoarsen_SpmvMIS *mis, Mat G, PetscInt n, PetscInt rstart, PetscCoarsenData *lists, PetscInt *nagg, PetscInt *nnew)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  {
    PetscInt *d_work;

    PetscCall(MatCoarsenSpmvDeviceWork(n, &d_work));
    PetscCall(MatCoarsenSpmvAggregateMPIDeviceOf(G, mis->distance, mis->seed, d_work, d_work + n, nagg, nnew, NULL));
    PetscCall(MatCoarsenSpmvDeviceFinish(mis, n, rstart, *nagg, d_work, lists));
  }
#else
  (void)mis, (void)G, (void)n, (void)rstart, (void)lists, (void)nagg, (void)nnew;
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

/* The device path on a graph GAMG left on the device (MatSpmvGraphGetDevice(): its pattern only
   there), on one process or several */
static PetscErrorCode MatCoarsenSpmvApplyKept(MatCoarsen_SpmvMIS *mis, Mat G, PetscCoarsenData *lists, PetscInt *nagg, PetscInt *nnew)
{
  MatSpmvGraphDeviceParts parts;
  PetscBool               kept;

  PetscFunctionBegin;
  PetscCheck(!mis->host, PetscObjectComm((PetscObject)G), PETSC_ERR_PLIB, "The host reference (-mat_coarsen_spmvmis_host) was asked for on a graph left on the device: a bug, please report it");
  PetscCall(MatSpmvGraphGetDevice(G, &parts, &kept));
#if defined(PETSC_HAVE_CUDA) && !defined(PETSC_USE_64BIT_INDICES) /* a kept graph's int indices are PetscInt */
  {
    const MatCoarsenSpmvGraph g = {parts.sf, parts.n, parts.ng, parts.rstart, parts.ai, parts.aj, parts.bi, parts.bj};

    PetscCall(MatCoarsenSpmvApplyDeviceGraph(mis, &g, lists, nagg, nnew));
  }
#else
  (void)lists, (void)nagg, (void)nnew;
  SETERRQ(PetscObjectComm((PetscObject)G), PETSC_ERR_PLIB, "A graph left on the device without CUDA or with 64-bit indices: a bug, please report it");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCoarsenApply_SpmvMIS(MatCoarsen coarse)
{
  MatCoarsen_SpmvMIS *mis = (MatCoarsen_SpmvMIS *)coarse->subctx;
  Mat                 G   = coarse->graph;
  PetscInt            n, rstart, nagg;
  PetscMPIInt         size;
  PetscBool           mpi, kept;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)G), &size));
  PetscCall(PetscStrbeginswith(((PetscObject)G)->type_name, MATMPIAIJ, &mpi)); /* MatMPIAIJGetSeqAIJ()'s test: MPIAIJ and its subtypes, ours included */
  PetscCall(MatSpmvGraphGetDevice(G, NULL, &kept));
  PetscCheck(size == 1 || mpi || kept, PetscObjectComm((PetscObject)G), PETSC_ERR_SUP, "MatCoarsen spmvmis on %d processes needs an MPIAIJ graph, not %s: convert it to MATMPIAIJ or use -mat_coarsen_type mis", size, ((PetscObject)G)->type_name);
  PetscCall(MatGetOwnershipRange(G, &rstart, NULL));
  PetscCall(MatGetLocalSize(G, &n, NULL));
  if (coarse->agg_lists) PetscCall(PetscCDDestroy(coarse->agg_lists));
  PetscCall(PetscCDCreate(n, &coarse->agg_lists));
  if (kept) mis->ondevice = PETSC_TRUE; /* its pattern is there only */
  else PetscCall(MatCoarsenSpmvUseDevice(mis, G, mpi, &mis->ondevice));
  if (kept || mpi) {
    PetscInt nnew = 0;

    if (kept) PetscCall(MatCoarsenSpmvApplyKept(mis, G, coarse->agg_lists, &nagg, &nnew));
    else if (mis->ondevice) PetscCall(MatCoarsenSpmvApplyMPIDevice(mis, G, n, rstart, coarse->agg_lists, &nagg, &nnew));
    else PetscCall(MatCoarsenSpmvApplyMPIHost(mis, G, rstart, coarse->agg_lists, &nagg, &nnew));
    /* this process's count (G's -info would print the first process's only) */
    if (mpi || size > 1) PetscCall(PetscInfo(NULL, "%" PetscInt_FMT " of the %" PetscInt_FMT " aggregates have new roots (rows whose neighbours in aggregates are all on other processes)\n", nnew, nagg));
  } else if (mis->ondevice) PetscCall(MatCoarsenSpmvApplyDevice(mis, G, n, rstart, coarse->agg_lists, &nagg));
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

/* Whether the host reference was asked for (-mat_coarsen_spmvmis_host): it reads the graph on the host */
PetscErrorCode MatCoarsenSpmvMISGetHost(MatCoarsen coarse, PetscBool *host)
{
  PetscFunctionBegin;
  *host = ((MatCoarsen_SpmvMIS *)coarse->subctx)->host;
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
