#pragma once
/*
  The shared layer of petscspmv, in floors: each file calls only files of its own floor or below
  (scripts/check-layers.py checks it against the table in docs/design.md).

    0 device services        device/: device.cu, coo.cu, graph.cu (spmvkernels.h: device helpers for
                             the formats' kernels)
    1 base                   base/: base.c (saved base operations), formats.c (what the package
                             registered: the formats, the table of device operations), cusparse.c
                             (aijcusparse access), oncsr.c, ghost.c; spmvbase.h declares floors 0-1
                             for packages, spmvdata.h the rest of floor 1
    2 engine                 engine/: order.c, layout.c, build.c, apply.c, select.c, operator.c, check.c:
                             a format's layout of one operator, built, kept current and applied
                             (spmvengine.h)
    3 PETSc types            types/: params.c, seq.c, mpi.c, dmda.c, product.c, values.c, coo.c,
                             graph.c, cusparsefactor.c (spmvtypes.h)
  Above the layer: the device operations and packages (floor 4: spmvsor/, spmvspgemm/, spmvfactor/,
  spmvgamg/), which the layer reaches only through MatSpmvDeviceOperations (spmvbase.h) or PETSc's
  registries; the formats (floor 5), reached through their MatSpmvFormat tables; src/mat/interface/
  (floor 6: package.c registers all of them, api.c).

  With a GPU, every format is a SeqAIJCUSPARSE/MPIAIJCUSPARSE matrix (the base) whose four products
  go through the format; without one it is a SeqAIJ/MPIAIJ with the host reference kernels. The
  layer owns all PETSc plumbing; a format supplies only a MatSpmvFormat table and never knows which
  base is in use. The caller settles the options and backend first: the engine never calls up.

  One verb for "bring up to date", Update: MatSpmvUpdateSettings() (options read, backend resolved,
  once), MatSpmvUpdate() (op(A)'s layout: built, rebuilt on a new pattern, or its values updated),
  MatSpmvUpdateValues() (only a layout's values, gathered again), MatSpmvUpdateHostValues() (host
  values from aijcusparse's device ones), MatSpmvUpdateTranspose() (aijcusparse's stale explicit
  transpose). A product, from PETSc's op down, 3 frames to the format's kernel:
    MatMult_SeqAIJSpmv ...  one look-up of A's data; a layout current at A's object state
                            (MatSpmvLayoutCurrent(), the one check) goes straight to
    MatSpmvApply()          y = op(A) x (+ z) on PETSc vectors (host ones staged), then
    MatSpmvLayoutMultDevice/Host()  the format's kernel on arrays.
  Anything else (the first products, a new pattern or new values, aijcusparse's products while op(A)
  waits for its layout or declined it) goes through MatSpmvMult(), which updates and then applies.
*/
#include "spmvformat.h" /* what a format sees */
#include "spmvdata.h"   /* floor 1 */
#include "spmvengine.h" /* floor 2 */
#include "spmvtypes.h"  /* floor 3 */
