#pragma once
#include "../spmvlayer/spmvformat.h"

typedef struct {
  PetscInt b1;       /* rows per block */
  PetscInt b2;       /* largest block width, 0: automatic (paper Eq. 3) */
  PetscInt b2max;    /* cap of the automatic width */
  PetscInt coarsen;  /* blocks per thread, 0: automatic */
  PetscInt window;   /* rows per length-sorting window, 0: all rows, -1: automatic (MatBRCWindow()) */
  PetscInt compress; /* device column indices as 16-bit offsets from a base column per block where every block allows (bool) */
  PetscInt runs;     /* with compress: one offset per run of consecutive columns where a block allows (bool) */
} MatBRCParams;

/* A block's columns fit 16-bit offsets from its smallest column when they span fewer than this
   (the layer's span, which its column order auto keeps blocks under where RCM can) */
#define MATBRC_SPAN16 MATSPMV_SPAN16
/* Compressed indices when at most this fraction of the slots is in far blocks, which keep 32-bit
   columns: mostly far layouts gained nothing compressed or lost (docs/results.md,
   "brc: compressed column indices") */
#define MATBRC_WIDE_FRACTION 0.25
/* longest run of consecutive columns read through one offset: 4 covers PETSc's usual block sizes
   (3 displacements, 4 unknowns of SNES ex19) */
#define MATBRC_RUN_MAX 4

typedef struct {
  PetscInt   b1, b2, rep, window; /* as chosen for this matrix */
  PetscInt   nblocks;
  PetscInt  *blockoff; /* nblocks + 1: first slot of each block; width = (blockoff[b+1] - blockoff[b]) / b1 */
  PetscInt  *rowidx;   /* nblocks * b1: row >= 0 written once, -(row + 2) summed atomically, -1 dummy */
  PetscInt  *col;      /* nslots, column-major inside each block */
  PetscInt   ninit;    /* rows set to z (or 0) before the blocks run: empty rows and split rows */
  PetscInt  *initrows;
  PetscInt   nsplit, maxnz;
  PetscReal  mu, sigma;
  int       *d_blockoff, *d_rowidx, *d_col, *d_initrows;
  long long *d_blockoff64; /* blockoff with 64-bit offsets, instead of d_blockoff past 2^31 - 1 slots */
  /* compressed column indices (device only): 16-bit offsets d_col16 from d_colbase[b] >= 0 for a
     block spanning fewer than MATBRC_SPAN16 columns; from a first column per slot column (d_jbase,
     njbase in all) for a wide block whose every slot column spans fewer; 32-bit in d_colwide for a
     far block (MatBRCMultKernel16 has the encoding); d_col is then freed. widest: the largest
     column span of a block; nwide blocks (wideslots slots) wide or far, nfar (farslots) far */
  PetscBool       compress, col16; /* asked for; done */
  unsigned short *d_col16;
  int            *d_colbase, *d_jbase, *d_colwide;
  PetscInt        widest, nwide, wideslots, nfar, farslots, njbase;
  /* column runs (device only, with col16): d_runs[b] = G > 1 when each of block b's lanes holds, in
     every G slot columns from the first, G consecutive columns (the unknowns of a mesh node) or
     padding after them; the kernel then reads one offset per G slots (MatBRCRowSum()).
     runslots[G]: the slots in blocks of run length G */
  PetscBool runs;
  int      *d_runs;
  PetscInt  runslots[MATBRC_RUN_MAX + 1];
} MatBRCLayout;

/* The rows sorted by length together: as asked, all (0), or automatically (-1) all rows except for
   irregular rows (sigma > mu, the paper's own test) in their natural column order, which keep
   windows of MATBRC_WINDOW_IRREGULAR rows: sorting all rows fills blocks of one kind of row (ex12's
   vertex, edge, face and cell rows), irregular rows keep their y writes close in windows
   (docs/results.md, "FEM operators: 16-bit offsets per slot column and the RCM order", item 6) */
#define MATBRC_WINDOW_IRREGULAR 16384
static inline PetscInt MatBRCWindow(const MatBRCParams *p, const MatSpmvCSR *csr, PetscReal mu, PetscReal sigma)
{
  PetscInt w = p->window;

  if (w < 0) w = (sigma <= mu || csr->colorder == MAT_SPMV_COLUMN_ORDER_FREQUENCY) ? 0 : MATBRC_WINDOW_IRREGULAR;
  return w > 0 ? w : PetscMax(csr->m, 1);
}

PETSC_EXTERN PetscErrorCode MatCreate_SeqAIJBRC(Mat);
PETSC_EXTERN PetscErrorCode MatCreate_MPIAIJBRC(Mat);
PETSC_INTERN PetscErrorCode MatSpmvFormatUpload_BRC(MatSpmvLayout);
PETSC_INTERN PetscErrorCode MatSpmvFormatBuildDevice_BRC(const void *, const MatSpmvCSR *, const int *, const int *, MatSpmvLayout, void *);
PETSC_INTERN const void    *MatSpmvFormatDeviceKernel_BRC(void);
PETSC_INTERN PetscErrorCode MatSpmvFormatDownload_BRC(MatSpmvLayout);
PETSC_INTERN PetscErrorCode MatBRCCompressColumns(MatSpmvLayout, void *);
PETSC_INTERN PetscErrorCode MatBRCMapRowsDevice(MatSpmvLayout, const int *, void *);
PETSC_INTERN PetscErrorCode MatSpmvFormatMultDevice_BRC(MatSpmvLayout, const PetscScalar *, const PetscScalar *, PetscScalar *, void *);
