/*
  MatCreateGraph() for our sequential types: the scalar graph GAMG coarsens (absolute values, plus the
  transpose, scaled by the diagonal) made from aijcusparse's device CSR in a few device passes and
  copied to the host once, where GAMG's coarsening reads it. PETSc's MatCreateGraph_Simple_AIJ makes
  it on the host (a copy of A, its transpose, a sum of two patterns), with copies between host and
  device around each step. The graph is an aijcusparse matrix, as aijcusparse's own graph is: GAMG's
  squared graph is then aijcusparse's device product, and no layout of ours is built for it.
  Block sizes above 1 are collapsed first (the sum of |a| over each block, as PETSc's). Complex
  scalars, a strength index with blocks, a matrix bound to the CPU or without device values take
  the base's function. MPI matrices: on the device but for the off-diagonal entries (process
  boundaries), gathered on the host, blocks whole on each process collapsed on the way; blocks split
  between processes collapsed on the host, then PETSc's function (below). GAMG's set-up may ask for
  the graph to stay on the device (a kept graph, below). The aijcusparse results of our matrices' products (GAMG's
  first coarse operator), sequential or parallel, take the same graphs: PETSc's made theirs on the
  host from a copy of the device values.
*/
#include "../spmvimpl.h"
#include <petscsf.h>

#if defined(PETSC_HAVE_CUDA) && !defined(PETSC_USE_COMPLEX) /* graph.cu makes real graphs */
  #define MATSPMV_DEVICE_GRAPH
#endif

static PetscBool MatSpmvGraphDeviceOnly = PETSC_FALSE; /* asked for by MatSpmvGraphDeviceOnlyBegin() */

/* whether the graph of A can be made on the device (else why not, for -info), and A's nonzeros */
static PetscErrorCode MatSpmvGraphOnDevice(Mat A, PetscInt index_size, PetscBool *device, const char **why, PetscInt *nnz)
{
  PetscInt bs;
  MatInfo  info;

  PetscFunctionBegin;
  *device = PETSC_FALSE;
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  *nnz = (PetscInt)info.nz_used;
#if !defined(MATSPMV_DEVICE_GRAPH)
  *why = "a build without CUDA, or with complex scalars";
  PetscFunctionReturn(PETSC_SUCCESS);
#endif
  if (bs > 1 && index_size) *why = "a strength index (-pc_gamg_mat_coarsen_strength_index)";
  else if (A->rmap->n != A->cmap->n) *why = "a rectangular matrix";
  else if (A->rmap->n % bs) *why = "rows not a multiple of the block size";
  else if (info.nz_used == 0) *why = "an empty matrix";
  else if (info.nz_used > PETSC_INT32_MAX / 2) *why = "more nonzeros than the graph's int offsets hold";
  else {
    PetscCall(MatSpmvDeviceCSRUsable(A, device));
    if (!*device) *why = "a matrix on the host or bound to the CPU, 64-bit indices, or no GPU";
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(MATSPMV_DEVICE_GRAPH)
/* a graph made on the device: its device arrays freed */
static PetscErrorCode MatSpmvDeviceGraphFree(MatSpmvDeviceGraph *g)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAFree(g->a));
  PetscCall(MatSpmvCUDAFree(g->j));
  PetscCall(MatSpmvCUDAFree(g->i));
  g->a = NULL;
  g->i = g->j = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a graph made on the device as a new aijcusparse matrix: its pattern copied into host arrays (pinned)
   it owns; its values copied there too where host code will read them (host_values: PETSc's MatFilter()
   of a threshold), else left on the device (the host's zeros until a host reader asks aijcusparse for
   them); the graph's device arrays freed */
static PetscErrorCode MatSpmvGraphFromDevice(MatSpmvDeviceGraph *g, PetscBool host_values, Mat *G)
{
  const MatSpmvDeviceCSR D = {g->m, g->m, g->nnz, g->i, g->j, host_values ? g->a : NULL};
  void                  *stream;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAGetStream(&stream));
  PetscCall(MatSpmvCreateAIJFromDevice(&D, PETSC_TRUE, stream, G));
  PetscCall(MatConvert(*G, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, G));
  if (!host_values) PetscCall(MatSpmvCUSPARSESetValues(*G, g->nnz, g->a, stream));
  PetscCall(MatSpmvDeviceGraphFree(g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A graph left on the device: GAMG's, where only our coarsening reads it (its pattern, on the device),
   asked for around PETSc's creategraph by MatSpmvGraphDeviceOnlyBegin(). A MATSHELL of the graph's
   layout holding the device arrays the graph was made of: made into the host matrix above only where
   a host code needs it (MatSpmvGraphMaterialize()). Saves the copy of the pattern to the host, the
   host matrices (PETSc's passes over their rows) and, on several processes, the MPIAIJ's ghost map:
   0.14 s of the 0.63 s of KSP ex45 160^3's GAMG set-up on one H200 went to those */
typedef struct {
  MatSpmvDeviceGraph g;   /* the diagonal block (the whole graph on one process) */
  MatSpmvCOODevice   coo; /* several processes: the off-diagonal block (oi, oj; its ghost columns garray) */
  PetscScalar       *oa;  /* and its values */
  PetscSF            sf;  /* the ghost exchange: the owned rows its roots, the ghosts its leaves */
  PetscBool          mpi;
} MatSpmvGraphKept;

static const char MatSpmvGraphKeptKey[] = "MatSpmvGraphKept";

static PetscErrorCode MatSpmvGraphKeptDestroy(PetscCtxRt ctx)
{
  MatSpmvGraphKept *k = *(MatSpmvGraphKept **)ctx;

  PetscFunctionBegin;
  PetscCall(MatSpmvDeviceGraphFree(&k->g));
  if (k->mpi) PetscCall(MatSpmvCUDACOODestroy(&k->coo));
  PetscCall(MatSpmvCUDAFree(k->oa));
  PetscCall(PetscSFDestroy(&k->sf));
  PetscCall(PetscFree(k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvGraphKeptGet(Mat G, MatSpmvGraphKept **k)
{
  PetscContainer container;

  PetscFunctionBegin;
  *k = NULL;
  PetscCall(PetscObjectQuery((PetscObject)G, MatSpmvGraphKeptKey, (PetscObject *)&container));
  if (container) PetscCall(PetscContainerGetPointer(container, k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatGetInfo() of a kept graph: its entries (PETSc's GAMG reports them with -info) */
static PetscErrorCode MatGetInfo_SpmvGraphKept(Mat G, MatInfoType flag, MatInfo *info)
{
  MatSpmvGraphKept *k;
  PetscLogDouble    nz;

  PetscFunctionBegin;
  PetscCall(MatSpmvGraphKeptGet(G, &k));
  nz = (PetscLogDouble)k->g.nnz + (k->mpi ? (PetscLogDouble)k->coo.no : 0);
  if (flag == MAT_GLOBAL_SUM) PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &nz, 1, MPIU_PETSCLOGDOUBLE, MPI_SUM, PetscObjectComm((PetscObject)G)));
  else if (flag == MAT_GLOBAL_MAX) PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &nz, 1, MPIU_PETSCLOGDOUBLE, MPI_MAX, PetscObjectComm((PetscObject)G)));
  PetscCall(PetscMemzero(info, sizeof(*info)));
  info->block_size   = 1;
  info->nz_allocated = info->nz_used = nz;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *k handed to a new MATSHELL of A's layout, the kept graph */
static PetscErrorCode MatSpmvGraphKeep(Mat A, MatSpmvGraphKept *k, Mat *G)
{
  MatSpmvGraphKept *kept;

  PetscFunctionBegin;
  PetscCall(PetscNew(&kept));
  *kept = *k;
  PetscCall(MatCreateShell(PetscObjectComm((PetscObject)A), A->rmap->n / A->rmap->bs, A->rmap->n / A->rmap->bs, PETSC_DETERMINE, PETSC_DETERMINE, NULL, G));
  PetscCall(PetscObjectContainerCompose((PetscObject)*G, MatSpmvGraphKeptKey, kept, MatSpmvGraphKeptDestroy));
  PetscCall(MatShellSetOperation(*G, MATOP_GETINFO, (PetscErrorCodeFn *)MatGetInfo_SpmvGraphKept));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the graph about to be made may be left on the device: asked for, not filtered on the host,
   not to be viewed */
static PetscErrorCode MatSpmvGraphKeepWanted(PetscReal filter, PetscBool *keep)
{
  PetscBool view;

  PetscFunctionBegin;
  *keep = PETSC_FALSE;
  if (!MatSpmvGraphDeviceOnly || filter >= 0 || sizeof(PetscInt) != sizeof(int)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscOptionsHasName(NULL, NULL, "-mat_graph_view", &view));
  *keep = (PetscBool)!view;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

typedef PetscErrorCode (*MatSpmvCreateGraphFn)(Mat, PetscBool, PetscBool, PetscReal, PetscInt, PetscInt[], Mat *);

/* the graph of A, one of ours or a plain aijcusparse matrix, on the device; by base (PETSc's
   function) where it cannot be */
static PetscErrorCode MatSpmvCreateGraph(Mat A, MatSpmvCreateGraphFn base, PetscBool symmetrize, PetscBool scale, PetscReal filter, PetscInt index_size, PetscInt index[], Mat *G)
{
  PetscBool   device;
  const char *why = NULL;
  PetscInt    bs, nnz = 0;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(MatSpmvGraphOnDevice(A, index_size, &device, &why, &nnz));
  if (!device || (bs == 1 && !symmetrize && !scale && filter < 0)) { /* the latter: A itself is the graph */
    if (!device) PetscCall(PetscInfo(A, "MatCreateGraph() by the base's function (PETSc's, on the host): %s\n", why));
    PetscCall((*base)(A, symmetrize, scale, filter, index_size, index, G));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#if defined(MATSPMV_DEVICE_GRAPH)
  {
    const PetscInt     m    = A->rmap->n;
    MatSpmvDeviceCSR   acsr = {m, m, nnz, NULL, NULL, NULL};
    MatSpmvDeviceGraph g;
    MatSpmvGraphKind   kind;
    PetscLogDouble     t0, t1, t2;
    void              *stream;
    PetscBool          isset, issym, keep;

    PetscCall(MatIsSymmetricKnown(A, &isset, &issym));
    kind.symmetrize = (PetscBool)(symmetrize && !(isset && issym)); /* as PETSc's: a known symmetric A is its own transpose */
    kind.absval     = (PetscBool)(scale || filter >= 0);            /* absolute values wherever PETSc's takes them: to scale or to filter */
    kind.scale      = scale;
    PetscCall(MatSpmvCUSPARSEGetIJ(A, &acsr.i, &acsr.j));
    PetscCall(MatSpmvCUSPARSEGetValues(A, &acsr.a));
    PetscCall(MatSpmvCUDAGetStream(&stream));
    PetscCall(PetscTime(&t0));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(MatSpmvCUDAGraph(&acsr, bs, kind, &g, stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(MatSpmvCUSPARSERestoreValues(A, &acsr.a));
    PetscCall(MatSpmvCUDASynchronize(stream)); /* the device's part timed apart from the host copy */
    PetscCall(PetscTime(&t1));
    PetscCall(MatSpmvGraphKeepWanted(filter, &keep));
    if (keep) {
      MatSpmvGraphKept k = {g, {0}, NULL, NULL, PETSC_FALSE};

      PetscCall(MatSpmvGraphKeep(A, &k, G));
    } else PetscCall(MatSpmvGraphFromDevice(&g, (PetscBool)(filter >= 0), G));
    PetscCall(PetscTime(&t2));
    PetscCall(PetscInfo(A, "MatCreateGraph() on the device: %" PetscInt_FMT " rows (block size %" PetscInt_FMT "), %" PetscInt_FMT " entries (%s); device %.4f s, G %s %.4f s\n", g.m, bs, g.nnz, kind.symmetrize ? "A + A^T" : "A", t1 - t0, keep ? "left on the device" : "made on the host", t2 - t1));
  }
#endif
  /* a graph left on the device takes the same options: a host matrix made of it later takes them from it */
  if (symmetrize) PetscCall(MatSetOption(*G, MAT_SYMMETRIC, PETSC_TRUE));
  else PetscCall(MatPropagateSymmetryOptions(A, *G));
  PetscCall(MatViewFromOptions(*G, NULL, "-mat_graph_view"));
  if (filter >= 0) {
    PetscCall(MatFilter(*G, filter, PETSC_TRUE, PETSC_TRUE)); /* PETSc's, on the graph */
    PetscCall(MatViewFromOptions(*G, NULL, "-mat_filter_graph_view"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCreateGraph_SeqAIJSpmv(Mat A, PetscBool symmetrize, PetscBool scale, PetscReal filter, PetscInt index_size, PetscInt index[], Mat *G)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvCreateGraph(A, MatSpmvSeq(A)->base->creategraph, symmetrize, scale, filter, index_size, index, G));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCreateGraph_SeqAIJCUSPARSE_Spmv(Mat A, PetscBool symmetrize, PetscBool scale, PetscReal filter, PetscInt index_size, PetscInt index[], Mat *G)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvCreateGraph(A, MatSpmvBaseSeqCUSPARSE.creategraph, symmetrize, scale, filter, index_size, index, G));
  /* A's host values current, as PETSc's graph (host code) leaves them: GAMG's later steps read them
     without asking (with -pc_gamg_agg_nsmooths 0 and A's values on the device only, the next
     level's operator came out wrong and CG stopped, DIVERGED_INDEFINITE_PC) */
  PetscCall(MatSpmvUpdateHostValues(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ours on the aijcusparse base (a bound matrix takes the base's inside) */
PetscErrorCode MatSpmvSetGraphOps_SeqAIJSpmv(Mat A)
{
  PetscFunctionBegin;
  if (MatSpmvFormatOnly) PetscFunctionReturn(PETSC_SUCCESS); /* -petscspmv_format_only: aijcusparse's */
  if (MatSpmvSeq(A)->base->cusparse) A->ops->creategraph = MatCreateGraph_SeqAIJSpmv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The scalar graph of an MPI matrix of block size bs > 1 (each bs x bs block the sum of its entries'
   |Re a|, as PETSc's): made from each process's diagonal and off-diagonal blocks row by row, in the
   order PETSc's function adds the entries (the same sums to the last bit), without a copy of A.
   PETSc's function collapses in place too, but where a process's off-diagonal block has no columns
   (all rows on one process, as KSP ex56 on 2; coarse levels gathered on fewer processes) it inserts
   entry by entry ("OLD bs>1 CreateGraph" under -info): 0.22-0.33 s against 0.06-0.09 s here on
   KSP ex56 -ne 32 (build host). *G0 has type gtype, local rows and columns of whole blocks. */
static PetscErrorCode MatSpmvGraphCollapseMPI(Mat A, PetscInt bs, MatType gtype, Mat *G0)
{
  Mat                blk[2];
  const PetscInt    *garray, *bi[2], *bj[2];
  const PetscScalar *ba[2];
  PetscInt           m = A->rmap->n / bs, nd = A->cmap->n / bs, no = 0, nrows[2], cstart = A->cmap->rstart / bs, *gb, *cmap, *mark, *keys, *cols, *dnnz, *onnz;
  PetscScalar       *acc, *vals;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &blk[0], &blk[1], &garray));
  for (int b = 0; b < 2; b++) {
    PetscCall(MatGetRowIJ(blk[b], 0, PETSC_FALSE, PETSC_FALSE, &nrows[b], &bi[b], &bj[b], &done));
    PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatCreateGraph(): the %s block gives no row structure", b ? "off-diagonal" : "diagonal");
    PetscCall(MatSeqAIJGetArrayRead(blk[b], &ba[b])); /* brings device-newer values to the host */
  }
  /* the off-diagonal block's columns by block: garray is ascending, so blocks are runs */
  PetscCall(PetscMalloc2(blk[1]->cmap->n + 1, &gb, blk[1]->cmap->n + 1, &cmap));
  for (PetscInt c = 0; c < blk[1]->cmap->n; c++) {
    const PetscInt g = garray[c] / bs;

    if (!no || gb[no - 1] != g) gb[no++] = g;
    cmap[c] = nd + no - 1;
  }
  PetscCall(PetscMalloc6(nd + no, &mark, nd + no, &keys, nd + no, &cols, nd + no, &acc, nd + no, &vals, 2 * m + 1, &dnnz));
  onnz = dnnz + m;
  for (int pass = 0; pass < 2; pass++) { /* count for the preallocation, then insert */
    for (PetscInt k = 0; k < nd + no; k++) mark[k] = -1;
    if (pass) {
      PetscCall(MatCreate(PetscObjectComm((PetscObject)A), G0));
      PetscCall(MatSetSizes(*G0, m, nd, PETSC_DETERMINE, PETSC_DETERMINE));
      PetscCall(MatSetType(*G0, gtype));
      PetscCall(MatSeqAIJSetPreallocation(*G0, 0, dnnz));
      PetscCall(MatMPIAIJSetPreallocation(*G0, 0, dnnz, 0, onnz));
      PetscCall(MatSetOption(*G0, MAT_NO_OFF_PROC_ENTRIES, PETSC_TRUE));
    }
    for (PetscInt br = 0; br < m; br++) {
      PetscInt n = 0, grow = A->rmap->rstart / bs + br;

      for (PetscInt r = br * bs; r < (br + 1) * bs; r++)
        for (int b = 0; b < 2; b++)
          for (PetscInt p = bi[b][r]; p < bi[b][r + 1]; p++) {
            const PetscInt k = b ? cmap[bj[b][p]] : bj[b][p] / bs;

            if (mark[k] != br) {
              mark[k]   = br;
              keys[n++] = k;
              acc[k]    = 0;
            }
            if (pass) acc[k] += PetscAbsReal(PetscRealPart(ba[b][p]));
          }
      if (!pass) {
        dnnz[br] = onnz[br] = 0;
        for (PetscInt q = 0; q < n; q++) (keys[q] < nd ? dnnz : onnz)[br]++;
        continue;
      }
      for (PetscInt q = 0; q < n; q++) {
        cols[q] = keys[q] < nd ? cstart + keys[q] : gb[keys[q] - nd];
        vals[q] = acc[keys[q]];
      }
      PetscCall(MatSetValues(*G0, 1, &grow, n, cols, vals, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*G0, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*G0, MAT_FINAL_ASSEMBLY));
  for (int b = 0; b < 2; b++) {
    PetscCall(MatSeqAIJRestoreArrayRead(blk[b], &ba[b]));
    PetscCall(MatRestoreRowIJ(blk[b], 0, PETSC_FALSE, PETSC_FALSE, &nrows[b], &bi[b], &bj[b], &done));
  }
  PetscCall(PetscFree6(mark, keys, cols, acc, vals, dnnz));
  PetscCall(PetscFree2(gb, cmap));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(MATSPMV_DEVICE_GRAPH)
/* whether every process can make its part of A's scalar graph on the device (collective) */
static PetscErrorCode MatSpmvGraphMPIOnDevice(Mat A, PetscInt index_size, PetscBool *device)
{
  Mat         Ad;
  PetscInt    bs, nnz;
  PetscBool   same;
  const char *why;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(PetscLayoutCompare(A->rmap, A->cmap, &same));
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
  *device = PETSC_FALSE;
  /* blocks whole on each process (the diagonal block collapsed on the device, the off-diagonal entries by block), no strength index */
  if (!index_size && same && A->rmap->n % bs == 0 && A->rmap->rstart % bs == 0) {
    if (A->rmap->n) PetscCall(MatSpmvGraphOnDevice(Ad, 0, device, &why, &nnz));
    else PetscCall(MatSpmvDeviceCSRUsable(Ad, device)); /* no rows here (KSP ex56 on 2, coarse levels gathered on fewer processes): an empty block, the others decide */
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, device, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The graph's off-diagonal entries as COO on the host (global rows and columns): A's off-diagonal block's
   (|a| where absval), and with transpose the other processes' whose transposes fall in this process's
   rows (a transposed off-diagonal entry is off-diagonal), sent to the owners of their columns
   (MatSpmvSendToOwners()). Only the rows at the process boundaries hold such entries: O(boundary)
   host work and messages, plus one pass over the row offsets */
static PetscErrorCode MatSpmvGraphOffDiagonalCOO(Mat A, PetscBool transpose, PetscBool absval, PetscCount *n, PetscInt **ci, PetscInt **cj, PetscScalar **cv)
{
  Mat                Ao;
  const PetscInt    *garray, *oi, *oj;
  const PetscScalar *oa;
  PetscInt           m = A->rmap->n, rstart = A->rmap->rstart, nrows, no, nin = 0, *rows, *cols, *inrows = NULL, *incols = NULL;
  PetscScalar       *vals, *invals = NULL;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, NULL, &Ao, &garray));
  PetscCall(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nrows, &oi, &oj, &done));
  PetscCheck(done && nrows == m, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatCreateGraph(): the off-diagonal block gives no row structure");
  PetscCall(MatSeqAIJGetArrayRead(Ao, &oa)); /* brings device-newer values to the host (O(boundary)) */
  no = oi[m];
  PetscCall(PetscMalloc3(PetscMax(no, 1), &rows, PetscMax(no, 1), &cols, PetscMax(no, 1), &vals));
  for (PetscInt r = 0; r < m; r++)
    for (PetscInt p = oi[r]; p < oi[r + 1]; p++) {
      rows[p] = rstart + r;
      cols[p] = garray[oj[p]];
      vals[p] = absval ? PetscAbsScalar(oa[p]) : oa[p];
    }
  PetscCall(MatSeqAIJRestoreArrayRead(Ao, &oa));
  PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nrows, &oi, &oj, &done));
  /* each entry's transpose to its column's owner, where the column is a row */
  if (transpose) PetscCall(MatSpmvSendToOwners(PetscObjectComm((PetscObject)A), A->rmap, no, cols, rows, vals, &nin, &inrows, &incols, &invals));
  PetscCall(PetscIntSumError(no, nin, NULL));
  *n = no + nin;
  PetscCall(PetscMalloc3(PetscMax(*n, 1), ci, PetscMax(*n, 1), cj, PetscMax(*n, 1), cv));
  PetscCall(PetscArraycpy(*ci, rows, no));
  PetscCall(PetscArraycpy(*cj, cols, no));
  PetscCall(PetscArraycpy(*cv, vals, no));
  PetscCall(PetscArraycpy(*ci + no, inrows, nin));
  PetscCall(PetscArraycpy(*cj + no, incols, nin));
  PetscCall(PetscArraycpy(*cv + no, invals, nin));
  PetscCall(PetscFree3(rows, cols, vals));
  if (transpose) PetscCall(PetscFree3(inrows, incols, invals));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The MPI graph's ghost exchange from its ghost columns (coo's garray, on the device): the graph's m
   local rows its roots, the ghosts its leaves */
static PetscErrorCode MatSpmvGraphMPIGhostSF(MPI_Comm comm, PetscInt m, const MatSpmvCOODevice *coo, void *stream, PetscSF *sf)
{
  PetscInt   *garray;
  PetscLayout rows;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(PetscMax(coo->ng, 1), &garray)); /* int-sized PetscInt: the device graph's condition */
  PetscCall(MatSpmvCUDACopyToHost(garray, coo->garray, sizeof(int) * (size_t)coo->ng, stream));
  PetscCall(PetscLogGpuToCpu(sizeof(int) * (double)coo->ng));
  PetscCall(PetscLayoutCreateFromSizes(comm, m, PETSC_DECIDE, 1, &rows));
  PetscCall(PetscSFCreate(comm, sf));
  PetscCall(PetscSFSetGraphLayout(*sf, rows, coo->ng, NULL, PETSC_COPY_VALUES, garray));
  PetscCall(PetscLayoutDestroy(&rows));
  PetscCall(PetscFree(garray));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The MPI graph's blocks scaled on the device as PETSc scales the graph, each entry over the square
   roots of its row's and its column's diagonal entries: the ghost columns' scales from their owners
   through the graph's ghost map. The graph then comes to the host once, scaled (scaled there after,
   by aijcusparse's MatGetDiagonal() and MatDiagonalScale(), it took 0.069 s more of level 0 of KSP
   ex45 160^3 on two processes, 2 on one H200: MatGetDiagonal() uploads the graph) */
static PetscErrorCode MatSpmvGraphMPIScale(MatSpmvDeviceGraph *g, const MatSpmvCOODevice *coo, PetscSF sf, PetscScalar *oa, void *stream)
{
  PetscScalar *s, *sg;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAMalloc((void **)&s, sizeof(PetscScalar) * (size_t)PetscMax(g->m, 1)));
  PetscCall(MatSpmvCUDAMalloc((void **)&sg, sizeof(PetscScalar) * (size_t)PetscMax(coo->ng, 1)));
  PetscCall(MatSpmvCUDAGraphScales(g, s, stream));
  PetscCall(PetscSFBcastWithMemTypeBegin(sf, MPIU_SCALAR, PETSC_MEMTYPE_CUDA, s, PETSC_MEMTYPE_CUDA, sg, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, MPIU_SCALAR, s, sg, MPI_REPLACE));
  PetscCall(MatSpmvCUDADiagonalScale(g->m, g->i, g->j, s, s, g->a, stream));
  if (coo->no) PetscCall(MatSpmvCUDADiagonalScale(g->m, coo->oi, coo->oj, s, sg, oa, stream));
  PetscCall(MatSpmvCUDAFree(s)); /* cudaFree waits for the scaling */
  PetscCall(MatSpmvCUDAFree(sg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The MPI graph of device blocks g (diagonal) and coo, oa (off-diagonal; ghost columns coo's garray)
   made an MPIAIJCUSPARSE matrix: their patterns copied once into page-locked host memory, their values
   left on the device (but for host_values: PETSc's MatFilter() reads them on the host). The device
   arrays stay the caller's */
static PetscErrorCode MatSpmvGraphMPIMake(MPI_Comm comm, PetscInt N, const MatSpmvDeviceGraph *g, const MatSpmvCOODevice *coo, PetscScalar *oa, PetscBool host_values, void *stream, Mat *G)
{
  const MatSpmvDeviceCSR diag = {g->m, g->m, g->nnz, g->i, g->j, host_values ? g->a : NULL}, off = {g->m, coo->ng, coo->no, coo->oi, coo->oj, host_values ? oa : NULL};
  Mat                    Gd, Go;
  PetscBool              given;

  PetscFunctionBegin;
  PetscCall(MatSpmvNoInodeBegin(&given)); /* G lives on the device, as the one-process graph does */
  PetscCall(MatSpmvCreateMPIAIJFromDevice(comm, N, &diag, &off, coo->garray, PETSC_TRUE, stream, G));
  PetscCall(MatSpmvNoInodeEnd(given));
  PetscCall(MatConvert(*G, MATMPIAIJCUSPARSE, MAT_INPLACE_MATRIX, G)); /* PETSc's graph of an aijcusparse copy is aijcusparse */
  if (!host_values) {
    PetscCall(MatMPIAIJGetSeqAIJ(*G, &Gd, &Go, NULL));
    if (g->nnz) PetscCall(MatSpmvCUSPARSESetValues(Gd, g->nnz, g->a, stream));
    if (coo->no) PetscCall(MatSpmvCUSPARSESetValues(Go, coo->no, oa, stream));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The scalar graph of an MPI matrix of ours, PETSc's function's result made another way, on the
   device but for the boundary (blocks of bs > 1 collapsed on the way, each the sum of its entries'
   |a|): the diagonal block's |Ad| (+ |Ad|^T) by the device graph; the
   off-diagonal entries (with the transposes other processes send, MatSpmvGraphOffDiagonalCOO())
   summed by the device COO assembly, which also finds the graph's ghost map; both blocks scaled there
   (MatSpmvGraphMPIScale()); their patterns then copied once into page-locked host memory for the
   MPIAIJ, their values left on the device (unless PETSc's MatFilter() reads them on the host). PETSc's function transposes and adds all of A on the
   host: MatAXPY() 0.77 s and MatTranspose() 0.25 s on KSP ex45 140^3 on two processes (H200); an
   earlier host assembly of the boundary entries here still took 0.45 s of 160^3 on two */
static PetscErrorCode MatSpmvGraphMPIFromDevice(Mat A, PetscBool symmetrize, PetscBool scale, PetscReal filter, Mat *G)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);
  Mat                Ad;
  MatSpmvDeviceCSR   dcsr;
  MatSpmvDeviceGraph g;
  MatSpmvGraphKind   kind;
  MatSpmvCOODevice   coo;
  PetscInt           m = A->rmap->n, bs, mb, *ci, *cj;
  PetscScalar       *cv, *dv = NULL, *oa = NULL;
  PetscCount         n         = 0;
  PetscBool          transpose = symmetrize, isset, issym, absval = (PetscBool)(scale || filter >= 0), inrange, keep;
  void              *stream;
  MatInfo            info;
  PetscSF            sf = NULL;
  PetscLogDouble     t0, t1, t2, t2s, t2a, t3;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(MatGetBlockSize(A, &bs)); /* blocks: collapsed, each the sum of its entries' |a| (MatSpmvGraphMPIOnDevice(): whole on each process) */
  mb = m / bs;
  if (bs > 1) absval = PETSC_TRUE;
  PetscCall(MatIsSymmetricKnown(A, &isset, &issym));
  if (isset && issym) transpose = PETSC_FALSE; /* as PETSc's */
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
  /* the diagonal block, on the device, unscaled (the scale needs the other processes' diagonals) */
  PetscCall(MatGetInfo(Ad, MAT_LOCAL, &info));
  dcsr.m = dcsr.n = m;
  dcsr.nnz        = (PetscInt)info.nz_used;
  kind.absval     = absval;
  kind.symmetrize = transpose;
  kind.scale      = PETSC_FALSE;
  PetscCall(MatSpmvCUDAGetStream(&stream));
  if (m) {
    PetscCall(MatSpmvCUSPARSEGetIJ(Ad, &dcsr.i, &dcsr.j));
    PetscCall(MatSpmvCUSPARSEGetValues(Ad, &dcsr.a));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(MatSpmvCUDAGraph(&dcsr, bs, kind, &g, stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(MatSpmvCUSPARSERestoreValues(Ad, &dcsr.a));
  } else { /* no rows here: an empty block (its row offsets one zero) */
    const int zero = 0;

    PetscCall(PetscMemzero(&g, sizeof(g)));
    PetscCall(MatSpmvCUDAMalloc((void **)&g.i, sizeof(int)));
    PetscCall(MatSpmvCUDACopyToDevice(g.i, &zero, sizeof(int), stream));
  }
  /* the off-diagonal block: its entries (and the transposes) summed and sorted on the device */
  PetscCall(PetscTime(&t1));
  PetscCall(MatSpmvGraphOffDiagonalCOO(A, transpose, absval, &n, &ci, &cj, &cv));
  if (bs > 1)
    for (PetscCount k = 0; k < n; k++) ci[k] /= bs, cj[k] /= bs; /* each entry into its block, whose |a| the assembly sums */
  PetscCall(PetscTime(&t2));
  PetscCheck(n < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatCreateGraph(): %" PetscCount_FMT " off-diagonal entries on a process, past the device assembly's int count", n);
  {
    const MatSpmvCOOEntries e = {n, mb, A->rmap->rstart / bs, A->cmap->rstart / bs, A->cmap->rend / bs, A->cmap->N / bs, ci, cj, PETSC_FALSE};

    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(MatSpmvCUDACOOBuild(&e, &coo, &inrange, stream));
    PetscCheck(inrange && coo.nd == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatCreateGraph(): an off-diagonal entry outside the off-diagonal block");
    PetscCall(MatSpmvCUDAMalloc((void **)&dv, sizeof(PetscScalar) * (size_t)PetscMax(n, 1)));
    PetscCall(MatSpmvCUDAMalloc((void **)&oa, sizeof(PetscScalar) * (size_t)PetscMax(coo.no, 1)));
    PetscCall(MatSpmvCUDACopyToDevice(dv, cv, sizeof(PetscScalar) * (size_t)n, stream));
    PetscCall(PetscLogCpuToGpu(sizeof(PetscScalar) * (double)n));
    PetscCall(MatSpmvCUDACOOValues(&coo, dv, PETSC_FALSE, NULL, oa, stream));
    PetscCall(PetscLogGpuTimeEnd());
  }
  PetscCall(PetscFree3(ci, cj, cv));
  PetscCall(MatSpmvCUDAFree(dv));
  PetscCall(PetscTime(&t2s));
  PetscCall(MatSpmvGraphKeepWanted(filter, &keep)); /* on every process or none: the shell's layout is collective */
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &keep, 1, MPI_C_BOOL, MPI_LAND, comm));
  if (scale || keep) PetscCall(MatSpmvGraphMPIGhostSF(comm, mb, &coo, stream, &sf));
  if (scale) PetscCall(MatSpmvGraphMPIScale(&g, &coo, sf, oa, stream));
  PetscCall(PetscTime(&t2a));
  if (keep) {
    MatSpmvGraphKept k = {g, coo, oa, sf, PETSC_TRUE};

    PetscCall(MatSpmvGraphKeep(A, &k, G));
  } else {
    PetscCall(PetscSFDestroy(&sf));
    PetscCall(MatSpmvGraphMPIMake(comm, A->cmap->N / bs, &g, &coo, oa, (PetscBool)(filter >= 0), stream, G));
    PetscCall(MatSpmvDeviceGraphFree(&g));
    PetscCall(MatSpmvCUDACOODestroy(&coo));
    PetscCall(MatSpmvCUDAFree(oa));
  }
  if (symmetrize) PetscCall(MatSetOption(*G, MAT_SYMMETRIC, PETSC_TRUE)); /* kept or not, as in the one-process graph */
  else PetscCall(MatPropagateSymmetryOptions(A, *G));
  PetscCall(PetscTime(&t3));
  PetscCall(PetscInfo(A, "MatCreateGraph() on the device (MPI): block size %" PetscInt_FMT ", %" PetscInt_FMT " + %" PetscInt_FMT " entries here (%s), %" PetscInt_FMT " ghost columns, %.4f s (diagonal block %.4f, boundary entries gathered %.4f, summed %.4f, scaled %.4f, %s %.4f)\n", bs, g.nnz,
                      coo.no, transpose ? "A + A^T" : "A", coo.ng, t3 - t0, t1 - t0, t2 - t1, t2s - t2, t2a - t2s, keep ? "left on the device" : "made aijcusparse on the host", t3 - t2a));
  PetscCall(MatViewFromOptions(*G, NULL, "-mat_graph_view"));
  if (filter >= 0) {
    PetscCall(MatFilter(*G, filter, PETSC_TRUE, PETSC_TRUE)); /* PETSc's, on the graph */
    PetscCall(MatViewFromOptions(*G, NULL, "-mat_filter_graph_view"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* the MPI graph made above where every process can (*done), else nothing: A itself is the graph
   when it has no blocks and is neither symmetrized, scaled nor filtered */
static PetscErrorCode MatSpmvGraphMPITryDevice(Mat A, PetscBool symmetrize, PetscBool scale, PetscReal filter, PetscInt index_size, Mat *G, PetscBool *done)
{
  PetscFunctionBegin;
  *done = PETSC_FALSE;
#if defined(MATSPMV_DEVICE_GRAPH)
  if (A->rmap->bs > 1 || symmetrize || scale || filter >= 0) PetscCall(MatSpmvGraphMPIOnDevice(A, index_size, done));
  if (*done) PetscCall(MatSpmvGraphMPIFromDevice(A, symmetrize, scale, filter, G));
#else
  (void)A, (void)symmetrize, (void)scale, (void)filter, (void)index_size, (void)G;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MPI matrices: with blocks, PETSc's graph of the scalar graph collapsed above, an aijcusparse
   matrix with a GPU. Otherwise, with a GPU, the graph made with the diagonal block on the device
   (above) where every process can, else PETSc's of an aijcusparse copy of A, so that the graph and
   GAMG's products with it (the squared graph) are aijcusparse's, as for an aijcusparse operator:
   PETSc's function would make the graph a copy of A in our type, changed in place on the host,
   and our layouts built for it. Without a GPU, the base's function. */
static PetscErrorCode MatCreateGraph_MPIAIJSpmv(Mat A, PetscBool symmetrize, PetscBool scale, PetscReal filter, PetscInt index_size, PetscInt index[], Mat *G)
{
  Mat_MPIAIJSpmv *sp;
  PetscInt        bs;
  PetscBool       blocks;
  Mat             B;

  PetscFunctionBegin;
  PetscCall(MatSpmvMPIGetData(A, &sp));
  PetscCall(MatGetBlockSize(A, &bs));
  blocks = (PetscBool)(bs > 1 && !index_size && A->rmap->n % bs == 0 && A->cmap->n % bs == 0 && A->rmap->rstart % bs == 0 && A->cmap->rstart % bs == 0);
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &blocks, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  if (sp->base->cusparse && (blocks || bs == 1)) { /* on the device where every process can (blocks collapsed there too) */
    PetscBool done;

    PetscCall(MatSpmvGraphMPITryDevice(A, symmetrize, scale, filter, index_size, G, &done));
    if (done) PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (blocks) { /* collapsed here, then PETSc's function on the scalar graph */
    PetscBool isset, issym;

    PetscCall(PetscInfo(A, "MatCreateGraph(): %" PetscInt_FMT "x%" PetscInt_FMT " blocks collapsed by rows, then PETSc's function on the scalar graph\n", bs, bs));
    PetscCall(MatSpmvGraphCollapseMPI(A, bs, sp->base->cusparse ? MATMPIAIJCUSPARSE : MATMPIAIJ, &B));
    PetscCall(MatIsSymmetricKnown(A, &isset, &issym)); /* PETSc's skips the transpose of a symmetric A */
    if (isset && issym) PetscCall(MatSetOption(B, MAT_SYMMETRIC, PETSC_TRUE));
    PetscCall(MatCreateGraph(B, symmetrize, scale, filter, 0, NULL, G));
    PetscCall(MatDestroy(&B)); /* a reference stays where the graph is B itself */
    if (!symmetrize) PetscCall(MatPropagateSymmetryOptions(A, *G));
  } else if (sp->base->cusparse) {
    /* so that the graph and GAMG's products with it (the squared graph) are aijcusparse's */
    PetscCall(PetscInfo(A, "MatCreateGraph() by PETSc's function on an aijcusparse copy\n"));
    PetscCall(MatConvert(A, MATMPIAIJCUSPARSE, MAT_INITIAL_MATRIX, &B));
    PetscCall(MatCreateGraph(B, symmetrize, scale, filter, index_size, index, G));
    PetscCall(MatDestroy(&B));
  } else PetscCall(sp->base->creategraph(A, symmetrize, scale, filter, index_size, index, G));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an aijcusparse result of a parallel product of ours (GAMG's first coarse operator on several
   processes): the graph as ours, then the diagonal block's host values current, as PETSc's graph
   leaves them (GAMG's later steps read them; see the sequential one above) */
static PetscErrorCode MatCreateGraph_MPIAIJCUSPARSE_Spmv(Mat A, PetscBool symmetrize, PetscBool scale, PetscReal filter, PetscInt index_size, PetscInt index[], Mat *G)
{
  PetscBool done;
  Mat       Ad;

  PetscFunctionBegin;
  PetscCall(MatSpmvGraphMPITryDevice(A, symmetrize, scale, filter, index_size, G, &done));
  if (!done) PetscCall(MatSpmvBaseMPICUSPARSE.creategraph(A, symmetrize, scale, filter, index_size, index, G));
  else {
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
    PetscCall(MatSpmvUpdateHostValues(Ad));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C, an aijcusparse result of a product of ours (sequential or parallel), takes our graph in place
   of PETSc's host code (on ex45 140^3 GAMG's first coarse operator's graph, 8 M entries, was 0.2-0.3 s
   of transposes, conversions and copies on one process); one whose function another package
   replaced is left alone */
PetscErrorCode MatSpmvSetGraphOps_AIJCUSPARSEResult(Mat C)
{
  PetscBool seq, mpi;

  PetscFunctionBegin;
  if (MatSpmvFormatOnly) PetscFunctionReturn(PETSC_SUCCESS); /* -petscspmv_format_only: aijcusparse's */
  PetscCall(PetscObjectTypeCompare((PetscObject)C, MATSEQAIJCUSPARSE, &seq));
  PetscCall(PetscObjectTypeCompare((PetscObject)C, MATMPIAIJCUSPARSE, &mpi));
  if (seq && MatSpmvBaseSeqCUSPARSE.creategraph && C->ops->creategraph == MatSpmvBaseSeqCUSPARSE.creategraph) C->ops->creategraph = MatCreateGraph_SeqAIJCUSPARSE_Spmv;
  if (mpi && MatSpmvBaseMPICUSPARSE.creategraph && C->ops->creategraph == MatSpmvBaseMPICUSPARSE.creategraph) C->ops->creategraph = MatCreateGraph_MPIAIJCUSPARSE_Spmv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ours on either base */
PetscErrorCode MatSpmvSetGraphOps_MPIAIJSpmv(Mat A, MatSpmvBaseOps *base)
{
  PetscFunctionBegin;
  if (MatSpmvFormatOnly) PetscFunctionReturn(PETSC_SUCCESS); /* -petscspmv_format_only: aijcusparse's */
  if (base->creategraph) A->ops->creategraph = MatCreateGraph_MPIAIJSpmv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A graph made inside this pair may be left on the device (a kept graph: MatSpmvGraphMaterialize()) */
PetscErrorCode MatSpmvGraphDeviceOnlyBegin(PetscBool *prev)
{
  PetscFunctionBegin;
  *prev                  = MatSpmvGraphDeviceOnly;
  MatSpmvGraphDeviceOnly = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvGraphDeviceOnlyEnd(PetscBool prev)
{
  PetscFunctionBegin;
  MatSpmvGraphDeviceOnly = prev;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether G is a kept graph, and then its device pattern (parts may be NULL) */
PetscErrorCode MatSpmvGraphGetDevice(Mat G, MatSpmvGraphDeviceParts *parts, PetscBool *kept)
{
  PetscFunctionBegin;
  *kept = PETSC_FALSE;
#if defined(MATSPMV_DEVICE_GRAPH)
  {
    MatSpmvGraphKept *k;

    PetscCall(MatSpmvGraphKeptGet(G, &k));
    *kept = (PetscBool) !!k;
    if (k && parts) {
      parts->sf     = k->sf;
      parts->n      = k->g.m;
      parts->ng     = k->mpi ? k->coo.ng : 0;
      parts->rstart = G->rmap->rstart;
      parts->ai     = k->g.i;
      parts->aj     = k->g.j;
      parts->bi     = parts->ng ? k->coo.oi : NULL;
      parts->bj     = parts->ng ? k->coo.oj : NULL;
    }
  }
#else
  (void)G, (void)parts;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A kept graph made the host matrix MatCreateGraph() makes otherwise (aijcusparse, MPIAIJCUSPARSE on
   several processes, values on the device): for a host reader (PETSc's coarsening, its prolongator,
   HEM). Collective; a graph that is not kept is left as it is */
PetscErrorCode MatSpmvGraphMaterialize(Mat *G)
{
  PetscFunctionBegin;
#if defined(MATSPMV_DEVICE_GRAPH)
  {
    MatSpmvGraphKept *k;
    Mat               H;

    PetscCall(MatSpmvGraphKeptGet(*G, &k));
    if (!k) PetscFunctionReturn(PETSC_SUCCESS);
    if (k->mpi) {
      void *stream;

      PetscCall(MatSpmvCUDAGetStream(&stream));
      PetscCall(MatSpmvGraphMPIMake(PetscObjectComm((PetscObject)*G), (*G)->cmap->N, &k->g, &k->coo, k->oa, PETSC_FALSE, stream, &H));
    } else PetscCall(MatSpmvGraphFromDevice(&k->g, PETSC_FALSE, &H)); /* its device arrays freed there */
    PetscCall(MatPropagateSymmetryOptions(*G, H));                    /* those MatCreateGraph() gave the kept graph */
    PetscCall(PetscInfo(H, "The graph left on the device made a host matrix (%s) for a host reader\n", ((PetscObject)H)->type_name));
    PetscCall(MatDestroy(G)); /* the device arrays with it */
    *G = H;
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
