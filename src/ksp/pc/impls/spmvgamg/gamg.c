/*
  PCGAMG with our set-up: PETSc's "gamg" creator stays PETSc's, registered again under its
  name by a creator that calls it and wraps the PC's set-up, options and view. For a set-up whose
  operator is one of our types on a GPU (by default; -petscspmv_gamg forces it on or off, and
  -petscspmv_gamg_all_operators takes any AIJ operator), the aggregation's coarsen and prolongator are
  ours for that set-up only: the strength graph's maximal independent set at distance 2 on aggressive
  levels (no squared graph) and 1 on the others, the aggregates around it (MatCoarsen spmvmis: coarsen.c, mis.c,
  device/aggregate.cu), and the tentative prolongator with the coarse near-null space (device/
  tentative.cu, PETSc's formProl0 to the bit; prolongator.c), all on the device where the graph is.
  PETSc's GAMG drives the rest: the strength graph (MatCreateGraph(), which our types make on the
  device: spmvlayer/types/graph.c; left there, no host matrix made, where our coarsen and prolongator
  are its only readers), the prolongator's smoothing and the Galerkin products
  (MatMatMult(), MatPtAP(): our SpGEMM on our types, spmvspgemm/), views and re-typing. The whole
  set-up runs under MatSpmvCUDACatch(): a thrust exception in PETSc's aijcusparse becomes PETSc's error.
  On several processes each process's aggregates hold its own rows, so P0 is its diagonal block; a
  graph on the host takes the host reference and PETSc's prolongator. A level ours cannot take (HEM,
  MIS-k other than PETSc's defaults, its minimum-degree order, an unsymmetrized graph, a graph that is
  not AIJ) runs PETSc's, -info says why.
*/
#include <petsc/private/pcgamgimpl.h>
#include <petscversion.h>
#include "spmvgamgimpl.h"
#include "../../../../mat/impls/spmvlayer/spmvimpl.h"
#include "../../../../mat/impls/spmvlayer/spmvbase.h"

/* agg.c's private context, which the coarsening reads (the aggressive levels and how PETSc would
   coarsen them): mirrored for the PETSc releases it was read from (3.25.4 and 3.26.1: the same struct);
   others take PETSc's coarsening */
#if PETSC_VERSION_GE(3, 25, 0) && PETSC_VERSION_LT(3, 27, 0)
  #define PCGAMGSPMV_AGG_MIRRORED 1
typedef struct {
  PetscInt   nsmooths;
  PetscInt   aggressive_coarsening_levels;
  PetscInt   aggressive_mis_k;
  PetscBool  use_aggressive_square_graph;
  PetscBool  use_minimum_degree_ordering;
  PetscBool  use_low_mem_filter;
  PetscBool  graph_symmetrize;
  MatCoarsen crs;
} PC_GAMG_AGG_Mirror;
#endif

typedef struct {
  PetscBool3 use;                                                    /* -petscspmv_gamg: our coarsening for our operators (unset: where they are on the device) */
  PetscBool  all;                                                    /* -petscspmv_gamg_all_operators: and for any AIJ operator */
  PetscBool  prolong;                                                /* -petscspmv_gamg_prolongator: the tentative prolongator on the device too */
  PetscBool  graphdevice;                                            /* -petscspmv_gamg_graph_device: the strength graph left there where only ours read it */
  PetscInt   levels;                                                 /* levels our coarsening took in the set-up that made the levels, for the view */
  PetscBool  fresh;                                                  /* a set-up's first coarsen is to come: the counts restart there (one reusing the interpolation keeps them) */
  PetscInt   prolongs;                                               /* of which our prolongator made P0 */
  PetscErrorCode (*creategraph)(PC, Mat, Mat *);                     /* PETSc's, during a set-up */
  PetscErrorCode (*coarsen)(PC, Mat *, PetscCoarsenData **);         /* PETSc's, during a set-up */
  PetscErrorCode (*prolongator)(PC, Mat, PetscCoarsenData *, Mat *); /* PETSc's, during a set-up */
  /* a level's aggregates kept on the device by our coarsen for our prolongator, with the (empty)
     lists handed to PETSc in between, by which the prolongator knows them */
  PetscCoarsenData *lists;
  PetscInt          n, nagg;
  PetscInt         *d_work;         /* agg[n], roots[n], aggptr[n + 1], members[n] */
  PetscInt          coarsehostrows; /* -petscspmv_gamg_coarse_host_rows */
} PC_GAMG_Spmv;

static PetscErrorCode (*PCCreate_GAMG_PETSc)(PC);
static PetscErrorCode (*PCSetUp_GAMG_PETSc)(PC);
static PetscErrorCode (*PCSetFromOptions_GAMG_PETSc)(PC, PetscOptionItems);
static PetscErrorCode (*PCView_GAMG_PETSc)(PC, PetscViewer);

static const char PCGAMGSpmvKey[] = "PCGAMGSpmv";

static PetscErrorCode PCGAMGSpmvFreeKept(PC_GAMG_Spmv *sp)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDAFree(sp->d_work));
#endif
  sp->d_work = NULL;
  sp->lists  = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCGAMGSpmvDestroy(PetscCtxRt ctx)
{
  PC_GAMG_Spmv *sp = *(PC_GAMG_Spmv **)ctx;

  PetscFunctionBegin;
  PetscCall(PCGAMGSpmvFreeKept(sp));
  PetscCall(PetscFree(sp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCGAMGSpmvGet(PC pc, PC_GAMG_Spmv **sp)
{
  PetscContainer container;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)pc, PCGAMGSpmvKey, (PetscObject *)&container));
  if (container) PetscCall(PetscContainerGetPointer(container, sp));
  else {
    PetscCall(PetscNew(sp));
    PetscCall(PetscObjectContainerCompose((PetscObject)pc, PCGAMGSpmvKey, *sp, PCGAMGSpmvDestroy));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Why level's graph G stays with PETSc's coarsening (NULL: ours takes it); *distance: the independent set's */
static PetscErrorCode PCGAMGSpmvLevelReason(PC pc, Mat G, const char **reason, PetscInt *distance)
{
  PC_MG      *mg      = (PC_MG *)pc->data;
  PC_GAMG    *pc_gamg = (PC_GAMG *)mg->innerctx;
  PetscMPIInt size;
  PetscBool   aij, misk, mis;
  PetscInt    bs;

  PetscFunctionBegin;
  *reason   = NULL;
  *distance = 1;
#if defined(PCGAMGSPMV_AGG_MIRRORED)
  {
    PC_GAMG_AGG_Mirror *agg = (PC_GAMG_AGG_Mirror *)pc_gamg->subctx;
    PetscBool           kept;

    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)G), &size));
    PetscCall(MatSpmvGraphGetDevice(G, NULL, &kept));
    if (kept) aij = PETSC_TRUE;                                                                     /* the graph left on the device: its pattern is our coarsening's to read */
    else if (size > 1) PetscCall(PetscStrbeginswith(((PetscObject)G)->type_name, MATMPIAIJ, &aij)); /* MPIAIJ, aijcusparse's and ours: coarsen.c takes their blocks */
    else {
      PetscCall(PetscObjectTypeCompareAny((PetscObject)G, &aij, MATSEQAIJ, MATSEQAIJCUSPARSE, ""));
      if (!aij) { /* a graph of our type (one made on the host): its SeqAIJ CSR is the host reference's */
        MatSpmvFormat *fmt;

        PetscCall(MatSpmvFormatFind(((PetscObject)G)->type_name, &fmt));
        aij = (PetscBool) !!fmt;
      }
    }
    PetscCall(MatGetBlockSize(G, &bs));
    if (size > 1 && !aij) *reason = "several processes with a graph that is not MPIAIJ";
    else if (!aij) *reason = "the graph is not SeqAIJ, aijcusparse or one of ours";
    else if (bs != 1) *reason = "the graph has block size > 1";
    else if (!agg || !agg->crs || ((PetscObject)agg->crs)->classid != MAT_COARSEN_CLASSID) *reason = "PCGAMG's aggregation context is not the one this library was built for";
    else {
      const PetscBool aggressive = (PetscBool)(pc_gamg->current_level < agg->aggressive_coarsening_levels);

      PetscCall(PetscObjectTypeCompare((PetscObject)agg->crs, MATCOARSENMISK, &misk));
      PetscCall(PetscObjectTypeCompare((PetscObject)agg->crs, MATCOARSENMIS, &mis));
      if (!misk && !mis) *reason = "the coarsener asked for is not MIS or MIS-k";
      else if (agg->use_minimum_degree_ordering) *reason = "-pc_gamg_mis_k_minimum_degree_ordering asks for PETSc's greedy order by degree, which our hashed priorities do not follow";
      else if (!agg->graph_symmetrize) *reason = "-pc_gamg_graph_symmetrize 0: our independent sets and aggregates read the graph as symmetric";
      else if (aggressive && !agg->use_aggressive_square_graph && agg->aggressive_mis_k != 2) *reason = "aggressive MIS-k with k other than 2";
      else if (!aggressive && misk) {
        PetscInt k;

        PetscCall(MatCoarsenMISKGetDistance(agg->crs, &k));
        if (k != 1) *reason = "MIS-k with k > 1 on a level that is not aggressive";
      }
      if (!*reason && aggressive) *distance = 2;
    }
  }
#else
  (void)pc_gamg, (void)size, (void)aij, (void)misk, (void)mis, (void)bs;
  *reason = "PETSc is not the release whose PCGAMG aggregation context this library mirrors (3.26)";
#endif
  { /* every process the same way (options may differ between processes): ours only where all take it, at one distance */
    PetscMPIInt here[3] = {*reason ? 1 : 0, (PetscMPIInt)*distance, -(PetscMPIInt)*distance}, all[3];

    PetscCallMPI(MPIU_Allreduce(here, all, 3, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)G)));
    if (!*reason && (all[0] || all[1] != -all[2])) *reason = "another process takes PETSc's coarsening or another distance here (its options differ)";
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The coarsener's options under their prefixes before 1.2 (pc_gamg_spmv_) and 1.3 (pc_gamg_petscspmv_),
   still taken (where the new spelling is not given), with PETSc's deprecation warning once per process */
static PetscErrorCode PCGAMGSpmvOldCoarsenOptions(const char *prefix)
{
  static const char *const names[3] = {"mat_coarsen_spmvmis_distance", "mat_coarsen_spmvmis_seed", "mat_coarsen_spmvmis_host"};
  static const char *const olds[2] = {"pc_gamg_spmv_", "pc_gamg_petscspmv_"}, *const versions[2] = {"1.2", "1.3"};
  static PetscBool warned[2] = {PETSC_FALSE, PETSC_FALSE};

  PetscFunctionBegin;
  for (int o = 1; o >= 0; o--) { /* the newer old spelling first: it wins where both are given */
    for (int k = 0; k < 3; k++) {
      char      oldname[256], newname[256], value[256];
      PetscBool set, given;

      PetscCall(PetscSNPrintf(oldname, sizeof(oldname), "-%s%s%s", prefix ? prefix : "", olds[o], names[k]));
      PetscCall(PetscSNPrintf(newname, sizeof(newname), "-%spetscspmv_gamg_%s", prefix ? prefix : "", names[k]));
      PetscCall(PetscOptionsGetString(NULL, NULL, oldname, value, sizeof(value), &set));
      PetscCall(PetscOptionsHasName(NULL, NULL, newname, &given));
      if (!set || given) continue;
      PetscCall(PetscOptionsSetValue(NULL, newname, value[0] ? value : NULL));
      PetscCall(MatSpmvWarnRenamed(oldname, newname, versions[o], &warned[o]));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether our coarsen keeps a level's aggregates on the device for our prolongator (else the lists go
   to PETSc's prolongator) */
static PetscBool PCGAMGSpmvKeepsAggregates(PC_GAMG *pc_gamg, PC_GAMG_Spmv *sp)
{
  return (PetscBool)(sp->prolong && !PetscDefined(USE_COMPLEX) && !pc_gamg->use_aggs_in_asm && pc_gamg->data_cell_cols <= MATSPMVGAMG_DEVICE_MAX_COLS);
}

/* A strength graph left on the device made the host graph where a host code will read it after all
   (why: for -info); collective: on every process where any needs it */
static PetscErrorCode PCGAMGSpmvGraphToHost(PC pc, Mat *G, PetscBool need, const char *why)
{
  PC_GAMG  *pc_gamg = (PC_GAMG *)((PC_MG *)pc->data)->innerctx;
  PetscBool kept;

  PetscFunctionBegin;
  PetscCall(MatSpmvGraphGetDevice(*G, NULL, &kept)); /* the same on every process (graph.c) */
  if (!kept) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &need, 1, MPI_C_BOOL, MPI_LOR, PetscObjectComm((PetscObject)*G)));
  if (!need) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscInfo(pc, "Level %" PetscInt_FMT ": the strength graph left on the device made a host matrix: %s\n", pc_gamg->current_level, why));
  PetscCall(MatSpmvGraphMaterialize(G));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's strength graph, left on the device where our coarsening and prolongator will be its only
   readers (MatSpmvGraphDeviceOnlyBegin(): our types' MatCreateGraph() then skip its host matrix):
   not where PETSc filters it on the host (-pc_gamg_threshold), reads it for its ASM subdomains, or
   our coarsen hands PETSc's prolongator the lists. A level that takes PETSc's coarsening after all
   makes it the host graph there (PCGAMGSpmvGraphToHost()) */
static PetscErrorCode PCGAMGCreateGraph_Spmv(PC pc, Mat A, Mat *G)
{
  PC_MG         *mg      = (PC_MG *)pc->data;
  PC_GAMG       *pc_gamg = (PC_GAMG *)mg->innerctx;
  PC_GAMG_Spmv  *sp;
  PetscBool      deviceonly, prev;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PCGAMGSpmvGet(pc, &sp));
  deviceonly = (PetscBool)(sp->graphdevice && PCGAMGSpmvKeepsAggregates(pc_gamg, sp) && pc_gamg->threshold[pc_gamg->current_level] < 0 && !pc_gamg->asm_hem_aggs);
  if (!deviceonly) {
    PetscCall((*sp->creategraph)(pc, A, G));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSpmvGraphDeviceOnlyBegin(&prev));
  ierr = (*sp->creategraph)(pc, A, G);
  PetscCall(MatSpmvGraphDeviceOnlyEnd(prev));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The aggregation's coarsen with our maximal independent set: the lists PETSc's prolongator reads (root
   first), on the graph itself at every level (no squared graph) */
static PetscErrorCode PCGAMGCoarsen_Spmv(PC pc, Mat *G, PetscCoarsenData **lists)
{
  PC_MG        *mg      = (PC_MG *)pc->data;
  PC_GAMG      *pc_gamg = (PC_GAMG *)mg->innerctx;
  PC_GAMG_Spmv *sp;
  const char   *reason, *prefix;
  PetscInt      distance;
  MatCoarsen    crs;
  PetscBool     host;

  PetscFunctionBegin;
  PetscCall(PCGAMGSpmvGet(pc, &sp));
  if (sp->fresh) sp->levels = sp->prolongs = 0, sp->fresh = PETSC_FALSE;
  PetscCall(PCGAMGSpmvLevelReason(pc, *G, &reason, &distance));
  if (reason) {
    PetscCall(PetscInfo(pc, "Level %" PetscInt_FMT ": PETSc's coarsening, since %s\n", pc_gamg->current_level, reason));
    PetscCall(PCGAMGSpmvGraphToHost(pc, G, PETSC_TRUE, "PETSc's coarsening reads it"));
    PetscCall((*sp->coarsen)(pc, G, lists));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(petsc_gamg_setup_events[GAMG_COARSEN], 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(petsc_gamg_setup_events[GAMG_MIS], 0, 0, 0, 0));
  PetscCall(MatCoarsenCreate(PetscObjectComm((PetscObject)*G), &crs));
  PetscCall(PCGetOptionsPrefix(pc, &prefix));
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)crs, prefix));
  PetscCall(PetscObjectAppendOptionsPrefix((PetscObject)crs, "petscspmv_gamg_"));
  PetscCall(PCGAMGSpmvOldCoarsenOptions(prefix));
  PetscCall(MatCoarsenSetType(crs, MATCOARSENSPMVMIS));
  PetscCall(MatCoarsenSetFromOptions(crs));
  PetscCall(MatCoarsenSpmvMISSetDistance(crs, distance));
  PetscCall(MatCoarsenSpmvMISSetKeepDevice(crs, PCGAMGSpmvKeepsAggregates(pc_gamg, sp)));
  PetscCall(MatCoarsenSpmvMISGetHost(crs, &host));
  if (host) PetscCall(PCGAMGSpmvGraphToHost(pc, G, PETSC_TRUE, "the coarsening's host reference reads it"));
  else PetscCall(PCGAMGSpmvGraphToHost(pc, G, (PetscBool)!PCGAMGSpmvKeepsAggregates(pc_gamg, sp), "PETSc's prolongator reads it"));
  PetscCall(MatCoarsenSetAdjacency(crs, *G));
  PetscCall(MatCoarsenApply(crs));
  PetscCall(MatCoarsenGetData(crs, lists));
  PetscCall(PCGAMGSpmvFreeKept(sp));
  PetscCall(MatCoarsenSpmvMISTakeDevice(crs, &sp->n, &sp->nagg, &sp->d_work));
  if (sp->d_work) sp->lists = *lists;
  PetscCall(MatCoarsenDestroy(&crs));
  sp->levels++;
  PetscCall(PetscLogEventEnd(petsc_gamg_setup_events[GAMG_MIS], 0, 0, 0, 0));
  PetscCall(PetscLogEventEnd(petsc_gamg_setup_events[GAMG_COARSEN], 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The tentative prolongator P0 and the coarse near-null space from the aggregates our coarsen kept on
   the device (prolongator.c; device/tentative.cu: PETSc's formProl0 to the bit), P0 of A's type as
   PETSc makes it; PETSc's prolongator for lists that are not those. Collective: every process took
   the same path in the coarsening (the graph's type decides it) */
static PetscErrorCode PCGAMGProlongator_Spmv(PC pc, Mat A, PetscCoarsenData *lists, Mat *P)
{
  PC_MG        *mg      = (PC_MG *)pc->data;
  PC_GAMG      *pc_gamg = (PC_GAMG *)mg->innerctx;
  PC_GAMG_Spmv *sp;
  PetscMPIInt   kept[2], any[2]; /* here: aggregates kept on the device, not kept; on any process */
  PetscInt      nagg;
  PetscReal    *cdata;
  MPI_Comm      comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBegin;
  PetscCall(PCGAMGSpmvGet(pc, &sp));
  kept[0] = (PetscMPIInt)(sp->d_work && lists == sp->lists);
  kept[1] = !kept[0];
  PetscCallMPI(MPIU_Allreduce(kept, any, 2, MPI_INT, MPI_MAX, comm));
  PetscCheck(!any[0] || !any[1], comm, PETSC_ERR_PLIB, "GAMG's aggregates are on the device on some processes only: a bug, please report it (-petscspmv_gamg_prolongator 0 takes PETSc's prolongator)");
  if (!any[0]) {
    PetscCall(PCGAMGSpmvFreeKept(sp));
    PetscCall((*sp->prolongator)(pc, A, lists, P));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(petsc_gamg_setup_events[GAMG_PROL], 0, 0, 0, 0));
  PetscCheck(pc_gamg->data_cell_rows == A->rmap->bs, PETSC_COMM_SELF, PETSC_ERR_PLIB, "GAMG's near-null rows per node %" PetscInt_FMT " are not the level's block size %" PetscInt_FMT, pc_gamg->data_cell_rows, A->rmap->bs);
  PetscCallMPI(MPIU_Allreduce(&sp->nagg, &nagg, 1, MPIU_INT, MPI_SUM, comm));
  if (!nagg) {
    PetscCall(PetscInfo(pc, "%s: No selected points on coarse grid\n", ((PetscObject)pc)->prefix));
    PetscCall(PCGAMGSpmvFreeKept(sp));
    *P = NULL;
    PetscCall(PetscLogEventEnd(petsc_gamg_setup_events[GAMG_PROL], 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscInfo(pc, "%s: New grid %" PetscInt_FMT " nodes (P0 on the device)\n", ((PetscObject)pc)->prefix, nagg));
  PetscCall(PetscLogEventBegin(petsc_gamg_setup_events[GAMG_PROLB], 0, 0, 0, 0));
  PetscCall(PCGAMGSpmvTentativeFromDevice(A, sp->n, sp->nagg, sp->d_work, pc_gamg->data_cell_cols, pc_gamg->data, &cdata, P));
  /* the coarse data replaces the fine, as agg.c's */
  PetscCall(PetscFree(pc_gamg->data));
  pc_gamg->data           = cdata;
  pc_gamg->data_cell_rows = pc_gamg->data_cell_cols;
  pc_gamg->data_sz        = pc_gamg->data_cell_cols * pc_gamg->data_cell_cols * sp->nagg;
  PetscCall(PCGAMGSpmvFreeKept(sp));
  sp->prolongs++;
  PetscCall(PetscLogEventEnd(petsc_gamg_setup_events[GAMG_PROLB], 0, 0, 0, 0));
  PetscCall(MatViewFromOptions(*P, NULL, "-pc_gamg_agg_view_initial_prolongation"));
  PetscCall(PetscLogEventEnd(petsc_gamg_setup_events[GAMG_PROL], 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether this process's set-up would take our coarsening; -info says why not */
static PetscErrorCode PCGAMGSpmvTakesHere(PC pc, PC_GAMG_Spmv *sp, PetscBool *takes)
{
  const char    *type;
  MatSpmvFormat *fmt = NULL;
  PetscBool      agg, aij = PETSC_FALSE;

  PetscFunctionBegin;
  *takes = PETSC_FALSE;
  if (sp->use == PETSC_BOOL3_FALSE || !pc->pmat) PetscFunctionReturn(PETSC_SUCCESS);
  /* the name PCGAMGSetType() copied: PCGAMGGetType() returns the caller's string, gone after an option's -pc_gamg_type */
  type = ((PC_GAMG *)((PC_MG *)pc->data)->innerctx)->gamg_type_name;
  PetscCall(PetscStrcmp(type, PCGAMGAGG, &agg));
  PetscCall(MatSpmvFormatFind(((PetscObject)pc->pmat)->type_name, &fmt));
  if (sp->all) PetscCall(PetscObjectTypeCompareAny((PetscObject)pc->pmat, &aij, MATSEQAIJ, MATMPIAIJ, MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE, ""));
  if (!agg) PetscCall(PetscInfo(pc, "PETSc's coarsening: PCGAMG type %s, ours is for %s\n", type, PCGAMGAGG));
  else if (!fmt && !aij) PetscCall(PetscInfo(pc, "PETSc's coarsening: the operator is %s, not one of ours (-petscspmv_gamg_all_operators takes any AIJ)\n", ((PetscObject)pc->pmat)->type_name));
  else if (sp->use == PETSC_BOOL3_UNKNOWN) { /* by default where the set-up can run on the device: its host reference gains nothing */ PetscBool device;

    PetscCall(MatSpmvUseCUSPARSEBase(&device));
    if (PetscDefined(USE_COMPLEX)) /* the graph and P0 are PETSc's there, and on complex-shifted operators the iterations follow the sets' order (docs/limits.md) */
      PetscCall(PetscInfo(pc, "PETSc's coarsening: complex scalars, whose iterations then are aijcusparse's (-petscspmv_gamg takes ours)\n"));
    else if (!device) PetscCall(PetscInfo(pc, "PETSc's coarsening: no GPU (-petscspmv_gamg takes ours, by its host reference)\n"));
    else if (pc->pmat->boundtocpu) PetscCall(PetscInfo(pc, "PETSc's coarsening: the operator is bound to the CPU (-petscspmv_gamg takes ours, by its host reference)\n"));
    else *takes = PETSC_TRUE;
  } else *takes = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether this set-up takes our coarsening: on every process or none (the coarsenings are collective,
   each its own way; options or a GPU that differ between processes must not leave some in each) */
static PetscErrorCode PCGAMGSpmvTakes(PC pc, PC_GAMG_Spmv *sp, PetscBool *takes)
{
  PetscMPIInt here, all;

  PetscFunctionBegin;
  PetscCall(PCGAMGSpmvTakesHere(pc, sp, takes));
  here = *takes ? 1 : 0;
  PetscCallMPI(MPIU_Allreduce(&here, &all, 1, MPI_INT, MPI_LAND, PetscObjectComm((PetscObject)pc)));
  if (here && !all) PetscCall(PetscInfo(pc, "PETSc's coarsening: another process takes PETSc's (its options, operator or GPU differ), and every process takes the same\n"));
  *takes = all ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The coarsest level's LU by PETSc's host factorization where the level is small and its values are on
   the device. Both packages factor on the host; cuSPARSE's then uploads and analyses the factors, loads
   its kernels in the first solve and solves level by level: about 2.2 us a row against the host's
   1.4 ns an entry of the factor (docs/gamg.md, "The coarsest LU"), so the device's solve wins only past
   about 1600 entries a row, near 6000 rows of a 3D problem. Not where the user chose a package for it
   (PCSetUp_MG() read the options before this) or it is factored already (a set-up again). Newer device
   values come down at each factorization: aijcusparse keeps inodes off, and PETSc's numeric LU without
   them reads A through MatSeqAIJGetArrayRead() */
static PetscErrorCode PCGAMGSpmvCoarseLUOnHost(PC pc, PC_GAMG_Spmv *sp)
{
  KSP           coarse, *sub;
  PC            bjacobi, lu;
  Mat           A;
  PetscInt      nsub, first;
  PetscBool     match;
  MatSolverType given;

  PetscFunctionBegin;
  if (!sp->coarsehostrows) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCMGGetCoarseSolve(pc, &coarse));
  PetscCall(KSPGetPC(coarse, &bjacobi));
  PetscCall(PetscObjectTypeCompare((PetscObject)bjacobi, PCBJACOBI, &match));
  if (!match || !bjacobi->setupcalled) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCBJacobiGetSubKSP(bjacobi, &nsub, &first, &sub));
  if (nsub != 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPGetPC(sub[0], &lu));
  PetscCall(PetscObjectTypeCompare((PetscObject)lu, PCLU, &match));
  if (!match) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCFactorGetMatSolverType(lu, &given));
  PetscCall(PCGetOperators(lu, NULL, &A));
  if (given || lu->setupcalled || !A || A->boundtocpu || A->rmap->n > sp->coarsehostrows) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvValuesOnDevice(A, &match)); /* ours on the aijcusparse base, or aijcusparse (our products' results) */
  if (!match) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCFactorSetMatSolverType(lu, MATSOLVERPETSC));
  PetscCall(PetscInfo(pc, "The coarsest level's LU (%" PetscInt_FMT " rows) by PETSc's host factorization, not cuSPARSE's (-petscspmv_gamg_coarse_host_rows %" PetscInt_FMT ")\n", A->rmap->n, sp->coarsehostrows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's set-up with our coarsen in the aggregation's ops, PETSc's again afterwards (also on error):
   PCGAMGSetType() re-creates the ops, so they are swapped only for the set-up's duration */
/* PETSc's GAMG set-up, a thrust exception under it (aijcusparse's products) made a PETSc error */
static PetscErrorCode PCSetUpGAMGPETSc(void *pc)
{
  PetscFunctionBegin;
  PetscCall((*PCSetUp_GAMG_PETSc)((PC)pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUpGAMGPETScCaught(PC pc)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDACatch(PCSetUpGAMGPETSc, pc, "GAMG's set-up"));
#else
  PetscCall(PCSetUpGAMGPETSc(pc));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_GAMGSpmv(PC pc)
{
  PC_MG         *mg      = (PC_MG *)pc->data;
  PC_GAMG       *pc_gamg = (PC_GAMG *)mg->innerctx;
  PC_GAMG_Spmv  *sp;
  PetscBool      takes;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PCGAMGSpmvGet(pc, &sp));
  PetscCall(PCGAMGSpmvTakes(pc, sp, &takes));
  if (!takes || !pc_gamg->ops->creategraph || !pc_gamg->ops->coarsen || !pc_gamg->ops->prolongator) {
    PetscCall(PCSetUpGAMGPETScCaught(pc));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  sp->creategraph           = pc_gamg->ops->creategraph;
  sp->coarsen               = pc_gamg->ops->coarsen;
  sp->prolongator           = pc_gamg->ops->prolongator;
  sp->fresh                 = PETSC_TRUE;
  pc_gamg->ops->creategraph = PCGAMGCreateGraph_Spmv;
  pc_gamg->ops->coarsen     = PCGAMGCoarsen_Spmv;
  pc_gamg->ops->prolongator = PCGAMGProlongator_Spmv;
  ierr                      = PCSetUpGAMGPETScCaught(pc);
  pc_gamg->ops->creategraph = sp->creategraph;
  pc_gamg->ops->coarsen     = sp->coarsen;
  pc_gamg->ops->prolongator = sp->prolongator;
  sp->creategraph           = NULL;
  sp->coarsen               = NULL;
  sp->prolongator           = NULL;
  PetscCall(PCGAMGSpmvFreeKept(sp));
  PetscCall(ierr);
  PetscCall(PCGAMGSpmvCoarseLUOnHost(pc, sp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_GAMGSpmv(PC pc, PetscOptionItems PetscOptionsObject)
{
  PC_GAMG_Spmv *sp;

  PetscFunctionBegin;
  PetscCall((*PCSetFromOptions_GAMG_PETSc)(pc, PetscOptionsObject));
  PetscCall(PCGAMGSpmvGet(pc, &sp));
  PetscOptionsHeadBegin(PetscOptionsObject, "GAMG's coarsening by petscspmv");
  /* before 1.2 "spmv", the matrix type's name too */
  PetscCall(PetscOptionsDeprecated("-pc_gamg_spmv", "-petscspmv_gamg", "1.2", NULL));
  PetscCall(PetscOptionsDeprecated("-pc_gamg_spmv_prolongator", "-petscspmv_gamg_prolongator", "1.2", NULL));
  PetscCall(PetscOptionsDeprecated("-pc_gamg_spmv_all_operators", "-petscspmv_gamg_all_operators", "1.2", NULL));
  /* 1.3: the library's options under one prefix */
  PetscCall(PetscOptionsDeprecated("-pc_gamg_petscspmv", "-petscspmv_gamg", "1.3", NULL));
  PetscCall(PetscOptionsDeprecated("-pc_gamg_petscspmv_prolongator", "-petscspmv_gamg_prolongator", "1.3", NULL));
  PetscCall(PetscOptionsDeprecated("-pc_gamg_petscspmv_all_operators", "-petscspmv_gamg_all_operators", "1.3", NULL));
  PetscCall(PetscOptionsDeprecated("-pc_gamg_petscspmv_coarse_host_rows", "-petscspmv_gamg_coarse_host_rows", "1.3", NULL));
  PetscCall(PetscOptionsBool3("-petscspmv_gamg", "Coarsen by petscspmv's maximal independent sets and tentative prolongator (on the device) where the operator is one of its types (default: where it is on a GPU, real scalars)", "PCSetUp", sp->use == PETSC_BOOL3_FALSE ? PETSC_FALSE : PETSC_TRUE, &sp->use, NULL));
  PetscCall(PetscOptionsBool("-petscspmv_gamg_prolongator", "With -petscspmv_gamg, the tentative prolongator on the device too (where the aggregates were made there)", "PCSetUp", sp->prolong, &sp->prolong, NULL));
  PetscCall(PetscOptionsBool("-petscspmv_gamg_graph_device", "With -petscspmv_gamg, the strength graph left on the device where only its coarsening and prolongator read it (0: a host matrix, as PETSc's)", "PCSetUp", sp->graphdevice, &sp->graphdevice, NULL));
  PetscCall(PetscOptionsInt("-petscspmv_gamg_coarse_host_rows", "With -petscspmv_gamg, the coarsest level's LU by PETSc's host factorization up to this many rows (0: cuSPARSE's, as aijcusparse's)", "PCSetUp", sp->coarsehostrows, &sp->coarsehostrows, NULL));
  PetscCheck(sp->coarsehostrows >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-petscspmv_gamg_coarse_host_rows %" PetscInt_FMT ": give 0 or more rows (0: cuSPARSE's LU)", sp->coarsehostrows);
  PetscCall(PetscOptionsBool("-petscspmv_gamg_all_operators", "Also where the operator is any other AIJ matrix (aijcusparse on the device, AIJ by the host reference)", "PCSetUp", sp->all, &sp->all, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_GAMGSpmv(PC pc, PetscViewer viewer)
{
  PC_GAMG_Spmv *sp;
  PetscBool     isascii;

  PetscFunctionBegin;
  PetscCall((*PCView_GAMG_PETSc)(pc, viewer));
  PetscCall(PCGAMGSpmvGet(pc, &sp));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (isascii && sp->levels)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  petscspmv coarsened %" PetscInt_FMT " level(s): maximal independent sets by hashed priorities (distance 2 on aggressive levels); tentative prolongator on the device on %" PetscInt_FMT "\n", sp->levels, sp->prolongs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's creator, then our set-up, options and view (GAMG's part of PCMG's) around PETSc's */
static PetscErrorCode PCCreate_GAMGSpmv(PC pc)
{
  PC_GAMG_Spmv *sp;

  PetscFunctionBegin;
  PetscCall((*PCCreate_GAMG_PETSc)(pc));
  PCSetUp_GAMG_PETSc          = pc->ops->setup;
  PCSetFromOptions_GAMG_PETSc = pc->ops->setfromoptions;
  PCView_GAMG_PETSc           = ((PC_MG *)pc->data)->view;
  pc->ops->setup              = PCSetUp_GAMGSpmv;
  pc->ops->setfromoptions     = PCSetFromOptions_GAMGSpmv;
  ((PC_MG *)pc->data)->view   = PCView_GAMGSpmv;
  PetscCall(PCGAMGSpmvGet(pc, &sp));
  sp->use            = PETSC_BOOL3_UNKNOWN;
  sp->prolong        = PETSC_TRUE;
  sp->graphdevice    = PETSC_TRUE;
  sp->coarsehostrows = 5000; /* below the crossover PCGAMGSpmvCoarseLUOnHost() describes */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCGAMG with our coarsening for our operators, and spmvmis: called once by the package */
PETSC_INTERN PetscErrorCode PCRegister_GAMGSpmv(void)
{
  PetscErrorCode (*create)(PC) = NULL;

  PetscFunctionBegin;
  PetscCall(MatCoarsenRegister_SpmvMIS());
  PetscCall(PCInitializePackage()); /* PETSc's PCs registered first (PCRegisterAll()), so that ours replaces its "gamg" */
  PetscCall(PetscFunctionListFind(PCList, PCGAMG, &create));
  if (!create || create == PCCreate_GAMGSpmv) PetscFunctionReturn(PETSC_SUCCESS);
  PCCreate_GAMG_PETSc = create;
  PetscCall(PCRegister(PCGAMG, PCCreate_GAMGSpmv));
  PetscFunctionReturn(PETSC_SUCCESS);
}
