/*
  MATSPMV: the format picked per operator. Each layout (A and A^T of every sequential matrix, so
  each process's diagonal and off-diagonal blocks of an MPI matrix on their own) is built and run
  by the candidate format that the rules below pick from that operator's row lengths. The choice
  is made when the layer builds the layout, that is again only when the nonzero pattern changes;
  a value change keeps it. The rules come from the measurements of bench/bench-all.sh on the
  H200 (docs/results.md, "The five formats and spmv (bench-all)"):
  - regular rows (standard deviation of the nonempty rows' lengths at most their mean: stencils,
    FEM, multi-field PDEs): brc, at the bandwidth limit; ELLR ties it but pads, argcsr, cmrs and
    ipcsr are slower;
  - irregular rows (power-law, circuit): ipcsr with its row blocks (level with aijcusparse, brc and
    cmrs behind; argcsr is faster on the circuit matrix once built, but its host plan makes its
    first product slower, so it wins only after thousands of products);
  - irregular rows whose columns the layer renumbers by frequency (Graph500 R-MAT: the 1% most
    frequent columns hold half the nonzeros): brc, faster there than ipcsr (argcsr faster still,
    but its host plan again; docs/results.md, "Irregular matrices: what was tried").
  Candidates missing from -mat_spmv_formats are skipped; a format not in a rule's list comes last.
  A candidate that refuses the pattern passes to the next; -mat_spmv_tune times them instead.
*/
#include "../spmvlayer/spmvformat.h"

#define MATSPMV_MAX_FORMATS 16  /* registered formats this type can hold parameters for */
#define MATSPMV_PARAM_BYTES 64  /* the largest parameter struct of a format */
#define MATSPMV_IRREGULAR   1.0 /* irregular: standard deviation of the row lengths > this times their mean */

/* Candidate formats and, for each, its parameters; plain bytes so that the layer may copy and
   compare them. A format whose set[] is 0 has its defaults (params are zero-initialized). */
typedef struct {
  PetscInt  tune;                     /* time the candidates when a layout is built, keep the fastest */
  PetscInt  tunereps;                 /* timed products per candidate */
  PetscReal tunemaxtime;              /* milliseconds per operator, after which no further candidate is tried */
  PetscInt  formats;                  /* bit f: registered format f is a candidate; 0: every one */
  PetscInt  set[MATSPMV_MAX_FORMATS]; /* sub[f] holds format f's parameters */
  union
  {
    PetscReal     r; /* alignment of the formats' structs */
    PetscInt64    i;
    unsigned char bytes[MATSPMV_PARAM_BYTES];
  } sub[MATSPMV_MAX_FORMATS];
} MatSpmvAutoParams;

#define MATSPMV_TUNE_REPS    10   /* products timed per candidate: 10 keep the spread small (docs/results.md, "The five formats and spmv (bench-all)") */
#define MATSPMV_TUNE_MAXTIME 1000 /* ms: a bound on the first product's extra time, whatever the matrix */

/* every format, each with its defaults; no tuning */
static const MatSpmvAutoParams MatSpmvAutoParamsDefault = {.tunereps = MATSPMV_TUNE_REPS, .tunemaxtime = MATSPMV_TUNE_MAXTIME};

static const char *const MatSpmvAutoRegular[]   = {"brc", "ellr", "argcsr", "cmrs", "ipcsr"};
static const char *const MatSpmvAutoIrregular[] = {"ipcsr", "argcsr", "brc", "cmrs", "ellr"};
/* irregular rows whose columns the layer renumbers by frequency (a few columns hold many nonzeros) */
static const char *const MatSpmvAutoIrregularHot[] = {"brc", "argcsr", "ipcsr", "cmrs", "ellr"};

/* The registered formats this type chooses from (not itself, nor another selecting format) */
static PetscErrorCode MatSpmvAutoFormats(PetscInt *n, MatSpmvFormat *const **formats)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvGetFormats(n, formats));
  PetscCheck(*n <= MATSPMV_MAX_FORMATS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "spmv holds parameters for %d formats, %" PetscInt_FMT " are registered: raise MATSPMV_MAX_FORMATS", MATSPMV_MAX_FORMATS, *n);
  for (PetscInt f = 0; f < *n; f++)
    PetscCheck((*formats)[f]->select || (*formats)[f]->paramsize <= MATSPMV_PARAM_BYTES, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The parameters of %s take %zu bytes, spmv holds %d: raise MATSPMV_PARAM_BYTES", (*formats)[f]->name, (*formats)[f]->paramsize, MATSPMV_PARAM_BYTES);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool MatSpmvAutoIsCandidate(const MatSpmvAutoParams *p, MatSpmvFormat *const *formats, PetscInt f)
{
  return (PetscBool)(!formats[f]->select && (!p->formats || (p->formats >> f) & 1));
}

/* Format f's parameters inside p, its defaults copied in on first use */
static void *MatSpmvAutoSub(MatSpmvAutoParams *p, MatSpmvFormat *fmt, PetscInt f)
{
  if (!p->set[f]) {
    memcpy(p->sub[f].bytes, fmt->paramsdefault, fmt->paramsize);
    p->set[f] = 1;
  }
  return p->sub[f].bytes;
}

static PetscErrorCode MatSpmvFormatSetFromOptions_SPMV(PetscOptionItems PetscOptionsObject, void *params)
{
  MatSpmvAutoParams    *p = (MatSpmvAutoParams *)params;
  MatSpmvFormat *const *formats;
  PetscInt              n, nnames = MATSPMV_MAX_FORMATS, unknown = -1;
  char                 *names[MATSPMV_MAX_FORMATS];
  char                  list[256] = "";
  PetscBool             set;

  PetscFunctionBegin;
  PetscCall(MatSpmvAutoFormats(&n, &formats));
  for (PetscInt f = 0; f < n; f++) {
    if (formats[f]->select) continue;
    if (list[0]) PetscCall(PetscStrlcat(list, ",", sizeof(list)));
    PetscCall(PetscStrlcat(list, formats[f]->name, sizeof(list)));
  }
  PetscCall(PetscOptionsStringArray("-mat_spmv_formats", "Comma-separated candidate formats (default: all)", "MATSPMV", names, &nnames, &set));
  if (set) {
    PetscInt mask = 0;

    for (PetscInt k = 0; k < nnames; k++) {
      PetscInt found = -1;

      for (PetscInt f = 0; f < n && found < 0; f++) {
        PetscBool match;

        PetscCall(PetscStrcmp(names[k], formats[f]->name, &match));
        if (match && !formats[f]->select) found = f;
      }
      if (found < 0 && unknown < 0) unknown = k;
      else if (found >= 0) mask |= (PetscInt)1 << found;
    }
    if (unknown >= 0) {
      char bad[64];

      PetscCall(PetscStrncpy(bad, names[unknown], sizeof(bad)));
      for (PetscInt k = 0; k < nnames; k++) PetscCall(PetscFree(names[k]));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown format %s in -mat_spmv_formats: give a comma-separated list of %s", bad, list);
    }
    for (PetscInt k = 0; k < nnames; k++) PetscCall(PetscFree(names[k]));
    PetscCheck(mask, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-mat_spmv_formats names no format: give a comma-separated list of %s", list);
    p->formats = mask;
  }
  {
    PetscBool tune = (PetscBool)p->tune;

    PetscCall(PetscOptionsBool("-mat_spmv_tune", "Time the candidate formats on each operator when its layout is built and keep the fastest", "MatSPMVSetTune", tune, &tune, NULL));
    p->tune = tune;
  }
  PetscCall(PetscOptionsRangeInt("-mat_spmv_tune_reps", "Products timed per candidate format", "MatSPMVSetTune", p->tunereps, &p->tunereps, NULL, 1, 1000));
  PetscCall(PetscOptionsBoundedReal("-mat_spmv_tune_max_time", "Milliseconds of tuning per operator after which no further candidate is tried", "MatSPMVSetTune", p->tunemaxtime, &p->tunemaxtime, NULL, 0.0));
  /* every candidate's own options apply */
  for (PetscInt f = 0; f < n; f++)
    if (!formats[f]->select) PetscCall(formats[f]->setfromoptions(PetscOptionsObject, MatSpmvAutoSub(p, formats[f], f)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The candidates in the order of the rule's list for these row lengths, then those no rule names */
static PetscErrorCode MatSpmvFormatSelect_SPMV(const void *params, const MatSpmvCSR *pattern, PetscInt *ncand, MatSpmvFormat **cand, const void **candparams, MatSpmvTune *tune, char *why, size_t whylen)
{
  const MatSpmvAutoParams *p = (const MatSpmvAutoParams *)params;
  MatSpmvFormat *const    *formats;
  const MatSpmvRowStats   *st = pattern->stats;
  PetscInt                 n;
  PetscBool                irregular, taken[MATSPMV_MAX_FORMATS] = {PETSC_FALSE};
  const char *const       *rule;
  size_t                   nrule;

  PetscFunctionBegin;
  PetscCall(MatSpmvAutoFormats(&n, &formats));
  PetscCheck(st, PETSC_COMM_SELF, PETSC_ERR_PLIB, "spmv chooses from the rows' statistics the layer counts (MatSpmvRowLengthStats())");
  irregular = (PetscBool)(st->stddev > MATSPMV_IRREGULAR * st->mean);
  if (!irregular) {
    rule  = MatSpmvAutoRegular;
    nrule = PETSC_STATIC_ARRAY_LENGTH(MatSpmvAutoRegular);
  } else if (pattern->colorder == MAT_SPMV_COLUMN_ORDER_FREQUENCY) {
    rule  = MatSpmvAutoIrregularHot;
    nrule = PETSC_STATIC_ARRAY_LENGTH(MatSpmvAutoIrregularHot);
  } else {
    rule  = MatSpmvAutoIrregular;
    nrule = PETSC_STATIC_ARRAY_LENGTH(MatSpmvAutoIrregular);
  }
  *ncand = 0;
  for (size_t k = 0; k <= nrule; k++)
    for (PetscInt f = 0; f < n; f++) {
      PetscBool match = PETSC_TRUE; /* k == nrule: any candidate not taken yet */

      if (k < nrule) PetscCall(PetscStrcmp(rule[k], formats[f]->name, &match));
      if (!match || taken[f] || !MatSpmvAutoIsCandidate(p, formats, f)) continue;
      PetscCheck(*ncand < MATSPMV_MAX_CANDIDATES, PETSC_COMM_SELF, PETSC_ERR_PLIB, "spmv offers more than %d candidates: raise MATSPMV_MAX_CANDIDATES", MATSPMV_MAX_CANDIDATES);
      taken[f]               = PETSC_TRUE;
      cand[*ncand]           = formats[f];
      candparams[(*ncand)++] = p->set[f] ? (const void *)p->sub[f].bytes : formats[f]->paramsdefault;
    }
  PetscCheck(*ncand, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "spmv has no candidate format: -mat_spmv_formats must name at least one");
  tune->reps    = p->tune ? p->tunereps : 0;
  tune->maxtime = p->tunemaxtime;
  PetscCall(PetscSNPrintf(why, whylen, "%s rows (nonempty rows' lengths: mean %.1f, std. dev. %.1f %s %.1f x mean, longest %" PetscInt_FMT ")%s", irregular ? "irregular" : "regular", (double)st->mean, (double)st->stddev, irregular ? ">" : "<=", (double)MATSPMV_IRREGULAR, st->longest,
                          pattern->colorder == MAT_SPMV_COLUMN_ORDER_FREQUENCY ? ", columns renumbered by frequency" : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvFormatSubParams_SPMV(void *params, MatSpmvFormat *format, void **fparams)
{
  MatSpmvFormat *const *formats;
  PetscInt              n;

  PetscFunctionBegin;
  *fparams = NULL;
  PetscCall(MatSpmvAutoFormats(&n, &formats));
  for (PetscInt f = 0; f < n; f++)
    if (formats[f] == format && !format->select) *fparams = MatSpmvAutoSub((MatSpmvAutoParams *)params, format, f);
  PetscCheck(*fparams, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s is not a format spmv chooses from", format->name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_EXTERN PetscErrorCode MatCreate_SeqAIJSpmvAuto(Mat);
PETSC_EXTERN PetscErrorCode MatCreate_MPIAIJSpmvAuto(Mat);
PETSC_INTERN MatSpmvFormat  MatSpmvFormat_SPMV;

MatSpmvFormat MatSpmvFormat_SPMV = {
  .name           = "spmv",
  .aijname        = MATAIJSPMV,
  .seqtype        = MATSEQAIJSPMV,
  .mpitype        = MATMPIAIJSPMV,
  .title          = "format chosen per operator",
  .paramsize      = sizeof(MatSpmvAutoParams),
  .paramsdefault  = &MatSpmvAutoParamsDefault,
  .setfromoptions = MatSpmvFormatSetFromOptions_SPMV,
  .select         = MatSpmvFormatSelect_SPMV,
  .subparams      = MatSpmvFormatSubParams_SPMV,
  .createseq      = MatCreate_SeqAIJSpmvAuto,
  .creatempi      = MatCreate_MPIAIJSpmvAuto,
};

MATSPMV_DEFINE_CREATE(SpmvAuto, MatSpmvFormat_SPMV)

/*@
  MatSPMVSetTune - whether a `MATSPMV` matrix times its candidate formats on each operator and keeps the fastest

  Logically Collective

  Input Parameters:
+ A    - a `MATSPMV` matrix
- tune - `PETSC_TRUE`: when a layout is built (the first product, and after a change of the nonzero
         pattern) each candidate the rules accept is built and timed, in the rules' order, until all
         are timed or `-mat_spmv_tune_max_time` milliseconds have passed; the fastest is kept.
         `PETSC_FALSE` (default): the first candidate of the rules that accepts the pattern

  Options Database Keys:
+ -mat_spmv_tune <false>          - the same
. -mat_spmv_tune_reps <10>        - products timed per candidate
- -mat_spmv_tune_max_time <1000>  - milliseconds per operator after which no further candidate is tried

  Level: intermediate

  Note:
  Tuning makes the first product slower by the builds and timed products of the candidates (shown by
  the MatSPMVBuild event of `-log_view`) and its choice may differ between runs when two formats are
  within the timing noise; it pays in long solves with the same nonzero pattern.

.seealso: [](ch_matrices), `Mat`, `MATSPMV`
@*/
PetscErrorCode MatSPMVSetTune(Mat A, PetscBool tune)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveBool(A, tune, 2);
  PetscCall(MatSpmvSetParam_Private(A, &MatSpmvFormat_SPMV, offsetof(MatSpmvAutoParams, tune), (PetscInt)tune));
  PetscFunctionReturn(PETSC_SUCCESS);
}
