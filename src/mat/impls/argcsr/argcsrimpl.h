#pragma once
#include "../spmvlayer/spmvformat.h"

#define MATARGCSR_MAX_BLOCK  1024 /* threads per group: a multiple of 32 up to the CUDA block limit */
#define MATARGCSR_MAX_CHUNK  32   /* the automatic desired chunk size never exceeds the paper's best, 32 */
#define MATARGCSR_SERIAL_SUM 8    /* a row of at most this many chunks is summed by one thread (the paper's loop) */
#define MATARGCSR_PIECE      (-1) /* group[4g+1] of a group holding one piece of a split row */

typedef struct {
  PetscInt chunk; /* desiredChunkSize: nonzeros per thread a group aims at; 0: from the row lengths */
  PetscInt block; /* threads per group (the CUDA block size) */
} MatARGCSRParams;

/* Group g is the paper's ARGCSRGroupInfo: rows group[4g] .. group[4g] + group[4g+1] - 1, slots from
   group[4g+2], chunk size group[4g+3]. Element e of chunk t of the group is slot
   group[4g+2] + e * block + t, so the threads of a group read consecutive slots; a chunk shorter
   than the chunk size ends with column -1 (padding, never read past the first -1).
   A row of more than chunk * block entries is split: each of its pieces (at most chunk * block
   entries) is a group of its own, group[4g+1] = MATARGCSR_PIECE, whose `block` chunks all belong
   to row group[4g]; the rows split are listed in split[] (preset to z or 0, then the pieces add
   atomically). */
typedef struct {
  PetscInt   block, chunk; /* as used for this matrix */
  PetscBool  chunkauto;    /* chunk chosen from the row lengths */
  PetscInt   ngroups;
  PetscInt  *group;    /* 4 * ngroups */
  PetscInt  *rowend;   /* m: per group, inclusive prefix sums of threads per row (end of each row's chunks); block for a split row */
  PetscInt  *col;      /* nslots, -1 for padding */
  PetscInt64 splitlen; /* rows longer than this (chunk * block) are split */
  PetscInt   nsplit, npieces;
  PetscInt  *split;                                 /* nsplit rows cut into pieces */
  PetscReal  mu, sigma;                             /* mean and standard deviation of the row lengths */
  PetscInt   maxlen;                                /* longest row */
  PetscInt   minchunk, maxchunk, maxthreads, ntree; /* for the viewer; ntree: groups summed by a tree */
  int       *d_group, *d_rowend, *d_col, *d_split;
  int        gridmax; /* thread blocks resident on the device at once (set at upload) */
} MatARGCSRLayout;

PETSC_EXTERN PetscErrorCode MatCreate_SeqAIJARGCSR(Mat);
PETSC_EXTERN PetscErrorCode MatCreate_MPIAIJARGCSR(Mat);
PETSC_INTERN PetscErrorCode MatSpmvFormatUpload_ARGCSR(MatSpmvLayout);
/* argcsrplan.c: the groups from the row lengths alone (host and device builds) */
PETSC_INTERN PetscErrorCode MatARGCSRPlanLayout(const MatARGCSRParams *, const MatSpmvCSR *, MatSpmvLayout);

/* Pieces of a split row of len > cap entries: ceil(len / cap), piece p holding len / np entries,
   one more for the first len % np pieces (so at most cap each, and at least cap / 2) */
static inline PetscInt MatARGCSRPieces(PetscInt len, PetscInt64 cap)
{
  return (PetscInt)(((PetscInt64)len + cap - 1) / cap);
}
PETSC_INTERN PetscErrorCode MatSpmvFormatBuildDevice_ARGCSR(const void *, const MatSpmvCSR *, const int *, const int *, MatSpmvLayout, void *);
PETSC_INTERN const void    *MatSpmvFormatDeviceKernel_ARGCSR(void);
PETSC_INTERN PetscErrorCode MatSpmvFormatDownload_ARGCSR(MatSpmvLayout);
PETSC_INTERN PetscErrorCode MatSpmvFormatMultDevice_ARGCSR(MatSpmvLayout, const PetscScalar *, const PetscScalar *, PetscScalar *, void *);
