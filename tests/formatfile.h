#pragma once
/*
  Shared by the tests: a format's own test files in its directory, src/mat/impls/<name>/:

    test-params   the parameter sets of test_matrices, one per line
    test-errors   the bad settings of test_errors, one per line (and its other checks)

  A line holds items and, after "->", what is expected of them ('#' starts a comment, blank lines
  are skipped). An item is

    -option [value]               a PETSc option (-mat_<name>_...)
    Setter(target, (Type)value)   a public setter of the format, found by its name in the program's
                                  libraries; Type is PetscInt, PetscReal, PetscBool or an enum type
                                  (whose name list <Type>s gives names to its values); a PetscInt value
                                  may be an expression of +, - and * over integers, sizeof(PetscScalar)
                                  and PETSC_INT_MAX; target A is the matrix the line's items apply to

  Items apply in order: the setters first, then the options through one MatSetFromOptions(), after
  which they are removed again; an option also given on the command line keeps the command line's
  value. The programs find the files from the repository root: -srcdir <root>, else the first
  directory above the program or above the working directory that holds src/mat/impls/.
*/
#include <petscspmv.h>
#include <ctype.h>
#include <unistd.h>

#define FORMAT_MAX_CALLS   8
#define FORMAT_MAX_OPTIONS 8

typedef enum {
  FORMAT_ARG_INT,
  FORMAT_ARG_REAL,
  FORMAT_ARG_BOOL,
  FORMAT_ARG_ENUM
} FormatArgKind;

typedef struct {
  char          name[64];   /* the setter */
  void         *fn;         /* found in the program's libraries when the line is read */
  char          target[32]; /* A, or another matrix the program names (test_errors: aij, a petscspmv type) */
  FormatArgKind kind;
  PetscInt64    i; /* integer, boolean and enum values */
  PetscReal     r;
} FormatCall;

typedef struct {
  PetscInt   ncalls, nopts;
  FormatCall call[FORMAT_MAX_CALLS];
  char       opt[FORMAT_MAX_OPTIONS][64], val[FORMAT_MAX_OPTIONS][128]; /* val "": an option without a value */
  char       text[512];                                                 /* as written, for the messages */
} FormatItems;

typedef struct {
  PetscInt  nlines;
  char    **line;   /* comments removed, trimmed */
  PetscInt *lineno; /* in the file, for the messages */
  char      path[PETSC_MAX_PATH_LEN];
} FormatFile;

/* Whether dir holds the source tree (src/mat/impls/spmvlayer/) */
static inline PetscErrorCode FormatFileIsRoot(const char dir[], PetscBool *is)
{
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/src/mat/impls/spmvlayer/spmvimpl.h", dir));
  PetscCall(PetscTestFile(path, 'r', is));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The repository root: -srcdir, else the first directory above the program (build/bin,
   build/<variant>/bin) or above the working directory (the root, build/test-logs) holding src/ */
static inline PetscErrorCode FormatFileRoot(char root[], size_t len)
{
  char      start[2][PETSC_MAX_PATH_LEN] = {"", ""};
  PetscBool set, is = PETSC_FALSE;
  ssize_t   n;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-srcdir", root, len, &set));
  if (set) {
    PetscCall(FormatFileIsRoot(root, &is));
    PetscCheck(is, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-srcdir %s has no src/mat/impls/spmvlayer/: give the petscspmv repository's root", root);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  n                       = readlink("/proc/self/exe", start[0], sizeof(start[0]) - 1);
  start[0][n > 0 ? n : 0] = 0;
  PetscCall(PetscGetWorkingDirectory(start[1], sizeof(start[1])));
  for (int s = 0; s < 2 && !is; s++) {
    PetscCall(PetscStrncpy(root, start[s], len));
    while (!is && root[0]) {
      char *slash;

      PetscCall(FormatFileIsRoot(root, &is));
      if (is) break;
      PetscCall(PetscStrrchr(root, '/', &slash)); /* one directory up (PetscStrrchr gives the part after the last '/') */
      if (slash == root) root[0] = 0;
      else slash[-1] = 0;
    }
  }
  PetscCheck(is, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot find the petscspmv source tree (src/mat/impls/spmvlayer/) above the program (%s) or the working directory (%s), where the formats' test files are: give its root with -srcdir", start[0], start[1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The lines of src/mat/impls/<type>/<name>; none (f->nlines 0, *found false) where the format has no such file */
static inline PetscErrorCode FormatFileRead(const char type[], const char name[], FormatFile *f, PetscBool *found)
{
  char  root[PETSC_MAX_PATH_LEN], buf[4096];
  FILE *fp;
  int   lineno = 0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(f, sizeof(*f)));
  PetscCall(FormatFileRoot(root, sizeof(root)));
  PetscCall(PetscSNPrintf(f->path, sizeof(f->path), "%s/src/mat/impls/%s/%s", root, type, name));
  PetscCall(PetscTestFile(f->path, 'r', found));
  if (!*found) PetscFunctionReturn(PETSC_SUCCESS);
  fp = fopen(f->path, "r");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", f->path);
  while (fgets(buf, sizeof(buf), fp)) {
    char  *hash, *s = buf;
    size_t l;

    lineno++;
    PetscCheck(strchr(buf, '\n') || feof(fp), PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s:%d: a line longer than %d characters", f->path, lineno, (int)sizeof(buf) - 2);
    if ((hash = strchr(s, '#'))) *hash = 0;
    while (isspace((unsigned char)*s)) s++;
    l = strlen(s);
    while (l && isspace((unsigned char)s[l - 1])) s[--l] = 0;
    if (!l) continue;
    PetscCall(PetscRealloc(sizeof(char *) * (f->nlines + 1), &f->line));
    PetscCall(PetscRealloc(sizeof(PetscInt) * (f->nlines + 1), &f->lineno));
    PetscCall(PetscStrallocpy(s, &f->line[f->nlines]));
    f->lineno[f->nlines++] = lineno;
  }
  fclose(fp);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode FormatFileDestroy(FormatFile *f)
{
  PetscFunctionBegin;
  for (PetscInt l = 0; l < f->nlines; l++) PetscCall(PetscFree(f->line[l]));
  PetscCall(PetscFree(f->line));
  PetscCall(PetscFree(f->lineno));
  f->nlines = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* line split at its "->": the items before, the expectation after ("" when none) */
static inline void FormatLineSplit(char line[], char **items, char **expect)
{
  char *arrow = strstr(line, "->");

  *items  = line;
  *expect = (char *)"";
  if (arrow) {
    *arrow  = 0;
    *expect = arrow + 2;
    while (isspace((unsigned char)**expect)) (*expect)++;
  }
}

/* An integer expression: terms of +, - and * over integers, sizeof(PetscScalar) and PETSC_INT_MAX */
static inline PetscErrorCode FormatEvalInt(const char *where, const char expr[], PetscInt64 *value)
{
  const char *s   = expr;
  PetscInt64  sum = 0, term = 1;
  int         sign = 1;

  PetscFunctionBegin;
  for (;;) {
    PetscInt64 atom;

    while (isspace((unsigned char)*s)) s++;
    if (*s == '-' || *s == '+') { /* a sign of the atom */
      if (*s == '-') sign = -sign;
      s++;
      continue;
    }
    if (!strncmp(s, "sizeof(PetscScalar)", 19)) atom = (PetscInt64)sizeof(PetscScalar), s += 19;
    else if (!strncmp(s, "PETSC_INT_MAX", 13)) atom = PETSC_INT_MAX, s += 13;
    else {
      char *end;

      atom = (PetscInt64)strtoll(s, &end, 10);
      PetscCheck(end != s, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: cannot read the integer %s (write integers, sizeof(PetscScalar) and PETSC_INT_MAX joined by +, - and *)", where, expr);
      s = end;
    }
    term *= sign * atom;
    sign = 1;
    while (isspace((unsigned char)*s)) s++;
    if (*s == '*') {
      s++;
      continue;
    }
    sum += term;
    term = 1;
    if (!*s) break;
    PetscCheck(*s == '+' || *s == '-', PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: cannot read the integer %s at '%s'", where, expr, s);
  }
  *value = sum;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A value of the enum type T: a number, or a name of its list T##s (PETSc's convention: names, the
   type's name, the prefix, NULL), in lower case ("csrm") or with its prefix (MAT_IPCSR_KERNEL_CSRM) */
static inline PetscErrorCode FormatEvalEnum(const char *where, const char T[], const char value[], PetscInt64 *v)
{
  char               sym[96], full[128];
  void              *list = NULL;
  const char *const *names;
  PetscInt           n = 0;

  PetscFunctionBegin;
  if (isdigit((unsigned char)value[0]) || value[0] == '-') {
    PetscCall(FormatEvalInt(where, value, v));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscSNPrintf(sym, sizeof(sym), "%ss", T));
  PetscCall(PetscDLSym(NULL, sym, &list));
  PetscCheck(list, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: no name list %s for the values of %s: write the value as a number", where, sym, T);
  names = (const char *const *)list;
  while (names[n]) n++;
  PetscCheck(n >= 3, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: %s is not a list of enum names", where, sym);
  for (PetscInt k = 0; k < n - 2; k++) {
    PetscBool match;

    PetscCall(PetscSNPrintf(full, sizeof(full), "%s%s", names[n - 1], names[k]));
    PetscCall(PetscStrtoupper(full));
    PetscCall(PetscStrcmpAny(value, &match, names[k], full, ""));
    if (match) {
      *v = k;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: %s is no value of %s (%s)", where, value, T, sym);
}

/* Setter(target, (Type)value) at s, which ends at the matching ')': *end is past it */
static inline PetscErrorCode FormatParseCall(const char *where, const char *s, FormatCall *c, const char **end)
{
  const char *p = s, *q;
  char        type[64], value[128];
  int         depth = 0;
  size_t      l;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(c, sizeof(*c)));
  q = p;
  while (isalnum((unsigned char)*q) || *q == '_') q++;
  l = (size_t)(q - p);
  PetscCheck(l > 0 && l < sizeof(c->name), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: cannot read a setter's name at '%s'", where, s);
  PetscCall(PetscStrncpy(c->name, p, l + 1));
  PetscCall(PetscDLSym(NULL, c->name, &c->fn));
  PetscCheck(c->fn, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: no function %s in the program or its libraries: a misspelt setter, or one PETSc's dynamic loader cannot see", where, c->name);
  p = q;
  while (isspace((unsigned char)*p)) p++;
  PetscCheck(*p == '(', PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: %s must be followed by (target, (Type)value)", where, c->name);
  for (q = p; *q; q++) { /* the matching ')' */
    if (*q == '(') depth++;
    else if (*q == ')' && --depth == 0) break;
  }
  PetscCheck(*q == ')', PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: %s( has no matching )", where, c->name);
  *end = q + 1;
  /* target */
  p++;
  while (isspace((unsigned char)*p)) p++;
  for (l = 0; (isalnum((unsigned char)p[l]) || p[l] == '_') && l + 1 < sizeof(c->target); l++) c->target[l] = p[l];
  c->target[l] = 0;
  p += l;
  while (isspace((unsigned char)*p)) p++;
  PetscCheck(l > 0 && *p == ',', PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: %s takes (target, (Type)value), the target A (or another matrix the program names)", where, c->name);
  /* (Type) */
  p++;
  while (isspace((unsigned char)*p)) p++;
  PetscCheck(*p == '(', PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: give %s's argument type as a cast: (PetscInt)3, (PetscReal)0.5, (PetscBool)1 or (<enum type>)name", where, c->name);
  for (l = 0, p++; p[l] && p[l] != ')' && l + 1 < sizeof(type); l++) type[l] = p[l];
  type[l] = 0;
  PetscCheck(p[l] == ')', PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: %s's cast has no )", where, c->name);
  /* value: the rest up to the call's ')' */
  p += l + 1;
  while (isspace((unsigned char)*p)) p++;
  l = (size_t)(q - p);
  while (l && isspace((unsigned char)p[l - 1])) l--;
  PetscCheck(l > 0 && l < sizeof(value), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: %s has no value", where, c->name);
  PetscCall(PetscStrncpy(value, p, l + 1));
  if (!strcmp(type, "PetscInt")) {
    c->kind = FORMAT_ARG_INT;
    PetscCall(FormatEvalInt(where, value, &c->i));
    PetscCheck(c->i >= PETSC_INT_MIN && c->i <= PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: %s does not fit a PetscInt", where, value);
  } else if (!strcmp(type, "PetscReal")) {
    char *e;

    c->kind = FORMAT_ARG_REAL;
    c->r    = (PetscReal)strtod(value, &e);
    PetscCheck(e != value && !*e, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: cannot read the real number %s", where, value);
  } else if (!strcmp(type, "PetscBool")) {
    PetscBool t, f;

    c->kind = FORMAT_ARG_BOOL;
    PetscCall(PetscStrcmpAny(value, &t, "1", "PETSC_TRUE", "true", ""));
    PetscCall(PetscStrcmpAny(value, &f, "0", "PETSC_FALSE", "false", ""));
    PetscCheck(t || f, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: %s is no PetscBool (1, 0, PETSC_TRUE, PETSC_FALSE)", where, value);
    c->i = t;
  } else {
    c->kind = FORMAT_ARG_ENUM;
    PetscCall(FormatEvalEnum(where, type, value, &c->i));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The items of text (up to its "->"): setter calls and options */
static inline PetscErrorCode FormatParseItems(const char *where, const char text[], FormatItems *it)
{
  const char *s = text;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(it, sizeof(*it)));
  PetscCall(PetscStrncpy(it->text, text, sizeof(it->text)));
  for (size_t l = strlen(it->text); l && isspace((unsigned char)it->text[l - 1]); l--) it->text[l - 1] = 0;
  for (;;) {
    size_t l;

    while (isspace((unsigned char)*s)) s++;
    if (!*s) break;
    if (s[0] == '-' && (isalpha((unsigned char)s[1]) || s[1] == '_')) { /* -option [value] */
      const char *v;

      PetscCheck(it->nopts < FORMAT_MAX_OPTIONS, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: more than %d options", where, FORMAT_MAX_OPTIONS);
      l = 0;
      while (s[l] && !isspace((unsigned char)s[l])) l++;
      PetscCheck(l < sizeof(it->opt[0]), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: an option name too long", where);
      PetscCall(PetscStrncpy(it->opt[it->nopts], s, l + 1));
      it->val[it->nopts][0] = 0;
      v                     = s + l;
      while (isspace((unsigned char)*v)) v++;
      s = v;
      if (*v && !(v[0] == '-' && (isalpha((unsigned char)v[1]) || v[1] == '_'))) { /* a value, unless the next item starts */
        l = 0;
        while (v[l] && !isspace((unsigned char)v[l])) l++;
        if (!memchr(v, '(', l)) {
          PetscCheck(l < sizeof(it->val[0]), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: an option value too long", where);
          PetscCall(PetscStrncpy(it->val[it->nopts], v, l + 1));
          s = v + l;
        }
      }
      it->nopts++;
    } else {
      PetscCheck(it->ncalls < FORMAT_MAX_CALLS, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: more than %d setter calls", where, FORMAT_MAX_CALLS);
      PetscCall(FormatParseCall(where, s, &it->call[it->ncalls++], &s));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The setter's call on M; its error code returned (under PetscReturnErrorHandler, for the caller to compare) */
static inline PetscErrorCode FormatCallApply(const FormatCall *c, Mat M)
{
  PetscFunctionBegin;
  switch (c->kind) {
  case FORMAT_ARG_INT: {
    PetscErrorCode (*f)(Mat, PetscInt);

    *(void **)&f = c->fn;
    PetscCall((*f)(M, (PetscInt)c->i));
  } break;
  case FORMAT_ARG_REAL: {
    PetscErrorCode (*f)(Mat, PetscReal);

    *(void **)&f = c->fn;
    PetscCall((*f)(M, c->r));
  } break;
  case FORMAT_ARG_BOOL: {
    PetscErrorCode (*f)(Mat, PetscBool);

    *(void **)&f = c->fn;
    PetscCall((*f)(M, (PetscBool)c->i));
  } break;
  case FORMAT_ARG_ENUM: {
    PetscErrorCode (*f)(Mat, PetscEnum);

    *(void **)&f = c->fn;
    PetscCall((*f)(M, (PetscEnum)c->i));
  } break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The matrix a call's target names: A, or one the program provides through target() (NULL: only A) */
typedef PetscErrorCode (*FormatTargetFn)(void *, const char[], Mat *);

/* it's setters in order on their targets, then its options through one MatSetFromOptions(A), then
   the options removed again (those also on the command line are left as they are). Returns the
   first error (for callers that push PetscReturnErrorHandler and compare it); the options are
   removed in every case. */
static inline PetscErrorCode FormatItemsApply(const FormatItems *it, Mat A, FormatTargetFn target, void *ctx)
{
  PetscBool      mine[FORMAT_MAX_OPTIONS] = {PETSC_FALSE};
  PetscErrorCode ierr                     = PETSC_SUCCESS;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < it->ncalls; k++) {
    Mat M = A;

    if (strcmp(it->call[k].target, "A")) {
      PetscCheck(target, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: a setter's target here must be A, the matrix under test", it->text);
      PetscCall(target(ctx, it->call[k].target, &M));
    }
    PetscCall(FormatCallApply(&it->call[k], M));
  }
  for (PetscInt k = 0; k < it->nopts; k++) {
    PetscBool given;

    PetscCall(PetscOptionsHasName(NULL, NULL, it->opt[k], &given));
    if (given) continue; /* the command line's value stays */
    PetscCall(PetscOptionsSetValue(NULL, it->opt[k], it->val[k][0] ? it->val[k] : NULL));
    mine[k] = PETSC_TRUE;
  }
  ierr = MatSetFromOptions(A);
  for (PetscInt k = 0; k < it->nopts; k++)
    if (mine[k]) PetscCall(PetscOptionsClearValue(NULL, it->opt[k]));
  PetscFunctionReturn(ierr);
}
