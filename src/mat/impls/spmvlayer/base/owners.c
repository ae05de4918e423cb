/*
  Entries sent to the owners of their rows, two ways:
  - MatSpmvSFCreateToOwners(): the PetscSF whose leaves are a process's entries and whose roots are the
    slots its owners receive them in, one slot an entry (each sender's together, senders by rank), for
    arrays moved again and again (P^T A P's values at each numeric phase, device to device);
  - MatSpmvSendToOwners(): the entries (row, column, value) sent once, a message a pair of processes.
  Both start from the counts each owner receives (PetscCommBuildTwoSided()).

  PETSc's way to the same place is the multi-SF of an SF to the rows (PetscSFGetMultiSF(), then
  PetscSFGather()): its making, a degree, a fetch-and-add and a second set-up, took 7-10 ms for 40000
  entries of two processes and 10-20 ms for 150000 (host of 2 cores); the SF here 0.6-0.9 and 2.5-3.0 ms.
  GAMG's MPI set-up meets it once a level in the graph and once in P^T A P, small levels included.
*/
#include "../spmvbase.h"
#include <petscsf.h>

/* who sends what to whom: each entry's owner dest[k]; the owners this process sends to (toranks,
   ascending), how many each, and slot[r], owner r's place there (size entries); the senders to this
   process (fromranks, ascending), how many each and where each one's entries start here (fromoff) */
typedef struct {
  MPI_Comm    icomm;
  PetscMPIInt tag, nto, nfrom, *dest, *slot, *toranks, *tocounts, *fromranks, *fromcounts;
  PetscInt   *fromoff, nrecv;
} MatSpmvOwners;

static PetscErrorCode MatSpmvOwnersSetUp(MPI_Comm comm, PetscLayout map, PetscInt n, const PetscInt rows[], MatSpmvOwners *o)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(PetscCommDuplicate(comm, &o->icomm, &o->tag));
  PetscCallMPI(MPI_Comm_size(o->icomm, &size));
  PetscCall(PetscMalloc2(PetscMax(n, 1), &o->dest, size, &o->slot));
  for (PetscMPIInt r = 0; r < size; r++) o->slot[r] = 0;
  for (PetscInt k = 0; k < n; k++) {
    PetscCall(PetscLayoutFindOwner(map, rows[k], &o->dest[k]));
    PetscCheck(o->slot[o->dest[k]] < PETSC_MPI_INT_MAX / 2, PETSC_COMM_SELF, PETSC_ERR_SUP, "More than 2^30 entries to one process: use more processes");
    o->slot[o->dest[k]]++;
  }
  o->nto = 0;
  for (PetscMPIInt r = 0; r < size; r++) o->nto += o->slot[r] > 0;
  PetscCall(PetscMalloc2(o->nto, &o->toranks, o->nto, &o->tocounts));
  o->nto = 0;
  for (PetscMPIInt r = 0; r < size; r++)
    if (o->slot[r]) {
      o->toranks[o->nto]  = r;
      o->tocounts[o->nto] = o->slot[r];
      o->slot[r]          = o->nto++;
    }
  PetscCall(PetscCommBuildTwoSided(o->icomm, 1, MPI_INT, o->nto, o->toranks, o->tocounts, &o->nfrom, &o->fromranks, &o->fromcounts));
  PetscCall(PetscSortMPIIntWithArray(o->nfrom, o->fromranks, o->fromcounts));
  PetscCall(PetscMalloc1(o->nfrom, &o->fromoff));
  o->nrecv = 0;
  for (PetscMPIInt i = 0; i < o->nfrom; i++) {
    o->fromoff[i] = o->nrecv;
    PetscCall(PetscIntSumError(o->nrecv, o->fromcounts[i], &o->nrecv));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvOwnersDestroy(MatSpmvOwners *o)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(o->fromoff));
  PetscCall(PetscFree(o->fromranks));
  PetscCall(PetscFree(o->fromcounts));
  PetscCall(PetscFree2(o->toranks, o->tocounts));
  PetscCall(PetscFree2(o->dest, o->slot));
  PetscCall(PetscCommDestroy(&o->icomm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvSFCreateToOwners(MPI_Comm comm, PetscLayout map, PetscInt n, const PetscInt rows[], PetscSF *sf, PetscInt *nrecv)
{
  MatSpmvOwners o;
  PetscInt     *tobase;
  PetscSFNode  *iremote;
  MPI_Request  *reqs;

  PetscFunctionBegin;
  PetscCall(MatSpmvOwnersSetUp(comm, map, n, rows, &o));
  /* the senders learn nothing of each other: each owner tells each sender where its entries start */
  PetscCall(PetscMalloc2(o.nto, &tobase, o.nto + o.nfrom, &reqs));
  for (PetscMPIInt j = 0; j < o.nto; j++) PetscCallMPI(MPI_Irecv(&tobase[j], 1, MPIU_INT, o.toranks[j], o.tag, o.icomm, &reqs[j]));
  for (PetscMPIInt i = 0; i < o.nfrom; i++) PetscCallMPI(MPI_Isend(&o.fromoff[i], 1, MPIU_INT, o.fromranks[i], o.tag, o.icomm, &reqs[o.nto + i]));
  PetscCallMPI(MPI_Waitall(o.nto + o.nfrom, reqs, MPI_STATUSES_IGNORE));
  PetscCall(PetscMalloc1(PetscMax(n, 1), &iremote)); /* the SF's */
  for (PetscInt k = 0; k < n; k++) {
    iremote[k].rank  = o.dest[k];
    iremote[k].index = tobase[o.slot[o.dest[k]]]++;
  }
  *nrecv = o.nrecv;
  PetscCall(PetscSFCreate(comm, sf));
  PetscCall(PetscSFSetGraph(*sf, *nrecv, n, NULL, PETSC_COPY_VALUES, iremote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(*sf));
  PetscCall(PetscFree2(tobase, reqs));
  PetscCall(MatSpmvOwnersDestroy(&o));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvSendToOwners(MPI_Comm comm, PetscLayout map, PetscInt n, const PetscInt rows[], const PetscInt cols[], const PetscScalar vals[], PetscInt *nrecv, PetscInt **rrows, PetscInt **rcols, PetscScalar **rvals)
{
  MatSpmvOwners o;
  PetscMPIInt   tag2;
  PetscInt     *sendij, *recvij, *pos;
  PetscScalar  *sendv;
  MPI_Request  *reqs;

  PetscFunctionBegin;
  PetscCall(MatSpmvOwnersSetUp(comm, map, n, rows, &o));
  PetscCall(PetscCommGetNewTag(o.icomm, &tag2));
  /* each owner's entries together: (row, column) pairs and values */
  PetscCall(PetscMalloc3(2 * PetscMax(n, 1), &sendij, PetscMax(n, 1), &sendv, o.nto + 1, &pos));
  pos[0] = 0;
  for (PetscMPIInt j = 0; j < o.nto; j++) pos[j + 1] = pos[j] + o.tocounts[j];
  for (PetscInt k = 0; k < n; k++) {
    const PetscInt q = pos[o.slot[o.dest[k]]]++;

    sendij[2 * q]     = rows[k];
    sendij[2 * q + 1] = cols[k];
    sendv[q]          = vals[k];
  }
  *nrecv = o.nrecv;
  PetscCall(PetscMalloc3(PetscMax(*nrecv, 1), rrows, PetscMax(*nrecv, 1), rcols, PetscMax(*nrecv, 1), rvals));
  PetscCall(PetscMalloc2(2 * PetscMax(*nrecv, 1), &recvij, 2 * (o.nto + o.nfrom), &reqs));
  for (PetscMPIInt i = 0; i < o.nfrom; i++) {
    PetscCallMPI(MPI_Irecv(recvij + 2 * o.fromoff[i], 2 * o.fromcounts[i], MPIU_INT, o.fromranks[i], o.tag, o.icomm, &reqs[2 * i]));
    PetscCallMPI(MPI_Irecv(*rvals + o.fromoff[i], o.fromcounts[i], MPIU_SCALAR, o.fromranks[i], tag2, o.icomm, &reqs[2 * i + 1]));
  }
  for (PetscMPIInt j = 0; j < o.nto; j++) { /* pos[j] is now where owner j's entries end */
    const PetscInt start = pos[j] - o.tocounts[j];

    PetscCallMPI(MPI_Isend(sendij + 2 * start, 2 * o.tocounts[j], MPIU_INT, o.toranks[j], o.tag, o.icomm, &reqs[2 * (o.nfrom + j)]));
    PetscCallMPI(MPI_Isend(sendv + start, o.tocounts[j], MPIU_SCALAR, o.toranks[j], tag2, o.icomm, &reqs[2 * (o.nfrom + j) + 1]));
  }
  PetscCallMPI(MPI_Waitall(2 * (o.nto + o.nfrom), reqs, MPI_STATUSES_IGNORE));
  for (PetscInt q = 0; q < *nrecv; q++) {
    (*rrows)[q] = recvij[2 * q];
    (*rcols)[q] = recvij[2 * q + 1];
  }
  PetscCall(PetscFree2(recvij, reqs));
  PetscCall(PetscFree3(sendij, sendv, pos));
  PetscCall(MatSpmvOwnersDestroy(&o));
  PetscFunctionReturn(PETSC_SUCCESS);
}
