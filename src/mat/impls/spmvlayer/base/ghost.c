/*
  The ghost exchange of an MPI product y = A x (+ z) on a stream of its own, beside the diagonal
  block's product.

  MPIAIJ's product starts the exchange (VecScatterBegin()), multiplies by the diagonal block and
  finishes the exchange before the off-diagonal block's product. Where MPI cannot read device memory
  (-use_gpu_aware_mpi 0) PETSc packs the values other processes need on its stream, copies them to
  the host and waits for its stream before MPI starts: the GPU runs nothing from that wait until the
  diagonal block's product is launched, and the copy of the received values into the ghost vector
  waits behind that product. SNES ex19 1024^2 on two H100s, Chebyshev/Jacobi: ~90 us a product
  beyond half of the one-GPU product's, for aijcusparse and our types alike.

  Here the diagonal block's product is queued on PETSc's stream first; the values to send are
  gathered on a stream of the highest priority (its kernel's blocks are scheduled ahead of the
  product's remaining ones), copied to page-locked host memory, sent and received by a PetscSF over
  host buffers (MPI never sees device memory), and copied into a ghost vector of our own on that
  stream; PETSc's stream waits for that copy only before the off-diagonal block's product.

  Where processes share a GPU their kernels take turns on it anyway: there the stream only added its
  costs (measured without MPS on SNES ex19, docs/results.md), so MPIAIJ's scatter stays.
*/
#include "../spmvimpl.h"

PetscBool MatSpmvGhostStream       = PETSC_TRUE;  /* -petscspmv_ghost_stream (read by the package) */
PetscBool MatSpmvGhostStreamShared = PETSC_FALSE; /* -petscspmv_ghost_stream_shared */
#include <petscsf.h>
#include <petsc/private/vecimpl.h> /* VEC_ScatterBegin, VEC_ScatterEnd: the exchange logged as PETSc's is */
#include <petsc/private/logimpl.h> /* PetscLogGpuTimeFlag */

struct _n_MatSpmvGhosts {
  PetscBool        decided, shared; /* whether some processes of A share a GPU, once decided */
  PetscObjectState nzstate;         /* A's nonzero state, and its insides, when this was made */
  void            *data;
  PetscSF          sf;    /* roots: the packed values this process sends; leaves: its ghost values */
  PetscInt         npack; /* how many local entries of x other processes read (each once) */
  PetscInt         nghost;
  int             *d_pack;  /* their local indices */
  PetscScalar     *d_send;  /* gathered on the device */
  PetscScalar     *h_send;  /* and on the host (page-locked) */
  PetscScalar     *h_ghost; /* received (page-locked) */
  Vec              ghost;   /* the off-diagonal block's input, on the device */
  void            *stream, *fork, *join;
};

#if defined(PETSC_HAVE_CUDA)
static PetscErrorCode MatSpmvGhostsReset(MatSpmvGhosts g)
{
  PetscFunctionBegin;
  PetscCall(PetscSFDestroy(&g->sf));
  PetscCall(VecDestroy(&g->ghost));
  PetscCall(MatSpmvCUDAFree(g->d_pack));
  PetscCall(MatSpmvCUDAFree(g->d_send));
  PetscCall(MatSpmvCUDAHostFree(g->h_send));
  PetscCall(MatSpmvCUDAHostFree(g->h_ghost));
  g->d_pack  = NULL;
  g->d_send  = NULL;
  g->h_send  = NULL;
  g->h_ghost = NULL;
  g->npack = g->nghost = 0;
  g->data              = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode MatSpmvGhostsDestroy(MatSpmvGhosts *g)
{
  PetscFunctionBegin;
  if (!*g) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvGhostsReset(*g));
  PetscCall(MatSpmvCUDAEventDestroy((*g)->fork));
  PetscCall(MatSpmvCUDAEventDestroy((*g)->join));
  PetscCall(MatSpmvCUDAStreamDestroy((*g)->stream));
#endif
  PetscCall(PetscFree(*g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* The exchange of A's ghost values (the global columns garray of its off-diagonal block Ao), made
   from A's column layout: collective */
static PetscErrorCode MatSpmvGhostsSetUp(Mat A, MatSpmvGhosts g)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);
  Mat                Ad, Ao;
  const PetscInt    *garray, *ioffset, *irootloc;
  const PetscMPIInt *iranks;
  const PetscSFNode *iremote;
  PetscMPIInt        niranks;
  PetscInt           nroots, nleaves, *pack, *rootpos, *leafpos;
  PetscSFNode       *remote;
  PetscSF            bycolumn;

  PetscFunctionBegin;
  PetscCall(MatSpmvGhostsReset(g));
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
  g->nghost = Ao->cmap->n;
  /* ghost k reads global column garray[k] from its owner */
  PetscCall(PetscSFCreate(comm, &bycolumn));
  PetscCall(PetscSFSetGraphLayout(bycolumn, A->cmap, g->nghost, NULL, PETSC_COPY_VALUES, garray));
  PetscCall(PetscSFSetUp(bycolumn));
  /* the local entries other processes read, once each, and where each sits in the packed buffer */
  PetscCall(PetscSFGetLeafRanks(bycolumn, &niranks, &iranks, &ioffset, &irootloc));
  g->npack = ioffset[niranks];
  PetscCall(PetscMalloc1(g->npack, &pack));
  PetscCall(PetscArraycpy(pack, irootloc, g->npack));
  PetscCall(PetscSortRemoveDupsInt(&g->npack, pack));
  PetscCall(PetscSFGetGraph(bycolumn, &nroots, &nleaves, NULL, &iremote));
  PetscCall(PetscMalloc2(nroots, &rootpos, nleaves, &leafpos));
  for (PetscInt r = 0; r < nroots; r++) rootpos[r] = -1;
  for (PetscInt k = 0; k < g->npack; k++) rootpos[pack[k]] = k;
  PetscCall(PetscSFBcastBegin(bycolumn, MPIU_INT, rootpos, leafpos, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(bycolumn, MPIU_INT, rootpos, leafpos, MPI_REPLACE));
  PetscCall(PetscMalloc1(nleaves, &remote));
  for (PetscInt l = 0; l < nleaves; l++) {
    remote[l].rank  = iremote[l].rank;
    remote[l].index = leafpos[l];
  }
  PetscCall(PetscSFCreate(comm, &g->sf));
  PetscCall(PetscSFSetGraph(g->sf, g->npack, nleaves, NULL, PETSC_OWN_POINTER, remote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(g->sf));
  PetscCall(PetscSFDestroy(&bycolumn));
  PetscCall(PetscFree2(rootpos, leafpos));

  PetscCheck(A->cmap->n <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%" PetscInt_FMT " local columns: the ghost exchange's gather takes 32-bit indices; run with -petscspmv_ghost_stream 0", A->cmap->n);
  PetscCall(MatSpmvCUDAUploadInt(&g->d_pack, pack, g->npack));
  PetscCall(PetscFree(pack));
  PetscCall(MatSpmvCUDAMalloc((void **)&g->d_send, g->npack * sizeof(PetscScalar)));
  PetscCall(MatSpmvCUDAHostAlloc((void **)&g->h_send, g->npack * sizeof(PetscScalar)));
  PetscCall(MatSpmvCUDAHostAlloc((void **)&g->h_ghost, g->nghost * sizeof(PetscScalar)));
  PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, g->nghost, &g->ghost));
  g->nzstate = A->nonzerostate;
  g->data    = A->data;
  PetscCall(PetscInfo(A, "ghost exchange on a stream of its own: %" PetscInt_FMT " values sent, %" PetscInt_FMT " received\n", g->npack, g->nghost));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

#if defined(PETSC_HAVE_CUDA)
/* Whether two processes of A's communicator use the same GPU (the same answer on all: collective) */
static PetscErrorCode MatSpmvGhostsShared(Mat A, PetscBool *shared)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)A);
  PetscMPIInt size, rank;
  char        uuid[16], *all;
  PetscBool   mine = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(MatSpmvCUDADeviceUUID(uuid));
  PetscCall(PetscMalloc1(16 * (size_t)size, &all));
  PetscCallMPI(MPI_Allgather(uuid, 16, MPI_CHAR, all, 16, MPI_CHAR, comm));
  for (PetscMPIInt r = 0; r < size && !mine; r++)
    if (r != rank && !memcmp(all + 16 * (size_t)r, uuid, 16)) mine = PETSC_TRUE;
  PetscCall(PetscFree(all));
  PetscCallMPI(MPIU_Allreduce(&mine, shared, 1, MPI_C_BOOL, MPI_LOR, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* Whether the exchange may take this path: the same answer on every process (the vectors' types,
   A's binding, MPI's kind and the option are collective) */
static PetscErrorCode MatSpmvGhostsApply(Mat A, Vec x, Vec z, Vec y, PetscBool *apply)
{
  PetscFunctionBegin;
  *apply = PETSC_FALSE;
#if defined(PETSC_HAVE_CUDA)
  PetscMPIInt size;
  PetscBool   cuda = PETSC_TRUE;
  Vec         v[3] = {x, z, y};

  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (!MatSpmvGhostStream || use_gpu_aware_mpi || size == 1 || A->boundtocpu) PetscFunctionReturn(PETSC_SUCCESS);
  for (int k = 0; k < 3 && cuda; k++) {
    if (!v[k]) continue;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)v[k], &cuda, VECMPICUDA, VECSEQCUDA, ""));
    if (cuda && v[k]->boundtocpu) cuda = PETSC_FALSE;
  }
  *apply = cuda;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* the diagonal block's part: y = Ad x (+ z) on PETSc's stream (Ad's own functions take the MPI vectors' local parts) */
static PetscErrorCode MatSpmvGhostsDiagonal(Mat Ad, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  if (z) PetscUseTypeMethod(Ad, multadd, x, z, y);
  else PetscUseTypeMethod(Ad, mult, x, y);
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode MatSpmvGhostsMult(Mat A, MatSpmvGhosts *gp, Vec x, Vec z, Vec y, PetscBool *done)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvGhostsApply(A, x, z, y, done));
  if (!*done) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(PETSC_HAVE_CUDA)
  {
    MatSpmvGhosts      g;
    Mat                Ad, Ao;
    const PetscScalar *dx;
    PetscScalar       *dg;
    PetscMemType       mtype;
    /* a timed kernel (-log_view_gpu_time) waits for its stream: the product then goes after MPI starts */
    PetscBool diagfirst = (PetscBool)!PetscLogGpuTimeFlag;

    if (!*gp) PetscCall(PetscNew(gp));
    g = *gp;
    if (!g->decided) {
      if (!MatSpmvGhostStreamShared) PetscCall(MatSpmvGhostsShared(A, &g->shared));
      g->decided = PETSC_TRUE;
      if (g->shared) PetscCall(PetscInfo(A, "processes share a GPU: the ghost exchange stays MPIAIJ's scatter\n"));
    }
    if (g->shared) {
      *done = PETSC_FALSE;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (!g->stream) {
      PetscCall(MatSpmvCUDAStreamCreate(&g->stream));
      PetscCall(MatSpmvCUDAEventCreate(&g->fork));
      PetscCall(MatSpmvCUDAEventCreate(&g->join));
    }
    if (!g->sf || g->nzstate != A->nonzerostate || g->data != A->data) PetscCall(MatSpmvGhostsSetUp(A, g));
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
    PetscCheck(Ao->cmap->n == g->nghost, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The off-diagonal block has %" PetscInt_FMT " columns, its ghost exchange %" PetscInt_FMT, Ao->cmap->n, g->nghost);

    /* x's device copy first (an upload goes on PETSc's stream), then the side stream starts after it */
    PetscCall(VecGetArrayReadAndMemType(x, &dx, &mtype));
    PetscCheck(PetscMemTypeDevice(mtype), PETSC_COMM_SELF, PETSC_ERR_PLIB, "A CUDA vector gave a host array");
    PetscCall(MatSpmvCUDAStreamWait(g->stream, NULL, g->fork));
    if (diagfirst) PetscCall(MatSpmvGhostsDiagonal(Ad, x, z, y));

    PetscCall(PetscLogEventBegin(VEC_ScatterBegin, A, x, g->ghost, 0));
    PetscCall(MatSpmvCUDAGather(g->npack, g->d_pack, dx, g->d_send, g->stream));
    PetscCall(MatSpmvCUDACopyToHost(g->h_send, g->d_send, g->npack * sizeof(PetscScalar), g->stream)); /* waits for the side stream only */
    PetscCall(PetscLogGpuToCpu(g->npack * sizeof(PetscScalar)));
    /* the previous product's upload has read h_ghost before MPI writes it again (a process that sends
       nothing has not waited for this stream above) */
    PetscCall(MatSpmvCUDAEventSynchronize(g->join));
    PetscCall(PetscSFBcastWithMemTypeBegin(g->sf, MPIU_SCALAR, PETSC_MEMTYPE_HOST, g->h_send, PETSC_MEMTYPE_HOST, g->h_ghost, MPI_REPLACE));
    PetscCall(PetscLogEventEnd(VEC_ScatterBegin, A, x, g->ghost, 0));
    PetscCall(VecRestoreArrayReadAndMemType(x, &dx));
    if (!diagfirst) PetscCall(MatSpmvGhostsDiagonal(Ad, x, z, y));

    PetscCall(PetscLogEventBegin(VEC_ScatterEnd, A, x, g->ghost, 0));
    PetscCall(PetscSFBcastEnd(g->sf, MPIU_SCALAR, g->h_send, g->h_ghost, MPI_REPLACE));
    PetscCall(VecGetArrayWriteAndMemType(g->ghost, &dg, &mtype));
    PetscCall(MatSpmvCUDACopyToDevice(dg, g->h_ghost, g->nghost * sizeof(PetscScalar), g->stream));
    PetscCall(PetscLogCpuToGpu(g->nghost * sizeof(PetscScalar)));
    PetscCall(VecRestoreArrayWriteAndMemType(g->ghost, &dg));
    PetscCall(MatSpmvCUDAStreamWait(NULL, g->stream, g->join));
    PetscCall(PetscLogEventEnd(VEC_ScatterEnd, A, x, g->ghost, 0));

    PetscUseTypeMethod(Ao, multadd, g->ghost, y, y);
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
