/*
  The life of a layout: freeing one (host and device), dropping all of a matrix's layouts and work
  buffers when its structure, parameters or backend change, and host copies of a device-built layout
  for the layout checks.
*/
#include "../spmvimpl.h"

PetscInt MatSpmvSlots64Min = PETSC_INT32_MAX; /* -petscspmv_slots64_min (read by the package) */

PetscErrorCode MatSpmvLayoutDestroy(MatSpmvLayout *L)
{
  PetscFunctionBegin;
  if (!*L) PetscFunctionReturn(PETSC_SUCCESS);
  if ((*L)->format) PetscCall((*L)->format->destroy(*L));
  PetscCall(PetscFree((*L)->slot2csr));
  PetscCall(PetscFree((*L)->val));
  PetscCall(PetscFree((*L)->crow));
  PetscCall(PetscFree((*L)->colperm));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDAFree((*L)->d_colperm));
  PetscCall(MatSpmvCUDAFree((*L)->d_colj));
  if (!(*L)->borrowed) PetscCall(MatSpmvCUDAFree((*L)->d_val));
  PetscCall(MatSpmvCUDAFree((*L)->d_slot2csr));
  PetscCall(MatSpmvCUDAFree((*L)->d_slot2csr64));
  PetscCall(MatSpmvCUDAFree((*L)->d_crow));
  PetscCall(MatSpmvCUDAFree((*L)->d_ci));
  PetscCall(MatSpmvCUDAFree((*L)->d_tcsr[0]));
  PetscCall(MatSpmvCUDAFree((*L)->d_tcsr[1]));
#endif
  PetscCall(PetscFree(*L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Drop the layouts and the device and work buffers: the next product builds again */
PetscErrorCode MatSpmvReset(Mat_SeqAIJSpmv *sp)
{
  PetscFunctionBegin;
  for (int t = 0; t < 2; t++) {
    PetscCall(MatSpmvLayoutDestroy(&sp->L[t]));
    sp->state[t]    = MATSPMV_NOSTATE;
    sp->declined[t] = PETSC_FALSE; /* a new pattern or new parameters may build */
  }
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDAFree(sp->d_csrval));
  PetscCall(MatSpmvCUDAFree(sp->d_x));
  PetscCall(MatSpmvCUDAFree(sp->d_y));
  PetscCall(MatSpmvCUDAFree(sp->d_c));
  PetscCall(MatSpmvCUDAFree(sp->d_xp));
#endif
  PetscCall(PetscFree(sp->c));
  PetscCall(PetscFree(sp->xp));
  sp->d_xp         = NULL;
  sp->d_xpn        = 0;
  sp->xpn          = 0;
  sp->d_csrval     = NULL;
  sp->d_x          = NULL;
  sp->d_y          = NULL;
  sp->d_c          = NULL;
  sp->d_xn         = 0;
  sp->d_yn         = 0;
  sp->d_cn         = 0;
  sp->cn           = 0;
  sp->d_csrstate   = MATSPMV_NOSTATE;
  sp->nonzerostate = MATSPMV_NOSTATE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Host copies of a device-built layout (layout checks only) */
PetscErrorCode MatSpmvLayoutDownload(MatSpmvLayout L)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  if (L->d_colperm && !L->colperm) PetscCall(MatSpmvCUDADownloadInt(&L->colperm, L->d_colperm, L->n));
#endif
  if (!L->devicebuilt || L->slot2csr) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(PETSC_HAVE_CUDA)
  if (L->d_slot2csr) PetscCall(MatSpmvCUDADownloadInt(&L->slot2csr, L->d_slot2csr, L->nslots));
  else { /* an identity map */ PetscCall(PetscMalloc1(L->nslots, &L->slot2csr));
    for (PetscInt s = 0; s < L->nslots; s++) L->slot2csr[s] = s;
  }
  PetscCall(L->format->download(L));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
