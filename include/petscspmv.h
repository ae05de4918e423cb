#pragma once

#include <petscmat.h>

/* SUBMANSEC = Mat */

/* the version of petscspmv this header belongs to (petscspmv.pc's Version: is read from here) */
#define PETSCSPMV_VERSION_MAJOR    1
#define PETSCSPMV_VERSION_MINOR    2
#define PETSCSPMV_VERSION_SUBMINOR 0

/*MC
   PETSCSPMV_VERSION_GE - whether the petscspmv a program is compiled against is version MAJOR.MINOR.SUBMINOR or newer

   Synopsis:
   #include <petscspmv.h>
   PetscBool PETSCSPMV_VERSION_GE(int MAJOR, int MINOR, int SUBMINOR)

   Input Parameters:
+  MAJOR    - the major version
.  MINOR    - the minor version
-  SUBMINOR - the subminor (patch) version

   Level: beginner

   Notes:
   A constant expression for the preprocessor, as `PETSC_VERSION_GE()` is for PETSc's version; the
   version itself is `PETSCSPMV_VERSION_MAJOR`, `PETSCSPMV_VERSION_MINOR` and
   `PETSCSPMV_VERSION_SUBMINOR`. For example, 1.1 renamed the options of `MATSOLVERSPMVFACTOR`:
.vb
   #if PETSCSPMV_VERSION_GE(1, 1, 0)
     PetscCall(PetscOptionsSetValue(NULL, "-petscspmv_factor_trsv", "jacobi"));
   #else
     PetscCall(PetscOptionsSetValue(NULL, "-mat_spmv_trsv", "jacobi"));
   #endif
.ve

.seealso: `PETSC_VERSION_GE()`, `PetscSpmvInitializePackage()`, `MATSOLVERSPMVFACTOR`
M*/
#define PETSCSPMV_VERSION_GE(MAJOR, MINOR, SUBMINOR) \
  (PETSCSPMV_VERSION_MAJOR > (MAJOR) || (PETSCSPMV_VERSION_MAJOR == (MAJOR) && (PETSCSPMV_VERSION_MINOR > (MINOR) || (PETSCSPMV_VERSION_MINOR == (MINOR) && PETSCSPMV_VERSION_SUBMINOR >= (SUBMINOR)))))

/* The formats' public names and setters, for users' programs. A format needs none of it: the layer
   registers it from its directory (docs/design.md, "Adding a format"), and -mat_type <name> with
   its -mat_<name>_* options select and set it. */

/*MC
   MATBRC - "brc" - Blocked Row-Column storage (Ashari et al., ICS'14) for GPU SpMV.

   With a GPU, a `MATSEQAIJCUSPARSE`/`MATMPIAIJCUSPARSE` matrix under this type name: assembly,
   value changes, matrix-matrix products and ILU/ICC factors are aijcusparse's, on the device;
   `MatMult()`, `MatMultAdd()`, `MatMultTranspose()` and `MatMultTransposeAdd()` run on the GPU
   from a BRC layout built on the device from aijcusparse's CSR. Without a GPU, a `MATSEQAIJ`/
   `MATMPIAIJ` matrix whose products are AIJ's (`-mat_brc_backend host`: the BRC reference kernel).
   Resolves to `MATSEQAIJBRC` on one process and `MATMPIAIJBRC` otherwise (blocks `MATSEQAIJBRC`).

   Options Database Keys:
+  -mat_type brc              - selects the type
.  -mat_brc_block_height <32>           - rows per block (a power of two from 1 to 256)
.  -mat_brc_block_width <0>            - maximal block width; 0 picks the paper's Eq. 3, min(round(mu+sigma), max row length, b2_max)
.  -mat_brc_block_width_max <200>      - cap of the automatic block width
.  -mat_brc_window <-1>       - rows per length-sorting window; 0 sorts all rows as the paper does; -1 all rows, but 16384 for irregular rows
.  -mat_brc_coarsen <1>       - blocks per thread; 0 picks the paper's rule, 4 when sigma > mu, else 1
.  -mat_brc_compress <true>   - GPU: 16-bit column offsets from each block's first column in blocks spanning fewer than 65536 columns
.  -mat_brc_column_runs <true> - GPU: one offset per run of 2 to 4 consecutive columns where a block's rows allow
.  -mat_brc_column_order <auto> - auto, natural, frequency or rcm; auto renumbers by frequency where a few columns hold many nonzeros, in RCM order where groups of rows span 65536 columns or more (`MatSpmvSetColumnOrder()`)
-  -mat_brc_backend <auto>    - auto, cuda or host (host reference kernel)

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATAIJ`, `MATAIJCUSPARSE`, `MatBRCSetBlockWidth()`
M*/
#define MATBRC       "brc"
#define MATAIJBRC    "aijbrc"
#define MATSEQAIJBRC "seqaijbrc"
#define MATMPIAIJBRC "mpiaijbrc"

/*E
   MatSpmvBackend - where a petscspmv matrix runs its products

$  MAT_SPMV_BACKEND_AUTO - the CUDA kernels when a GPU is visible, otherwise the host reference kernel
$  MAT_SPMV_BACKEND_CUDA - the CUDA kernels; an error if no GPU is visible
$  MAT_SPMV_BACKEND_HOST - the host reference kernel (same layout, plain C loops)

   Level: intermediate
E*/
typedef enum {
  MAT_SPMV_BACKEND_AUTO,
  MAT_SPMV_BACKEND_CUDA,
  MAT_SPMV_BACKEND_HOST
} MatSpmvBackend;
PETSC_EXTERN const char *const MatSpmvBackends[];

/*E
   MatSpmvColumnOrder - how a petscspmv matrix numbers the columns of its products' layout

$  MAT_SPMV_COLUMN_ORDER_AUTO      - by frequency where a few columns hold many nonzeros (graphs with power-law degrees); for brc and spmv
                                      reverse Cuthill-McKee where groups of rows spread over 65536 columns or more and RCM brings them
                                      together (meshes numbered by DMPlex or by a partitioner); otherwise natural
$  MAT_SPMV_COLUMN_ORDER_NATURAL   - the matrix's own column numbers
$  MAT_SPMV_COLUMN_ORDER_FREQUENCY - columns renumbered by how many nonzeros they hold, most first; each product first gathers x
                                      into that order, so that the x entries most products read share cache lines
$  MAT_SPMV_COLUMN_ORDER_RCM       - columns (of a square operator) in a reverse Cuthill-McKee order of its graph, so that
                                      neighbouring rows read nearby columns: brc then stores 16-bit column offsets; each product
                                      first gathers x into that order

   Level: intermediate
E*/
typedef enum {
  MAT_SPMV_COLUMN_ORDER_AUTO,
  MAT_SPMV_COLUMN_ORDER_NATURAL,
  MAT_SPMV_COLUMN_ORDER_FREQUENCY,
  MAT_SPMV_COLUMN_ORDER_RCM
} MatSpmvColumnOrder;
PETSC_EXTERN const char *const MatSpmvColumnOrders[];

PETSC_EXTERN PetscErrorCode PetscSpmvInitializePackage(void);
PETSC_EXTERN PetscErrorCode PetscSpmvFinalizePackage(void);

/* For any petscspmv type */
PETSC_EXTERN PetscErrorCode MatSpmvSetBackend(Mat, MatSpmvBackend);
PETSC_EXTERN PetscErrorCode MatSpmvGetBackend(Mat, MatSpmvBackend *);
PETSC_EXTERN PetscErrorCode MatSpmvSetColumnOrder(Mat, MatSpmvColumnOrder);
PETSC_EXTERN PetscErrorCode MatSpmvGetColumnOrder(Mat, MatSpmvColumnOrder *);
PETSC_EXTERN PetscErrorCode MatSpmvCheckLayout(Mat);
PETSC_EXTERN PetscErrorCode MatSpmvGetStorage(Mat, PetscInt *, PetscLogDouble *);

/* MATBRC */
PETSC_EXTERN PetscErrorCode MatBRCSetBlockHeight(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatBRCSetCompress(Mat, PetscBool);
PETSC_EXTERN PetscErrorCode MatBRCSetColumnRuns(Mat, PetscBool);
PETSC_EXTERN PetscErrorCode MatBRCSetBlockWidth(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatBRCSetCoarsening(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatBRCSetSortWindow(Mat, PetscInt);

/*MC
   MATCMRS - "cmrs" - Compressed Multi-Row Storage (Koza et al.) for GPU SpMV.

   A `MATAIJCUSPARSE` matrix (`MATAIJ` without a GPU: see `MATBRC`) whose matrix-vector products run on the GPU from a CMRS copy: strips of
   `height` rows, the row-in-strip packed into the column indices, a group of threads per strip.
   Two kernels: `basic` (the paper's section 4: CSR order, partial sums in registers) and
   `modified` (its section 6.7: strips reordered and padded to whole warps, a per-warp buffer of
   modulo x height partial sums in shared memory).
   Resolves to `MATSEQAIJCMRS` on one process and `MATMPIAIJCMRS` otherwise.

   Options Database Keys:
+  -mat_type cmrs            - selects the type
.  -mat_cmrs_kernel <auto>   - basic, modified or auto (modified when the row lengths vary less than their mean and it is 10 to 50)
.  -mat_cmrs_height <0>      - rows per strip, 1 to 16; 0: the kernel's default (basic 2, modified 16)
.  -mat_cmrs_sort <bool>     - order the entries of a strip by column (the paper's fourth optimization)
.  -mat_cmrs_lanes <0>       - basic kernel: threads per strip, 4, 8, 16 or 32; 0 chooses from the row lengths
.  -mat_cmrs_modulo <0>      - modified kernel: partial sums per row and warp, 2 to 32; 0: 8 (the paper's)
.  -mat_cmrs_pack <bool>     - pack the row-in-strip into the column indices (default: when the columns allow)
.  -mat_cmrs_column_order <auto> - auto, natural, frequency or rcm; auto renumbers by frequency where a few columns hold many nonzeros (`MatSpmvSetColumnOrder()`)
-  -mat_cmrs_backend <auto>  - auto, cuda or host (host reference kernel)

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATAIJ`, `MATBRC`, `MatCMRSSetHeight()`, `MatCMRSSetKernel()`, `MatCMRSSetSort()`
M*/
#define MATCMRS       "cmrs"
#define MATAIJCMRS    "aijcmrs"
#define MATSEQAIJCMRS "seqaijcmrs"
#define MATMPIAIJCMRS "mpiaijcmrs"

/*E
   MatCMRSKernel - the CUDA kernel of a `MATCMRS` matrix

   Values:
+  MAT_CMRS_KERNEL_BASIC    - strips in CSR order, a group of lanes per strip, partial sums in registers
.  MAT_CMRS_KERNEL_MODIFIED - strips reordered and padded to multiples of 32, a warp per strip, shared-memory partial sums
-  MAT_CMRS_KERNEL_AUTO     - modified when the row lengths vary less than their mean and it is 10 to 50, else basic

   Level: intermediate

.seealso: `MATCMRS`, `MatCMRSSetKernel()`
E*/
typedef enum {
  MAT_CMRS_KERNEL_BASIC,
  MAT_CMRS_KERNEL_MODIFIED,
  MAT_CMRS_KERNEL_AUTO
} MatCMRSKernel;
PETSC_EXTERN const char *const MatCMRSKernels[];

PETSC_EXTERN PetscErrorCode MatCMRSSetHeight(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatCMRSSetKernel(Mat, MatCMRSKernel);
PETSC_EXTERN PetscErrorCode MatCMRSSetSort(Mat, PetscBool);

/*MC
   MATARGCSR - "argcsr" - Adaptive Row-Grouped CSR (Heller and Oberhuber) for GPU SpMV.

   A `MATAIJCUSPARSE` matrix (`MATAIJ` without a GPU: see `MATBRC`) whose matrix-vector products run on the GPU from an ARGCSR copy: groups of
   consecutive rows of at most chunk x block nonzeros, `block` threads per group (a CUDA block
   works through groups in turn); the threads go to the rows one at a time, each to the row whose
   chunks are fullest, and each thread sums one chunk of the group's chunk size, stored so that
   the threads of a group read consecutive entries. Longer rows are split over several groups. Resolves to `MATSEQAIJARGCSR` on one process and `MATMPIAIJARGCSR` otherwise.

   Options Database Keys:
+  -mat_type argcsr            - selects the type
.  -mat_argcsr_chunk <0>       - desired chunk size (nonzeros per thread); 0: the largest of 32, 16, 8, 4, 2 whose layout pads at most 15%, else 1
.  -mat_argcsr_block <256>     - threads per group, a multiple of 32 from 32 to 1024
.  -mat_argcsr_column_order <auto> - auto, natural, frequency or rcm; auto renumbers by frequency where a few columns hold many nonzeros (`MatSpmvSetColumnOrder()`)
-  -mat_argcsr_backend <auto>  - auto, cuda or host (host reference kernel)

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATAIJ`, `MATBRC`, `MatARGCSRSetChunkSize()`, `MatARGCSRSetBlockSize()`
M*/
#define MATARGCSR       "argcsr"
#define MATAIJARGCSR    "aijargcsr"
#define MATSEQAIJARGCSR "seqaijargcsr"
#define MATMPIAIJARGCSR "mpiaijargcsr"

PETSC_EXTERN PetscErrorCode MatARGCSRSetChunkSize(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatARGCSRSetBlockSize(Mat, PetscInt);

/*MC
   MATIPCSR - "ipcsr" - Improved Perfect CSR (IPCSR, Yang et al.) and CSR-M's nonzero partition
   (Yin et al., section 5.2) for GPU SpMV, on the CSR itself.

   A `MATAIJCUSPARSE` matrix (`MATAIJ` without a GPU: see `MATBRC`) whose matrix-vector products run on the GPU from the CSR arrays the matrix
   already keeps there (no second copy of values or column indices), plus a small array of row
   blocks built on the device. Two kernels:
.  ipcsr - each thread block takes consecutive rows whose nonzeros fit its shared-memory budget,
           loads their products with x into shared memory with coalesced reads, then reduces them
           with one or several threads per row (the paper's decision tree); a row alone in its block
           is reduced by the whole block, and a row longer than the budget is split over several
           blocks whose sums are added atomically
-  csrm  - the nonzeros cut into fragments of equal size, one thread block each; rows inside a
           fragment summed by half-warps, rows shared by fragments combined by a second kernel
   Resolves to `MATSEQAIJIPCSR` on one process and `MATMPIAIJIPCSR` otherwise.

   Options Database Keys:
+  -mat_type ipcsr               - selects the type
.  -mat_ipcsr_kernel <auto>      - ipcsr, csrm or auto (ipcsr: measured faster than csrm on every benchmark matrix)
.  -mat_ipcsr_shared <16384>     - ipcsr: bytes of shared memory per thread block for its products (measured on the H200); 0: the paper's formula for the GPU (8192 without one)
.  -mat_ipcsr_fragment <1024>    - csrm: nonzeros per thread block (the paper's 1024)
.  -mat_ipcsr_column_order <auto> - auto (natural for ipcsr), natural, frequency or rcm (`MatSpmvSetColumnOrder()`)
-  -mat_ipcsr_backend <auto>     - auto, cuda or host (host reference kernel)

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATAIJ`, `MATBRC`, `MatIPCSRSetKernel()`, `MatIPCSRSetSharedSize()`, `MatIPCSRSetFragmentSize()`
M*/
#define MATIPCSR       "ipcsr"
#define MATAIJIPCSR    "aijipcsr"
#define MATSEQAIJIPCSR "seqaijipcsr"
#define MATMPIAIJIPCSR "mpiaijipcsr"

/*E
   MatIPCSRKernel - the CUDA kernel of a `MATIPCSR` matrix

   Values:
+  MAT_IPCSR_KERNEL_IPCSR - row blocks that fit a shared-memory budget (IPCSR)
.  MAT_IPCSR_KERNEL_CSRM  - equal fragments of nonzeros, one thread block each (CSR-M)
-  MAT_IPCSR_KERNEL_AUTO  - ipcsr (measured faster than csrm on every benchmark matrix on the H200)

   Level: intermediate

.seealso: `MATIPCSR`, `MatIPCSRSetKernel()`
E*/
typedef enum {
  MAT_IPCSR_KERNEL_IPCSR,
  MAT_IPCSR_KERNEL_CSRM,
  MAT_IPCSR_KERNEL_AUTO
} MatIPCSRKernel;
PETSC_EXTERN const char *const MatIPCSRKernels[];

PETSC_EXTERN PetscErrorCode MatIPCSRSetKernel(Mat, MatIPCSRKernel);
PETSC_EXTERN PetscErrorCode MatIPCSRSetSharedSize(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatIPCSRSetFragmentSize(Mat, PetscInt);

/*MC
   MATELLR - "ellr" - ELLPACK-R with T threads per row (ELLR-T; Yin et al., JATIT 2012, after Vazquez et al.) for GPU SpMV.

   A `MATAIJCUSPARSE` matrix (`MATAIJ` without a GPU: see `MATBRC`) whose matrix-vector products run on the GPU from an ELLPACK-R copy: every row
   padded to the longest, stored column-major so consecutive threads read consecutive memory, with
   the row lengths (RL) so that each thread stops at its row's end. T threads share a row, each
   summing every T-th entry, and their partial sums are combined with warp shuffles. Padding to the
   longest row can be huge on irregular matrices: the build stops with `PETSC_ERR_SUP`, before
   allocating, when (nonempty rows) x (longest row) exceeds `max_padding` times the nonzeros (empty
   rows hold no slots).
   Resolves to `MATSEQAIJELLR` on one process and `MATMPIAIJELLR` otherwise.

   Options Database Keys:
+  -mat_type ellr               - selects the type
.  -mat_ellr_t <0>              - threads per row, 1, 2, 4, 8, 16 or 32; 0 picks the largest leaving each thread at least 64 entries of a mean row (1 below 128)
.  -mat_ellr_block <128>        - threads per CUDA block, a multiple of 32 from 32 to 1024
.  -mat_ellr_max_padding <3>    - largest allowed (nonempty rows x longest row) / nonzeros
.  -mat_ellr_column_order <auto> - auto, natural, frequency or rcm; auto renumbers by frequency where a few columns hold many nonzeros (`MatSpmvSetColumnOrder()`)
-  -mat_ellr_backend <auto>     - auto, cuda or host (host reference kernel)

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATAIJ`, `MATBRC`, `MATARGCSR`, `MatELLRSetThreadsPerRow()`, `MatELLRSetBlockSize()`, `MatELLRSetMaxPadding()`
M*/
#define MATELLR       "ellr"
#define MATAIJELLR    "aijellr"
#define MATSEQAIJELLR "seqaijellr"
#define MATMPIAIJELLR "mpiaijellr"

PETSC_EXTERN PetscErrorCode MatELLRSetThreadsPerRow(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatELLRSetBlockSize(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatELLRSetMaxPadding(Mat, PetscReal);

/*MC
   MATSPMV - "spmv" - the GPU format chosen for each matrix block from its row lengths.

   A `MATAIJCUSPARSE` matrix (`MATAIJ` without a GPU: see `MATBRC`) whose matrix-vector products run on the GPU in the format that suits each
   operator: `MATBRC` when the nonempty rows' lengths vary less than their mean (stencils, FEM,
   multi-field PDEs), `MATIPCSR` otherwise (power-law and circuit matrices), the first of a measured
   preference list among the candidates (a candidate that refuses the pattern, as `MATELLR` does
   rows of very different lengths, passes to the next), or the fastest of them when `-mat_spmv_tune`
   times them. Each process's diagonal and off-diagonal blocks, and the
   transpose used by `MatMultTranspose()`, are chosen on their own; the choice is made again only
   when the nonzero pattern changes. `-mat_view ::ascii_info` prints the choice and its reason.
   Resolves to `MATSEQAIJSPMV` on one process and `MATMPIAIJSPMV` otherwise.

   Options Database Keys:
+  -mat_type spmv                 - selects the type
.  -mat_spmv_formats <brc,...>    - comma-separated candidate formats (default: all of brc, cmrs, argcsr, ipcsr, ellr)
.  -mat_<format>_...              - each candidate's own options (for example -mat_brc_block_height 16); its setters apply too
.  -mat_spmv_tune <false>         - time the candidates on each operator when its layout is built and keep the fastest
.  -mat_spmv_tune_reps <10>       - products timed per candidate
.  -mat_spmv_tune_max_time <1000> - milliseconds of tuning per operator after which no further candidate is tried
.  -mat_spmv_column_order <auto>  - auto, natural, frequency or rcm; auto renumbers by frequency where a few columns hold many nonzeros, in RCM order where it takes brc and groups of rows span 65536 columns or more (`MatSpmvSetColumnOrder()`)
-  -mat_spmv_backend <auto>       - auto, cuda or host (host reference kernels)

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATAIJ`, `MATBRC`, `MATIPCSR`, `MATELLR`, `MATCMRS`, `MATARGCSR`, `MatSPMVSetTune()`
M*/
#define MATSPMV       "spmv"
#define MATAIJSPMV    "aijspmv"
#define MATSEQAIJSPMV "seqaijspmv"
#define MATMPIAIJSPMV "mpiaijspmv"

PETSC_EXTERN PetscErrorCode MatSPMVSetTune(Mat, PetscBool);

/*MC
   MATSOLVERSPMVFACTOR - "spmvfactor" - ILU(k) and ICC(k) factors whose factorization and triangular solves
   run on the GPU without level synchronization.

   For `MATSEQAIJCUSPARSE`, the petscspmv types and (on the host, sequentially) `MATSEQAIJ`, and
   as the sub-solver of `PCBJACOBI` and `PCASM` on several processes. The factor keeps the matrix's
   pattern with ILU(k)'s fill (ICC: its upper triangle and the mirror image, as PETSc's ICC reads it); rows are
   taken in units of up to 8 consecutive rows, one warp per unit, each unit waiting only on the
   units it depends on through completion flags, units handed out in dependency order so no warp
   waits on one that has not started. The result is that of a sequential factorization and
   triangular solve up to rounding, unless -petscspmv_factor_trsv jacobi replaces each solve by the units'
   block-diagonal solve and k block-Jacobi sweeps (each one launch without waits: a changed
   preconditioner, more iterations, each far cheaper). cuSPARSE's solves (the default, `MATSOLVERCUSPARSE`)
   synchronize the whole GPU once per dependency level.

   Options Database Keys:
+  -pc_factor_mat_solver_type spmvfactor    - selects it for `PCILU` and `PCICC`
.  -sub_pc_factor_mat_solver_type spmvfactor - for the blocks of `PCBJACOBI` or `PCASM`
.  -petscspmv_factor_trsv_unit <k>            - rows solved together, 1 to 8 (default 0: the size whose solve is estimated fastest); with the PC's prefix
.  -petscspmv_factor_trsv <exact,jacobi,isai> - triangular solves exact (default), or approximated by block-Jacobi sweeps over the units or (ILU) by sparse approximate inverses; with the PC's prefix
-  -petscspmv_factor_trsv_sweeps <k>          - sweeps per triangle after the block-diagonal solve (default 2); with the PC's prefix

   Notes:
   ILU(k) and ICC(k) (fill computed as PETSc's), in the natural ordering, without pivot shifts (ICC accepts `PCICC`'s
   default positive-definite shift while no pivot needs it; one that would is reported as a zero
   pivot); `MatSolveTranspose()` is not offered. Other settings are refused with an error that
   names the solver type to use instead.

   The package was named "spmv" (`MATSOLVERSPMV`) before 1.2, the name of the matrix type `MATSPMV`
   too; "spmv" still selects it in 1.2, with a deprecation warning, and `MATSOLVERSPMV` still
   compiles, with one. The options were spelled -mat_spmv_trsv, -mat_spmv_trsv_unit and
   -mat_spmv_trsv_sweeps before 1.1; those spellings still work, with a deprecation warning.

   Level: intermediate

.seealso: [](ch_matrices), `Mat`, `PCILU`, `PCICC`, `MATSOLVERCUSPARSE`, `PCFactorSetMatSolverType()`
M*/
#define MATSOLVERSPMVFACTOR "spmvfactor"
#define MATSOLVERSPMV       PETSC_DEPRECATED_MACRO(1, 2, 0, "MATSOLVERSPMVFACTOR", ) MATSOLVERSPMVFACTOR
