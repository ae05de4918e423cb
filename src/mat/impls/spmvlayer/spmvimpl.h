#pragma once
/*
  The shared layer of petscspmv, in floors: each file calls only files of its own floor or below
  (scripts/check-layers.py checks it against the table in docs/design.md).

    0 device services        device.cu (spmvkernels.h: device helpers for the formats' kernels)
    1 base                   base.c (saved base operations), formats.c (the registered formats),
                             cusparse.c (aijcusparse access); spmvbase.h declares floors 0-1 for
                             packages, spmvdata.h the rest of floor 1
    2 engine                 order.c, layout.c, build.c, apply.c, select.c, operator.c, check.c:
                             a format's layout of one operator, built, kept current and applied
                             (spmvengine.h)
    3 PETSc types            params.c, product.c, cusparsefactor.c, seq.c, mpi.c (spmvtypes.h)
    4 package and API        src/mat/interface/: package.c, api.c

  With a GPU, every format is a SeqAIJCUSPARSE/MPIAIJCUSPARSE matrix (the base) whose four products
  go through the format; without one it is a SeqAIJ/MPIAIJ with the host reference kernels. The
  layer owns all PETSc plumbing; a format supplies only a MatSpmvFormat table and never knows which
  base is in use. The caller prepares (options read, backend resolved): the engine never calls up.

  One verb per step of a product, from PETSc's op down:
    Mult     the Mat op (MatMult_SeqAIJSpmv ...): the base's product while op(A) waits for its layout, else Apply
    Prepare  options read and backend resolved, once (MatSpmvPrepare_SeqAIJSpmv)
    Update   op(A)'s layout made current: built, rebuilt on a new pattern, or refreshed (MatSpmvUpdate)
    Refresh  only the values of a layout gathered again (MatSpmvRefresh)
    Apply    y = op(A) x (+ z) through the current layout on PETSc vectors (MatSpmvApply), the format's
             kernel on arrays below it (MatSpmvLayoutMultDevice/Host)
*/
#include "spmvformat.h" /* what a format sees */
#include "spmvdata.h"   /* floor 1 */
#include "spmvengine.h" /* floor 2 */
#include "spmvtypes.h"  /* floors 3 and 4 */
