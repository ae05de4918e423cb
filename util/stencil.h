#pragma once
/* The benchmarks' stencil operators */
#include <petscsys.h>

/* a diagonally dominant stencil operator in CSR: dim-D grid n^dim, star (5/7-point) or box (27-point),
   dof fields per point fully coupled */
static PetscErrorCode StencilCSR(PetscInt dim, PetscInt n, PetscBool box, PetscInt dof, PetscInt *m, PetscInt **ai, PetscInt **aj, PetscScalar **aa)
{
  const PetscInt npts = dim == 2 ? n * n : n * n * n, maxnb = (dim == 2 ? 9 : 27) * dof;
  PetscInt       nz = 0;

  PetscFunctionBegin;
  *m = npts * dof;
  PetscCall(PetscMalloc1(*m + 1, ai));
  PetscCall(PetscMalloc1((size_t)*m * maxnb, aj));
  PetscCall(PetscMalloc1((size_t)*m * maxnb, aa));
  (*ai)[0] = 0;
  for (PetscInt p = 0; p < npts; p++) {
    const PetscInt i = p % n, j = (p / n) % n, k = dim == 3 ? p / (n * n) : 0;

    for (PetscInt f = 0; f < dof; f++) {
      const PetscInt row = p * dof + f, start = nz;
      PetscInt       diag = -1;

      for (PetscInt dk = (dim == 3 ? -1 : 0); dk <= (dim == 3 ? 1 : 0); dk++)
        for (PetscInt dj = -1; dj <= 1; dj++)
          for (PetscInt di = -1; di <= 1; di++) {
            const PetscInt ii = i + di, jj = j + dj, kk = k + dk;

            if (!box && PetscAbsInt(di) + PetscAbsInt(dj) + PetscAbsInt(dk) > 1) continue;
            if (ii < 0 || ii >= n || jj < 0 || jj >= n || kk < 0 || kk >= n) continue;
            for (PetscInt g = 0; g < dof; g++) {
              (*aj)[nz] = ((kk * n + jj) * n + ii) * dof + g;
              (*aa)[nz] = (*aj)[nz] / dof == p ? 0.1 : -1.0 - 0.01 * (PetscReal)(nz % 7);
              if ((*aj)[nz] == row) diag = nz;
              nz++;
            }
          }
      (*aa)[diag]    = (PetscScalar)(nz - start) + 1.0;
      (*ai)[row + 1] = nz;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
