#pragma once
#include "../aijspmv/aijspmvimpl.h"

typedef struct {
  PetscInt b1;      /* rows per block */
  PetscInt b2;      /* largest block width, 0: automatic (paper Eq. 3) */
  PetscInt b2max;   /* cap of the automatic width */
  PetscInt coarsen; /* blocks per thread, 0: automatic */
  PetscInt window;  /* rows per length-sorting window, 0: all rows */
  PetscInt compress; /* device column indices as 16-bit offsets from a base column per block where every block allows (bool) */
} MatBRCParams;

/* A block's columns fit 16-bit offsets from its smallest column when they span fewer than this */
#define MATBRC_SPAN16 65536
/* Compressed indices only for rows of at least this mean length. Measured on the H200: rows of 20,
   27 and 79 entries gained 4.6%, 5.5% and 8.9%, rows of 5 lost 1.7% (the per-block base column is
   one more load per 5 entries); the threshold lies between */
#define MATBRC_COMPRESS_MINLEN 12

typedef struct {
  PetscInt  b1, b2, rep, window; /* as chosen for this matrix */
  PetscInt  nblocks;
  PetscInt *blockoff; /* nblocks + 1: first slot of each block; width = (blockoff[b+1] - blockoff[b]) / b1 */
  PetscInt *rowidx;   /* nblocks * b1: row >= 0 written once, -(row + 2) summed atomically, -1 dummy */
  PetscInt *col;      /* nslots, column-major inside each block */
  PetscInt  ninit;    /* rows set to z (or 0) before the blocks run: empty rows and split rows */
  PetscInt *initrows;
  PetscInt  nsplit, maxnz;
  PetscReal mu, sigma;
  int      *d_blockoff, *d_rowidx, *d_col, *d_initrows;
  /* compressed column indices (device only): column of slot s in block b = d_colbase[b] + d_col16[s];
     d_col is then freed. widest: the largest column span of a block (decides it) */
  PetscBool       compress, col16; /* asked for; done */
  unsigned short *d_col16;
  int            *d_colbase;
  PetscInt        widest;
} MatBRCLayout;

PETSC_EXTERN PetscErrorCode MatCreate_SeqAIJBRC(Mat);
PETSC_EXTERN PetscErrorCode MatCreate_MPIAIJBRC(Mat);
PETSC_INTERN PetscErrorCode MatUpload_BRC(MatSpmvLayout);
PETSC_INTERN PetscErrorCode MatBuildDevice_BRC(const void *, const MatSpmvCSR *, const int *, const int *, MatSpmvLayout, void *);
PETSC_INTERN PetscErrorCode MatDownload_BRC(MatSpmvLayout);
PETSC_INTERN PetscErrorCode MatBRCCompressColumns(MatSpmvLayout, void *);
PETSC_INTERN PetscErrorCode MatMultDevice_BRC(MatSpmvLayout, const PetscScalar *, const PetscScalar *, PetscScalar *, void *);
