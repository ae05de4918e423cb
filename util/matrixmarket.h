#pragma once
/* Shared by the tests (tests/) and the benchmark (bench/spmvbench.c), found through -Iutil:
   - MatLoadMatrixMarket(): a Matrix Market reader: coordinate real, integer, pattern and complex
     files, general, symmetric, skew-symmetric and hermitian. Pattern entries get a deterministic
     value; complex entries keep only their real part when PetscScalar is real.
   - Hash(): deterministic pseudo-random numbers, identical on every rank, for generated matrices. */
#include <petscmat.h>

/* A 31-bit hash of (a, b) (splitmix64's finalizer): the same value on every rank and machine */
static inline PetscInt Hash(PetscInt a, PetscInt b)
{
  unsigned long long h = (unsigned long long)a * 0x9E3779B97F4A7C15ULL ^ ((unsigned long long)b + 0x632BE59BD9B4E019ULL);
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 29;
  return (PetscInt)(h & 0x7fffffff);
}

static inline PetscErrorCode MatLoadMatrixMarket(MPI_Comm comm, const char path[], MatType type, Mat *A)
{
  FILE        *f;
  char         line[1024], field[64] = "", sym[64] = "";
  PetscInt     m, n, nz, *ii, *jj, nent = 0, rstart, rend;
  PetscScalar *vv;
  PetscMPIInt  rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscFOpen(PETSC_COMM_SELF, path, "r", &f));
  PetscCheck(fgets(line, sizeof(line), f), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s is empty", path);
  PetscCheck(sscanf(line, "%%%%MatrixMarket matrix coordinate %63s %63s", field, sym) == 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: not a coordinate Matrix Market file", path);
  do {
    PetscCheck(fgets(line, sizeof(line), f), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: no size line", path);
  } while (line[0] == '%');
  {
    long long lm, ln, lnz;
    PetscCheck(sscanf(line, "%lld %lld %lld", &lm, &ln, &lnz) == 3, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: bad size line", path);
    m  = (PetscInt)lm;
    n  = (PetscInt)ln;
    nz = (PetscInt)lnz;
  }
  PetscCall(PetscMalloc3(2 * nz, &ii, 2 * nz, &jj, 2 * nz, &vv));
  for (PetscInt k = 0; k < nz; k++) {
    long long i, j;
    double    re = 1.0, im = 0.0;
    int       got;

    PetscCheck(fgets(line, sizeof(line), f), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: only %" PetscInt_FMT " of %" PetscInt_FMT " entries", path, k, nz);
    got = sscanf(line, "%lld %lld %lf %lf", &i, &j, &re, &im);
    PetscCheck(got >= 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: bad entry line %" PetscInt_FMT, path, k);
    if (!strcmp(field, "pattern")) re = 1.0 + (double)((i * 7 + j * 13) % 10) / 10.0;
    ii[nent] = (PetscInt)i - 1;
    jj[nent] = (PetscInt)j - 1;
#if defined(PETSC_USE_COMPLEX)
    vv[nent] = PetscCMPLX(re, im);
#else
    vv[nent] = re;
#endif
    nent++;
    if (i != j && strcmp(sym, "general")) {
      ii[nent] = (PetscInt)j - 1;
      jj[nent] = (PetscInt)i - 1;
      vv[nent] = !strcmp(sym, "skew-symmetric") ? -vv[nent - 1] : (!strcmp(sym, "hermitian") ? PetscConj(vv[nent - 1]) : vv[nent - 1]);
      nent++;
    }
  }
  PetscCall(PetscFClose(PETSC_COMM_SELF, f));
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, m, n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetUp(*A));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt k = 0; k < nent; k++)
    if (ii[k] >= rstart && ii[k] < rend) PetscCall(MatSetValues(*A, 1, &ii[k], 1, &jj[k], &vv[k], ADD_VALUES));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree3(ii, jj, vv));
  PetscFunctionReturn(PETSC_SUCCESS);
}
