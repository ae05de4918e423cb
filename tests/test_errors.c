static char help[] = "Bad input gets a clear PETSc error, and the matrix stays intact.\n"
                     "  -type <brc>     petscspmv type to test (its own cases: src/mat/impls/<type>/test-errors)\n"
                     "  -srcdir <path>  the repository root, where the formats' test-errors are (default: found above the program or the working directory)\n";

#include <petscspmv.h>
#include "check.h"
#include "formatfile.h" /* a format's test-errors */

static PetscErrorCode Laplacian(MatType type, PetscInt n, Mat *A)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetUp(*A));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt    c[3] = {i, i - 1, i + 1}, nc = 1 + (i > 0) + (i < n - 1);
    PetscScalar v[3] = {2.0 + i % 3, -1.0, -1.0};
    if (i == 0) c[1] = i + 1;
    PetscCall(MatSetValues(*A, 1, &i, nc, c, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The call must fail with the given error class; its message goes to the log for the reader */
#define EXPECT_ERROR(call, code) \
  do { \
    PetscErrorCode ierr_; \
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); \
    ierr_ = (call); \
    PetscCall(PetscPopErrorHandler()); \
    PetscCheck(ierr_ == (code), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s returned %d, expected %d", #call, (int)ierr_, (int)(code)); \
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s fails with error %d\n", #call, (int)ierr_)); \
  } while (0)

/* The matrices a format's test-errors may name as a setter's target besides A: aij, a plain AIJ
   matrix, or a petscspmv type, a matrix of that type (both Laplacians of 50 rows, made once) */
typedef struct {
  PetscInt n;
  char     name[8][32];
  Mat      M[8];
} Targets;

static PetscErrorCode TargetGet(void *ctx, const char name[], Mat *M)
{
  Targets  *t = (Targets *)ctx;
  PetscBool aij;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < t->n; k++) {
    PetscBool match;

    PetscCall(PetscStrcmp(name, t->name[k], &match));
    if (match) {
      *M = t->M[k];
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCheck(t->n < (PetscInt)PETSC_STATIC_ARRAY_LENGTH(t->M), PETSC_COMM_SELF, PETSC_ERR_SUP, "More than %d target matrices", (int)PETSC_STATIC_ARRAY_LENGTH(t->M));
  PetscCall(PetscStrcmp(name, "aij", &aij));
  PetscCall(Laplacian(aij ? MATAIJ : name, 50, &t->M[t->n]));
  PetscCall(PetscStrncpy(t->name[t->n], name, sizeof(t->name[0])));
  *M = t->M[t->n++];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TargetsDestroy(Targets *t)
{
  PetscFunctionBegin;
  for (PetscInt k = 0; k < t->n; k++) PetscCall(MatDestroy(&t->M[k]));
  t->n = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What a line of a format's test-errors expects of its items, applied to A (tests/formatfile.h):
     -> PETSC_ERR_...            they fail with that error class (the matrix stays intact: its
                                 products are checked after all such lines)
     -> ok                       they succeed, and A's products then match MATAIJ's
     -> same layout as <items>   after the rejected settings, they give A exactly the layout of a
                                 new matrix given <items> (A there is that new matrix): the
                                 rejected values were not stored
   or the line declares a padding limit (TestPaddingLimit()):
     padding-limit <default> <option> [<setter>] */
typedef enum {
  LINE_ERROR,
  LINE_OK,
  LINE_SAME_LAYOUT,
  LINE_PADDING_LIMIT
} LineKind;

typedef struct {
  LineKind       kind;
  char           where[PETSC_MAX_PATH_LEN + 16];
  FormatItems    items, fresh; /* fresh: the items of "same layout as" */
  PetscErrorCode code;         /* LINE_ERROR */
  PetscReal      dflt;         /* LINE_PADDING_LIMIT: the default limit, its option and setter ("": none) */
  char           option[64], setter[64];
} ErrorLine;

/* The error classes a line may expect, by name */
static PetscErrorCode ErrorCode(const char *where, const char name[], PetscErrorCode *code)
{
  static const struct {
    const char    *name;
    PetscErrorCode code;
  } codes[] = {
    {"PETSC_ERR_ARG_OUTOFRANGE",   PETSC_ERR_ARG_OUTOFRANGE  },
    {"PETSC_ERR_ARG_WRONG",        PETSC_ERR_ARG_WRONG       },
    {"PETSC_ERR_ARG_WRONGSTATE",   PETSC_ERR_ARG_WRONGSTATE  },
    {"PETSC_ERR_ARG_INCOMP",       PETSC_ERR_ARG_INCOMP      },
    {"PETSC_ERR_ARG_UNKNOWN_TYPE", PETSC_ERR_ARG_UNKNOWN_TYPE},
    {"PETSC_ERR_ARG_SIZ",          PETSC_ERR_ARG_SIZ         },
    {"PETSC_ERR_USER",             PETSC_ERR_USER            },
    {"PETSC_ERR_USER_INPUT",       PETSC_ERR_USER_INPUT      },
    {"PETSC_ERR_SUP",              PETSC_ERR_SUP             },
    {"PETSC_ERR_SUP_SYS",          PETSC_ERR_SUP_SYS         },
    {"PETSC_ERR_MEM",              PETSC_ERR_MEM             },
  };

  PetscFunctionBegin;
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(codes); k++) {
    if (!strcmp(name, codes[k].name)) {
      *code = codes[k].code;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: expected '-> PETSC_ERR_<class>', '-> ok' or '-> same layout as <items>', not '-> %s' (error classes known here: tests/test_errors.c, ErrorCode())", where, name);
}

/* The lines of src/mat/impls/<type>/test-errors (none without the file) */
static PetscErrorCode ReadErrorLines(const char type[], PetscInt *nlines, ErrorLine **lines)
{
  FormatFile f;
  PetscBool  found;

  PetscFunctionBegin;
  *nlines = 0;
  *lines  = NULL;
  PetscCall(FormatFileRead(type, "test-errors", &f, &found));
  if (!found) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: no format-specific cases (no %s)\n", type, f.path));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscCalloc1(f.nlines, lines));
  for (PetscInt l = 0; l < f.nlines; l++) {
    ErrorLine *e = &(*lines)[l];
    char      *items, *expect;

    PetscCall(PetscSNPrintf(e->where, sizeof(e->where), "%s:%" PetscInt_FMT, f.path, f.lineno[l]));
    if (!strncmp(f.line[l], "padding-limit ", 14)) {
      char *end;
      int   n;

      e->kind = LINE_PADDING_LIMIT;
      e->dflt = (PetscReal)strtod(f.line[l] + 14, &end);
      n       = sscanf(end, "%63s %63s", e->option, e->setter);
      PetscCheck(end != f.line[l] + 14 && e->dflt >= 1 && n >= 1 && e->option[0] == '-', PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: write padding-limit <default ratio> <option> [<setter>]", e->where);
      if (n < 2) e->setter[0] = 0;
      continue;
    }
    FormatLineSplit(f.line[l], &items, &expect);
    PetscCheck(expect[0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: a line needs its expectation: items -> PETSC_ERR_<class>, ok or same layout as <items>", e->where);
    PetscCall(FormatParseItems(e->where, items, &e->items));
    if (!strcmp(expect, "ok")) e->kind = LINE_OK;
    else if (!strncmp(expect, "same layout as ", 15)) {
      e->kind = LINE_SAME_LAYOUT;
      PetscCall(FormatParseItems(e->where, expect + 15, &e->fresh));
    } else {
      e->kind = LINE_ERROR;
      PetscCall(ErrorCode(e->where, expect, &e->code));
    }
  }
  *nlines = f.nlines;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " lines from %s\n", type, *nlines, f.path));
  PetscCall(FormatFileDestroy(&f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The items of a line applied to A fail with its error class */
static PetscErrorCode CheckError(const ErrorLine *e, Mat A, Targets *t)
{
  PetscErrorCode ierr;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < e->items.ncalls; k++) { /* made before errors are returned instead of raised */
    Mat M;

    if (strcmp(e->items.call[k].target, "A")) PetscCall(TargetGet(t, e->items.call[k].target, &M));
  }
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = FormatItemsApply(&e->items, A, TargetGet, t);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == e->code, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: %s returned %d, expected %d", e->where, e->items.text, (int)ierr, (int)e->code);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s fails with error %d\n", e->items.text, (int)ierr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The valid items of a line (after the rejected ones): A's products, and for "same layout as" A's
   layout against a new matrix given the right side's items */
static PetscErrorCode CheckValid(const ErrorLine *e, Mat A, Mat Aref, MatType type, Targets *t, PetscRandom rnd)
{
  char label[sizeof(e->items.text) + 64];

  PetscFunctionBegin;
  PetscCall(FormatItemsApply(&e->items, A, TargetGet, t));
  PetscCall(PetscSNPrintf(label, sizeof(label), "after %s", e->items.text));
  if (e->kind == LINE_SAME_LAYOUT) {
    Mat            F;
    PetscInt       ns, nsf;
    PetscLogDouble b, bf;

    PetscCall(MatConvert(Aref, type, MAT_INITIAL_MATRIX, &F));
    PetscCall(FormatItemsApply(&e->fresh, F, TargetGet, t));
    PetscCall(MatSpmvGetStorage(A, &ns, &b));
    PetscCall(MatSpmvGetStorage(F, &nsf, &bf));
    PetscCheck(ns == nsf && b == bf, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: rejected settings changed the layout: %" PetscInt_FMT " slots, expected %" PetscInt_FMT, e->where, ns, nsf);
    PetscCall(MatDestroy(&F));
  }
  PetscCall(CheckProducts(A, Aref, rnd, label));
  if (e->kind == LINE_SAME_LAYOUT) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s: the layout of a new matrix given %s\n", e->items.text, e->fresh.text));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s: products as MATAIJ's\n", e->items.text));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The padding limit of a line "padding-limit" set to r on M, through the option or the setter
   (the option where the line names no setter) */
static PetscErrorCode SetPaddingLimit(const ErrorLine *e, Mat M, PetscBool setter, PetscReal r)
{
  char        text[256];
  FormatItems it;

  PetscFunctionBegin;
  if (setter && e->setter[0]) PetscCall(PetscSNPrintf(text, sizeof(text), "%s(A, (PetscReal)%g)", e->setter, (double)r));
  else PetscCall(PetscSNPrintf(text, sizeof(text), "%s %g", e->option, (double)r));
  PetscCall(FormatParseItems(e->where, text, &it));
  PetscCall(FormatItemsApply(&it, M, NULL, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n x n tridiagonal plus one full row (row 0) */
static PetscErrorCode OneLongRow(MatType type, PetscInt n, Mat *A)
{
  PetscInt rstart, rend, mloc = PETSC_DECIDE, N = n, *dnz, *onz;

  PetscFunctionBegin;
  PetscCall(PetscSplitOwnership(PETSC_COMM_WORLD, &mloc, &N));
  PetscCallMPI(MPI_Scan(&mloc, &rend, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  rstart = rend - mloc;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, mloc, mloc, n, n));
  PetscCall(MatSetType(*A, type));
  PetscCall(PetscMalloc2(rend - rstart, &dnz, rend - rstart, &onz));
  for (PetscInt i = rstart; i < rend; i++) { /* the long row's entries in and out of the diagonal block */
    dnz[i - rstart] = i ? 3 : rend - rstart;
    onz[i - rstart] = i ? 2 : n - (rend - rstart);
  }
  PetscCall(MatSeqAIJSetPreallocation(*A, 0, dnz));
  PetscCall(MatMPIAIJSetPreallocation(*A, 0, dnz, 0, onz));
  PetscCall(PetscFree2(dnz, onz));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt    c[3] = {i - 1, i, i + 1};
    PetscScalar v[3] = {-1.0, 2.5 + i % 4, -1.1};

    if (i == 0) continue;
    PetscCall(MatSetValues(*A, 1, &i, i < n - 1 ? 3 : 2, c, v, INSERT_VALUES));
  }
  if (rstart == 0 && rend > 0) {
    PetscInt     zero = 0, *c;
    PetscScalar *v;

    PetscCall(PetscMalloc2(n, &c, n, &v));
    for (PetscInt j = 0; j < n; j++) c[j] = j, v[j] = 1.0 + (j % 7) * 0.25;
    PetscCall(MatSetValues(*A, 1, &zero, n, c, v, INSERT_VALUES));
    PetscCall(PetscFree2(c, v));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc memory in use (tracked only with -malloc_debug; 0 otherwise, and the check is void) */
static PetscErrorCode MemoryInUse(PetscLogDouble *bytes)
{
  PetscBool debug;

  PetscFunctionBegin;
  *bytes = 0;
  PetscCall(PetscMallocGetDebug(&debug, NULL, NULL));
  if (debug) PetscCall(PetscMallocGetCurrentUsage(bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A format that pads every row to the longest (ellr), declared by the line "padding-limit <default>
   <option> [<setter>]" of its test-errors: a long row among short ones must be refused with
   PETSC_ERR_SUP at the first product, before anything is allocated, leaking nothing and leaving
   the matrix usable (its transpose, whose rows are short, still multiplies); a larger limit then
   lets it through. On two processes the long row is on the first only: both must refuse. A long
   column is not refused: A^T's layout goes to the layer's fallback format. */
static PetscErrorCode TestPaddingLimit(const ErrorLine *e, MatType type, PetscRandom rnd)
{
  char           label[256];
  Mat            E, Eref, Huge;
  Vec            x, y, xt, yt;
  PetscLogDouble before, after;
  PetscBool      debug;
  PetscInt       rstart;

  PetscFunctionBegin;
  PetscCall(PetscMallocGetDebug(&debug, NULL, NULL));
  PetscCall(OneLongRow(type, 2000, &E));
  PetscCall(OneLongRow(MATAIJ, 2000, &Eref));
  PetscCall(MatCreateVecs(E, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatGetOwnershipRange(E, &rstart, NULL));
  for (int k = 0; k < 2; k++) { /* the second time the same way: nothing kept from the first */
    PetscCall(MemoryInUse(&before));
    EXPECT_ERROR(MatMult(E, x, y), PETSC_ERR_SUP);
    EXPECT_ERROR(MatMultAdd(E, x, y, y), PETSC_ERR_SUP);
    PetscCall(MemoryInUse(&after));
    /* the first time, a process without the long row keeps the layouts it could build */
    PetscCheck(after == before || (k == 0 && rstart > 0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "A refused %s layout leaked %g bytes", type, after - before);
  }
  if (debug) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok nothing leaked by the refused builds (-malloc_debug)\n"));
  /* A^T has short rows: its products work while A's are refused */
  PetscCall(MatCreateVecs(E, &yt, &xt));
  PetscCall(VecSet(xt, 1.0));
  PetscCall(MatMultTranspose(E, xt, yt));
  PetscCall(VecDestroy(&xt));
  PetscCall(VecDestroy(&yt));
  /* raised through the options, the setter, then back to the default: refused again */
  PetscCall(SetPaddingLimit(e, E, PETSC_FALSE, 1000));
  PetscCall(MatSpmvCheckLayout(E));
  PetscCall(PetscSNPrintf(label, sizeof(label), "after %s 1000", e->option));
  PetscCall(CheckProducts(E, Eref, rnd, label));
  PetscCall(SetPaddingLimit(e, E, PETSC_TRUE, e->dflt));
  EXPECT_ERROR(MatMult(E, x, y), PETSC_ERR_SUP);
  PetscCall(SetPaddingLimit(e, E, PETSC_TRUE, 1000));
  PetscCall(PetscSNPrintf(label, sizeof(label), "after %s(E, 1000)", e->setter[0] ? e->setter : e->option));
  PetscCall(CheckProducts(E, Eref, rnd, label));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&E));

  /* the long row as a long column: A's rows are short, A^T's layout (which the user did not choose
     the format for) would be refused and goes to the fallback format instead; both products right */
  PetscCall(MatTranspose(Eref, MAT_INPLACE_MATRIX, &Eref));
  PetscCall(MatConvert(Eref, type, MAT_INITIAL_MATRIX, &E));
  PetscCall(MatSpmvCheckLayout(E));
  PetscCall(CheckProducts(E, Eref, rnd, "a long column: A^T given to the fallback format"));
  { /* MatTranspose() of it has the long row: a new matrix of the type PETSc derived, given to the fallback format too */
    Mat T, Tref;

    PetscCall(MatTranspose(E, MAT_INITIAL_MATRIX, &T));
    PetscCall(MatTranspose(Eref, MAT_INITIAL_MATRIX, &Tref));
    PetscCall(MatSpmvCheckLayout(T));
    PetscCall(CheckProducts(T, Tref, rnd, "MatTranspose of a long column: a derived operator given to the fallback format"));
    PetscCall(MatDestroy(&T));
    PetscCall(MatDestroy(&Tref));
  }
  PetscCall(MatDestroy(&E));
  PetscCall(MatDestroy(&Eref));

  /* the case scaled down: one row of 200000 entries in 200000 rows would ask for 4e10
     slots (640 GB of values and indices); refused at once, even under a limit too large for the
     32-bit indices */
  PetscCall(OneLongRow(type, 200000, &Huge));
  PetscCall(MatCreateVecs(Huge, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatGetOwnershipRange(Huge, &rstart, NULL));
  PetscCall(MemoryInUse(&before));
  EXPECT_ERROR(MatMult(Huge, x, y), PETSC_ERR_SUP);
  PetscCall(SetPaddingLimit(e, Huge, PETSC_TRUE, 1e6));
  EXPECT_ERROR(MatMult(Huge, x, y), PETSC_ERR_SUP);
  PetscCall(MemoryInUse(&after));
  PetscCheck(after == before || rstart > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A refused %s layout leaked %g bytes", type, after - before);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&Huge));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* On the GPU with no backend asked for (a prefix the tests' -mat_<type>_backend does not reach), the
   layout is built lazily: a refusal then keeps aijcusparse's products, said by -mat_view, never an error in
   the middle of a run. More than the lazy threshold's products with CUDA vectors, then with host
   ones (staged: aijcusparse's products get those wrong), all equal to MATAIJ's */
static PetscErrorCode TestPaddingDeclined(MatType type, PetscRandom rnd)
{
  Mat         E, Eref;
  Vec         x, y, yref, hx, hy;
  PetscReal   err, ref;
  PetscInt    mloc;
  char        view[1024];
  PetscViewer v;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(OneLongRow(type, 2000, &E));
  PetscCall(MatSetOptionsPrefix(E, "lazy_"));
  PetscCall(OneLongRow(MATAIJ, 2000, &Eref));
  PetscCall(MatCreateVecs(E, &x, &y));
  PetscCall(MatCreateVecs(Eref, NULL, &yref));
  PetscCall(VecSetRandom(x, rnd));
  for (PetscInt k = 0; k < 120; k++) PetscCall(MatMult(E, x, y)); /* past -petscspmv_layout_min_products */
  PetscCall(MatMultAdd(E, x, y, y));
  PetscCall(MatMult(Eref, x, yref));
  PetscCall(VecScale(yref, 2.0));
  PetscCall(VecAXPY(y, -1.0, yref));
  PetscCall(VecNorm(y, NORM_INFINITY, &err));
  PetscCall(VecNorm(yref, NORM_INFINITY, &ref));
  PetscCheck(err <= 1e-12 * ref, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: products after a declined layout differ from MATAIJ's by %g", type, (double)(err / ref));
  /* host vectors */
  PetscCall(MatGetLocalSize(E, &mloc, NULL));
  PetscCall(VecCreateMPI(PETSC_COMM_WORLD, mloc, PETSC_DETERMINE, &hx));
  PetscCall(VecDuplicate(hx, &hy));
  PetscCall(VecCopy(x, hx));
  PetscCall(MatMult(E, hx, hy));
  PetscCall(MatMult(Eref, x, yref));
  PetscCall(VecCopy(hy, y));
  PetscCall(VecAXPY(y, -1.0, yref));
  PetscCall(VecNorm(y, NORM_INFINITY, &err));
  PetscCheck(err <= 1e-12 * ref, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: products with host vectors after a declined layout differ from MATAIJ's by %g", type, (double)(err / ref));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size == 1) { /* said by -mat_view */
    char   path[PETSC_MAX_PATH_LEN];
    FILE  *f;
    size_t len;

    PetscCall(PetscStrncpy(path, "/tmp/petscspmv-declined-XXXXXX", sizeof(path)));
    PetscCheck(mkstemp(path) >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "No temporary file for -mat_view");
    PetscCall(PetscViewerASCIIOpen(PETSC_COMM_SELF, path, &v));
    PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_ASCII_INFO));
    PetscCall(MatView(E, v));
    PetscCall(PetscViewerPopFormat(v));
    PetscCall(PetscViewerDestroy(&v));
    f = fopen(path, "r");
    PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot read %s back", path);
    len       = fread(view, 1, sizeof(view) - 1, f);
    view[len] = 0;
    fclose(f);
    (void)remove(path);
    PetscCheck(strstr(view, "no layout, products are aijcusparse's"), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: -mat_view does not say the layout was declined:\n%s", type, view);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok a refused lazy layout keeps aijcusparse's products: 121 products with CUDA vectors and one with host vectors equal MATAIJ's\n"));
  PetscCall(VecDestroy(&hx));
  PetscCall(VecDestroy(&hy));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yref));
  PetscCall(MatDestroy(&E));
  PetscCall(MatDestroy(&Eref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        type[64] = MATBRC;
  Mat         A, Aref, Plain;
  PetscRandom rnd;
  PetscBool   gpu = PETSC_FALSE;
  PetscInt    nlines;
  ErrorLine  *lines;
  Targets     targets = {0};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpmvInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpu", &gpu, NULL));
  PetscCall(ReadErrorLines(type, &nlines, &lines));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(Laplacian(type, 500, &A));
  PetscCall(Laplacian(MATAIJ, 500, &Aref));
  PetscCall(TargetGet(&targets, "aij", &Plain));
  PetscCall(CheckProducts(A, Aref, rnd, "before"));

  /* the format's rejected settings (its test-errors), then every type's */
  for (PetscInt l = 0; l < nlines; l++)
    if (lines[l].kind == LINE_ERROR) PetscCall(CheckError(&lines[l], A, &targets));
  EXPECT_ERROR(MatSpmvSetColumnOrder(Plain, MAT_SPMV_COLUMN_ORDER_FREQUENCY), PETSC_ERR_ARG_WRONG);
  EXPECT_ERROR(MatSpmvSetColumnOrder(A, (MatSpmvColumnOrder)5), PETSC_ERR_ARG_OUTOFRANGE);
  EXPECT_ERROR(MatSpmvSetBackend(Plain, MAT_SPMV_BACKEND_HOST), PETSC_ERR_ARG_WRONG);
  EXPECT_ERROR(MatSpmvSetBackend(A, (MatSpmvBackend)7), PETSC_ERR_ARG_OUTOFRANGE);
  PetscCall(CheckProducts(A, Aref, rnd, "after rejected settings"));
  /* the format's valid settings after them, in the order of its test-errors */
  for (PetscInt l = 0; l < nlines; l++) {
    if (lines[l].kind == LINE_OK || lines[l].kind == LINE_SAME_LAYOUT) PetscCall(CheckValid(&lines[l], A, Aref, type, &targets, rnd));
    else if (lines[l].kind == LINE_PADDING_LIMIT) {
      PetscCall(TestPaddingLimit(&lines[l], type, rnd));
      if (gpu) PetscCall(TestPaddingDeclined(type, rnd));
    }
  }
  if (!gpu) {
    /* a GPU run asked for where there is none */
    Vec x, y;

    PetscCall(MatSpmvSetBackend(A, MAT_SPMV_BACKEND_CUDA));
    PetscCall(MatCreateVecs(Aref, &x, &y));
    PetscCall(VecSet(x, 1.0));
    EXPECT_ERROR(MatMult(A, x, y), PETSC_ERR_SUP_SYS);
    PetscCall(MatSpmvSetBackend(A, MAT_SPMV_BACKEND_AUTO));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(CheckProducts(A, Aref, rnd, "after a CUDA run was refused"));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all bad inputs rejected for %s\n", type));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));
  PetscCall(TargetsDestroy(&targets));
  PetscCall(PetscFree(lines));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}
