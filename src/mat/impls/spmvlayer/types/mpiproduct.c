/*
  The MPI products C = A B and C = P^T A P of device matrices on the device (GAMG's smoothing A P0 and
  its Galerkin products on several processes). PETSc's MPIAIJBACKEND makes A B's local rows as
  A_diag B_loc + A_off B_oth with B_oth (the rows of B at A's ghost columns) gathered on the host
  (MatGetBrowsOfAoCols_MPIAIJ()), local products whose patterns come to the host, and host loops that
  list C's entries as COO for MatSetPreallocationCOO(). Here every step but the boundary's bookkeeping
  is on the device:
  - B's local rows merged into one CSR of global columns (device/mpiproduct.cu);
  - B_oth: the row starts and ends of those rows sent to A's ghosts through A's ghost exchange
    (MatGetMultPetscSF(); before PETSc 3.26 an SF made alike; device buffers), then an SF of entries (made on the host from the ghosts' row
    bounds: O(boundary)) that sends their columns and, at each numeric phase, their values;
  - A_diag B_loc and A_off B_oth by our SpGEMM (MatSpmvDeviceOperations), both with global columns;
  - their entries, as COO on the device, to the device COO assembly (coo.c), which makes C with its
    ghost map; the values through MatSetValuesCOO() at each numeric phase;
  - P^T A P: T = P_loc^T (P's columns numbered local then ghost) times (A P)'s two local products;
    T's rows past the local columns are other processes' rows of C: their entries go to the owners
    through an SF to the owners' slots (MatSpmvSFCreateToOwners(): indices on the host once, values
    device to device at each numeric phase), where MPIAIJBACKEND gathers them through PETSc's multi-SF.
  Nothing is made on the host but the boundary's bookkeeping.
  -petscspmv_mpi_product 0, 64-bit indices, a matrix bound to the CPU or without device CSRs, product
  types other than A B and P^T A P: MPIAIJBACKEND, as before (-info says so).
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
  PetscScalar      *v;         /* device: C's COO values (A B: the two products' values, one after the other) */
  /* P^T A P (B = P): (A P)'s local rows are c[0] + c[1]; T = P_loc^T over P's local and ghost columns, e[k] = T c[k] */
  PetscScalar      *vab;       /* device: c[0]'s and c[1]'s values */
  int              *pcmap;     /* device: P's ghost columns' places after its local ones (n + k) */
  MatSpmvMergedRows locc;      /* P's local rows, columns local then ghost (0 .. n + ngP - 1) */
  MatSpmvDeviceCSR  t;         /* T = locc^T (device i, j; values ta) */
  int              *tpos;      /* device: where each of T's entries is in locc */
  PetscScalar      *ta;        /* device: T's values */
  void             *eplan[2];  /* T c[0], T c[1] */
  MatSpmvDeviceCSR  e[2];      /* their patterns: rows 0 .. n - 1 this process's of C, the rest (P's ghost columns) other processes' */
  PetscInt          elocal[2]; /* their entries in this process's rows (the leading ones) */
  PetscScalar      *w;         /* device: e[0]'s and e[1]'s values */
  PetscSF           sfsend;    /* the other processes' entries (leaves, gathered from w into send) to their rows' owners' slots */
  int              *sendpos;   /* device: their places in w */
  PetscScalar      *send;      /* device: their values */
  PetscInt          nsend, nrecv;
} MatSpmvMPIProductData;

static PetscErrorCode MatSpmvMPIProductDestroy(PetscCtxRt ctx)
{
  MatSpmvMPIProductData *d = *(MatSpmvMPIProductData **)ctx;

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
  for (int k = 0; k < 2; k++)
    if (d->eplan[k]) PetscCall(MatSpmvDeviceOperations.spgemmdestroy(&d->eplan[k]));
  PetscCall(MatSpmvCUDAFree(d->vab));
  PetscCall(MatSpmvCUDAFree(d->pcmap));
  PetscCall(MatSpmvCUDAMergedRowsDestroy(&d->locc));
  PetscCall(MatSpmvCUDAFree((void *)d->t.i));
  PetscCall(MatSpmvCUDAFree((void *)d->t.j));
  PetscCall(MatSpmvCUDAFree(d->tpos));
  PetscCall(MatSpmvCUDAFree(d->ta));
  PetscCall(MatSpmvCUDAFree(d->w));
  PetscCall(MatSpmvCUDAFree(d->sendpos));
  PetscCall(MatSpmvCUDAFree(d->send));
  PetscCall(PetscSFDestroy(&d->sfsend));
  PetscCall(PetscFree(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* B_oth's pattern: the bounds of B's merged rows sent to A's ghosts, the entry SF made from them, the
   columns sent through it */
static PetscErrorCode MatSpmvMPIProductOtherRows(Mat A, MatSpmvMPIProductData *d, void *stream)
{
  PetscSF            sfrows;
  PetscInt           nroots, nleaves, ng = d->ngA, *hstart, *hend, *hi;
  const PetscInt    *ilocal;
  const PetscSFNode *iremote;
  PetscSFNode       *eremote;
  PetscMPIInt       *owner;
  int               *dstart, *dend;

  PetscFunctionBegin;
  #if PETSC_VERSION_GE(3, 26, 0)
  PetscCall(MatGetMultPetscSF(A, &sfrows));
  PetscCall(PetscObjectReference((PetscObject)sfrows));
  #else /* no MatGetMultPetscSF(): the same exchange, from the ghosts' global indices */
  {
    const PetscInt *garray;

    PetscCall(MatMPIAIJGetSeqAIJ(A, NULL, NULL, &garray));
    PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)A), &sfrows));
    PetscCall(PetscSFSetGraphLayout(sfrows, A->cmap, ng, NULL, PETSC_COPY_VALUES, garray));
    PetscCall(PetscSFSetUp(sfrows));
  }
  #endif
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
  PetscCall(PetscSFDestroy(&sfrows));
  PetscCall(MatSpmvCUDAMalloc((void **)&d->othj, sizeof(int) * (size_t)PetscMax(d->noth, 1)));
  PetscCall(MatSpmvCUDAMalloc((void **)&d->otha, sizeof(PetscScalar) * (size_t)PetscMax(d->noth, 1)));
  PetscCall(PetscSFBcastWithMemTypeBegin(d->sfentries, MPIU_INT, PETSC_MEMTYPE_CUDA, d->loc.j, PETSC_MEMTYPE_CUDA, d->othj, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(d->sfentries, MPIU_INT, d->loc.j, d->othj, MPI_REPLACE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the local rows of A B as two device products of global columns, A_diag B_loc and A_off B_oth: their
   patterns (the symbolic phase) */
static PetscErrorCode MatSpmvMPIProductLocalSymbolic(Mat A, Mat B, MatSpmvMPIProductData *d, void *stream)
{
  Mat              X[4];
  const PetscInt  *bgarray;
  MatSpmvDeviceCSR x[4];
  PetscInt         ngB;

  PetscFunctionBegin;
  for (int k = 0; k < 2; k++) {
    d->op[k] = k ? B : A;
    d->nz[k] = d->op[k]->nonzerostate;
    PetscCall(PetscObjectReference((PetscObject)d->op[k]));
  }
  PetscCall(MatMPIAIJGetSeqAIJ(A, &X[0], &X[1], NULL));
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
  for (int k = 0; k < 4; k++) PetscCall(MatSpmvCUSPARSEGetCSR(X[k], PETSC_FALSE, d->zeros, &x[k]));
  /* B's local rows, global columns */
  PetscCall(MatSpmvCUDAMalloc((void **)&d->bgarray, sizeof(int) * (size_t)PetscMax(ngB, 1)));
  PetscCall(MatSpmvCUDACopyToDevice(d->bgarray, bgarray, sizeof(int) * (size_t)ngB, stream));
  PetscCall(PetscLogCpuToGpu(sizeof(int) * (double)ngB));
  PetscCall(MatSpmvCUDAMergeRows(&x[2], x[3].nnz ? &x[3] : NULL, d->bgarray, B->cmap->rstart, &d->loc, stream));
  /* B_oth, and the two local products */
  PetscCall(MatSpmvMPIProductOtherRows(A, d, stream));
  const MatSpmvDeviceCSR loc = {d->loc.m, B->cmap->N, d->loc.nnz, d->loc.i, d->loc.j, NULL}, oth = {d->ngA, B->cmap->N, d->noth, d->othi, d->othj, NULL};

  for (int k = 0; k < 2; k++) { /* an empty product: m rows, no entries */
    d->c[k].m = A->rmap->n;
    d->c[k].n = B->cmap->N;
    d->c[k].i = d->zeros;
  }
  if (x[0].nnz && loc.nnz) PetscCall(MatSpmvDeviceOperations.spgemmsymbolic(&x[0], &loc, &d->plan[0], &d->c[0]));
  if (x[1].nnz && oth.nnz) PetscCall(MatSpmvDeviceOperations.spgemmsymbolic(&x[1], &oth, &d->plan[1], &d->c[1]));
  for (int k = 0; k < 4; k++) PetscCall(MatSpmvCUSPARSERestoreCSR(X[k], &x[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* their values into vout (c[0]'s, then c[1]'s): B's local values merged and sent to A's ghosts first */
static PetscErrorCode MatSpmvMPIProductLocalNumeric(Mat C, Mat A, Mat B, MatSpmvMPIProductData *d, PetscScalar *vout, void *stream)
{
  Mat              X[4];
  MatSpmvDeviceCSR x[4];

  PetscFunctionBegin;
  for (int k = 0; k < 2; k++) {
    Mat Y = k ? B : A;

    PetscCheck(Y == d->op[k] && Y->nonzerostate == d->nz[k], PetscObjectComm((PetscObject)C), PETSC_ERR_ARG_WRONGSTATE, "The MPI product's operand %c is another matrix or has another nonzero pattern than at the symbolic phase: call MatProductSymbolic() again (or MatMatMult(), MatPtAP() with MAT_INITIAL_MATRIX)", k ? 'B' : 'A');
  }
  PetscCall(MatMPIAIJGetSeqAIJ(A, &X[0], &X[1], NULL));
  PetscCall(MatMPIAIJGetSeqAIJ(B, &X[2], &X[3], NULL));
  for (int k = 0; k < 4; k++) PetscCall(MatSpmvCUSPARSEGetCSR(X[k], PETSC_TRUE, d->zeros, &x[k]));
  PetscCall(MatSpmvCUDAMergeValues(&d->loc, x[2].a, x[3].a, stream));
  PetscCall(PetscSFBcastWithMemTypeBegin(d->sfentries, MPIU_SCALAR, PETSC_MEMTYPE_CUDA, d->loc.a, PETSC_MEMTYPE_CUDA, d->otha, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(d->sfentries, MPIU_SCALAR, d->loc.a, d->otha, MPI_REPLACE));
  const MatSpmvDeviceCSR loc = {d->loc.m, B->cmap->N, d->loc.nnz, d->loc.i, d->loc.j, d->loc.a}, oth = {d->ngA, B->cmap->N, d->noth, d->othi, d->othj, d->otha};

  if (d->plan[0]) PetscCall(MatSpmvDeviceOperations.spgemmnumeric(d->plan[0], &x[0], &loc, vout));
  if (d->plan[1]) PetscCall(MatSpmvDeviceOperations.spgemmnumeric(d->plan[1], &x[1], &oth, vout + d->c[0].nnz));
  for (int k = 0; k < 4; k++) PetscCall(MatSpmvCUSPARSERestoreCSR(X[k], &x[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a symbolic phase's start: C's layout set up (MatSetSizes() alone leaves its row start 0, which its
   COO entries need), the product's data, the stream */
static PetscErrorCode MatSpmvMPIProductStart(Mat C, MatSpmvMPIProductData **d, void **stream)
{
  PetscFunctionBegin;
  PetscCheck(!C->product->data, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Product data not empty");
  PetscCall(PetscLayoutSetUp(C->rmap));
  PetscCall(PetscLayoutSetUp(C->cmap));
  PetscCall(MatSpmvCUDAGetStream(stream));
  PetscCall(PetscNew(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C made on its nc COO entries (device ci, cj, freed here), its product's data d and numeric phase */
static PetscErrorCode MatSpmvMPIProductMake(Mat C, MatSpmvMPIProductData *d, PetscInt nc, int *ci, int *cj, PetscErrorCode (*numeric)(Mat))
{
  PetscFunctionBegin;
  PetscCall(MatSpmvCOOPreallocateOnDevice(C, nc, ci, cj));
  PetscCall(MatSpmvCUDAFree(ci));
  PetscCall(MatSpmvCUDAFree(cj));
  C->product->data       = d;
  C->product->destroy    = MatSpmvMPIProductDestroy;
  C->ops->productnumeric = numeric;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductNumeric_MPIAIJSpmvDevice(Mat C)
{
  Mat_Product           *p = C->product;
  MatSpmvMPIProductData *d;
  void                  *stream;

  PetscFunctionBegin;
  PetscCheck(p && p->data, PETSC_COMM_SELF, PETSC_ERR_ORDER, "The product's symbolic phase has not run");
  d = (MatSpmvMPIProductData *)p->data;
  PetscCall(MatSpmvCUDAGetStream(&stream));
  PetscCall(MatSpmvMPIProductLocalNumeric(C, p->A, p->B, d, d->v, stream));
  PetscCall(MatSetValuesCOO(C, d->v, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductSymbolic_MPIAIJSpmvDevice(Mat C)
{
  Mat_Product           *p = C->product;
  Mat                    A = p->A, B = p->B;
  MatSpmvMPIProductData *d;
  PetscInt               nc;
  int                   *ci = NULL, *cj = NULL;
  void                  *stream;
  PetscLogDouble         t[3];

  PetscFunctionBegin;
  PetscCall(PetscTime(&t[0]));
  PetscCall(MatSpmvMPIProductStart(C, &d, &stream));
  PetscCall(MatSpmvMPIProductLocalSymbolic(A, B, d, stream));
  PetscCall(MatSpmvCUDASynchronize(stream)); /* for the -info times */
  PetscCall(PetscTime(&t[1]));
  /* their entries as C's COO entries */
  PetscCall(PetscIntSumError(d->c[0].nnz, d->c[1].nnz, &nc)); /* C's entries here, counted in int on the device */
  PetscCall(MatSpmvCUDAMalloc((void **)&ci, sizeof(int) * (size_t)PetscMax(nc, 1)));
  PetscCall(MatSpmvCUDAMalloc((void **)&cj, sizeof(int) * (size_t)PetscMax(nc, 1)));
  PetscCall(MatSpmvCUDAMalloc((void **)&d->v, sizeof(PetscScalar) * (size_t)PetscMax(nc, 1)));
  PetscCall(MatSpmvCUDACSRToCOO(&d->c[0], C->rmap->rstart, ci, cj, stream));
  PetscCall(MatSpmvCUDACSRToCOO(&d->c[1], C->rmap->rstart, ci + d->c[0].nnz, cj + d->c[0].nnz, stream));
  PetscCall(MatSetBlockSizesFromMats(C, A, B));
  PetscCall(MatSpmvMPIProductMake(C, d, nc, ci, cj, MatProductNumeric_MPIAIJSpmvDevice));
  PetscCall(PetscTime(&t[2]));
  PetscCall(PetscInfo(C, "MPI product on the device: A B with %" PetscInt_FMT " + %" PetscInt_FMT " local product entries, %" PetscInt_FMT " rows of B from other processes (%" PetscInt_FMT " entries), %.4f s (pattern %.4f, C made %.4f)\n", d->c[0].nnz,
                      d->c[1].nnz, d->ngA, d->noth, t[2] - t[0], t[1] - t[0], t[2] - t[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a block of P whose explicit transpose GAMG asks aijcusparse to keep for the restriction
   (MAT_FORM_EXPLICIT_TRANSPOSE): formed in the set-up, as MPIAIJBACKEND's local products form theirs,
   else the first solve's MatMultTranspose() forms it (KSP ex45 160^3, 2 ranks on one H200: 0.013 vs
   0.005 s of MatMultTranspose in the solve). A block's product is local: no process waits on another */
static PetscErrorCode MatSpmvMPIProductFormTransposes(Mat X)
{
  Mat_SeqAIJSpmv *sp;

  PetscFunctionBegin;
  PetscCall(MatSpmvSeqGetData(X, &sp)); /* ours keep their own transposes */
  if (sp || !X->form_explicit_transpose || X->transupdated || !X->rmap->n || !X->cmap->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvCUSPARSEFormTranspose(X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* P^T A P's numeric phase: (A P)'s local rows, T's values, e[k] = T c[k], the other processes' entries
   sent to their rows' owners, C's COO values (this process's entries of e[0], of e[1], the received) */
static PetscErrorCode MatProductNumeric_MPIAIJSpmvDevicePtAP(Mat C)
{
  Mat_Product           *p = C->product;
  MatSpmvMPIProductData *d;
  Mat                    Pd, Po;
  MatSpmvDeviceCSR       x[2], b;
  void                  *stream;

  PetscFunctionBegin;
  PetscCheck(p && p->data, PETSC_COMM_SELF, PETSC_ERR_ORDER, "The product's symbolic phase has not run");
  d = (MatSpmvMPIProductData *)p->data;
  PetscCall(MatSpmvCUDAGetStream(&stream));
  PetscCall(MatSpmvMPIProductLocalNumeric(C, p->A, p->B, d, d->vab, stream));
  PetscCall(MatMPIAIJGetSeqAIJ(p->B, &Pd, &Po, NULL));
  PetscCall(MatSpmvCUSPARSEGetCSR(Pd, PETSC_TRUE, d->zeros, &x[0]));
  PetscCall(MatSpmvCUSPARSEGetCSR(Po, PETSC_TRUE, d->zeros, &x[1]));
  PetscCall(MatSpmvCUDAMergeValues(&d->locc, x[0].a, x[1].a, stream));
  PetscCall(MatSpmvCUSPARSERestoreCSR(Pd, &x[0]));
  PetscCall(MatSpmvCUSPARSERestoreCSR(Po, &x[1]));
  PetscCall(MatSpmvCUDAGather(d->t.nnz, d->tpos, d->locc.a, d->ta, stream));
  d->t.a = d->ta;
  for (int k = 0; k < 2; k++) {
    if (!d->eplan[k]) continue;
    b   = d->c[k];
    b.a = d->vab + (k ? d->c[0].nnz : 0);
    PetscCall(MatSpmvDeviceOperations.spgemmnumeric(d->eplan[k], &d->t, &b, d->w + (k ? d->e[0].nnz : 0)));
  }
  /* this process's entries, then the others' to their owners (MatSpmvSFCreateToOwners()'s slots) */
  PetscCall(MatSpmvCUDACopyOnDevice(d->v, d->w, sizeof(PetscScalar) * (size_t)d->elocal[0], stream));
  PetscCall(MatSpmvCUDACopyOnDevice(d->v + d->elocal[0], d->w + d->e[0].nnz, sizeof(PetscScalar) * (size_t)d->elocal[1], stream));
  PetscCall(MatSpmvCUDAGather(d->nsend, d->sendpos, d->w, d->send, stream));
  PetscCall(PetscSFReduceWithMemTypeBegin(d->sfsend, MPIU_SCALAR, PETSC_MEMTYPE_CUDA, d->send, PETSC_MEMTYPE_CUDA, d->v + d->elocal[0] + d->elocal[1], MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(d->sfsend, MPIU_SCALAR, d->send, d->v + d->elocal[0] + d->elocal[1], MPI_REPLACE));
  PetscCall(MatSetValuesCOO(C, d->v, INSERT_VALUES));
  PetscCall(MatSpmvMPIProductFormTransposes(Pd));
  PetscCall(MatSpmvMPIProductFormTransposes(Po));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* P^T A P = T (A P)'s local rows, T = P_loc^T over P's local then ghost columns: rows of T past P's local
   columns are other processes' rows of C, whose entries go to their owners (the boundary's: their
   indices on the host once, their values device to device at each numeric phase) */
static PetscErrorCode MatProductSymbolic_MPIAIJSpmvDevicePtAP(Mat C)
{
  Mat_Product           *p = C->product;
  Mat                    A = p->A, P = p->B, Pd, Po;
  const PetscInt        *pgarray;
  MatSpmvMPIProductData *d;
  MatSpmvDeviceCSR       x[2];
  PetscInt               n = P->cmap->n, ngP, nc, rstart, *srows = NULL, *scols = NULL, *spos = NULL, *rrows = NULL, *rcols = NULL;
  int                   *ci = NULL, *cj = NULL, *hi = NULL, *hj = NULL;
  void                  *stream;
  PetscLogDouble         t[5];

  PetscFunctionBegin;
  PetscCall(PetscTime(&t[0]));
  PetscCall(MatSpmvMPIProductStart(C, &d, &stream));
  rstart = C->rmap->rstart;
  PetscCall(MatSpmvMPIProductLocalSymbolic(A, P, d, stream));
  PetscCall(PetscTime(&t[1]));
  PetscCall(MatSpmvCUDAMalloc((void **)&d->vab, sizeof(PetscScalar) * PetscMax((size_t)d->c[0].nnz + (size_t)d->c[1].nnz, 1)));
  /* T = P_loc^T, P's columns numbered local then ghost */
  PetscCall(MatMPIAIJGetSeqAIJ(P, &Pd, &Po, &pgarray));
  ngP = Po->cmap->n;
  {
    PetscInt *h;

    PetscCall(PetscMalloc1(PetscMax(ngP, 1), &h));
    for (PetscInt k = 0; k < ngP; k++) h[k] = n + k;
    PetscCall(MatSpmvCUDAMalloc((void **)&d->pcmap, sizeof(int) * (size_t)PetscMax(ngP, 1)));
    PetscCall(MatSpmvCUDACopyToDevice(d->pcmap, h, sizeof(int) * (size_t)ngP, stream));
    PetscCall(PetscFree(h));
  }
  PetscCall(MatSpmvCUSPARSEGetCSR(Pd, PETSC_FALSE, d->zeros, &x[0]));
  PetscCall(MatSpmvCUSPARSEGetCSR(Po, PETSC_FALSE, d->zeros, &x[1]));
  PetscCall(MatSpmvCUDAMergeRows(&x[0], x[1].nnz ? &x[1] : NULL, d->pcmap, 0, &d->locc, stream));
  PetscCall(MatSpmvCUSPARSERestoreCSR(Pd, &x[0]));
  PetscCall(MatSpmvCUSPARSERestoreCSR(Po, &x[1]));
  const MatSpmvDeviceCSR lc = {d->locc.m, n + ngP, d->locc.nnz, d->locc.i, d->locc.j, NULL};

  d->t.m   = n + ngP;
  d->t.n   = lc.m;
  d->t.nnz = lc.nnz;
  {
    int *ti, *tj;

    PetscCall(MatSpmvCUDATransposeCSR(&lc, &ti, &tj, &d->tpos, stream));
    d->t.i = ti;
    d->t.j = tj;
  }
  PetscCall(MatSpmvCUDAMalloc((void **)&d->ta, sizeof(PetscScalar) * (size_t)PetscMax(lc.nnz, 1)));
  /* e[k] = T c[k]: rows 0 .. n - 1 here, the rest other processes' */
  for (int k = 0; k < 2; k++) {
    d->e[k].m = n + ngP;
    d->e[k].n = P->cmap->N;
    d->e[k].i = NULL;
    if (d->plan[k] && d->t.nnz) PetscCall(MatSpmvDeviceOperations.spgemmsymbolic(&d->t, &d->c[k], &d->eplan[k], &d->e[k]));
  }
  /* the boundary's bookkeeping on the host: the other processes' entries' rows (global) and columns */
  PetscCall(MatSpmvCUDASynchronize(stream)); /* for the -info times: T and its products done */
  PetscCall(PetscTime(&t[2]));
  for (int k = 0; k < 2; k++) {
    d->elocal[k] = 0;
    if (d->e[k].nnz) {
      int nloc;

      PetscCall(MatSpmvCUDACopyToHost(&nloc, d->e[k].i + n, sizeof(int), stream));
      d->elocal[k] = nloc;
    }
    PetscCall(PetscIntSumError(d->nsend, d->e[k].nnz - d->elocal[k], &d->nsend));
  }
  PetscCall(PetscMalloc3(PetscMax(d->nsend, 1), &srows, PetscMax(d->nsend, 1), &scols, PetscMax(d->nsend, 1), &spos));
  for (int k = 0, q = 0; k < 2; k++) {
    const PetscInt nk = d->e[k].nnz - d->elocal[k], base = k ? d->e[0].nnz : 0;

    if (!nk) continue;
    PetscCall(PetscMalloc2(ngP + 1, &hi, nk, &hj));
    PetscCall(MatSpmvCUDACopyToHost(hi, d->e[k].i + n, sizeof(int) * (size_t)(ngP + 1), stream));
    PetscCall(MatSpmvCUDACopyToHost(hj, d->e[k].j + d->elocal[k], sizeof(int) * (size_t)nk, stream));
    PetscCall(PetscLogGpuToCpu(sizeof(int) * (double)(ngP + 1 + nk)));
    for (PetscInt g = 0; g < ngP; g++)
      for (PetscInt e = hi[g]; e < hi[g + 1]; e++, q++) {
        srows[q] = pgarray[g];
        scols[q] = hj[e - d->elocal[k]];
        spos[q]  = base + e;
      }
    PetscCall(PetscFree2(hi, hj));
  }
  PetscCall(MatSpmvSFCreateToOwners(PetscObjectComm((PetscObject)C), C->rmap, d->nsend, srows, &d->sfsend, &d->nrecv));
  PetscCall(PetscMalloc2(PetscMax(d->nrecv, 1), &rrows, PetscMax(d->nrecv, 1), &rcols));
  PetscCall(PetscSFReduceBegin(d->sfsend, MPIU_INT, srows, rrows, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(d->sfsend, MPIU_INT, srows, rrows, MPI_REPLACE));
  PetscCall(PetscSFReduceBegin(d->sfsend, MPIU_INT, scols, rcols, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(d->sfsend, MPIU_INT, scols, rcols, MPI_REPLACE));
  PetscCall(MatSpmvCUDAMalloc((void **)&d->sendpos, sizeof(int) * (size_t)PetscMax(d->nsend, 1)));
  PetscCall(MatSpmvCUDAMalloc((void **)&d->send, sizeof(PetscScalar) * (size_t)PetscMax(d->nsend, 1)));
  PetscCall(MatSpmvCUDACopyToDevice(d->sendpos, spos, sizeof(int) * (size_t)d->nsend, stream));
  /* C's COO entries: this process's of e[0] and e[1] (their leading rows), the received */
  PetscCall(PetscIntSumError(d->elocal[0], d->elocal[1], &nc));
  PetscCall(PetscIntSumError(nc, d->nrecv, &nc));
  PetscCall(MatSpmvCUDAMalloc((void **)&ci, sizeof(int) * (size_t)PetscMax(nc, 1)));
  PetscCall(MatSpmvCUDAMalloc((void **)&cj, sizeof(int) * (size_t)PetscMax(nc, 1)));
  for (int k = 0, off = 0; k < 2; k++) {
    MatSpmvDeviceCSR here = d->e[k];

    if (!d->e[k].nnz) continue;
    here.m   = n;
    here.nnz = d->elocal[k];
    PetscCall(MatSpmvCUDACSRToCOO(&here, rstart, ci + off, cj + off, stream));
    off += (int)d->elocal[k];
  }
  PetscCall(MatSpmvCUDACopyToDevice(ci + d->elocal[0] + d->elocal[1], rrows, sizeof(int) * (size_t)d->nrecv, stream));
  PetscCall(MatSpmvCUDACopyToDevice(cj + d->elocal[0] + d->elocal[1], rcols, sizeof(int) * (size_t)d->nrecv, stream));
  PetscCall(PetscLogCpuToGpu(sizeof(int) * (3.0 * d->nrecv + d->nsend)));
  PetscCall(PetscFree3(srows, scols, spos));
  PetscCall(PetscFree2(rrows, rcols));
  PetscCall(MatSpmvCUDAMalloc((void **)&d->w, sizeof(PetscScalar) * PetscMax((size_t)d->e[0].nnz + (size_t)d->e[1].nnz, 1)));
  PetscCall(MatSpmvCUDAMalloc((void **)&d->v, sizeof(PetscScalar) * (size_t)PetscMax(nc, 1)));
  PetscCall(MatSetBlockSizes(C, P->cmap->bs, P->cmap->bs));
  PetscCall(PetscTime(&t[3]));
  PetscCall(MatSpmvMPIProductMake(C, d, nc, ci, cj, MatProductNumeric_MPIAIJSpmvDevicePtAP));
  PetscCall(PetscTime(&t[4]));
  PetscCall(PetscInfo(C, "MPI product on the device: P^T A P with %" PetscInt_FMT " + %" PetscInt_FMT " entries of A P here, %" PetscInt_FMT " sent to other processes' rows and %" PetscInt_FMT " received, %.4f s (A P's pattern %.4f, P^T's and its products %.4f, boundary %.4f, C made %.4f)\n",
                      d->c[0].nnz, d->c[1].nnz, d->nsend, d->nrecv, t[4] - t[0], t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3]));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* whether C's product (its result C an MPI aijcusparse matrix of its sizes, no phase run yet) is ours on
   every process: A B or P^T A P of MPI matrices whose blocks aijcusparse keeps on the device with int indices; then
   its symbolic phase run (*done), else nothing */
PetscErrorCode MatSpmvMPIProductSymbolicOnDevice(Mat C, PetscBool *done)
{
  PetscFunctionBegin;
  *done = PETSC_FALSE;
#if defined(PETSC_HAVE_CUDA)
  {
    Mat_Product *p    = C->product;
    PetscBool    ours = (PetscBool)(MatSpmvMPIProduct && MatSpmvMPICOO && (p->type == MATPRODUCT_AB || p->type == MATPRODUCT_PtAP) && !p->C && MatSpmvDeviceOperations.spgemmsymbolic && sizeof(PetscInt) == sizeof(int));

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
    PetscBool here = ours; /* every process takes one path: the products' exchanges are collective */

    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ours, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)C)));
    if (!ours) {
      if (here) PetscCall(PetscInfo(C, "MPI product by MPIAIJBACKEND: another process takes it (its options differ, or its operands are on the host), and every process takes the same\n"));
      else PetscCall(PetscInfo(C, "MPI product by MPIAIJBACKEND (a product type other than A B and P^T A P, -petscspmv_mpi_product 0, an operand on the host or with 64-bit indices)\n"));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (p->type == MATPRODUCT_PtAP) PetscCall(MatProductSymbolic_MPIAIJSpmvDevicePtAP(C));
    else PetscCall(MatProductSymbolic_MPIAIJSpmvDevice(C));
    *done = PETSC_TRUE;
  }
#else
  (void)C;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
