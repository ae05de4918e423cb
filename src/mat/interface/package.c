/*
  The package, on the top floor (as PETSc's registrations in src/mat/interface): the formats' types,
  log events, the factor packages, the device operations, GAMG's set-up and DMDA's creator registered,
  and the entry points PETSc calls (-dll_append) or applications call (PetscSpmvInitializePackage()).
  What it registers it declares here, as PETSc's matregis.c and pcregis.c do.
*/
#include "../impls/spmvlayer/spmvimpl.h"

/* The registered formats, in this order, on one line: F(<NAME>) for each format's table
   MatSpmvFormat_<NAME>, which its directory defines. A new format adds its F(<NAME>) here and
   nothing else outside its directory; scripts/formats.sh reads this line */
#define MATSPMV_FORMATS(F) F(BRC) F(CMRS) F(ARGCSR) F(IPCSR) F(ELLR) F(SPMV)

#define MATSPMV_FORMAT_DECLARE(NAME) PETSC_INTERN MatSpmvFormat MatSpmvFormat_##NAME;
#define MATSPMV_FORMAT_ADDRESS(NAME) &MatSpmvFormat_##NAME,
MATSPMV_FORMATS(MATSPMV_FORMAT_DECLARE)

/* the device operations (the layer's table), the solver package, GAMG's set-up */
PETSC_INTERN PetscErrorCode MatSpmvSORRegister(void);
PETSC_INTERN PetscErrorCode MatSpmvSpGEMMRegister(void);
PETSC_INTERN PetscErrorCode MatSolverTypeRegister_Spmv(void);
PETSC_INTERN PetscErrorCode PCRegister_GAMGSpmv(void);

static PetscBool PetscSpmvPackageInitialized = PETSC_FALSE;

static PetscErrorCode MatSpmvRegisterFormat(MatSpmvFormat *fmt)
{
  char NAME[16], ev[32];

  PetscFunctionBegin;
  PetscCall(MatSpmvFormatRegister(fmt));
  PetscCall(MatRegisterRootName(fmt->name, fmt->seqtype, fmt->mpitype));
  PetscCall(MatRegisterRootName(fmt->aijname, fmt->seqtype, fmt->mpitype));
  PetscCall(MatRegister(fmt->seqtype, fmt->createseq));
  PetscCall(MatRegister(fmt->mpitype, fmt->creatempi));
  PetscCall(PetscStrncpy(NAME, fmt->name, sizeof(NAME)));
  PetscCall(PetscStrtoupper(NAME));
  PetscCall(PetscSNPrintf(ev, sizeof(ev), "Mat%sBuild", NAME));
  PetscCall(PetscLogEventRegister(ev, MAT_CLASSID, &fmt->event_build));
  PetscCall(PetscSNPrintf(ev, sizeof(ev), "Mat%sRefresh", NAME));
  PetscCall(PetscLogEventRegister(ev, MAT_CLASSID, &fmt->event_refresh));
  PetscCall(PetscSNPrintf(ev, sizeof(ev), "Mat%sMult", NAME));
  PetscCall(PetscLogEventRegister(ev, MAT_CLASSID, &fmt->event_mult));
  PetscCall(PetscSNPrintf(ev, sizeof(ev), "Mat%sMultT", NAME));
  PetscCall(PetscLogEventRegister(ev, MAT_CLASSID, &fmt->event_multT));
  PetscCall(MatSpmvRegisterFactors(fmt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscSpmvFinalizePackage - called by `PetscFinalize()`; resets the package so it may be initialized again

  Level: developer

.seealso: `PetscSpmvInitializePackage()`
@*/
PetscErrorCode PetscSpmvFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscSpmvPackageInitialized = PETSC_FALSE;
#if defined(PETSC_HAVE_CUDA)
  /* the hook's count, which tests read to fail each allocation in turn */
  if (MatSpmvFailDeviceAlloc > 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "petscspmv: %" PetscInt_FMT " device allocations counted (-petscspmv_fail_device_alloc %" PetscInt_FMT ")\n", MatSpmvCUDAAllocCount(), MatSpmvFailDeviceAlloc));
  PetscCall(MatSpmvCUDAPreloadWait()); /* no thread outlives the package */
  PetscCall(MatSpmvCUDAPinnedCacheRelease());
#endif
  PetscCall(MatSpmvForgetBaseOps());
  PetscCall(MatSpmvForgetProductPhases());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscSpmvInitializePackage - registers the petscspmv matrix types (`MATBRC`, ...), their log events
  and options. Programs that link libpetscspmv call it after `PetscInitialize()`; stock programs load
  the library with `-dll_append /path/to/libpetscspmv.so`, which calls it for them.

  Level: beginner

.seealso: `MATBRC`, `PetscSpmvFinalizePackage()`
@*/
PetscErrorCode PetscSpmvInitializePackage(void)
{
  MatSpmvFormat *const formats[] = {MATSPMV_FORMATS(MATSPMV_FORMAT_ADDRESS)};
  PetscInt             pinnedmax = 1024;

  PetscFunctionBegin;
  if (PetscSpmvPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  PetscSpmvPackageInitialized = PETSC_TRUE;
  PetscCall(MatInitializePackage());
  PetscCall(MatSpmvRegisterBuildEvents());
  PetscCall(MatSpmvRegisterCOOEvents());
  PetscCall(MatSpmvRegisterOnCSREvents());
  for (size_t f = 0; f < PETSC_STATIC_ARRAY_LENGTH(formats); f++) PetscCall(MatSpmvRegisterFormat(formats[f]));
  MatSpmvFormatOnly        = PETSC_FALSE;
  MatSpmvProductMinRows    = PETSC_INT_MAX;
  MatSpmvPtAPHostMinRows   = MATSPMV_PTAP_HOST_MIN_ROWS;
  MatSpmvGhostStream       = PETSC_TRUE;
  MatSpmvGhostStreamShared = PETSC_FALSE;
  MatSpmvLayoutMinProducts = MATSPMV_LAYOUT_MIN_PRODUCTS;
  MatSpmvDMInterpolation   = PETSC_TRUE;
  MatSpmvMPICOO            = PETSC_TRUE;
  MatSpmvMPIProduct        = PETSC_TRUE;
  MatSpmvSlots64Min        = PETSC_INT32_MAX;
  MatSpmvBLASCountMax      = PETSC_INT_MAX;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "petscspmv", "Mat");
  PetscCall(PetscOptionsBool("-petscspmv_format_only", "Our matrix types differ from aijcusparse in their SpMV format alone: factors, MatSOR(), sparse products, GAMG's set-up, MatCreateGraph() and value-changing operations are aijcusparse's and PETSc's", "MatMult", MatSpmvFormatOnly, &MatSpmvFormatOnly, NULL));
  PetscCall(PetscOptionsDeprecated("-mat_spmv_product_min_rows", "-petscspmv_product_min_rows", "1.1", NULL));
  PetscCall(PetscOptionsInt("-petscspmv_product_min_rows", "Results of sparse products with one of our matrices as A take its type from this many rows (default: never, but for PCMG's MAIJ chains)", "MatMatMult", MatSpmvProductMinRows, &MatSpmvProductMinRows, NULL));
  PetscCall(PetscOptionsInt("-petscspmv_ptap_host_min_rows", "A parallel P^T A P whose A is one of our matrices with this many rows or more on its largest process forms its off-process inner product on the host (cuSPARSE's SpGEMM refuses it from 1.7 million)", "MatPtAP", MatSpmvPtAPHostMinRows, &MatSpmvPtAPHostMinRows, NULL));
  PetscCall(PetscOptionsBool("-petscspmv_ghost_stream", "MPI products of our types exchange their ghost values on a stream of their own beside the diagonal block's product (where MPI is not CUDA-aware)", "MatMult", MatSpmvGhostStream, &MatSpmvGhostStream, NULL));
  PetscCall(PetscOptionsBool("-petscspmv_ghost_stream_shared", "Take -petscspmv_ghost_stream's path also where processes share a GPU (slower there; for tests)", "MatMult", MatSpmvGhostStreamShared, &MatSpmvGhostStreamShared, NULL));
  PetscCall(PetscOptionsInt("-petscspmv_layout_min_products", "On the GPU a matrix takes aijcusparse's products until it has taken this many at its nonzero pattern, then its format's layout is built (0: at once; -mat_<fmt>_backend cuda: at once)", "MatMult", MatSpmvLayoutMinProducts, &MatSpmvLayoutMinProducts, NULL));
  PetscCall(PetscOptionsBool("-petscspmv_dm_interpolation", "DMDA interpolations take the DM's matrix type when it is ours (PETSc makes them host AIJ for a type not named aij*)", "DMCreateInterpolation", MatSpmvDMInterpolation, &MatSpmvDMInterpolation, NULL));
  PetscCall(PetscOptionsBool("-petscspmv_mpi_coo", "MPI product results (PETSc's MPI products of device matrices) assembled from their COO entries on the device (false: aijcusparse's, which sorts them on the host)", "MatProductSymbolic", MatSpmvMPICOO, &MatSpmvMPICOO, NULL));
  PetscCall(PetscOptionsBool("-petscspmv_mpi_product", "MPI products A B and P^T A P of device matrices on the device (B's rows from other processes, the local products by our SpGEMM, C's assembly; false: PETSc's MPIAIJBACKEND, which lists C's entries on the host)", "MatProductSymbolic", MatSpmvMPIProduct, &MatSpmvMPIProduct, NULL));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscOptionsInt("-petscspmv_fail_device_alloc", "For tests: the N-th of petscspmv's device allocations fails as out of device memory would (0: none)", "MatMult", MatSpmvFailDeviceAlloc, &MatSpmvFailDeviceAlloc, NULL));
  PetscCall(PetscOptionsInt("-petscspmv_blas_count_max", "For tests: MatScale() and MatAXPY() of our types past this many values change them with our kernel, as past cuBLAS's 32-bit count, where aijcusparse's stop (default: that count)", "MatScale", MatSpmvBLASCountMax, &MatSpmvBLASCountMax, NULL));
#endif
#if defined(PETSC_USE_64BIT_INDICES)
  PetscCall(PetscOptionsInt("-petscspmv_slots64_min", "For tests: layouts of formats with 64-bit slot offsets (brc) take them past this many slots (default 2^31 - 1, where 32-bit ones end)", "MatMult", MatSpmvSlots64Min, &MatSpmvSlots64Min, NULL));
#endif
  PetscCall(PetscOptionsInt("-petscspmv_pinned_cache", "MiB of page-locked host memory (graphs and product results made from the device) kept for reuse when given back (0: none kept)", "PCSetUp", pinnedmax, &pinnedmax, NULL));
  PetscOptionsEnd();
  PetscCheck(MatSpmvProductMinRows >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-petscspmv_product_min_rows %" PetscInt_FMT ": give 0 or more rows", MatSpmvProductMinRows);
  PetscCheck(MatSpmvPtAPHostMinRows >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-petscspmv_ptap_host_min_rows %" PetscInt_FMT ": give 0 or more rows", MatSpmvPtAPHostMinRows);
  PetscCheck(MatSpmvLayoutMinProducts >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-petscspmv_layout_min_products %" PetscInt_FMT ": give 0 or more products (0: the layout at the first)", MatSpmvLayoutMinProducts);
  PetscCheck(MatSpmvBLASCountMax >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-petscspmv_blas_count_max %" PetscInt_FMT ": give 0 or more values", MatSpmvBLASCountMax);
  PetscCheck(MatSpmvSlots64Min >= 0 && MatSpmvSlots64Min <= PETSC_INT32_MAX, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-petscspmv_slots64_min %" PetscInt_FMT ": give 0 to 2^31 - 1 slots", MatSpmvSlots64Min);
  PetscCheck(pinnedmax >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-petscspmv_pinned_cache %" PetscInt_FMT ": give 0 or more MiB", pinnedmax);
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDAPinnedCacheSetMax((size_t)pinnedmax << 20));
#endif
  PetscCall(MatSolverTypeRegister_Spmv()); /* by name; PCFactor's default only without -petscspmv_format_only */
  PetscCall(MatSpmvRegisterDMDA());
  MatSpmvDeviceOperations = (MatSpmvDeviceOps){NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  if (MatSpmvFormatOnly) {
    MatSpmvMPICOO     = PETSC_FALSE;
    MatSpmvMPIProduct = PETSC_FALSE;
    PetscCall(PetscInfo(NULL, "-petscspmv_format_only: only the SpMV formats are petscspmv's\n"));
  } else {
    PetscCall(MatSpmvSORRegister());
    PetscCall(MatSpmvSpGEMMRegister());
    PetscCall(PCRegister_GAMGSpmv());
  }
  PetscCall(PetscRegisterFinalize(PetscSpmvFinalizePackage));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Called by PETSc for -dll_append .../libpetscspmv.so: the name follows the library's basename */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscspmv(void)
{
  PetscFunctionBegin;
  PetscCall(PetscSpmvInitializePackage());
  PetscFunctionReturn(PETSC_SUCCESS);
}
