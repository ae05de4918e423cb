/*
  Device services of the shared layer: memory, copies on PETSc's current stream, and the value
  refresh (a gather from the CSR values into the format's slots).
*/
#include "../spmvimpl.h"
#include "../spmvkernels.h"
#include <unistd.h>
#include <sys/mman.h>
#include <sched.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/scan.h>
#include <thrust/binary_search.h>
#include <thrust/reduce.h>
#include <thrust/functional.h>
#include <thrust/device_ptr.h>
#include <thrust/transform_reduce.h>
#include <thrust/transform.h>
#include <cub/device/device_segmented_sort.cuh>
#include <thread>
#include <vector>
#include <cub/device/device_radix_sort.cuh>

/* CUDA loads a module (one per .cu file of ours, about 1 MB of sm_90 code each) at the first use of
   one of its kernels: ~2 ms each at a matrix's first build with CUDA's default lazy loading (H100,
   KSP ex45 160^3), of a build of ~8 ms beyond aijcusparse's upload. Loaded on a helper thread
   during that upload they only slowed it as much (measured): the thread starts when the matrix is
   made instead, and loads while the program assembles it on the host. Each kernel once per
   process; the threads are joined at the first build and when the package finalizes */
static std::vector<const void *>  MatSpmvPreloadAsked; /* by the calling (PETSc's) thread only */
static std::vector<std::thread *> MatSpmvPreloadThreads;

PetscErrorCode MatSpmvCUDAPreload(PetscInt n, const void *const *kernels)
{
  std::vector<const void *> todo;
  int                       dev;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < n; k++) {
    bool seen = !kernels[k];

    for (const void *a : MatSpmvPreloadAsked) seen = seen || a == kernels[k];
    if (seen) continue;
    MatSpmvPreloadAsked.push_back(kernels[k]);
    todo.push_back(kernels[k]);
  }
  if (todo.empty()) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaGetDevice(&dev));
  try {
    MatSpmvPreloadThreads.push_back(new std::thread([dev, todo]() {
      cudaFuncAttributes attr;

      if (cudaSetDevice(dev) == cudaSuccess)
        for (const void *k : todo) (void)cudaFuncGetAttributes(&attr, k);
      (void)cudaGetLastError(); /* this thread's: an error here only means loading at first use */
    }));
  } catch (const std::exception &) {
    /* no thread: the modules load at first use */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAPreloadWait(void)
{
  PetscFunctionBegin;
  for (std::thread *t : MatSpmvPreloadThreads) {
    t->join();
    delete t;
  }
  MatSpmvPreloadThreads.clear();
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAAvailable(PetscBool *avail)
{
  static int ndevices = -1; /* the answer does not change during a run */

  PetscFunctionBegin;
  if (ndevices < 0) {
    /* no driver, a stub driver or no device all mean: no GPU, not an error */
    cudaError_t err = cudaGetDeviceCount(&ndevices);

    if (err != cudaSuccess) ndevices = 0;
    (void)cudaGetLastError();
    /* but a machine with an NVIDIA driver's device node and no CUDA device is a set-up error,
       said once whatever -info says: most often the stub libcuda shadowing the driver's */
    if (!ndevices && access("/dev/nvidiactl", F_OK) == 0) {
      const char *visible = getenv("CUDA_VISIBLE_DEVICES");

      PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "petscspmv WARNING: /dev/nvidiactl exists but CUDA reports %s%s: the matrices' products run on the CPU (AIJ's, or the formats' host reference kernels). Check LD_LIBRARY_PATH for a stub libcuda.so.1 (the CUDA toolkit's lib64/stubs, petscspmv's nodriver directory) ahead of the driver's, and CUDA_VISIBLE_DEVICES (%s%s%s).\n", err == cudaSuccess ? "no device" : "the error ", err == cudaSuccess ? "" : cudaGetErrorName(err), visible ? "\"" : "", visible ? visible : "not set", visible ? "\"" : ""));
    }
  }
  *avail = ndevices > 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAGetStream(void **stream)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&s));
  *stream = (void *)s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscInt MatSpmvFailDeviceAlloc = 0;

static PetscInt MatSpmvDeviceAllocCount = 0; /* counted while the hook is set */

PetscBool MatSpmvCUDAAllocFails(void)
{
  return (PetscBool)(MatSpmvFailDeviceAlloc > 0 && ++MatSpmvDeviceAllocCount == MatSpmvFailDeviceAlloc);
}

PetscInt MatSpmvCUDAAllocCount(void)
{
  return MatSpmvDeviceAllocCount;
}

size_t MatSpmvCUDALayoutBytes(void)
{
  return sizeof(struct _n_MatSpmvLayout);
}

/* Out of device memory is a PETSc error the caller may answer with a fallback (PETSC_ERR_MEM), not
   PETSc's generic GPU error */
PetscErrorCode MatSpmvCUDAMalloc(void **ptr, size_t bytes)
{
  cudaError_t err;

  PetscFunctionBegin;
  *ptr = NULL;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  err = MatSpmvCUDAAllocFails() ? cudaErrorMemoryAllocation : cudaMalloc(ptr, bytes);
  if (err == cudaErrorMemoryAllocation) {
    size_t avail = 0, total = 0;

    *ptr = NULL;              /* whatever a failed cudaMalloc() left there */
    (void)cudaGetLastError(); /* not sticky: the device goes on */
    (void)cudaMemGetInfo(&avail, &total);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of device memory: %.1f MiB asked for, %.1f of %.1f MiB free%s; spread the problem over more GPUs (MPI processes) or free device memory", (double)bytes / 1048576.0, (double)avail / 1048576.0, (double)total / 1048576.0, MatSpmvFailDeviceAlloc > 0 ? " (made to fail by -petscspmv_fail_device_alloc)" : "");
  }
  PetscCallCUDA(err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's aijcusparse calls thrust outside any catch in places (its symbolic products, its transpose
   product's work vectors): a device allocation failing there throws through PETSc's C frames, and
   uncaught it ends the process (std::terminate). The frames it unwinds are left as they were (an event
   begun, an array not restored): the run ends with the error, which says what happened */
PetscErrorCode MatSpmvCUDACatch(PetscErrorCode (*fn)(void *), void *ctx, const char *what)
{
  PetscFunctionBegin;
  try {
    PetscCall((*fn)(ctx));
  } catch (const std::bad_alloc &ex) {
    (void)cudaGetLastError(); /* not sticky: the device goes on */
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of device memory in %s (thrust in PETSc's aijcusparse: %s): spread the problem over more GPUs (MPI processes) or free device memory", what, ex.what());
  } catch (const std::exception &ex) {
    (void)cudaGetLastError();
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "A C++ exception in %s on the GPU: %s", what, ex.what());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAFree(void *ptr)
{
  PetscFunctionBegin;
  if (ptr) PetscCallCUDA(cudaFree(ptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDACopyToDevice(void *dst, const void *src, size_t bytes, void *stream)
{
  PetscFunctionBegin;
  if (bytes) {
    if (!stream) PetscCall(MatSpmvCUDAGetStream(&stream)); /* PETSc's */
    PetscCallCUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, (cudaStream_t)stream));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDACopyToHost(void *dst, const void *src, size_t bytes, void *stream)
{
  PetscFunctionBegin;
  if (bytes) {
    if (!stream) PetscCall(MatSpmvCUDAGetStream(&stream)); /* PETSc's */
    PetscCallCUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, (cudaStream_t)stream));
    PetscCallCUDA(cudaStreamSynchronize((cudaStream_t)stream));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* On PETSc's stream, not the legacy one: with -root_device_context_stream_type nonblocking a plain
   cudaMemcpy() would not be ordered with the kernels that read the array (from pageable memory it
   returns before its DMA ends). The source may be freed on return: pageable memory is staged */
PetscErrorCode MatSpmvCUDAUpload(void **dst, const void *src, size_t bytes)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAMalloc(dst, bytes));
  PetscCall(MatSpmvCUDACopyToDevice(*dst, src, bytes, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <typename V, typename I>
__global__ void MatSpmvGatherKernel(I nslots, const I *__restrict__ slot2csr, const V *__restrict__ csrval, V *__restrict__ val)
{
  /* the stride in 64 bits: near 2^31 slots a 32-bit s + stride wraps negative */
  for (long long s = blockIdx.x * (long long)blockDim.x + threadIdx.x; s < nslots; s += (long long)gridDim.x * blockDim.x) {
    I k    = slot2csr[s];
    val[s] = k >= 0 ? csrval[k] : V(0);
  }
}

/* the gather with I-bit CSR positions */
template <typename I>
static PetscErrorCode MatSpmvCUDAGatherI(PetscInt nslots, const I *slot2csr, const PetscScalar *csrval, PetscScalar *val, void *stream)
{
  PetscFunctionBegin;
  if (nslots) {
    MatSpmvGatherKernel<PetscScalar, I><<<MatSpmvGrid(nslots), MATSPMV_THREADS, 0, (cudaStream_t)stream>>>((I)nslots, slot2csr, csrval, val);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAGather(PetscInt nslots, const int *slot2csr, const PetscScalar *csrval, PetscScalar *val, void *stream)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAGatherI<int>(nslots, slot2csr, csrval, val, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAGather64(PetscInt nslots, const long long *slot2csr, const PetscScalar *csrval, PetscScalar *val, void *stream)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAGatherI<long long>(nslots, slot2csr, csrval, val, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <typename V, typename I>
__global__ void MatSpmvAddRowsKernel(I n, const I *__restrict__ crow, const V *__restrict__ t, V *__restrict__ y)
{
  for (I k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) y[crow[k]] += t[k];
}

PetscErrorCode MatSpmvCUDAAddRows(PetscInt n, const int *crow, const PetscScalar *t, PetscScalar *y, void *stream)
{
  PetscFunctionBegin;
  if (n) {
    MatSpmvAddRowsKernel<PetscScalar, int><<<MatSpmvGrid(n), MATSPMV_THREADS, 0, (cudaStream_t)stream>>>((int)n, crow, t, y);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAZero(PetscScalar *y, PetscInt n, void *stream)
{
  PetscFunctionBegin;
  if (n) PetscCallCUDA(cudaMemsetAsync(y, 0, n * sizeof(PetscScalar), (cudaStream_t)stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDASynchronize(void *stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaStreamSynchronize((cudaStream_t)stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDASynchronizeDevice(void)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Not ordered with the legacy stream (PETSc's by default) but by events; of the highest priority: its
   kernels' blocks are scheduled ahead of those still waiting of a product on PETSc's stream */
PetscErrorCode MatSpmvCUDAStreamCreate(void **stream)
{
  cudaStream_t s;
  int          least, greatest;

  PetscFunctionBegin;
  PetscCallCUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  PetscCallCUDA(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest));
  *stream = (void *)s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAStreamDestroy(void *stream)
{
  PetscFunctionBegin;
  if (stream) PetscCallCUDA(cudaStreamDestroy((cudaStream_t)stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAEventCreate(void **event)
{
  cudaEvent_t e;

  PetscFunctionBegin;
  PetscCallCUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  *event = (void *)e;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAEventDestroy(void *event)
{
  PetscFunctionBegin;
  if (event) PetscCallCUDA(cudaEventDestroy((cudaEvent_t)event));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAEventSynchronize(void *event)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaEventSynchronize((cudaEvent_t)event));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAStreamWait(void *waiter, void *signaller, void *event)
{
  PetscFunctionBegin;
  if (!waiter) PetscCall(MatSpmvCUDAGetStream(&waiter));
  if (!signaller) PetscCall(MatSpmvCUDAGetStream(&signaller));
  PetscCallCUDA(cudaEventRecord((cudaEvent_t)event, (cudaStream_t)signaller));
  PetscCallCUDA(cudaStreamWaitEvent((cudaStream_t)waiter, (cudaEvent_t)event, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDADeviceUUID(char uuid[16])
{
  static char           cached[16];
  static int            cacheddev = -1;
  int                   dev;
  struct cudaDeviceProp prop;

  PetscFunctionBegin;
  PetscCallCUDA(cudaGetDevice(&dev));
  if (dev != cacheddev) {
    PetscCallCUDA(cudaGetDeviceProperties(&prop, dev));
    PetscCall(PetscMemcpy(cached, prop.uuid.bytes, 16));
    cacheddev = dev;
  }
  PetscCall(PetscMemcpy(uuid, cached, 16));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Page-locked memory is slow to get and to give back (H100 host: cudaMallocHost ~0.5 ms a MiB,
   cudaFreeHost ~0.15), and GAMG's set-up asks for a block per graph and per product result, each
   about as large as one it gave back just before (KSP ex45 160^3: 0.6 s of a 1.4 s set-up). Blocks
   given back are kept, up to MatSpmvPinnedCacheMax bytes in all, the oldest let go first, and a
   request takes the smallest kept block that holds it but not four times over (a small buffer
   must not pin a large block for its life). Each block carries its size and kind in a header of 64
   bytes (the alignment cudaMallocHost gives is kept) */
#define MATSPMV_PINNED_HEADER 64
#define MATSPMV_PINNED_KEPT   32                        /* blocks kept at most */
static char    *MatSpmvPinnedKept[MATSPMV_PINNED_KEPT]; /* the oldest first; each block's size (header included) in its header */
static int      MatSpmvPinnedNKept     = 0;
static size_t   MatSpmvPinnedKeptBytes = 0, MatSpmvPinnedCacheMax = 0;
static PetscInt MatSpmvPinnedReused = 0, MatSpmvPinnedAllocated = 0;

static size_t MatSpmvPinnedBytes(const char *base)
{
  return *(const size_t *)base;
}

/* the k-th kept block, taken off the list */
static char *MatSpmvPinnedTake(int k)
{
  char *base = MatSpmvPinnedKept[k];

  MatSpmvPinnedKeptBytes -= MatSpmvPinnedBytes(base);
  for (int l = k + 1; l < MatSpmvPinnedNKept; l++) MatSpmvPinnedKept[l - 1] = MatSpmvPinnedKept[l];
  MatSpmvPinnedNKept--;
  return base;
}

/* A block of at least want bytes, page-locked; its size and how it was made in its header. From
   MATSPMV_PINNED_HUGE bytes on, host memory on transparent huge pages (2 MiB, where the system gives
   them on madvise) registered with CUDA: the system backs and locks 2 MiB a page, where cudaMallocHost()
   does it 4 KiB at a time (H200 host: KSP ex45 160^3's strength graph, 352 MB, made on the host in
   0.10 instead of 0.16 s; GAMG's set-up 0.58-0.69 instead of 0.79-0.83 s by the medians of 3, s150 and s151). Where
   registering fails, cudaMallocHost()'s */
PetscLogEvent MATSPMV_PinnedNew;

#define MATSPMV_PINNED_HUGE ((size_t)4 << 20)
#define MATSPMV_HUGE_PAGE   ((size_t)2 << 20)
#define MATSPMV_FAULT_MIN   ((size_t)16 << 20) /* smaller blocks: a thread's start costs more than it saves */
#define MATSPMV_FAULT_MAX   8                  /* threads: 170 MiB in 0.0088 s by 8, 0.0066 by 16 */

/* a write to each page of [p, p + len) in the t-th of nt contiguous parts */
static void MatSpmvPinnedTouch(char *p, size_t len, int t, int nt)
{
  const size_t part = (len / MATSPMV_HUGE_PAGE + nt - 1) / nt * MATSPMV_HUGE_PAGE;
  const size_t end  = PetscMin(len, (t + 1) * part);

  for (size_t o = t * part; o < end; o += 4096) ((volatile char *)p)[o] = 0;
}

/* The pages of a new block faulted in by several threads before its registration: the kernel zeroes
   each new page in the thread that faults it in, and cudaHostRegister() faults them in one thread
   (timed on an H200 host: 170 MiB registered in 0.025 s, 0.009 s after 8 threads faulted it in;
   GAMG's set-up of KSP ex45 160^3 makes 0.7 GB of new blocks: its PCSetUp 0.56 against 0.66 s as one
   process, medians of 3, s250). Threads: as many as the CPUs this
   process may run on, at most MATSPMV_FAULT_MAX (an MPI process bound to one core gets none). Where
   a thread cannot start, the registration faults in its part */
static int MatSpmvPinnedFaultIn(char *p, size_t len)
{
  static int               ncpu = 0;
  std::vector<std::thread> threads;

  if (!ncpu) {
#if defined(__linux__)
    cpu_set_t set;

    ncpu = sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set);
#else
    ncpu = 1;
#endif
  }
  const int nt = PetscMin(ncpu, MATSPMV_FAULT_MAX);
  if (nt < 2 || len < MATSPMV_FAULT_MIN) return 0;
  try {
    threads.reserve(nt - 1);
    for (int t = 1; t < nt; t++) threads.emplace_back(MatSpmvPinnedTouch, p, len, t, nt);
  } catch (...) { /* fewer threads: their parts are left to the registration */
  }
  MatSpmvPinnedTouch(p, len, 0, nt);
  for (std::thread &th : threads) th.join();
  return 1 + (int)threads.size();
}

static cudaError_t MatSpmvPinnedGet(char **base, size_t want, int *threads)
{
  *threads = 0;
  if (want >= MATSPMV_PINNED_HUGE) {
    const size_t len = (want + MATSPMV_HUGE_PAGE - 1) / MATSPMV_HUGE_PAGE * MATSPMV_HUGE_PAGE;
    void        *p   = NULL;

    if (!posix_memalign(&p, MATSPMV_HUGE_PAGE, len)) {
#if defined(MADV_HUGEPAGE)
      (void)madvise(p, len, MADV_HUGEPAGE); /* a hint: without it, pages of 4 KiB */
#endif
      *threads = MatSpmvPinnedFaultIn((char *)p, len);
      if (cudaHostRegister(p, len, cudaHostRegisterDefault) == cudaSuccess) {
        *base            = (char *)p;
        ((size_t *)p)[0] = len;
        ((size_t *)p)[1] = 1; /* registered */
        return cudaSuccess;
      }
      (void)cudaGetLastError(); /* not sticky: cleared for the next call */
      free(p);
      *threads = 0;
    }
  }
  cudaError_t err = cudaMallocHost((void **)base, want);
  if (err == cudaSuccess) {
    ((size_t *)*base)[0] = want;
    ((size_t *)*base)[1] = 0;
  }
  return err;
}

static cudaError_t MatSpmvPinnedPut(char *base)
{
  cudaError_t err;

  if (!((size_t *)base)[1]) return cudaFreeHost(base);
  err = cudaHostUnregister(base);
  free(base);
  return err;
}

/* gives back the k-th kept block to CUDA */
static PetscErrorCode MatSpmvPinnedDrop(int k)
{
  PetscFunctionBegin;
  PetscCallCUDA(MatSpmvPinnedPut(MatSpmvPinnedTake(k)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAHostAlloc(void **ptr, size_t bytes)
{
  const size_t want = bytes + MATSPMV_PINNED_HEADER;
  int          best = -1;
  char        *base;

  PetscFunctionBegin;
  *ptr = NULL;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  for (int k = 0; k < MatSpmvPinnedNKept; k++) {
    const size_t b = MatSpmvPinnedBytes(MatSpmvPinnedKept[k]);

    if (b >= want && b / 4 <= want && (best < 0 || b < MatSpmvPinnedBytes(MatSpmvPinnedKept[best]))) best = k;
  }
  if (best >= 0) {
    base = MatSpmvPinnedTake(best);
    MatSpmvPinnedReused++;
  } else {
    cudaError_t err;
    int         threads;

    PetscCall(PetscLogEventBegin(MATSPMV_PinnedNew, 0, 0, 0, 0));
    err = MatSpmvPinnedGet(&base, want, &threads);
    PetscCall(PetscLogEventEnd(MATSPMV_PinnedNew, 0, 0, 0, 0));
    PetscCallCUDA(err);
    if (want >= MATSPMV_PINNED_HUGE)
      PetscCall(PetscInfo(NULL, "A page-locked block of %.1f MiB: %s, its pages first touched by %d thread%s\n", want / 1048576.0, ((size_t *)base)[1] ? "huge pages registered with CUDA" : "cudaMallocHost's (registering failed)", PetscMax(threads, 1), threads > 1 ? "s" : ""));
    MatSpmvPinnedAllocated++;
  }
  *ptr = base + MATSPMV_PINNED_HEADER;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAHostFree(void *ptr)
{
  char  *base;
  size_t bytes;

  PetscFunctionBegin;
  if (!ptr) PetscFunctionReturn(PETSC_SUCCESS);
  base  = (char *)ptr - MATSPMV_PINNED_HEADER;
  bytes = MatSpmvPinnedBytes(base);
  if (bytes > MatSpmvPinnedCacheMax) {
    PetscCallCUDA(MatSpmvPinnedPut(base));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  while (MatSpmvPinnedNKept == MATSPMV_PINNED_KEPT || MatSpmvPinnedKeptBytes + bytes > MatSpmvPinnedCacheMax) PetscCall(MatSpmvPinnedDrop(0));
  MatSpmvPinnedKept[MatSpmvPinnedNKept++] = base;
  MatSpmvPinnedKeptBytes += bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAPinnedCacheSetMax(size_t bytes)
{
  PetscFunctionBegin;
  MatSpmvPinnedCacheMax = bytes;
  while (MatSpmvPinnedKeptBytes > MatSpmvPinnedCacheMax) PetscCall(MatSpmvPinnedDrop(0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAPinnedCacheRelease(void)
{
  PetscFunctionBegin;
  if (MatSpmvPinnedAllocated) PetscCall(PetscInfo(NULL, "Page-locked host blocks: %" PetscInt_FMT " allocated, %" PetscInt_FMT " requests served by blocks given back\n", MatSpmvPinnedAllocated, MatSpmvPinnedReused));
  PetscCall(MatSpmvCUDAPinnedCacheSetMax(0)); /* and blocks given back later are freed at once */
  MatSpmvPinnedReused = MatSpmvPinnedAllocated = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDACopyOnDevice(void *dst, const void *src, size_t bytes, void *stream)
{
  PetscFunctionBegin;
  if (bytes && dst != src) PetscCallCUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAIsIdentity(PetscInt n, const int *slot2csr, PetscBool *identity, void *stream)
{
  PetscFunctionBegin;
  *identity = PETSC_TRUE;
  if (n) MatSpmvCallThrust(*identity = (PetscBool)thrust::equal(thrust::cuda::par.on((cudaStream_t)stream), slot2csr, slot2csr + n, thrust::counting_iterator<int>(0)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDADownloadInt(PetscInt **h, const int *d, PetscInt n)
{
  int *tmp;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, h));
  PetscCall(PetscMalloc1(n, &tmp));
  if (n) PetscCall(MatSpmvCUDACopyToHost(tmp, d, n * sizeof(int), NULL)); /* after the kernels that wrote d */
  for (PetscInt k = 0; k < n; k++) (*h)[k] = tmp[k];
  PetscCall(PetscFree(tmp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <typename I>
__global__ void MatSpmvColumnCountKernel(I nnz, const I *__restrict__ j, I *__restrict__ count)
{
  for (I k = blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += gridDim.x * blockDim.x) atomicAdd(count + j[k], 1);
}

/* count[r] = i[r + 1] - i[r]: A's row lengths, the column counts of A^T */
template <typename I>
__global__ void MatSpmvRowLengthKernel(I m, const I *__restrict__ i, I *__restrict__ count)
{
  for (I r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) count[r] = i[r + 1] - i[r];
}

const void *MatSpmvCUDALayerKernel(void)
{
  return (const void *)MatSpmvColumnCountKernel<int>;
}

template <typename I>
__global__ void MatSpmvInvertKernel(I n, const I *__restrict__ perm, I *__restrict__ inv)
{
  for (I k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) inv[perm[k]] = k;
}

#define MATSPMV_COUNT_BINS 256 /* column counts below this go to a block's shared histogram */

/* The histogram of the column counts below MATSPMV_COUNT_BINS (hist), and the number and sum of the
   counts at or above it (big): each block counts in shared memory and adds its bins once, since a
   mesh's few distinct counts would otherwise serialize millions of atomics on a few addresses */
template <typename I>
__global__ void MatSpmvCountHistogramKernel(I n, const I *__restrict__ count, I *__restrict__ hist, unsigned long long *__restrict__ big)
{
  __shared__ I                  bins[MATSPMV_COUNT_BINS];
  __shared__ unsigned long long over[2];

  for (int b = threadIdx.x; b < MATSPMV_COUNT_BINS; b += blockDim.x) bins[b] = 0;
  if (threadIdx.x < 2) over[threadIdx.x] = 0;
  __syncthreads();
  for (I c = blockIdx.x * blockDim.x + threadIdx.x; c < n; c += gridDim.x * blockDim.x) {
    const I k = count[c];

    if (k < MATSPMV_COUNT_BINS) atomicAdd(bins + k, (I)1);
    else {
      atomicAdd(over + 0, 1ULL);
      atomicAdd(over + 1, (unsigned long long)k);
    }
  }
  __syncthreads();
  for (int b = threadIdx.x; b < MATSPMV_COUNT_BINS; b += blockDim.x)
    if (bins[b]) atomicAdd(hist + b, bins[b]);
  if (threadIdx.x < 2 && over[threadIdx.x]) atomicAdd(big + threadIdx.x, over[threadIdx.x]);
}

PetscErrorCode MatSpmvCUDAColumnFrequency(const MatSpmvDeviceCSR *A, PetscBool transpose, PetscReal minshare, int **d_perm, PetscInt *hot, void *stream)
{
  const PetscInt n = transpose ? A->m : A->n, nnz = A->nnz;
  const int     *d_i = transpose ? A->i : NULL, *d_j = A->j;
  cudaStream_t   s   = (cudaStream_t)stream;
  auto           pol = thrust::cuda::par.on(s);
  const int      top = (int)PetscMax(1, n / 100);
  int           *count;

  PetscFunctionBegin;
  *d_perm = NULL;
  *hot    = 0;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvCUDAMalloc((void **)&count, n * sizeof(int)));
  if (d_i) { /* A^T's columns: A's rows */
    MatSpmvRowLengthKernel<int><<<MatSpmvGrid(n), MATSPMV_THREADS, 0, s>>>((int)n, d_i, count);
    PetscCallCUDA(cudaGetLastError());
  } else {
    PetscCallCUDA(cudaMemsetAsync(count, 0, n * sizeof(int), s));
    if (nnz) {
      MatSpmvColumnCountKernel<int><<<MatSpmvGrid(nnz), MATSPMV_THREADS, 0, s>>>((int)nnz, d_j, count);
      PetscCallCUDA(cudaGetLastError());
    }
  }
  if (minshare > 0) { /* the top columns' nonzeros from the histogram of the counts: no sort unless the order is made */
    struct {
      int                hist[MATSPMV_COUNT_BINS];
      unsigned long long big[2];
    } h, *d_h;

    PetscCall(MatSpmvCUDAMalloc((void **)&d_h, sizeof(h)));
    PetscCallCUDA(cudaMemsetAsync(d_h, 0, sizeof(h), s));
    MatSpmvCountHistogramKernel<int><<<MatSpmvGrid(n), MATSPMV_THREADS, 0, s>>>((int)n, count, d_h->hist, d_h->big);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cudaMemcpyAsync(&h, d_h, sizeof(h), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    PetscCall(MatSpmvCUDAFree(d_h));
    if (h.big[0] <= (unsigned long long)top) { /* every count past the bins is among the top ones */
      PetscInt left = top - (PetscInt)h.big[0];

      *hot = (PetscInt)h.big[1];
      for (PetscInt c = MATSPMV_COUNT_BINS - 1; c >= 0 && left > 0; c--) {
        const PetscInt take = PetscMin(left, (PetscInt)h.hist[c]);

        *hot += take * c;
        left -= take;
      }
      if ((PetscReal)*hot < minshare * (PetscReal)nnz) {
        PetscCall(MatSpmvCUDAFree(count));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
    }
  }
  PetscCall(MatSpmvCUDAMalloc((void **)d_perm, n * sizeof(int)));
  {
    thrust::device_ptr<int> c(count), p(*d_perm);

    MatSpmvCallThrust(thrust::sequence(pol, p, p + n));
    /* most frequent first, ties in the natural order: a stable radix sort of the negated counts */
    MatSpmvCallThrust(thrust::transform(pol, c, c + n, c, thrust::negate<int>()));
    MatSpmvCallThrust(thrust::stable_sort_by_key(pol, c, c + n, p));
    MatSpmvCallThrust(*hot = -(PetscInt)thrust::reduce(pol, c, c + top, (long long)0));
  }
  PetscCall(MatSpmvCUDAFree(count));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Row r of the permuted CSR (offsets inew) is row rows[r] of the CSR (i, j): its renumbered columns
   jr[k] = inv[j[.]] and their positions in (i, j), one warp per row */
template <typename I>
__global__ void MatSpmvPermuteRowsKernel(I m, const I *__restrict__ i, const I *__restrict__ rows, const I *__restrict__ inew, const I *__restrict__ j, const I *__restrict__ inv, I *__restrict__ jr, I *__restrict__ pos)
{
  const I lane = threadIdx.x % 32;

  for (I r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < m; r += gridDim.x * blockDim.x / 32) {
    const I start = i[rows[r]], len = i[rows[r] + 1] - start, to = inew[r];

    for (I q = lane; q < len; q += 32) {
      jr[to + q]  = inv[j[start + q]];
      pos[to + q] = start + q;
    }
  }
}

/* The columns of the m x n CSR A (A->i, A->j) renumbered, column c becoming k where d_perm[k] = c, each
   row sorted by its new columns: *d_jnew, and *d_pos the position in A's CSR of each entry. With
   d_rows, row r of the result is row d_rows[r] of A, at offsets d_inew (rows permuted too) */
PetscErrorCode MatSpmvCUDARenumberColumns(const MatSpmvDeviceCSR *A, const int *d_perm, const int *d_rows, const int *d_inew, int **d_jnew, int **d_pos, void *stream)
{
  const PetscInt m = A->m, n = A->n, nnz = A->nnz;
  const int     *d_i = A->i, *d_j = A->j;
  cudaStream_t   s = (cudaStream_t)stream;
  int           *inv, *jr, *seq;
  void          *tmp   = NULL;
  size_t         bytes = 0;

  PetscFunctionBegin;
  *d_jnew = *d_pos = NULL;
  if (!nnz) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvCUDAMalloc((void **)&inv, n * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)&jr, nnz * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)&seq, nnz * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)d_jnew, nnz * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)d_pos, nnz * sizeof(int)));
  MatSpmvInvertKernel<int><<<MatSpmvGrid(n), MATSPMV_THREADS, 0, s>>>((int)n, d_perm, inv);
  PetscCallCUDA(cudaGetLastError());
  if (d_rows) {
    MatSpmvPermuteRowsKernel<int><<<MatSpmvGrid(32 * PetscMin(m, PETSC_INT_MAX / 32)), MATSPMV_THREADS, 0, s>>>((int)m, d_i, d_rows, d_inew, d_j, inv, jr, seq);
    d_i = d_inew;
  } else {
    MatSpmvGatherKernel<int, int><<<MatSpmvGrid(nnz), MATSPMV_THREADS, 0, s>>>((int)nnz, d_j, inv, jr); /* jr[k] = inv[j[k]] */
    PetscCallCUDA(cudaGetLastError());
    MatSpmvCallThrust(thrust::sequence(thrust::cuda::par.on(s), thrust::device_ptr<int>(seq), thrust::device_ptr<int>(seq + nnz)));
  }
  PetscCallCUDA(cudaGetLastError());
  /* each row's entries by their new column, with the CSR position they came from */
  PetscCallCUDA(cub::DeviceSegmentedSort::SortPairs(tmp, bytes, jr, *d_jnew, seq, *d_pos, (int)nnz, (int)m, d_i, d_i + 1, s));
  PetscCall(MatSpmvCUDAMalloc(&tmp, PetscMax(bytes, 1)));
  PetscCallCUDA(cub::DeviceSegmentedSort::SortPairs(tmp, bytes, jr, *d_jnew, seq, *d_pos, (int)nnz, (int)m, d_i, d_i + 1, s));
  PetscCall(MatSpmvCUDAFree(tmp)); /* cudaFree waits for the sort */
  PetscCall(MatSpmvCUDAFree(seq));
  PetscCall(MatSpmvCUDAFree(jr));
  PetscCall(MatSpmvCUDAFree(inv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The CSR of A^T from A's device CSR (m x n, nnz entries), in new device arrays: row offsets *d_ti
   (n + 1), columns *d_tj (A's rows, increasing within each row) and *d_tpos, the position in A's CSR
   each entry came from: the positions sorted by their columns, stably. A^T's layouts and the
   symmetrized graph (graph.cu) */
PetscErrorCode MatSpmvCUDATransposeCSR(const MatSpmvDeviceCSR *A, int **d_ti, int **d_tj, int **d_tpos, void *stream)
{
  const PetscInt m = A->m, n = A->n, nnz = A->nnz;
  const int     *d_i = A->i, *d_j = A->j;
  cudaStream_t   s   = (cudaStream_t)stream;
  auto           pol = thrust::cuda::par.on(s);
  int           *keys;

  PetscFunctionBegin;
  *d_tj = *d_tpos = NULL;
  PetscCall(MatSpmvCUDAMalloc((void **)d_ti, (n + 1) * sizeof(int)));
  if (!nnz || !n) {
    PetscCallCUDA(cudaMemsetAsync(*d_ti, 0, (n + 1) * sizeof(int), s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSpmvCUDAMalloc((void **)&keys, nnz * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)d_tj, nnz * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)d_tpos, nnz * sizeof(int)));
  PetscCallCUDA(cudaMemcpyAsync(keys, d_j, nnz * sizeof(int), cudaMemcpyDeviceToDevice, s));
  MatSpmvCallThrust(thrust::sequence(pol, thrust::device_ptr<int>(*d_tpos), thrust::device_ptr<int>(*d_tpos + nnz)));
  PetscCall(MatSpmvCUDASortPairs(nnz, keys, *d_tpos, (int)(n - 1), stream));
  /* row c of A^T starts at the first entry of column c or more */
  MatSpmvCallThrust(thrust::lower_bound(pol, thrust::device_ptr<int>(keys), thrust::device_ptr<int>(keys + nnz), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>((int)n + 1), thrust::device_ptr<int>(*d_ti)));
  /* the sorted columns are spent: the row of each position of A's CSR, then gathered in A^T's order */
  MatSpmvEntryRowsKernel<int><<<MatSpmvGrid(32 * PetscMin(m, PETSC_INT_MAX / 32)), MATSPMV_THREADS, 0, s>>>((int)m, d_i, keys);
  PetscCallCUDA(cudaGetLastError());
  MatSpmvGatherKernel<int, int><<<MatSpmvGrid(nnz), MATSPMV_THREADS, 0, s>>>((int)nnz, *d_tpos, keys, *d_tj); /* tj[k] = rowof[tpos[k]] */
  PetscCallCUDA(cudaGetLastError());
  PetscCall(MatSpmvCUDAFree(keys)); /* cudaFree waits for the gather */
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <typename I>
__global__ void MatSpmvComposeKernel(I n, I *__restrict__ map, const I *__restrict__ pos)
{
  for (I k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) map[k] = map[k] < 0 ? map[k] : pos[map[k]];
}

PetscErrorCode MatSpmvCUDAComposeMap(PetscInt n, int *d_map, const int *d_pos, void *stream)
{
  PetscFunctionBegin;
  if (n) {
    MatSpmvComposeKernel<int><<<MatSpmvGrid(n), MATSPMV_THREADS, 0, (cudaStream_t)stream>>>((int)n, d_map, d_pos);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The row-length statistics of a CSR's nonempty rows, in one pass: their count, longest, sum and sum of squares */
struct MatSpmvRowSums { /* no padding: the result copied to the host is every byte written */
  long long nonempty, longest;
  double    sum, sumsq;
};
struct MatSpmvRowSumsOf {
  const int                *i;
  __device__ MatSpmvRowSums operator()(int r) const
  {
    const int len = i[r + 1] - i[r];
    return {len > 0 ? 1LL : 0LL, (long long)len, (double)len, (double)len * (double)len};
  }
};
struct MatSpmvRowSumsAdd {
  __device__ MatSpmvRowSums operator()(const MatSpmvRowSums &a, const MatSpmvRowSums &b) const { return {a.nonempty + b.nonempty, max(a.longest, b.longest), a.sum + b.sum, a.sumsq + b.sumsq}; }
};

PetscErrorCode MatSpmvCUDARowLengthStats(PetscInt m, const int *d_i, MatSpmvRowStats *stats, void *stream)
{
  MatSpmvRowSums st = {0, 0, 0, 0};

  PetscFunctionBegin;
  if (m) MatSpmvCallThrust(st = thrust::transform_reduce(thrust::cuda::par.on((cudaStream_t)stream), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>((int)m), MatSpmvRowSumsOf{d_i}, st, MatSpmvRowSumsAdd{}));
  stats->nonempty = (PetscInt)st.nonempty;
  stats->longest  = (PetscInt)st.longest;
  stats->mean     = st.nonempty ? (PetscReal)(st.sum / (double)st.nonempty) : 0;
  stats->stddev   = st.nonempty ? (PetscReal)PetscSqrtReal(PetscMax(st.sumsq / (double)st.nonempty - (st.sum / (double)st.nonempty) * (st.sum / (double)st.nonempty), 0.0)) : 0;
  stats->sum      = (PetscReal)st.sum;
  stats->sumsq    = (PetscReal)st.sumsq;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatSpmvRowStats of A^T's n rows: A's column counts (nnz column indices d_j), summed into row offsets */
PetscErrorCode MatSpmvCUDAColumnLengthStats(PetscInt n, PetscInt nnz, const int *d_j, MatSpmvRowStats *stats, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  int         *ti;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAMalloc((void **)&ti, (n + 1) * sizeof(int)));
  PetscCallCUDA(cudaMemsetAsync(ti, 0, (n + 1) * sizeof(int), s));
  if (nnz) {
    MatSpmvColumnCountKernel<int><<<MatSpmvGrid(nnz), MATSPMV_THREADS, 0, s>>>((int)nnz, d_j, ti + 1);
    PetscCallCUDA(cudaGetLastError());
    MatSpmvCallThrust(thrust::inclusive_scan(thrust::cuda::par.on(s), thrust::device_ptr<int>(ti + 1), thrust::device_ptr<int>(ti + n + 1), thrust::device_ptr<int>(ti + 1)));
  }
  PetscCall(MatSpmvCUDARowLengthStats(n, ti, stats, stream));
  PetscCall(MatSpmvCUDAFree(ti));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* keys (0 to maxkey) and their values sorted by key, stable: an LSD radix sort over the keys' bits only
   (a few passes where a full 32-bit sort takes four) */
PetscErrorCode MatSpmvCUDASortPairs(PetscInt n, int *keys, int *vals, int maxkey, void *stream)
{
  cudaStream_t s     = (cudaStream_t)stream;
  int          bits  = 1, *k2, *v2;
  void        *tmp   = NULL;
  size_t       bytes = 0;

  PetscFunctionBegin;
  if (n < 2) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(maxkey >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "sort keys must be nonnegative");
  while (bits < 31 && (maxkey >> bits)) bits++;
  {
    cub::DoubleBuffer<int> kb(keys, NULL), vb(vals, NULL);
    char                  *work;

    PetscCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, bytes, kb, vb, (int)n, 0, bits, s));
    /* one allocation (each cudaFree() waits for the device): the keys' and values' other buffers, then CUB's */
    PetscCall(MatSpmvCUDAMalloc((void **)&work, 2 * (size_t)n * sizeof(int) + bytes + 256));
    k2  = (int *)work;
    v2  = k2 + n;
    tmp = (void *)(work + ((2 * (size_t)n * sizeof(int) + 255) / 256) * 256);
    kb  = cub::DoubleBuffer<int>(keys, k2);
    vb  = cub::DoubleBuffer<int>(vals, v2);
    PetscCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, bytes, kb, vb, (int)n, 0, bits, s));
    if (kb.Current() != keys) PetscCallCUDA(cudaMemcpyAsync(keys, kb.Current(), n * sizeof(int), cudaMemcpyDeviceToDevice, s));
    if (vb.Current() != vals) PetscCallCUDA(cudaMemcpyAsync(vals, vb.Current(), n * sizeof(int), cudaMemcpyDeviceToDevice, s));
  }
  PetscCall(MatSpmvCUDAFree(k2)); /* the whole work block; cudaFree waits for the sort and the copies */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The far share of MatSpmvWideShare() (order.c) for rows in their natural column order, sorted by
   length as the formats place them: one warp per sampled group of MATSPMV_SPAN_ROWS rows, a lane per row */
template <typename I>
__global__ void MatSpmvWideGroupsKernel(I m, I ngroups, const I *__restrict__ i, const I *__restrict__ j, const I *__restrict__ rows, unsigned long long *__restrict__ counts)
{
  const I lane = threadIdx.x % 32;

  for (I g = (blockIdx.x * blockDim.x + threadIdx.x) / 32; g < ngroups; g += gridDim.x * blockDim.x / 32) {
    const I q     = g * MATSPMV_SPAN_ROWS * MATSPMV_SPAN_SAMPLE + lane;
    I       start = 0, len = 0, lo, hi, nnz, longest;

    if (q < m) {
      const I r = rows[q];

      start = i[r];
      len   = i[r + 1] - start;
    }
    lo      = len ? j[start] : PETSC_INT32_MAX;
    hi      = len ? j[start + len - 1] : -1;
    nnz     = len;
    longest = len;
    for (int d = 16; d; d /= 2) {
      lo = min(lo, __shfl_xor_sync(0xffffffffu, lo, d));
      hi = max(hi, __shfl_xor_sync(0xffffffffu, hi, d));
      nnz += __shfl_xor_sync(0xffffffffu, nnz, d);
      longest = max(longest, __shfl_xor_sync(0xffffffffu, longest, d));
    }
    if (!nnz) continue;
    if (hi - lo + 1 >= MATSPMV_SPAN16) { /* the whole group is wide: are its k-th columns? */
      bool isfar = false;

      for (I k = 0; k < longest && !isfar; k++) { /* longest and the spans are the warp's: all lanes agree */
        I klo = k < len ? j[start + k] : PETSC_INT32_MAX, khi = k < len ? j[start + k] : -1;

        for (int d = 16; d; d /= 2) {
          klo = min(klo, __shfl_xor_sync(0xffffffffu, klo, d));
          khi = max(khi, __shfl_xor_sync(0xffffffffu, khi, d));
        }
        isfar = khi - klo + 1 >= MATSPMV_SPAN16;
      }
      if (isfar && lane == 0) atomicAdd(counts + 0, (unsigned long long)nnz);
    }
    if (lane == 0) atomicAdd(counts + 1, (unsigned long long)nnz);
  }
}

PetscErrorCode MatSpmvCUDAWideShare(PetscInt m, const int *d_i, const int *d_j, PetscInt longest, PetscReal *share, void *stream)
{
  cudaStream_t       s       = (cudaStream_t)stream;
  const int          ngroups = (int)((m + MATSPMV_SPAN_ROWS * MATSPMV_SPAN_SAMPLE - 1) / (MATSPMV_SPAN_ROWS * MATSPMV_SPAN_SAMPLE));
  int               *key, *rows;
  unsigned long long counts[2] = {0, 0}, *d_counts;

  PetscFunctionBegin;
  static_assert(MATSPMV_SPAN_ROWS == 32, "a warp per group of rows");
  *share = 0;
  if (!m) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvCUDAMalloc((void **)&key, m * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)&rows, m * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)&d_counts, sizeof(counts)));
  PetscCallCUDA(cudaMemsetAsync(d_counts, 0, sizeof(counts), s));
  {
    auto      pol = thrust::cuda::par.on(s);
    const int top = (int)longest;

    /* longest rows first, rows in order among equals (the formats' order): a stable radix sort of
       longest - length */
    MatSpmvCallThrust(thrust::transform(pol, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>((int)m), key, [d_i, top] __device__(int r) { return top - (d_i[r + 1] - d_i[r]); }));
    MatSpmvCallThrust(thrust::sequence(pol, rows, rows + m));
  }
  PetscCall(MatSpmvCUDASortPairs(m, key, rows, (int)longest, stream));
  MatSpmvWideGroupsKernel<int><<<MatSpmvGrid((PetscInt)ngroups * 32), MATSPMV_THREADS, 0, s>>>((int)m, ngroups, d_i, d_j, rows, d_counts);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(counts, d_counts, sizeof(counts), cudaMemcpyDeviceToHost, s));
  PetscCallCUDA(cudaStreamSynchronize(s));
  PetscCall(MatSpmvCUDAFree(key));
  PetscCall(MatSpmvCUDAFree(rows));
  PetscCall(MatSpmvCUDAFree(d_counts));
  *share = counts[1] ? (PetscReal)counts[0] / (PetscReal)counts[1] : 0.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- value changes on aijcusparse's device CSR (values.c) ---- */

/* diag[r]: the position of entry (r, r) in the sorted row r, or -1 (then *missing is set) */
template <typename I>
__global__ void MatSpmvFindDiagonalKernel(I m, const I *__restrict__ i, const I *__restrict__ j, I *__restrict__ diag, int *__restrict__ missing)
{
  for (I r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) {
    const I at = MatSpmvFindColumn(j, i[r], i[r + 1], r);

    diag[r] = at;
    if (at < 0) *missing = 1;
  }
}

template <typename V, typename I>
__global__ void MatSpmvShiftKernel(I m, const I *__restrict__ diag, V alpha, V *__restrict__ a)
{
  for (I r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) a[diag[r]] += alpha;
}

PetscErrorCode MatSpmvCUDAShift(PetscInt m, const int *d_i, const int *d_j, PetscScalar alpha, PetscScalar *d_a, PetscBool *shifted, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  int         *diag, *d_missing, missing = 0;

  PetscFunctionBegin;
  *shifted = PETSC_TRUE;
  if (!m) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvCUDAMalloc((void **)&diag, m * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)&d_missing, sizeof(int)));
  PetscCallCUDA(cudaMemsetAsync(d_missing, 0, sizeof(int), s));
  MatSpmvFindDiagonalKernel<int><<<MatSpmvGrid(m), MATSPMV_THREADS, 0, s>>>((int)m, d_i, d_j, diag, d_missing);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(&missing, d_missing, sizeof(int), cudaMemcpyDeviceToHost, s));
  PetscCallCUDA(cudaStreamSynchronize(s));
  if (!missing) {
    MatSpmvShiftKernel<PetscScalar, int><<<MatSpmvGrid(m), MATSPMV_THREADS, 0, s>>>((int)m, diag, alpha, d_a);
    PetscCallCUDA(cudaGetLastError());
  }
  *shifted = missing ? PETSC_FALSE : PETSC_TRUE;
  PetscCall(MatSpmvCUDAFree(diag)); /* cudaFree waits for the kernel */
  PetscCall(MatSpmvCUDAFree(d_missing));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = a y (x NULL) or y += a x over n values, n past 2^31 too (aijcusparse's MatScale() and MatAXPY() call
   cuBLAS, whose counts are 32-bit) */
template <typename V, typename N>
__global__ void MatSpmvScaleValuesKernel(N n, V a, const V *__restrict__ x, V *__restrict__ y)
{
  for (N k = (N)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (N)gridDim.x * blockDim.x) y[k] = x ? y[k] + a * x[k] : a * y[k];
}

PetscErrorCode MatSpmvCUDAScaleValues(PetscCount n, PetscScalar a, const PetscScalar *x, PetscScalar *y, void *stream)
{
  PetscFunctionBegin;
  if (n > 0) {
    MatSpmvScaleValuesKernel<PetscScalar, long long><<<MatSpmvGrid((PetscInt)PetscMin(n, (PetscCount)PETSC_INT32_MAX)), MATSPMV_THREADS, 0, (cudaStream_t)stream>>>((long long)n, a, x, y);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a(r, c) = l[r] a(r, c) r[c], l or r NULL: 1; a warp per row, its lanes over the row's entries */
template <typename V, typename I>
__global__ void MatSpmvDiagonalScaleKernel(I m, const I *__restrict__ i, const I *__restrict__ j, const V *__restrict__ l, const V *__restrict__ rs, V *__restrict__ a)
{
  const I lane = threadIdx.x % 32;

  for (I r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < m; r += gridDim.x * blockDim.x / 32) {
    const V lr = l ? l[r] : V(1);

    for (I k = i[r] + lane; k < i[r + 1]; k += 32) a[k] *= rs ? lr * rs[j[k]] : lr;
  }
}

PetscErrorCode MatSpmvCUDADiagonalScale(PetscInt m, const int *d_i, const int *d_j, const PetscScalar *l, const PetscScalar *r, PetscScalar *d_a, void *stream)
{
  PetscFunctionBegin;
  if (m && (l || r)) {
    MatSpmvDiagonalScaleKernel<PetscScalar, int><<<MatSpmvGrid(32 * m), MATSPMV_THREADS, 0, (cudaStream_t)stream>>>((int)m, d_i, d_j, l, r, d_a);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y += alpha X where X's pattern is within Y's: each X entry's position in Y's row (columns ascending),
   -1 where it has none (*missing set); a warp per row */
template <typename I>
__global__ void MatSpmvSubsetPositionsKernel(I m, const I *__restrict__ xi, const I *__restrict__ xj, const I *__restrict__ yi, const I *__restrict__ yj, I *__restrict__ pos, int *missing)
{
  const I lane = threadIdx.x % 32;

  for (I r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < m; r += gridDim.x * blockDim.x / 32)
    for (I k = xi[r] + lane; k < xi[r + 1]; k += 32) {
      pos[k] = MatSpmvFindColumn(yj, yi[r], yi[r + 1], xj[k]);
      if (pos[k] < 0) atomicExch(missing, 1);
    }
}

/* alpha x rounded before it is added (no fused multiply-add): PETSc's host AXPY rounds twice, and where
   y + alpha x cancels a fused one differs from it by far more than its rounding */
template <typename V>
__device__ __forceinline__ V MatSpmvMulRounded(V a, V b)
{
  if constexpr (cuda::std::is_same<V, double>::value) return __dmul_rn(a, b);
  else if constexpr (cuda::std::is_same<V, float>::value) return __fmul_rn(a, b);
  else return a * b;
}

template <typename V, typename I>
__global__ void MatSpmvAXPYPositionsKernel(I nnz, const I *__restrict__ pos, const V *__restrict__ x, V alpha, V *__restrict__ y)
{
  for (I k = blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += gridDim.x * blockDim.x) y[pos[k]] += MatSpmvMulRounded(alpha, x[k]); /* distinct positions */
}

/* Y += alpha X for X's pattern within Y's, on the device CSRs; *subset false (Y untouched) where it is not */
PetscErrorCode MatSpmvCUDAAXPYSubset(const MatSpmvDeviceCSR *X, const MatSpmvDeviceCSR *Y, PetscScalar alpha, PetscScalar *ya, PetscBool *subset, void *stream)
{
  const PetscInt m = Y->m, xnnz = X->nnz;
  cudaStream_t   s = (cudaStream_t)stream;
  int           *pos, *d_missing, missing = 0;

  PetscFunctionBegin;
  *subset = PETSC_TRUE;
  if (!m || !xnnz) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvCUDAMalloc((void **)&pos, xnnz * sizeof(int) + sizeof(int)));
  d_missing = pos + xnnz;
  PetscCallCUDA(cudaMemsetAsync(d_missing, 0, sizeof(int), s));
  MatSpmvSubsetPositionsKernel<int><<<MatSpmvGrid(32 * m), MATSPMV_THREADS, 0, s>>>((int)m, X->i, X->j, Y->i, Y->j, pos, d_missing);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(MatSpmvCUDACopyToHost(&missing, d_missing, sizeof(int), stream));
  if (!missing) {
    MatSpmvAXPYPositionsKernel<PetscScalar, int><<<MatSpmvGrid(xnnz), MATSPMV_THREADS, 0, s>>>((int)xnnz, pos, X->a, alpha, ya);
    PetscCallCUDA(cudaGetLastError());
  }
  *subset = missing ? PETSC_FALSE : PETSC_TRUE;
  PetscCall(MatSpmvCUDAFree(pos)); /* cudaFree waits for the kernel */
  PetscFunctionReturn(PETSC_SUCCESS);
}
