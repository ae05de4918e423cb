/*
  ELLR-T's plan: threads per row and the padded layout's shape (or the refusal past the padding
  limit), read by the host build (ellr.c) and the device build (ellr.cu) alike.
*/
#include "ellrimpl.h"

/* Automatic threads per row from the mean length of the nonempty rows: the largest power of two
   up to 32 that leaves each thread at least MATELLR_AUTO_ENTRIES_PER_THREAD entries of a mean row
   (mean below 128: 1 thread, 128: 2, 2048 and more: 32). More threads shorten the chain of
   dependent loads per thread, fewer waste less of each warp on short rows. Under the padding limit
   (default 3) the longest row is at most that many times the mean, so the mean speaks for all rows.
   T = 1 was the fastest on every generated matrix, rows of 5 to 79 entries, where the first rule,
   8 entries per thread, picked 2 and 8 (docs/results.md, "ellr"). */
static PetscInt MatELLRThreadsAuto(PetscReal mean)
{
  PetscInt T = 1;

  while (T < MATELLR_MAX_T && 2 * T * MATELLR_AUTO_ENTRIES_PER_THREAD <= mean) T *= 2;
  return T;
}

/* The layout's shape for an m-row matrix of nnz nonzeros in mr nonempty rows, the longest of K
   entries (plan's arrays stay NULL), and its slot count. Stops with PETSC_ERR_SUP before anything
   is allocated when the padding to the longest row, mr x K slots, exceeds max_padding times the
   nonzeros, or the layout exceeds the 32-bit device indices. */
PetscErrorCode MatELLRPlan(const MatELLRParams *p, PetscInt m, PetscInt mr, PetscInt nnz, PetscInt K, MatELLRLayout *plan, PetscInt *nslots)
{
  const double padded = (double)mr * (double)K; /* no integer overflow; exact below 2^53 */
  PetscInt64   align, ld, steps, slots;
  PetscInt     T, Tmax = 1;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(plan, sizeof(*plan)));
  PetscCheck(padded <= (double)p->maxpadding * (double)nnz, PETSC_COMM_SELF, PETSC_ERR_SUP, "ELLR pads every row to the longest: %" PetscInt_FMT " nonempty rows x %" PetscInt_FMT " (longest row) = %.0f slots for %" PetscInt_FMT " nonzeros, padding ratio %.2f, more than -mat_ellr_max_padding %.2f: use -mat_type brc or -mat_type argcsr, which do not pad rows to the longest one, or raise -mat_ellr_max_padding (MatELLRSetMaxPadding()) if the memory allows", mr, K, padded, nnz, nnz ? padded / (double)nnz : 0.0,
             (double)p->maxpadding);
  plan->mr         = mr;
  plan->nempty     = m - mr;
  plan->K          = K;
  plan->mean       = mr ? (PetscReal)nnz / (PetscReal)mr : 0;
  plan->block      = p->block;
  plan->maxpadding = p->maxpadding;
  plan->Tauto      = p->T ? PETSC_FALSE : PETSC_TRUE;
  plan->Tasked     = p->T ? p->T : MatELLRThreadsAuto(plan->mean);
  while (Tmax < K && Tmax < MATELLR_MAX_T) Tmax *= 2; /* more threads than the longest row rounded up would only hold padding */
  T       = PetscMin(plan->Tasked, Tmax);
  align   = MATELLR_ALIGN / T;
  ld      = ((PetscInt64)mr + align - 1) / align * align;
  steps   = ((PetscInt64)K + T - 1) / T;
  slots   = steps * ld * T;
  plan->T = T;
  PetscCheck(slots <= PETSC_INT32_MAX && ld * T <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "ELLR needs %" PetscInt64_FMT " slots (%" PetscInt_FMT " nonempty rows, longest row %" PetscInt_FMT ", %" PetscInt_FMT " threads per row), more than the %d that 32-bit device indices address: split the matrix over more MPI processes, or use -mat_type brc or argcsr", slots, mr, K, T, PETSC_INT32_MAX);
  plan->ld    = (PetscInt)ld;
  plan->steps = (PetscInt)steps;
  *nslots     = (PetscInt)slots;
  PetscFunctionReturn(PETSC_SUCCESS);
}
