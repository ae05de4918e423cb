/*
  IPCSR's plan: the kernel and its sizes for a matrix's row statistics, read by the host build
  (ipcsr.c) and the device build (ipcsr.cu) alike.
*/
#include "ipcsrimpl.h"

/* The kernel and its sizes for a matrix with these row-length statistics (ip->m, nnz, mu, sigma,
   maxlen set); gpushared: the GPU's shared memory for a block (MatIPCSRDeviceShared()), 0 without
   one (the paper's figures then) */
PetscErrorCode MatIPCSRSetup(const MatIPCSRParams *p, PetscInt gpushared, MatIPCSRLayout *ip)
{
  PetscFunctionBegin;
  ip->kernelauto = (PetscBool)(p->kernel == MAT_IPCSR_KERNEL_AUTO);
  /* auto: ipcsr. On the H200 csrm's equal fragments were slower than ipcsr's row blocks on every
     generated matrix, the irregular ones included (docs/results.md, "ipcsr"), so no row statistic
     selects it; it stays available as the paper's comparison kernel */
  if (ip->kernelauto) ip->kernel = MAT_IPCSR_KERNEL_IPCSR;
  else ip->kernel = (MatIPCSRKernel)p->kernel;
  if (ip->kernel == MAT_IPCSR_KERNEL_IPCSR) {
    if (p->shared) {
      ip->shared    = p->shared;
      ip->sharedhow = 0;
    } else {
      ip->shared    = gpushared ? gpushared : (PetscInt)MatIPCSRSharedFormula(MATIPCSR_C2050_SHARED_SM, MATIPCSR_C2050_THREADS_SM, MATIPCSR_C2050_BLOCKS_SM, 0);
      ip->sharedhow = gpushared ? 1 : 2;
    }
    ip->S = PetscMax(1, ip->shared / (PetscInt)sizeof(PetscScalar));
    /* a block spans at most window - 1 + own = S entries (MatIPCSRNewRun()): own no larger than
       needed, the longest row when all rows are short, makes the windows nearly the budget */
    ip->own    = PetscMax(1, PetscMin(ip->S / MATIPCSR_OWN_DIV, ip->maxlen));
    ip->window = ip->S - ip->own + 1;
  } else ip->fragment = p->fragment;
  PetscFunctionReturn(PETSC_SUCCESS);
}
