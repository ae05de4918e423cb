static char help[] = "Entries sent to the owners of their rows (base/owners.c, the MPI graph's transposes and P^T A P's\n"
                     "boundary): on an uneven layout, with a process that sends nothing, each process receives exactly\n"
                     "the entries of its rows (row, column and value as sent, each once), MatSpmvSendToOwners() and the\n"
                     "SF of MatSpmvSFCreateToOwners() in the same order (each sender's together, senders by rank).\n";

/* the unit's source, for its internal functions: the library hides them */
#include "../src/mat/impls/spmvlayer/base/owners.c"

int main(int argc, char **argv)
{
  PetscInt     m = 1000, n = 5000, N, nr1, nr2, *rows, *cols, *rr, *rc, *rr2, bad = 0, counts[2];
  PetscScalar *v, *rv, *rv2;
  PetscMPIInt  rank, size;
  PetscLayout  map;
  PetscSF      sf;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscLayoutCreateFromSizes(PETSC_COMM_WORLD, m + rank * 37, PETSC_DECIDE, 1, &map)); /* uneven */
  N = map->N;
  if (size > 1 && rank == 1) n = 0; /* a process that sends nothing */
  PetscCall(PetscMalloc3(PetscMax(n, 1), &rows, PetscMax(n, 1), &cols, PetscMax(n, 1), &v));
  for (PetscInt k = 0; k < n; k++) { /* the column names the sender and the entry; the value repeats it */
    rows[k] = (k * 7919 + rank * 104729) % N;
    cols[k] = rank * 1000000 + k;
    v[k]    = (PetscScalar)cols[k];
  }
  PetscCall(MatSpmvSendToOwners(PETSC_COMM_WORLD, map, n, rows, cols, v, &nr1, &rr, &rc, &rv));
  PetscCall(MatSpmvSFCreateToOwners(PETSC_COMM_WORLD, map, n, rows, &sf, &nr2));
  PetscCheck(nr1 == nr2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "[%d] %" PetscInt_FMT " entries received by one way, %" PetscInt_FMT " by the other", rank, nr1, nr2);
  PetscCall(PetscMalloc2(PetscMax(nr2, 1), &rr2, PetscMax(nr2, 1), &rv2));
  PetscCall(PetscSFReduceBegin(sf, MPIU_INT, rows, rr2, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(sf, MPIU_INT, rows, rr2, MPI_REPLACE));
  PetscCall(PetscSFReduceBegin(sf, MPIU_SCALAR, v, rv2, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(sf, MPIU_SCALAR, v, rv2, MPI_REPLACE));
  for (PetscInt q = 0; q < nr1; q++) {
    const PetscInt src = rc[q] / 1000000, k = rc[q] % 1000000;

    if (rr[q] < map->rstart || rr[q] >= map->rend) bad++;                   /* a row of this process */
    if ((k * 7919 + src * 104729) % N != rr[q]) bad++;                      /* the row its sender sent */
    if (PetscRealPart(rv[q]) != (PetscReal)rc[q]) bad++;                    /* its value */
    if (q && rc[q - 1] / 1000000 > src) bad++;                              /* senders by rank */
    if (q && rc[q - 1] / 1000000 == src && rc[q - 1] % 1000000 >= k) bad++; /* each once, in the sender's order */
    if (rr2[q] != rr[q] || rv2[q] != rv[q]) bad++;                          /* the SF's slots in the same order */
  }
  counts[0] = n;
  counts[1] = nr1;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, counts, 2, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCheck(!bad && counts[0] == counts[1], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " entries sent, %" PetscInt_FMT " received, %" PetscInt_FMT " wrong", counts[0], counts[1], bad);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %" PetscInt_FMT " entries to their rows' owners on %d processes, both ways\n", counts[0], size));
  PetscCall(PetscSFDestroy(&sf));
  PetscCall(PetscFree3(rr, rc, rv));
  PetscCall(PetscFree2(rr2, rv2));
  PetscCall(PetscFree3(rows, cols, v));
  PetscCall(PetscLayoutDestroy(&map));
  PetscCall(PetscFinalize());
  return 0;
}
