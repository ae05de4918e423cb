/*
  MATBRC: Blocked Row-Column storage (Ashari, Sedaghati, Eisenlohr, Sadayappan, ICS'14).

  Rows are sorted by length and cut into pieces of at most B2 nonzeros; pieces, longest first,
  are packed B1 at a time into blocks of width T = the longest piece of the block (Eq. 2), stored
  column-major so the B1 threads of a block read consecutive slots. Shorter pieces are padded
  with zeros at the previous column. A row cut into several pieces is summed with atomics.
*/
#include "brcimpl.h"

/* coarsening 1 and the automatic sorting window (MatBRCWindow()) measured fastest (docs/results.md,
   "brc's kernel: what was tried" and "FEM operators: 16-bit offsets per slot column and the RCM order",
   item 6) */
static const MatBRCParams MatBRCParamsDefault = {32, 0, 200, 1, -1, 1, 1};

static PetscErrorCode MatSpmvFormatSetFromOptions_BRC(PetscOptionItems PetscOptionsObject, void *params)
{
  MatBRCParams *p = (MatBRCParams *)params;
  PetscBool     set;

  PetscFunctionBegin;
  /* 1.3: words for the paper's symbols b1, b2 */
  PetscCall(PetscOptionsDeprecated("-mat_brc_b1", "-mat_brc_block_height", "1.3", NULL));
  PetscCall(PetscOptionsDeprecated("-mat_brc_b2", "-mat_brc_block_width", "1.3", NULL));
  PetscCall(PetscOptionsDeprecated("-mat_brc_b2_max", "-mat_brc_block_width_max", "1.3", NULL));
  PetscCall(PetscOptionsRangeInt("-mat_brc_block_height", "Rows per block (a power of two); 32 is one warp per block", "MatBRCSetBlockHeight", p->b1, &p->b1, &set, 1, 256));
  PetscCheck(!(p->b1 & (p->b1 - 1)), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_brc_block_height %" PetscInt_FMT " must be a power of two from 1 to 256, e.g. 32", p->b1);
  PetscCall(PetscOptionsRangeInt("-mat_brc_block_width", "Largest block width; 0 picks min(round(mu+sigma), longest row, -mat_brc_block_width_max) (paper Eq. 3)", "MatBRCSetBlockWidth", p->b2, &p->b2, &set, 0, PETSC_INT_MAX));
  PetscCall(PetscOptionsRangeInt("-mat_brc_block_width_max", "Cap on the automatic block width", "MatBRCSetBlockWidth", p->b2max, &p->b2max, &set, 1, PETSC_INT_MAX));
  PetscCall(PetscOptionsRangeInt("-mat_brc_window", "Rows per length-sorting window; 0 sorts all rows (the paper); -1: all rows, but 16384 for irregular rows in their natural column order", "MatBRCSetSortWindow", p->window, &p->window, &set, -1, PETSC_INT_MAX));
  PetscCall(PetscOptionsRangeInt("-mat_brc_coarsen", "Blocks per thread; 0 picks 4 when sigma > mu (paper), else 1", "MatBRCSetCoarsening", p->coarsen, &p->coarsen, &set, 0, 1024));
  {
    PetscBool compress = (PetscBool)(p->compress != 0);

    PetscCall(PetscOptionsBool("-mat_brc_compress", "GPU: column indices as 16-bit offsets from each block's first column, or each slot column's in blocks spanning 65536 columns or more, 32-bit where even those span that much (all 32-bit when such blocks hold over a quarter of the entries)", "MatBRCSetCompress", compress, &compress, &set));
    p->compress = compress;
  }
  {
    PetscBool runs = (PetscBool)(p->runs != 0);

    PetscCall(PetscOptionsBool("-mat_brc_column_runs", "GPU, with -mat_brc_compress: one 16-bit offset per run of 2 to 4 consecutive columns (a mesh node's unknowns) in blocks whose every row has them at the same slots", "MatBRCSetColumnRuns", runs, &runs, &set));
    p->runs = runs;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Algorithm 1 of the paper, in linear time: a row of length k*B2 + r gives k pieces of B2 and one
   of r; a counting sort orders pieces by length (longest first, rows in their original order
   among equals), which is the order the paper's priority queue produces up to ties.
   The sort runs inside windows of consecutive rows (all rows: the paper's global sort); each
   window's pieces fill whole blocks, so a block writes y inside its window. */
static PetscErrorCode MatSpmvFormatBuild_BRC(const void *params, const MatSpmvCSR *csr, MatSpmvLayout L)
{
  const MatBRCParams *p = (const MatBRCParams *)params;
  MatBRCLayout       *brc;
  PetscInt            m = csr->m, b1 = p->b1, b2, W, npad = 0, q0 = 0, *cnt, *prow, *pstart, *plen, nslots = 0;
  PetscReal           sum = 0, sum2 = 0;

  PetscFunctionBegin;
  PetscCall(PetscNew(&brc));
  L->fmt = brc;
  for (PetscInt r = 0; r < m; r++) {
    PetscInt len = csr->i[r + 1] - csr->i[r];

    sum += len;
    sum2 += (PetscReal)len * len;
    brc->maxnz = PetscMax(brc->maxnz, len);
  }
  brc->mu       = m ? sum / m : 0;
  brc->sigma    = m ? PetscSqrtReal(PetscMax(sum2 / m - brc->mu * brc->mu, 0)) : 0;
  b2            = p->b2 > 0 ? p->b2 : PetscMin((PetscInt)PetscFloorReal(brc->mu + brc->sigma + 0.5), p->b2max);
  b2            = PetscMax(PetscMin(b2, brc->maxnz), 1); /* no piece is longer than the longest row */
  W             = MatBRCWindow(p, csr, brc->mu, brc->sigma);
  brc->b1       = b1;
  brc->b2       = b2;
  brc->rep      = p->coarsen > 0 ? p->coarsen : (brc->sigma > brc->mu ? 4 : 1);
  brc->window   = W;
  brc->compress = (PetscBool)(p->compress != 0);
  brc->runs     = (PetscBool)(p->runs != 0);

  /* rows that blocks do not write alone: empty rows and rows split over several pieces */
  for (PetscInt r = 0; r < m; r++) {
    PetscInt len = csr->i[r + 1] - csr->i[r];
    if (!len || len > b2) brc->ninit++;
    if (len > b2) brc->nsplit++;
  }
  PetscCall(PetscMalloc1(brc->ninit, &brc->initrows));
  brc->ninit = 0;
  for (PetscInt r = 0; r < m; r++) {
    PetscInt len = csr->i[r + 1] - csr->i[r];
    if (!len || len > b2) brc->initrows[brc->ninit++] = r;
  }
  /* pieces of each window, rounded up to whole blocks */
  for (PetscInt w0 = 0; w0 < m; w0 += W) {
    PetscInt c = 0;
    for (PetscInt r = w0; r < PetscMin(m, w0 + W); r++) {
      PetscInt len = csr->i[r + 1] - csr->i[r];
      c += len / b2 + (len % b2 ? 1 : 0);
    }
    npad += (c + b1 - 1) / b1 * b1;
  }
  PetscCall(PetscMalloc3(npad, &prow, npad, &pstart, npad, &plen));
  PetscCall(PetscMalloc1(b2 + 1, &cnt));
  for (PetscInt w0 = 0; w0 < m; w0 += W) {
    PetscInt w1 = PetscMin(m, w0 + W), c = 0;

    PetscCall(PetscArrayzero(cnt, b2 + 1));
    for (PetscInt r = w0; r < w1; r++) {
      PetscInt len = csr->i[r + 1] - csr->i[r];
      cnt[b2] += len / b2;
      if (len % b2) cnt[len % b2]++;
    }
    for (PetscInt l = b2; l >= 1; l--) { /* exclusive offsets, longest pieces first */
      PetscInt n = cnt[l];
      cnt[l]     = q0 + c;
      c += n;
    }
    for (PetscInt r = w0; r < w1; r++) {
      PetscInt len = csr->i[r + 1] - csr->i[r], k;

      for (k = 0; k + b2 <= len; k += b2) {
        PetscInt q = cnt[b2]++;
        prow[q]    = r;
        pstart[q]  = csr->i[r] + k;
        plen[q]    = b2;
      }
      if (k < len) {
        PetscInt q = cnt[len - k]++;
        prow[q]    = r;
        pstart[q]  = csr->i[r] + k;
        plen[q]    = len - k;
      }
    }
    for (PetscInt q = q0 + c; q < q0 + (c + b1 - 1) / b1 * b1; q++) prow[q] = -1, pstart[q] = 0, plen[q] = 0; /* dummy lanes */
    q0 += (c + b1 - 1) / b1 * b1;
  }
  PetscCall(PetscFree(cnt));

  /* blocks of b1 pieces, width = their first (longest) piece */
  brc->nblocks = npad / b1;
  PetscCall(PetscMalloc1(brc->nblocks + 1, &brc->blockoff));
  brc->blockoff[0] = 0;
  for (PetscInt b = 0; b < brc->nblocks; b++) {
    nslots += b1 * plen[b * b1];
    brc->blockoff[b + 1] = nslots;
  }
  L->nslots = nslots;
  PetscCall(PetscMalloc1(nslots, &L->slot2csr));
  PetscCall(PetscMalloc1(nslots, &brc->col));
  PetscCall(PetscMalloc1(npad, &brc->rowidx));
  for (PetscInt b = 0; b < brc->nblocks; b++) {
    PetscInt off = brc->blockoff[b], T = (brc->blockoff[b + 1] - off) / b1;

    for (PetscInt r = 0; r < b1; r++) {
      PetscInt q = b * b1 + r, row = prow[q];

      if (row >= 0) brc->rowidx[q] = csr->i[row + 1] - csr->i[row] > b2 ? -(row + 2) : row;
      else brc->rowidx[q] = -1;
      for (PetscInt j = 0; j < T; j++) {
        PetscInt s = off + j * b1 + r;

        if (j < plen[q]) {
          brc->col[s]    = csr->j[pstart[q] + j];
          L->slot2csr[s] = pstart[q] + j;
        } else { /* padding at the previous column (already in cache): this lane's, or the previous lane's for a dummy */
          brc->col[s]    = j ? brc->col[s - b1] : brc->col[s - 1];
          L->slot2csr[s] = -1;
        }
      }
    }
  }
  PetscCall(PetscFree3(prow, pstart, plen));
  L->indexbytes = sizeof(int) * (nslots + npad + brc->nblocks + 1 + brc->ninit);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvFormatSlotRowCol_BRC(MatSpmvLayout L, PetscInt *row, PetscInt *col)
{
  MatBRCLayout *brc = (MatBRCLayout *)L->fmt;

  PetscFunctionBegin;
  for (PetscInt b = 0; b < brc->nblocks; b++) {
    PetscInt off = brc->blockoff[b], T = (brc->blockoff[b + 1] - off) / brc->b1;

    for (PetscInt r = 0; r < brc->b1; r++) {
      PetscInt dst = brc->rowidx[b * brc->b1 + r];

      for (PetscInt j = 0; j < T; j++) {
        PetscInt s = off + j * brc->b1 + r;
        row[s]     = dst >= 0 ? dst : (dst == -1 ? -1 : -dst - 2);
        col[s]     = brc->col[s];
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Host reference kernel: the device kernel's arithmetic as plain loops */
static PetscErrorCode MatSpmvFormatMultHost_BRC(MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
{
  MatBRCLayout *brc = (MatBRCLayout *)L->fmt;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < brc->ninit; k++) y[brc->initrows[k]] = z ? z[brc->initrows[k]] : 0.0;
  for (PetscInt b = 0; b < brc->nblocks; b++) {
    PetscInt off = brc->blockoff[b], T = (brc->blockoff[b + 1] - off) / brc->b1;

    for (PetscInt r = 0; r < brc->b1; r++) {
      PetscInt    dst = brc->rowidx[b * brc->b1 + r];
      PetscScalar sum = 0;

      for (PetscInt j = 0; j < T; j++) {
        PetscInt s = off + j * brc->b1 + r;
        sum += L->val[s] * x[brc->col[s]];
      }
      sum *= L->scale;
      if (dst >= 0) y[dst] = z ? z[dst] + sum : sum;
      else if (dst < -1) y[-dst - 2] += sum;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvFormatDestroy_BRC(MatSpmvLayout L)
{
  MatBRCLayout *brc = (MatBRCLayout *)L->fmt;

  PetscFunctionBegin;
  if (!brc) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(brc->blockoff));
  PetscCall(PetscFree(brc->rowidx));
  PetscCall(PetscFree(brc->col));
  PetscCall(PetscFree(brc->initrows));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDAFree(brc->d_blockoff));
  PetscCall(MatSpmvCUDAFree(brc->d_blockoff64));
  PetscCall(MatSpmvCUDAFree(brc->d_rowidx));
  PetscCall(MatSpmvCUDAFree(brc->d_col));
  PetscCall(MatSpmvCUDAFree(brc->d_initrows));
  PetscCall(MatSpmvCUDAFree(brc->d_col16));
  PetscCall(MatSpmvCUDAFree(brc->d_colbase));
  PetscCall(MatSpmvCUDAFree(brc->d_colwide));
  PetscCall(MatSpmvCUDAFree(brc->d_jbase));
  PetscCall(MatSpmvCUDAFree(brc->d_runs));
#endif
  PetscCall(PetscFree(L->fmt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Stored row r is operator row rowmap[r] (the layer's RCM order): each block row's y index, and the
   rows set before the blocks run */
static PetscErrorCode MatSpmvFormatMapRows_BRC(MatSpmvLayout L, const PetscInt *rowmap, const int *d_rowmap, void *stream)
{
  MatBRCLayout *brc = (MatBRCLayout *)L->fmt;

  PetscFunctionBegin;
  if (brc->rowidx) {
    PetscCheck(rowmap, PETSC_COMM_SELF, PETSC_ERR_PLIB, "BRC: host rows to map and no host row map");
    for (PetscInt q = 0; q < brc->nblocks * brc->b1; q++) {
      const PetscInt dst = brc->rowidx[q];

      if (dst >= 0) brc->rowidx[q] = rowmap[dst];
      else if (dst < -1) brc->rowidx[q] = -(rowmap[-dst - 2] + 2);
    }
    for (PetscInt k = 0; k < brc->ninit; k++) brc->initrows[k] = rowmap[brc->initrows[k]];
  }
#if defined(PETSC_HAVE_CUDA)
  if (brc->d_rowidx) {
    PetscCheck(d_rowmap, PETSC_COMM_SELF, PETSC_ERR_PLIB, "BRC: device rows to map and no device row map");
    PetscCall(MatBRCMapRowsDevice(L, d_rowmap, stream));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvFormatView_BRC(MatSpmvLayout L, PetscViewer viewer)
{
  MatBRCLayout *brc = (MatBRCLayout *)L->fmt;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "row lengths: mean %.2f, std. dev. %.2f, max %" PetscInt_FMT "\n", (double)brc->mu, (double)brc->sigma, brc->maxnz));
  PetscCall(PetscViewerASCIIPrintf(viewer, "rows sorted by length in windows of %" PetscInt_FMT " rows\n", brc->window));
  PetscCall(PetscViewerASCIIPrintf(viewer, "B1 %" PetscInt_FMT " rows per block, B2 %" PetscInt_FMT " (largest block width), coarsening %" PetscInt_FMT " blocks per thread\n", brc->b1, brc->b2, brc->rep));
  PetscCall(PetscViewerASCIIPrintf(viewer, "%" PetscInt_FMT " blocks, mean width %.2f; %" PetscInt_FMT " rows split over several blocks (atomic sums)\n", brc->nblocks, brc->nblocks ? (double)L->nslots / (double)(brc->nblocks * brc->b1) : 0.0, brc->nsplit));
  if (brc->col16) {
    char far[160] = "";

    if (brc->nwide)
      PetscCall(PetscSNPrintf(far, sizeof(far), ": offsets from each slot column's first column, except %" PetscInt_FMT " blocks (%.1f%% of the slots) that keep 32-bit ones", brc->nfar, L->nslots ? 100.0 * (double)brc->farslots / (double)L->nslots : 0.0));
    PetscCall(PetscViewerASCIIPrintf(viewer, "column indices: 16-bit offsets from each block's first column; %" PetscInt_FMT " of %" PetscInt_FMT " blocks (%.1f%% of the slots) span %d columns or more%s\n", brc->nwide, brc->nblocks,
                                     L->nslots ? 100.0 * (double)brc->wideslots / (double)L->nslots : 0.0, MATBRC_SPAN16, far));
    if (brc->runs) {
      char     runs[128] = "none";
      size_t   len       = 0;
      PetscInt offsets   = L->nslots;

      for (PetscInt g = 2; g <= MATBRC_RUN_MAX; g++) {
        if (!brc->runslots[g]) continue;
        PetscCall(PetscSNPrintf(runs + len, sizeof(runs) - len, "%s%.1f%% of the slots in runs of %" PetscInt_FMT, len ? ", " : "", L->nslots ? 100.0 * (double)brc->runslots[g] / (double)L->nslots : 0.0, g));
        PetscCall(PetscStrlen(runs, &len));
        offsets -= brc->runslots[g] - brc->runslots[g] / g;
      }
      PetscCall(PetscViewerASCIIPrintf(viewer, "column runs (one offset for consecutive columns): %s; %.2f offsets read per nonzero slot\n", runs, L->nslots ? (double)offsets / (double)L->nslots : 0.0));
    }
  } else if (brc->compress && brc->widest >= MATBRC_SPAN16)
    PetscCall(PetscViewerASCIIPrintf(viewer, "column indices: 32-bit (%.1f%% of the slots in blocks whose slot columns span %d columns or more; 16-bit offsets need at most %.0f%%)\n", L->nslots ? 100.0 * (double)brc->farslots / (double)L->nslots : 0.0, MATBRC_SPAN16, 100 * MATBRC_WIDE_FRACTION));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "column indices: 32-bit%s\n", brc->compress ? " (host kernel)" : " (-mat_brc_compress 0)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

MatSpmvFormat MatSpmvFormat_BRC = {
  .name    = "brc",
  .aijname = MATAIJBRC,
  .seqtype = MATSEQAIJBRC,
  .mpitype = MATMPIAIJBRC,
  .title   = "Blocked Row-Column (BRC)",
  /* 16-bit column offsets need each block's columns within 65536: RCM where the numbering spreads them */
  .compactcolumns = PETSC_TRUE,
  .slots64        = PETSC_TRUE,
  .paramsize      = sizeof(MatBRCParams),
  .paramsdefault  = &MatBRCParamsDefault,
  .setfromoptions = MatSpmvFormatSetFromOptions_BRC,
  .build          = MatSpmvFormatBuild_BRC,
  .slotrowcol     = MatSpmvFormatSlotRowCol_BRC,
  .multhost       = MatSpmvFormatMultHost_BRC,
  .maprows        = MatSpmvFormatMapRows_BRC,
#if defined(PETSC_HAVE_CUDA)
  .upload       = MatSpmvFormatUpload_BRC,
  .multdevice   = MatSpmvFormatMultDevice_BRC,
  .builddevice  = MatSpmvFormatBuildDevice_BRC,
  .devicekernel = MatSpmvFormatDeviceKernel_BRC,
  .download     = MatSpmvFormatDownload_BRC,
#endif
  .destroy   = MatSpmvFormatDestroy_BRC,
  .view      = MatSpmvFormatView_BRC,
  .createseq = MatCreate_SeqAIJBRC,
  .creatempi = MatCreate_MPIAIJBRC,
};

MATSPMV_DEFINE_CREATE(BRC, MatSpmvFormat_BRC)

/*@
  MatBRCSetBlockHeight - sets B1, the rows per BRC block (one thread per row of a block)

  Logically Collective

  Input Parameters:
+ A  - a `MATBRC` matrix
- b1 - a power of two from 1 to 256; 32 (one warp per block, the paper's choice) by default

  Options Database Key:
. -mat_brc_block_height <b1> - rows per block

  Level: advanced

.seealso: `MATBRC`, `MatBRCSetBlockWidth()`, `MatBRCSetCoarsening()`
@*/
PetscErrorCode MatBRCSetBlockHeight(Mat A, PetscInt b1)
{
  PetscFunctionBegin;
  PetscValidLogicalCollectiveInt(A, b1, 2);
  PetscCheck(b1 >= 1 && b1 <= 256 && !(b1 & (b1 - 1)), PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "BRC block height %" PetscInt_FMT " must be a power of two from 1 to 256, e.g. 32", b1);
  PetscCall(MatSpmvSetParam_Private(A, &MatSpmvFormat_BRC, offsetof(MatBRCParams, b1), b1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatBRCSetBlockWidth - sets B2, the largest width of a BRC block; longer rows are split over blocks

  Logically Collective

  Input Parameters:
+ A  - a `MATBRC` matrix
- b2 - positive width, or 0 for the paper's Eq. 3: min(round(mu + sigma), longest row, b2_max)

  Options Database Keys:
+ -mat_brc_block_width <b2>         - the width
- -mat_brc_block_width_max <200>    - cap of the automatic width

  Level: advanced

.seealso: `MATBRC`, `MatBRCSetBlockHeight()`
@*/
PetscErrorCode MatBRCSetBlockWidth(Mat A, PetscInt b2)
{
  PetscFunctionBegin;
  PetscValidLogicalCollectiveInt(A, b2, 2);
  PetscCheck(b2 >= 0, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "BRC block width %" PetscInt_FMT " must be positive, or 0 for automatic", b2);
  PetscCall(MatSpmvSetParam_Private(A, &MatSpmvFormat_BRC, offsetof(MatBRCParams, b2), b2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatBRCSetCoarsening - sets how many blocks each GPU thread works through (thread coarsening)

  Logically Collective

  Input Parameters:
+ A   - a `MATBRC` matrix
- rep - from 1 to 1024, or 0 for the paper's rule: 4 when sigma > mu, else 1

  Options Database Key:
. -mat_brc_coarsen <rep> - blocks per thread

  Level: advanced

.seealso: `MATBRC`, `MatBRCSetBlockWidth()`
@*/
PetscErrorCode MatBRCSetCoarsening(Mat A, PetscInt rep)
{
  PetscFunctionBegin;
  PetscValidLogicalCollectiveInt(A, rep, 2);
  PetscCheck(rep >= 0 && rep <= 1024, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "BRC coarsening %" PetscInt_FMT " must be from 1 to 1024, or 0 for automatic", rep);
  PetscCall(MatSpmvSetParam_Private(A, &MatSpmvFormat_BRC, offsetof(MatBRCParams, coarsen), rep));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatBRCSetCompress - sets whether the GPU layout stores column indices as 16-bit offsets

  Logically Collective

  Input Parameters:
+ A        - a `MATBRC` matrix
- compress - `PETSC_TRUE` (the default): each block whose columns span fewer than 65536 columns
             keeps its first column and 16-bit offsets, 10 instead of 12 bytes per nonzero in
             double precision; a wider block keeps the first column of each of its slot columns
             (the k-th entries of its rows) and 16-bit offsets from those; a far block, one of
             whose slot columns spans 65536 or more, keeps 32-bit indices; when far blocks hold
             more than a quarter of the entries, or with `PETSC_FALSE`, all indices are 32-bit

  Options Database Key:
. -mat_brc_compress <bool> - compress the column indices

  Note:
  Values stay exact; only the column indices are stored in fewer bits. The host reference kernel
  always uses 32-bit indices.

  Level: advanced

.seealso: `MATBRC`, `MatBRCSetBlockHeight()`
@*/
PetscErrorCode MatBRCSetCompress(Mat A, PetscBool compress)
{
  PetscFunctionBegin;
  PetscValidLogicalCollectiveBool(A, compress, 2);
  PetscCall(MatSpmvSetParam_Private(A, &MatSpmvFormat_BRC, offsetof(MatBRCParams, compress), compress ? 1 : 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatBRCSetColumnRuns - sets whether the GPU layout reads one column offset per run of consecutive columns

  Logically Collective

  Input Parameters:
+ A    - a `MATBRC` matrix
- runs - `PETSC_TRUE` (the default): where every row of a block holds, in each G of its slots from
         the first (G from 2 to 4), G consecutive columns (the unknowns of a mesh node, interlaced:
         3 in elasticity, 4 in SNES ex19) or only padding, the product reads one 16-bit offset per
         G slots instead of G; blocks keep the largest such G, or none

  Options Database Key:
. -mat_brc_column_runs <bool> - read one offset per run

  Note:
  Takes effect with the 16-bit offsets (`MatBRCSetCompress()`), outside far blocks; the offsets of
  every slot stay stored. In double precision 8.5 to 8.67 instead of 10 bytes per nonzero are read
  in such blocks.

  Level: advanced

.seealso: `MATBRC`, `MatBRCSetCompress()`
@*/
PetscErrorCode MatBRCSetColumnRuns(Mat A, PetscBool runs)
{
  PetscFunctionBegin;
  PetscValidLogicalCollectiveBool(A, runs, 2);
  PetscCall(MatSpmvSetParam_Private(A, &MatSpmvFormat_BRC, offsetof(MatBRCParams, runs), runs ? 1 : 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatBRCSetSortWindow - sets how many consecutive rows are sorted by length together

  Logically Collective

  Input Parameters:
+ A      - a `MATBRC` matrix
- window - rows per window, 0 to sort all rows at once as the paper does, or -1 (the default) for
           all rows except where the rows are irregular (standard deviation of their lengths above
           their mean) and their columns keep their natural order: 16384 rows there

  Options Database Key:
. -mat_brc_window <window> - rows per window

  Note:
  A window keeps each block's writes to y inside a stretch of rows, at the price of less even
  blocks. Measured on the H200: sorting all rows made SNES ex12's Q2 operator faster (its vertex,
  edge, face and cell rows each in blocks of their own) and R-MAT with columns by frequency, left
  the stencils level and made the power-law and circuit matrices slower (docs/results.md,
  "FEM operators: 16-bit offsets per slot column and the RCM order", item 6).

  Level: advanced

.seealso: `MATBRC`, `MatBRCSetBlockWidth()`
@*/
PetscErrorCode MatBRCSetSortWindow(Mat A, PetscInt window)
{
  PetscFunctionBegin;
  PetscValidLogicalCollectiveInt(A, window, 2);
  PetscCheck(window >= -1, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "BRC sort window %" PetscInt_FMT " must be positive, 0 to sort all rows, or -1 for automatic", window);
  PetscCall(MatSpmvSetParam_Private(A, &MatSpmvFormat_BRC, offsetof(MatBRCParams, window), window));
  PetscFunctionReturn(PETSC_SUCCESS);
}
