/*
  The MPI product C = A B of device matrices on the device (GAMG's smoothing A P0 on several
  processes). PETSc's MPIAIJBACKEND makes C's local rows as A_diag B_loc + A_off B_oth with B_oth (the
  rows of B at A's ghost columns) gathered on the host (MatGetBrowsOfAoCols_MPIAIJ()), local products
  whose patterns come to the host, and host loops that list C's entries as COO for
  MatSetPreallocationCOO(). Here every step but the boundary's bookkeeping is on the device:
  - B's local rows merged into one CSR of global columns (device/mpiproduct.cu);
  - B_oth: the row starts and ends of those rows sent to A's ghosts through A's ghost exchange
    (MatGetMultPetscSF(), device buffers), then an SF of entries (made on the host from the ghosts' row
    bounds: O(boundary)) that sends their columns and, at each numeric phase, their values;
  - A_diag B_loc and A_off B_oth by our SpGEMM (MatSpmvDeviceOperations), both with global columns;
  - their entries, as COO on the device, to the device COO assembly (coo.c), which makes C with its
    ghost map; the values through MatSetValuesCOO() at each numeric phase.
  -petscspmv_mpi_product 0, 64-bit indices, a matrix bound to the CPU or without device CSRs, product
  types other than A B: MPIAIJBACKEND, as before (-info says so).
*/
#include "../spmvimpl.h"
#include <petscsf.h>

PetscBool MatSpmvMPIProduct = PETSC_TRUE; /* -petscspmv_mpi_product (read by the package) */

#if defined(PETSC_HAVE_CUDA)
typedef struct {
  Mat               op[2];     /* A and B, referenced */
  PetscObjectState  nz[2];     /* their nonzero states at the symbolic phase */
  PetscInt          ngA;       /* A's ghost columns: B_oth's rows */
  int              *bgarray;   /* device: B's ghost map */
  int              *zeros;     /* device: row offsets of an empty block */
  MatSpmvMergedRows loc;       /* B's local rows, global columns */
  int              *othi;      /* device: B_oth's row offsets */
  int              *othj;      /* device: its global columns */
  PetscScalar      *otha;      /* device: its values */
  PetscInt          noth;      /* its entries */
  PetscSF           sfentries; /* loc's entries (roots) to B_oth's (leaves) */
  void             *plan[2];   /* A_diag B_loc, A_off B_oth */
  MatSpmvDeviceCSR  c[2];      /* their patterns */
  PetscScalar      *v;         /* device: their values, one after the other (C's COO values) */
} MatSpmvMPIProductAB;

static PetscErrorCode MatSpmvMPIProductDestroy(PetscCtxRt ctx)
{
  MatSpmvMPIProductAB *d = *(MatSpmvMPIProductAB **)ctx;

  PetscFunctionBegin;
  for (int k = 0; k < 2; k++) {
    if (d->plan[k]) PetscCall(MatSpmvDeviceOperations.spgemmdestroy(&d->plan[k]));
    PetscCall(MatDestroy(&d->op[k]));
  }
  PetscCall(MatSpmvCUDAMergedRowsDestroy(&d->loc));
  PetscCall(MatSpmvCUDAFree(d->bgarray));
  PetscCall(MatSpmvCUDAFree(d->zeros));
  PetscCall(MatSpmvCUDAFree(d->othi));
  PetscCall(MatSpmvCUDAFree(d->othj));
  PetscCall(MatSpmvCUDAFree(d->otha));
  PetscCall(MatSpmvCUDAFree(d->v));
  PetscCall(PetscSFDestroy(&d->sfentries));
  PetscCall(PetscFree(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a block's device CSR (its values where values); an empty block's row offsets are d->zeros (aijcusparse
   keeps no device CSR of an empty block) */
static PetscErrorCode MatSpmvMPIProductView(MatSpmvMPIProductAB *d, Mat X, PetscBool values, MatSpmvDeviceCSR *csr)
{
  MatInfo info;

  PetscFunctionBegin;
  PetscCall(MatGetInfo(X, MAT_LOCAL, &info));
  csr->m   = X->rmap->n;
  csr->n   = X->cmap->n;
  csr->nnz = (PetscInt)info.nz_used;
  csr->i = csr->j = NULL;
  csr->a          = NULL;
  if (csr->nnz) {
    if (values) PetscCall(MatSpmvCUSPARSEGetValues(X, &csr->a));
    PetscCall(MatSpmvCUSPARSEGetIJ(X, &csr->i, &csr->j));
  } else csr->i = d->zeros;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvMPIProductViewEnd(Mat X, MatSpmvDeviceCSR *csr)
{
  PetscFunctionBegin;
  if (csr->a) PetscCall(MatSpmvCUSPARSERestoreValues(X, &csr->a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* B_oth's pattern: the bounds of B's merged rows sent to A's ghosts, the entry SF made from them, the
   columns sent through it */
static PetscErrorCode MatSpmvMPIProductOtherRows(Mat A, MatSpmvMPIProductAB *d, void *stream)
{
  PetscSF            sfrows;
  PetscInt           nroots, nleaves, ng = d->ngA, *hstart, *hend, *hi;
  const PetscInt    *ilocal;
  const PetscSFNode *iremote;
  PetscSFNode       *eremote;
  PetscMPIInt       *owner;
  int               *dstart, *dend;

  PetscFunctionBegin;
  PetscCall(MatGetMultPetscSF(A, &sfrows));
  PetscCall(PetscSFGetGraph(sfrows, &nroots, &nleaves, &ilocal, &iremote));
  PetscCheck(nroots == d->loc.m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A's ghost exchange has %" PetscInt_FMT " roots, B %" PetscInt_FMT " local rows", nroots, d->loc.m);
  PetscCall(MatSpmvCUDAMalloc((void **)&dstart, sizeof(int) * (size_t)PetscMax(ng, 1)));
  PetscCall(MatSpmvCUDAMalloc((void **)&dend, sizeof(int) * (size_t)PetscMax(ng, 1)));
  PetscCall(PetscSFBcastWithMemTypeBegin(sfrows, MPIU_INT, PETSC_MEMTYPE_CUDA, d->loc.i, PETSC_MEMTYPE_CUDA, dstart, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sfrows, MPIU_INT, d->loc.i, dstart, MPI_REPLACE));
  PetscCall(PetscSFBcastWithMemTypeBegin(sfrows, MPIU_INT, PETSC_MEMTYPE_CUDA, d->loc.i + 1, PETSC_MEMTYPE_CUDA, dend, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sfrows, MPIU_INT, d->loc.i + 1, dend, MPI_REPLACE));
  /* the boundary's bookkeeping on the host: each ghost row's owner and bounds there */
  PetscCall(PetscMalloc4(ng + 1, &hstart, ng + 1, &hend, ng + 1, &hi, ng + 1, &owner));
  PetscCall(MatSpmvCUDACopyToHost(hstart, dstart, sizeof(int) * (size_t)ng, stream));
  PetscCall(MatSpmvCUDACopyToHost(hend, dend, sizeof(int) * (size_t)ng, stream));
  PetscCall(PetscLogGpuToCpu(2.0 * sizeof(int) * ng));
  PetscCall(MatSpmvCUDAFree(dstart));
  PetscCall(MatSpmvCUDAFree(dend));
  for (PetscInt g = 0; g < ng; g++) owner[g] = -1;
  for (PetscInt l = 0; l < nleaves; l++) {
    const PetscInt g = ilocal ? ilocal[l] : l;

    PetscCheck(g >= 0 && g < ng, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A's ghost exchange has a leaf %" PetscInt_FMT " past its %" PetscInt_FMT " ghosts", g, ng);
    owner[g] = (PetscMPIInt)iremote[l].rank;
  }
  hi[0] = 0;
  for (PetscInt g = 0; g < ng; g++) {
    PetscCheck(owner[g] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A's ghost %" PetscInt_FMT " has no owner in its ghost exchange", g);
    hi[g + 1] = hi[g] + (hend[g] - hstart[g]);
  }
  d->noth = hi[ng];
  PetscCall(PetscMalloc1(PetscMax(d->noth, 1), &eremote)); /* the SF's */
  for (PetscInt g = 0; g < ng; g++)
    for (PetscInt t = 0; t < hend[g] - hstart[g]; t++) {
      eremote[hi[g] + t].rank  = owner[g];
      eremote[hi[g] + t].index = hstart[g] + t;
    }
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)A), &d->sfentries));
  PetscCall(PetscSFSetGraph(d->sfentries, d->loc.nnz, d->noth, NULL, PETSC_COPY_VALUES, eremote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(d->sfentries));
  PetscCall(MatSpmvCUDAMalloc((void **)&d->othi, sizeof(int) * (size_t)(ng + 1)));
  PetscCall(MatSpmvCUDACopyToDevice(d->othi, hi, sizeof(int) * (size_t)(ng + 1), stream));
  PetscCall(PetscLogCpuToGpu(sizeof(int) * (double)(ng + 1)));
  PetscCall(PetscFree4(hstart, hend, hi, owner));
  PetscCall(MatSpmvCUDAMalloc((void **)&d->othj, sizeof(int) * (size_t)PetscMax(d->noth, 1)));
  PetscCall(MatSpmvCUDAMalloc((void **)&d->otha, sizeof(PetscScalar) * (size_t)PetscMax(d->noth, 1)));
  PetscCall(PetscSFBcastWithMemTypeBegin(d->sfentries, MPIU_INT, PETSC_MEMTYPE_CUDA, d->loc.j, PETSC_MEMTYPE_CUDA, d->othj, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(d->sfentries, MPIU_INT, d->loc.j, d->othj, MPI_REPLACE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductNumeric_MPIAIJSpmvDevice(Mat C)
{
  Mat_Product         *p = C->product;
  MatSpmvMPIProductAB *d;
  Mat                  X[4];
  MatSpmvDeviceCSR     x[4], loc, oth;
  void                *stream;

  PetscFunctionBegin;
  PetscCheck(p && p->data, PETSC_COMM_SELF, PETSC_ERR_ORDER, "The product's symbolic phase has not run");
  d = (MatSpmvMPIProductAB *)p->data;
  for (int k = 0; k < 2; k++) {
    Mat Y = k ? p->B : p->A;

    PetscCheck(Y == d->op[k] && Y->nonzerostate == d->nz[k], PetscObjectComm((PetscObject)C), PETSC_ERR_ARG_WRONGSTATE, "The MPI product's operand %c is another matrix or has another nonzero pattern than at the symbolic phase: call MatProductSymbolic() again (or MatMatMult() with MAT_INITIAL_MATRIX)", k ? 'B' : 'A');
  }
  PetscCall(MatSpmvCUDAGetStream(&stream));
  PetscCall(MatMPIAIJGetSeqAIJ(p->A, &X[0], &X[1], NULL));
  PetscCall(MatMPIAIJGetSeqAIJ(p->B, &X[2], &X[3], NULL));
  for (int k = 0; k < 4; k++) PetscCall(MatSpmvMPIProductView(d, X[k], PETSC_TRUE, &x[k]));
  /* B's local values merged, then sent to A's ghosts */
  PetscCall(MatSpmvCUDAMergeValues(&d->loc, x[2].a, x[3].a, stream));
  PetscCall(PetscSFBcastWithMemTypeBegin(d->sfentries, MPIU_SCALAR, PETSC_MEMTYPE_CUDA, d->loc.a, PETSC_MEMTYPE_CUDA, d->otha, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(d->sfentries, MPIU_SCALAR, d->loc.a, d->otha, MPI_REPLACE));
  loc.m   = d->loc.m;
  loc.n   = p->B->cmap->N;
  loc.nnz = d->loc.nnz;
  loc.i   = d->loc.i;
  loc.j   = d->loc.j;
  loc.a   = d->loc.a;
  oth.m   = d->ngA;
  oth.n   = p->B->cmap->N;
  oth.nnz = d->noth;
  oth.i   = d->othi;
  oth.j   = d->othj;
  oth.a   = d->otha;
  if (d->plan[0]) PetscCall(MatSpmvDeviceOperations.spgemmnumeric(d->plan[0], &x[0], &loc, d->v));
  if (d->plan[1]) PetscCall(MatSpmvDeviceOperations.spgemmnumeric(d->plan[1], &x[1], &oth, d->v + d->c[0].nnz));
  for (int k = 0; k < 4; k++) PetscCall(MatSpmvMPIProductViewEnd(X[k], &x[k]));
  PetscCall(MatSetValuesCOO(C, d->v, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductSymbolic_MPIAIJSpmvDevice(Mat C)
{
  Mat_Product         *p = C->product;
  Mat                  A = p->A, B = p->B, X[4];
  const PetscInt      *agarray, *bgarray;
  MatSpmvMPIProductAB *d;
  MatSpmvDeviceCSR     x[4], loc, oth;
  PetscInt             ngB, nc;
  int                 *ci = NULL, *cj = NULL;
  void                *stream;
  PetscLogDouble       t0, t1;

  PetscFunctionBegin;
  PetscCheck(!p->data, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Product data not empty");
  PetscCall(PetscTime(&t0));
  PetscCall(MatSpmvCUDAGetStream(&stream));
  PetscCall(PetscNew(&d));
  for (int k = 0; k < 2; k++) {
    d->op[k] = k ? B : A;
    d->nz[k] = d->op[k]->nonzerostate;
    PetscCall(PetscObjectReference((PetscObject)d->op[k]));
  }
  PetscCall(MatMPIAIJGetSeqAIJ(A, &X[0], &X[1], &agarray));
  PetscCall(MatMPIAIJGetSeqAIJ(B, &X[2], &X[3], &bgarray));
  d->ngA = X[1]->cmap->n;
  ngB    = X[3]->cmap->n;
  { /* row offsets of an empty block */
    const PetscInt nz = PetscMax(A->rmap->n, B->rmap->n) + 1;
    int           *h;

    PetscCall(PetscCalloc1(nz, &h));
    PetscCall(MatSpmvCUDAMalloc((void **)&d->zeros, sizeof(int) * (size_t)nz));
    PetscCall(MatSpmvCUDACopyToDevice(d->zeros, h, sizeof(int) * (size_t)nz, stream));
    PetscCall(PetscFree(h));
  }
  for (int k = 0; k < 4; k++) PetscCall(MatSpmvMPIProductView(d, X[k], PETSC_FALSE, &x[k]));
  /* B's local rows, global columns */
  PetscCall(MatSpmvCUDAMalloc((void **)&d->bgarray, sizeof(int) * (size_t)PetscMax(ngB, 1)));
  PetscCall(MatSpmvCUDACopyToDevice(d->bgarray, bgarray, sizeof(int) * (size_t)ngB, stream));
  PetscCall(PetscLogCpuToGpu(sizeof(int) * (double)ngB));
  PetscCall(MatSpmvCUDAMergeRows(&x[2], x[3].nnz ? &x[3] : NULL, d->bgarray, B->cmap->rstart, &d->loc, stream));
  /* B_oth, and the two local products */
  PetscCall(MatSpmvMPIProductOtherRows(A, d, stream));
  loc.m   = d->loc.m;
  loc.n   = B->cmap->N;
  loc.nnz = d->loc.nnz;
  loc.i   = d->loc.i;
  loc.j   = d->loc.j;
  loc.a   = NULL;
  oth.m   = d->ngA;
  oth.n   = B->cmap->N;
  oth.nnz = d->noth;
  oth.i   = d->othi;
  oth.j   = d->othj;
  oth.a   = NULL;
  if (x[0].nnz && loc.nnz) PetscCall(MatSpmvDeviceOperations.spgemmsymbolic(&x[0], &loc, &d->plan[0], &d->c[0]));
  if (x[1].nnz && oth.nnz) PetscCall(MatSpmvDeviceOperations.spgemmsymbolic(&x[1], &oth, &d->plan[1], &d->c[1]));
  for (int k = 0; k < 4; k++) PetscCall(MatSpmvMPIProductViewEnd(X[k], &x[k]));
  /* their entries as C's COO entries */
  nc = d->c[0].nnz + d->c[1].nnz;
  PetscCall(MatSpmvCUDAMalloc((void **)&ci, sizeof(int) * (size_t)PetscMax(nc, 1)));
  PetscCall(MatSpmvCUDAMalloc((void **)&cj, sizeof(int) * (size_t)PetscMax(nc, 1)));
  PetscCall(MatSpmvCUDAMalloc((void **)&d->v, sizeof(PetscScalar) * (size_t)PetscMax(nc, 1)));
  for (int k = 0; k < 2; k++) {
    const PetscInt off = k ? d->c[0].nnz : 0;

    if (d->plan[k]) PetscCall(MatSpmvCUDACSRToCOO(&d->c[k], C->rmap->rstart, ci + off, cj + off, stream));
  }
  PetscCall(MatSetBlockSizesFromMats(C, A, B));
  PetscCall(MatSpmvCOOPreallocateOnDevice(C, nc, ci, cj));
  PetscCall(MatSpmvCUDAFree(ci));
  PetscCall(MatSpmvCUDAFree(cj));
  C->product->data       = d;
  C->product->destroy    = MatSpmvMPIProductDestroy;
  C->ops->productnumeric = MatProductNumeric_MPIAIJSpmvDevice;
  PetscCall(PetscTime(&t1));
  PetscCall(PetscInfo(C, "MPI product on the device: A B with %" PetscInt_FMT " + %" PetscInt_FMT " local product entries, %" PetscInt_FMT " rows of B from other processes (%" PetscInt_FMT " entries), %.4f s\n", d->c[0].nnz, d->c[1].nnz, d->ngA, d->noth, t1 - t0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* whether C's product (its result C an MPI aijcusparse matrix of its sizes, no phase run yet) is ours on
   every process: A B of MPI matrices whose blocks aijcusparse keeps on the device with int indices; then
   its symbolic phase run (*done), else nothing */
PetscErrorCode MatSpmvMPIProductSymbolicOnDevice(Mat C, PetscBool *done)
{
  PetscFunctionBegin;
  *done = PETSC_FALSE;
#if defined(PETSC_HAVE_CUDA)
  {
    Mat_Product *p    = C->product;
    PetscBool    ours = (PetscBool)(MatSpmvMPIProduct && MatSpmvMPICOO && p->type == MATPRODUCT_AB && !p->C && MatSpmvDeviceOperations.spgemmsymbolic && sizeof(PetscInt) == sizeof(int));

    for (int k = 0; k < 2 && ours; k++) {
      Mat       Y = k ? p->B : p->A, blk[2];
      PetscBool mpi, usable;

      PetscCall(PetscObjectBaseTypeCompare((PetscObject)Y, MATMPIAIJ, &mpi));
      ours = mpi;
      if (!ours) break;
      PetscCall(MatMPIAIJGetSeqAIJ(Y, &blk[0], &blk[1], NULL));
      for (int b = 0; b < 2 && ours; b++) {
        PetscCall(MatSpmvDeviceCSRUsable(blk[b], &usable));
        ours = usable;
      }
    }
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ours, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)C)));
    if (!ours) {
      PetscCall(PetscInfo(C, "MPI product by MPIAIJBACKEND (a product type other than A B, -petscspmv_mpi_product 0, an operand on the host or with 64-bit indices)\n"));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(MatProductSymbolic_MPIAIJSpmvDevice(C));
    *done = PETSC_TRUE;
  }
#else
  (void)C;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
