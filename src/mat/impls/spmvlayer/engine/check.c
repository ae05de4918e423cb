/*
  Layout invariants of a matrix's layouts (A and A^T), for the tests (MatSpmvCheckLayout()): every
  nonzero in exactly one slot at its row and column with its current value, padding slots zero at a
  valid column, renumbered columns and compressed rows mapped back.
*/
#include "../spmvimpl.h"

/* The share of op(A)'s nonzeros in its max(1, n / 100) most frequent columns, counted on the host
   (what the layout's column plan counted, on the host or the device) */
static PetscErrorCode MatSpmvHotShareHost(PetscInt m, PetscInt n, const PetscInt *ai, const PetscInt *aj, MatSpmvOp t, PetscReal *share)
{
  const PetscInt ncols = t ? m : n, nnz = m ? ai[m] : 0;
  PetscInt      *count, hot             = 0;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(ncols + 1, &count));
  for (PetscInt r = 0; r < m; r++) {
    if (t) count[r] = ai[r + 1] - ai[r];
    else
      for (PetscInt k = ai[r]; k < ai[r + 1]; k++) count[aj[k]]++;
  }
  PetscCall(PetscSortInt(ncols, count));
  for (PetscInt k = 0; k < PetscMax(1, ncols / 100) && k < ncols; k++) hot += count[ncols - 1 - k];
  *share = nnz ? (PetscReal)hot / (PetscReal)nnz : 0;
  PetscCall(PetscFree(count));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Layout invariants, for tests: every nonzero in exactly one slot at its row and column,
   padding slots hold zeros at a valid column, slot values (times the folded scale) equal the CSR values */
PetscErrorCode MatSpmvCheckLayouts(Mat A)
{
  Mat_SeqAIJSpmv    *sp = MatSpmvSeq(A);
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscInt          *row, *col, *seen, *rowof, mrows;
  PetscScalar       *val;
  PetscBool          done;

  PetscFunctionBegin;
  for (int t = 0; t < 2; t++) {
    MatSpmvLayout L;

    PetscCall(MatSpmvUpdate(A, sp, t, &L));
    if (!L) continue; /* declined: aijcusparse's products, nothing of ours to check */
    PetscCall(MatSpmvLayoutDownload(L));
    PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &mrows, &ai, &aj, &done));
    PetscCall(MatSeqAIJGetArrayRead(A, &aa));
    PetscCall(PetscMalloc3(L->nslots, &row, L->nslots, &col, L->nslots, &val));
    PetscCall(PetscCalloc1(L->nnz, &seen));
    PetscCall(PetscMalloc1(L->nnz, &rowof));
    for (PetscInt r = 0; r < A->rmap->n; r++)
      for (PetscInt k = ai[r]; k < ai[r + 1]; k++) rowof[k] = r;
    if (sp->ondevice) {
#if defined(PETSC_HAVE_CUDA)
      void *stream;

      PetscCall(MatSpmvCUDAGetStream(&stream));
      PetscCall(MatSpmvCUDACopyToHost(val, L->d_val, L->nslots * sizeof(PetscScalar), stream));
#endif
    } else PetscCall(PetscArraycpy(val, L->val, L->nslots));
    PetscCall(L->format->slotrowcol(L, row, col));
    for (PetscInt s = 0; s < L->nslots && L->crow; s++) { /* stored rows to the operator's */
      PetscCheck(row[s] >= -1 && row[s] < L->m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s%s: slot %" PetscInt_FMT " has stored row %" PetscInt_FMT, sp->format->name, t ? "^T" : "", s, row[s]);
      if (row[s] >= 0) row[s] = L->crow[row[s]];
    }
    for (PetscInt s = 0; s < L->nslots; s++) {
      PetscInt k = L->slot2csr[s], r, c;

      PetscCheck(col[s] >= 0 && col[s] < PetscMax(L->n, 1), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s%s: slot %" PetscInt_FMT " has column %" PetscInt_FMT " outside [0, %" PetscInt_FMT ")", sp->format->name, t ? "^T" : "", s, col[s], L->n);
      if (L->colperm && L->n) col[s] = L->colperm[col[s]]; /* the layout's column numbering to the operator's */
      PetscCheck(row[s] >= -1 && row[s] < L->ym, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s%s: slot %" PetscInt_FMT " has row %" PetscInt_FMT, sp->format->name, t ? "^T" : "", s, row[s]);
      if (k < 0) {
        PetscCheck(val[s] == (PetscScalar)0.0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s%s: padding slot %" PetscInt_FMT " holds a nonzero", sp->format->name, t ? "^T" : "", s);
        continue;
      }
      PetscCheck(k < L->nnz && !seen[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s%s: CSR position %" PetscInt_FMT " stored %s", sp->format->name, t ? "^T" : "", k, k < L->nnz ? "twice" : "out of range");
      seen[k] = 1;
      r       = rowof[k];
      c       = aj[k];
      if (t) {
        PetscInt tmp = r;
        r            = c;
        c            = tmp;
      }
      PetscCheck(row[s] == r && col[s] == c, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s%s: slot %" PetscInt_FMT " at (%" PetscInt_FMT ", %" PetscInt_FMT ") holds the entry (%" PetscInt_FMT ", %" PetscInt_FMT ")", sp->format->name, t ? "^T" : "", s, row[s], col[s], r, c);
      /* with scales folded in, the values of the scaled CSR to the rounding of a few products */
      if (L->scale == (PetscScalar)1.0) PetscCheck(val[s] == aa[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s%s: slot %" PetscInt_FMT " holds a stale value", sp->format->name, t ? "^T" : "", s);
      else
        PetscCheck(PetscAbsScalar(L->scale * val[s] - aa[k]) <= 16 * PETSC_MACHINE_EPSILON * PetscAbsScalar(aa[k]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s%s: slot %" PetscInt_FMT " times the folded scale is not the CSR value", sp->format->name, t ? "^T" : "", s);
    }
    for (PetscInt k = 0; k < L->nnz; k++) PetscCheck(seen[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s%s: CSR position %" PetscInt_FMT " is in no slot", sp->format->name, t ? "^T" : "", k);
    if (L->hotshare >= 0 && L->nnz) { /* the frequency plan's count */
      PetscReal share = -1;

      PetscCall(MatSpmvHotShareHost(A->rmap->n, A->cmap->n, ai, aj, t, &share));
      PetscCheck(share == L->hotshare, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s%s: the 1%% most frequent columns hold %g of the nonzeros, the column plan counted %g", sp->format->name, t ? "^T" : "", (double)share, (double)L->hotshare);
    }
    PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &mrows, &ai, &aj, &done));
    PetscCall(PetscFree3(row, col, val));
    PetscCall(PetscFree(seen));
    PetscCall(PetscFree(rowof));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
