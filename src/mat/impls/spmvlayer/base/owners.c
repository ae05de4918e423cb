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

/* each entry's owner dest[k]; the owners receiving entries (toranks, ascending) and how many each;
   slot[r]: owner r's place in toranks (size entries) */
static PetscErrorCode MatSpmvOwnersCount(MPI_Comm icomm, PetscLayout map, PetscInt n, const PetscInt rows[], PetscMPIInt **dest, PetscMPIInt **slot, PetscMPIInt *nto, PetscMPIInt **toranks, PetscMPIInt **tocounts)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(icomm, &size));
  PetscCall(PetscMalloc2(PetscMax(n, 1), dest, size, slot));
  for (PetscMPIInt r = 0; r < size; r++) (*slot)[r] = 0;
  for (PetscInt k = 0; k < n; k++) {
    PetscCall(PetscLayoutFindOwner(map, rows[k], &(*dest)[k]));
    PetscCheck((*slot)[(*dest)[k]] < PETSC_MPI_INT_MAX / 2, PETSC_COMM_SELF, PETSC_ERR_SUP, "More than 2^30 entries to one process: use more processes");
    (*slot)[(*dest)[k]]++;
  }
  *nto = 0;
  for (PetscMPIInt r = 0; r < size; r++) *nto += (*slot)[r] > 0;
  PetscCall(PetscMalloc2(*nto, toranks, *nto, tocounts));
  *nto = 0;
  for (PetscMPIInt r = 0; r < size; r++)
    if ((*slot)[r]) {
      (*toranks)[*nto]  = r;
      (*tocounts)[*nto] = (*slot)[r];
      (*slot)[r]        = (*nto)++;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the senders to this process (ascending) and their counts, and where each one's entries start here */
static PetscErrorCode MatSpmvOwnersFrom(MPI_Comm icomm, PetscMPIInt nto, const PetscMPIInt toranks[], const PetscMPIInt tocounts[], PetscMPIInt *nfrom, PetscMPIInt **fromranks, PetscMPIInt **fromcounts, PetscInt **fromoff, PetscInt *nrecv)
{
  PetscFunctionBegin;
  PetscCall(PetscCommBuildTwoSided(icomm, 1, MPI_INT, nto, toranks, tocounts, nfrom, fromranks, fromcounts));
  PetscCall(PetscSortMPIIntWithArray(*nfrom, *fromranks, *fromcounts));
  PetscCall(PetscMalloc1(*nfrom, fromoff));
  *nrecv = 0;
  for (PetscMPIInt i = 0; i < *nfrom; i++) {
    (*fromoff)[i] = *nrecv;
    PetscCall(PetscIntSumError(*nrecv, (*fromcounts)[i], nrecv));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvSFCreateToOwners(MPI_Comm comm, PetscLayout map, PetscInt n, const PetscInt rows[], PetscSF *sf, PetscInt *nrecv)
{
  MPI_Comm     icomm;
  PetscMPIInt  tag, nto, nfrom, *dest, *slot, *toranks, *tocounts, *fromranks, *fromcounts;
  PetscInt    *tobase, *fromoff;
  PetscSFNode *iremote;
  MPI_Request *reqs;

  PetscFunctionBegin;
  PetscCall(PetscCommDuplicate(comm, &icomm, &tag));
  PetscCall(MatSpmvOwnersCount(icomm, map, n, rows, &dest, &slot, &nto, &toranks, &tocounts));
  PetscCall(MatSpmvOwnersFrom(icomm, nto, toranks, tocounts, &nfrom, &fromranks, &fromcounts, &fromoff, nrecv));
  /* the senders learn nothing of each other: each owner tells each sender where its entries start */
  PetscCall(PetscMalloc2(nto, &tobase, nto + nfrom, &reqs));
  for (PetscMPIInt j = 0; j < nto; j++) PetscCallMPI(MPI_Irecv(&tobase[j], 1, MPIU_INT, toranks[j], tag, icomm, &reqs[j]));
  for (PetscMPIInt i = 0; i < nfrom; i++) PetscCallMPI(MPI_Isend(&fromoff[i], 1, MPIU_INT, fromranks[i], tag, icomm, &reqs[nto + i]));
  PetscCallMPI(MPI_Waitall(nto + nfrom, reqs, MPI_STATUSES_IGNORE));
  PetscCall(PetscMalloc1(PetscMax(n, 1), &iremote)); /* the SF's */
  for (PetscInt k = 0; k < n; k++) {
    iremote[k].rank  = dest[k];
    iremote[k].index = tobase[slot[dest[k]]]++;
  }
  PetscCall(PetscSFCreate(comm, sf));
  PetscCall(PetscSFSetGraph(*sf, *nrecv, n, NULL, PETSC_COPY_VALUES, iremote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(*sf));
  PetscCall(PetscFree2(tobase, reqs));
  PetscCall(PetscFree(fromoff));
  PetscCall(PetscFree(fromranks));
  PetscCall(PetscFree(fromcounts));
  PetscCall(PetscFree2(toranks, tocounts));
  PetscCall(PetscFree2(dest, slot));
  PetscCall(PetscCommDestroy(&icomm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvSendToOwners(MPI_Comm comm, PetscLayout map, PetscInt n, const PetscInt rows[], const PetscInt cols[], const PetscScalar vals[], PetscInt *nrecv, PetscInt **rrows, PetscInt **rcols, PetscScalar **rvals)
{
  MPI_Comm     icomm;
  PetscMPIInt  tag, tag2, nto, nfrom, *dest, *slot, *toranks, *tocounts, *fromranks, *fromcounts;
  PetscInt    *fromoff, *sendij, *recvij, *pos;
  PetscScalar *sendv;
  MPI_Request *reqs;

  PetscFunctionBegin;
  PetscCall(PetscCommDuplicate(comm, &icomm, &tag));
  PetscCall(PetscCommGetNewTag(icomm, &tag2));
  PetscCall(MatSpmvOwnersCount(icomm, map, n, rows, &dest, &slot, &nto, &toranks, &tocounts));
  PetscCall(MatSpmvOwnersFrom(icomm, nto, toranks, tocounts, &nfrom, &fromranks, &fromcounts, &fromoff, nrecv));
  /* each owner's entries together: (row, column) pairs and values */
  PetscCall(PetscMalloc3(2 * PetscMax(n, 1), &sendij, PetscMax(n, 1), &sendv, nto + 1, &pos));
  pos[0] = 0;
  for (PetscMPIInt j = 0; j < nto; j++) pos[j + 1] = pos[j] + tocounts[j];
  for (PetscInt k = 0; k < n; k++) {
    const PetscInt q = pos[slot[dest[k]]]++;

    sendij[2 * q]     = rows[k];
    sendij[2 * q + 1] = cols[k];
    sendv[q]          = vals[k];
  }
  PetscCall(PetscMalloc3(PetscMax(*nrecv, 1), rrows, PetscMax(*nrecv, 1), rcols, PetscMax(*nrecv, 1), rvals));
  PetscCall(PetscMalloc2(2 * PetscMax(*nrecv, 1), &recvij, 2 * (nto + nfrom), &reqs));
  for (PetscMPIInt i = 0; i < nfrom; i++) {
    PetscCallMPI(MPI_Irecv(recvij + 2 * fromoff[i], 2 * fromcounts[i], MPIU_INT, fromranks[i], tag, icomm, &reqs[2 * i]));
    PetscCallMPI(MPI_Irecv(*rvals + fromoff[i], fromcounts[i], MPIU_SCALAR, fromranks[i], tag2, icomm, &reqs[2 * i + 1]));
  }
  for (PetscMPIInt j = 0; j < nto; j++) { /* pos[j] is now where owner j's entries end */
    const PetscInt start = pos[j] - tocounts[j];

    PetscCallMPI(MPI_Isend(sendij + 2 * start, 2 * tocounts[j], MPIU_INT, toranks[j], tag, icomm, &reqs[2 * (nfrom + j)]));
    PetscCallMPI(MPI_Isend(sendv + start, tocounts[j], MPIU_SCALAR, toranks[j], tag2, icomm, &reqs[2 * (nfrom + j) + 1]));
  }
  PetscCallMPI(MPI_Waitall(2 * (nto + nfrom), reqs, MPI_STATUSES_IGNORE));
  for (PetscInt q = 0; q < *nrecv; q++) {
    (*rrows)[q] = recvij[2 * q];
    (*rcols)[q] = recvij[2 * q + 1];
  }
  PetscCall(PetscFree2(recvij, reqs));
  PetscCall(PetscFree3(sendij, sendv, pos));
  PetscCall(PetscFree(fromoff));
  PetscCall(PetscFree(fromranks));
  PetscCall(PetscFree(fromcounts));
  PetscCall(PetscFree2(toranks, tocounts));
  PetscCall(PetscFree2(dest, slot));
  PetscCall(PetscCommDestroy(&icomm));
  PetscFunctionReturn(PETSC_SUCCESS);
}
