static char help[] = "Column orders of the layer on meshes (-n 64 or more for the auto cases): a 27-point grid numbered lexicographically, by parity classes\n"
                     "(as DMPlex numbers vertices, edges, faces and cells apart: each group of rows spans the whole matrix,\n"
                     "but the k-th columns of neighbouring rows stay close) and randomly (nothing close). Column order auto\n"
                     "renumbers only the random one, in reverse Cuthill-McKee order, and only for the formats with short\n"
                     "column offsets (brc, spmv); rcm renumbers the square operators of every format; on the GPU brc keeps\n"
                     "16-bit column offsets wherever the order allows, one per run where a point's unknowns keep consecutive columns.\n"
                     "rcm also on a matrix of several components, isolated rows and an entry without its mirror image.\n"
                     "Every product matches MATAIJ's, also after new values.\n";

#include <petscspmv.h>
#include <unistd.h>
#include "check.h"

typedef enum {
  GRID_LEXICOGRAPHIC,
  GRID_PARITY,
  GRID_RANDOM
} GridNumbering;

/* A random permutation of the N^3 points (Fisher-Yates with a fixed 64-bit LCG: the same on every process) */
static PetscInt *shuffle;

static PetscErrorCode MakeShuffle(PetscInt n)
{
  unsigned long long state = 12345;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, &shuffle));
  for (PetscInt q = 0; q < n; q++) shuffle[q] = q;
  for (PetscInt q = n - 1; q > 0; q--) {
    PetscInt p, t;

    state      = state * 6364136223846793005ULL + 1442695040888963407ULL;
    p          = (PetscInt)((state >> 33) % (unsigned long long)(q + 1));
    t          = shuffle[q];
    shuffle[q] = shuffle[p];
    shuffle[p] = t;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Point (i, j, k) of an N^3 grid: lexicographic; or by parity class (i % 2, j % 2, k % 2) first, then
   lexicographically inside the class; or shuffled */
static PetscInt GridIndex(PetscInt N, GridNumbering numbering, PetscInt i, PetscInt j, PetscInt k)
{
  PetscInt h[2], start = 0, cls;

  if (numbering == GRID_LEXICOGRAPHIC) return (i * N + j) * N + k;
  if (numbering == GRID_RANDOM) return shuffle[(i * N + j) * N + k];
  h[0] = (N + 1) / 2; /* points with an even coordinate */
  h[1] = N / 2;
  cls  = (i % 2) * 4 + (j % 2) * 2 + k % 2;
  for (PetscInt c = 0; c < cls; c++) start += h[c / 4] * h[(c / 2) % 2] * h[c % 2];
  return start + ((i / 2) * h[j % 2] + j / 2) * h[k % 2] + k / 2;
}

/* The 27-point coupling of an N^3 grid with dof unknowns per point (consecutive rows, all coupled) */
static PetscErrorCode BuildGrid(MatType type, PetscInt N, PetscInt dof, GridNumbering numbering, Mat *A)
{
  PetscInt n = N * N * N * dof, rstart, rend;

  PetscFunctionBegin;
  if (numbering == GRID_RANDOM) PetscCall(MakeShuffle(N * N * N));
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 27 * dof, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 27 * dof, NULL, 27 * dof, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt i = 0; i < N; i++)
    for (PetscInt j = 0; j < N; j++)
      for (PetscInt k = 0; k < N; k++)
        for (PetscInt f = 0; f < dof; f++) {
          PetscInt    row = GridIndex(N, numbering, i, j, k) * dof + f, cols[27 * 3], nc = 0;
          PetscScalar vals[27 * 3];

          if (row < rstart || row >= rend) continue;
          for (PetscInt di = -1; di <= 1; di++)
            for (PetscInt dj = -1; dj <= 1; dj++)
              for (PetscInt dk = -1; dk <= 1; dk++) {
                if (i + di < 0 || i + di >= N || j + dj < 0 || j + dj >= N || k + dk < 0 || k + dk >= N) continue;
                for (PetscInt g = 0; g < dof; g++) {
                  cols[nc]   = GridIndex(N, numbering, i + di, j + dj, k + dk) * dof + g;
                  vals[nc++] = (di || dj || dk || f != g) ? -1.0 / (1 + PetscAbsInt(di) + PetscAbsInt(dj) + PetscAbsInt(dk) + PetscAbsInt(f - g)) - 0.001 * (row % 7) : 27.0 * dof + (row % 5);
                }
              }
          PetscCall(MatSetValues(*A, 1, &row, nc, cols, vals, INSERT_VALUES));
        }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree(shuffle));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Several components: two 7-point N^3 grids (one numbered randomly, one lexicographically), then
   rows with only a diagonal entry, and one entry without its mirror image (row 0 reaches the last
   row, not back): the rcm order searches each component from its own root */
static PetscErrorCode BuildComponents(MatType type, PetscInt N, Mat *A)
{
  const PetscInt N3 = N * N * N, nisolated = 50, n = 2 * N3 + nisolated;
  PetscInt       rstart, rend;

  PetscFunctionBegin;
  PetscCall(MakeShuffle(N3));
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 8, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 8, NULL, 8, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (int grid = 0; grid < 2; grid++)
    for (PetscInt i = 0; i < N; i++)
      for (PetscInt j = 0; j < N; j++)
        for (PetscInt k = 0; k < N; k++) {
          const PetscInt d[6][3] = {
            {-1, 0,  0 },
            {1,  0,  0 },
            {0,  -1, 0 },
            {0,  1,  0 },
            {0,  0,  -1},
            {0,  0,  1 }
          };
          PetscInt    row = grid * N3 + (grid ? (i * N + j) * N + k : shuffle[(i * N + j) * N + k]), cols[7], nc = 0;
          PetscScalar vals[7];

          if (row < rstart || row >= rend) continue;
          cols[nc]   = row;
          vals[nc++] = 6.5 + (row % 3);
          for (int q = 0; q < 6; q++) {
            const PetscInt ii = i + d[q][0], jj = j + d[q][1], kk = k + d[q][2];

            if (ii < 0 || ii >= N || jj < 0 || jj >= N || kk < 0 || kk >= N) continue;
            cols[nc]   = grid * N3 + (grid ? (ii * N + jj) * N + kk : shuffle[(ii * N + jj) * N + kk]);
            vals[nc++] = -1.0 - 0.01 * q;
          }
          PetscCall(MatSetValues(*A, 1, &row, nc, cols, vals, INSERT_VALUES));
        }
  for (PetscInt row = PetscMax(rstart, 2 * N3); row < rend; row++) PetscCall(MatSetValue(*A, row, row, 2.0 + row % 5, INSERT_VALUES));
  if (rstart == 0) PetscCall(MatSetValue(*A, 0, n - 1, 0.5, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree(shuffle));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether -mat_view ::ascii_info of the sequential matrix S contains text */
static PetscErrorCode ViewContains(Mat S, const char *text, PetscBool *has)
{
  char        fname[PETSC_MAX_PATH_LEN], line[512];
  FILE       *fp;
  PetscViewer v;

  PetscFunctionBegin;
  *has = PETSC_FALSE;
  PetscCall(PetscSNPrintf(fname, sizeof(fname), "/tmp/test_order-%d.txt", (int)getpid()));
  PetscCall(PetscViewerASCIIOpen(PETSC_COMM_SELF, fname, &v));
  PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(S, v));
  PetscCall(PetscViewerPopFormat(v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(PetscFOpen(PETSC_COMM_SELF, fname, "r", &fp));
  while (fgets(line, sizeof(line), fp))
    if (strstr(line, text)) *has = PETSC_TRUE;
  PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
  (void)unlink(fname);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ExpectView(Mat S, const char *text, const char *what)
{
  PetscBool has;

  PetscFunctionBegin;
  PetscCall(ViewContains(S, text, &has));
  PetscCheck(has, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the view has no \"%s\"", what, text);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A's diagonal block (A itself on one process) and its off-diagonal block (NULL on one process) */
static PetscErrorCode Blocks(Mat A, Mat *Ad, Mat *Ao)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  *Ad = A;
  *Ao = NULL;
  if (size > 1) PetscCall(MatMPIAIJGetSeqAIJ(A, Ad, Ao, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The diagonal block's view says (or not) that its columns are in RCM order; the off-diagonal block
   (not square) never is */
static PetscErrorCode ExpectRCM(Mat A, PetscBool rcm, const char *what)
{
  Mat       Ad, Ao;
  PetscBool has;

  PetscFunctionBegin;
  PetscCall(Blocks(A, &Ad, &Ao));
  PetscCall(ViewContains(Ad, "columns renumbered by reverse Cuthill-McKee", &has));
  PetscCheck(has == rcm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the columns are %sin RCM order, expected %s", what, has ? "" : "not ", rcm ? "RCM" : "their own order");
  if (Ao) {
    PetscCall(ViewContains(Ao, "reverse Cuthill-McKee", &has));
    PetscCheck(!has, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the off-diagonal block, not square, has its columns in RCM order", what);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A, of the given type converted from Aref, with the rcm order asked for by option opt (-mat_<type>_column_order):
   products against Aref's, the layout checked, the diagonal block renumbered */
static PetscErrorCode CheckRCMAsked(Mat Aref, MatType type, const char *opt, PetscRandom rnd, const char *name, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatConvert(Aref, type, MAT_INITIAL_MATRIX, A));
  PetscCall(PetscOptionsSetValue(NULL, opt, "rcm"));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(PetscOptionsClearValue(NULL, opt));
  PetscCall(CheckProducts(*A, Aref, rnd, name));
  PetscCall(MatSpmvCheckLayout(*A));
  PetscCall(ExpectRCM(*A, PETSC_TRUE, name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        type[64] = "brc", opt[128];
  PetscInt    N        = 64; /* 262144 rows: on two processes each diagonal block's rows reach 98304 columns apart */
  PetscBool   compact, gpu, has;
  Mat         A, Aref, Ad, Ao;
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpmvInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &N, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  PetscCall(PetscStrcmpAny(type, &compact, "brc", "spmv", ""));

  /* random numbering, column order auto: RCM for the formats with short column offsets */
  PetscCall(BuildGrid(MATAIJ, N, 1, GRID_RANDOM, &Aref));
  PetscCall(MatConvert(Aref, type, MAT_INITIAL_MATRIX, &A));
  PetscCall(CheckProducts(A, Aref, rnd, "random grid, column order auto"));
  PetscCall(MatSpmvCheckLayout(A));
  PetscCall(ExpectRCM(A, compact, "random grid, column order auto"));
  PetscCall(Blocks(A, &Ad, &Ao));
  PetscCall(ViewContains(Ad, "backend CUDA", &gpu));
  if (gpu && compact) PetscCall(ExpectView(Ad, "column indices: 16-bit offsets", "random grid in RCM order: brc keeps 16-bit column offsets"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s: random grid, column order auto: %s\n", type, compact ? "reverse Cuthill-McKee" : "natural (no short column offsets)"));
  /* new values through the renumbered layouts */
  PetscCall(MatScale(A, -0.5));
  PetscCall(MatScale(Aref, -0.5));
  PetscCall(MatShift(A, 3.0));
  PetscCall(MatShift(Aref, 3.0));
  PetscCall(CheckProducts(A, Aref, rnd, "random grid, new values"));

  /* natural: not even measured */
  PetscCall(MatSpmvSetColumnOrder(A, MAT_SPMV_COLUMN_ORDER_NATURAL));
  PetscCall(CheckProducts(A, Aref, rnd, "random grid, column order natural"));
  PetscCall(ExpectRCM(A, PETSC_FALSE, "random grid, column order natural"));
  PetscCall(Blocks(A, &Ad, &Ao));
  PetscCall(ViewContains(Ad, "Cuthill-McKee", &has));
  PetscCheck(!has, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Column order natural: RCM was still computed");
  if (gpu && compact) PetscCall(ExpectView(Ad, "column indices: 32-bit", "random grid in its own order: brc keeps 32-bit columns"));

  /* rcm asked: every format renumbers (the off-diagonal block keeps its order) */
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-mat_%s_column_order", type));
  PetscCall(PetscOptionsSetValue(NULL, opt, "rcm"));
  PetscCall(MatSetFromOptions(A));
  PetscCall(PetscOptionsClearValue(NULL, opt));
  PetscCall(CheckProducts(A, Aref, rnd, "random grid, column order rcm"));
  PetscCall(MatSpmvCheckLayout(A));
  PetscCall(ExpectRCM(A, PETSC_TRUE, "random grid, column order rcm"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s: random grid, column orders natural and rcm (the off-diagonal block keeps its own)\n", type));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));

  /* 3 unknowns per point (rows with the same columns: RCM orders the points, then their rows),
     random numbering of the points, rcm asked */
  PetscCall(BuildGrid(MATAIJ, 24, 3, GRID_RANDOM, &Aref));
  PetscCall(CheckRCMAsked(Aref, type, opt, rnd, "random grid, 3 unknowns per point, column order rcm", &A));
  if (gpu && compact) { /* a point's 3 columns stay consecutive: brc reads one offset per 3 slots */
    PetscCall(Blocks(A, &Ad, &Ao));
    PetscCall(ExpectView(Ad, "in runs of 3", "random grid with 3 unknowns per point in RCM order: brc's column runs of 3"));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s: random grid with 3 unknowns per point, column order rcm%s\n", type, gpu && compact ? ", column runs of 3" : ""));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));

  /* several components, isolated rows and an entry without its mirror image, rcm asked */
  PetscCall(BuildComponents(MATAIJ, 20, &Aref));
  PetscCall(CheckRCMAsked(Aref, type, opt, rnd, "two grids, isolated rows and an unsymmetric entry, column order rcm", &A));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s: two grids, isolated rows and an unsymmetric entry, column order rcm\n", type));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));

  /* parity classes and lexicographic, auto: nothing renumbered; brc's 16-bit offsets from each slot
     column's first column where a block spans the classes */
  for (GridNumbering g = GRID_LEXICOGRAPHIC; g <= GRID_PARITY; g = (GridNumbering)(g + 1)) {
    const char *name = g == GRID_PARITY ? "parity-class grid" : "lexicographic grid";

    PetscCall(BuildGrid(MATAIJ, N, 1, g, &Aref));
    PetscCall(MatConvert(Aref, type, MAT_INITIAL_MATRIX, &A));
    PetscCall(CheckProducts(A, Aref, rnd, name));
    PetscCall(MatSpmvCheckLayout(A));
    PetscCall(ExpectRCM(A, PETSC_FALSE, name));
    if (gpu && compact) {
      PetscCall(Blocks(A, &Ad, &Ao));
      PetscCall(ExpectView(Ad, "column indices: 16-bit offsets", name));
      if (g == GRID_PARITY) PetscCall(ExpectView(Ad, "offsets from each slot column's first column", "parity-class grid: the wide blocks' offsets from each slot column's first column"));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s: %s, column order auto: natural%s\n", type, name, gpu && compact ? ", 16-bit column offsets" : ""));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&Aref));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}
