# The checks the cases of tests/cases run (sourced by tests/run.sh, exported to each case's shell).
# Each takes the programs to run as arguments and prints what it compared.


# the Newton and linear iteration counts of a stock-program run (error norms left out)
# PETSc prints a line's indentation and its text in separate writes: with 2 ranks another rank's -info
# line can land between them, so the indentation (and anything before the text) is not compared
iters() {
  grep -E "Linear solve converged|Nonlinear solve converged|Number of SNES iterations|iterations [0-9]+$" "$1" |
    sed -E 's/^.*((Linear|Nonlinear) solve converged)/\1/; s/^[[:space:]]+//; s/ due to [A-Z_]+//; s/Norm of error [^ ]+ //'
}
# dir reference-args -- test-args: both runs, into dir/ref.log and dir/test.log (a failed one's log printed)
run_pair() {
  local dir=$1 ref=() tst=() side=ref
  shift
  for a in "$@"; do
    if [ "$a" = -- ]; then side=tst; continue; fi
    if [ $side = ref ]; then ref+=("$a"); else tst+=("$a"); fi
  done
  "${ref[@]}" >"$dir/ref.log" 2>&1 || { echo "reference run failed"; cat "$dir/ref.log"; return 1; }
  "${tst[@]}" >"$dir/test.log" 2>&1 || { echo "test run failed"; cat "$dir/test.log"; return 1; }
}
same_iterations() { # program-name reference-args -- test-args
  local prog=$1 dir; shift
  dir=$(mktemp -d "$logs/$prog.XXXXXX")
  run_pair "$dir" "$@" || return 1
  iters "$dir/ref.log" >"$dir/ref.it"; iters "$dir/test.log" >"$dir/test.it"
  [ -s "$dir/ref.it" ] || { echo "no iteration counts in the reference run"; return 1; }
  local tol=${ITER_TOL:-0}
  # single precision: products summed in another order change GMRES's rounding
  [ "${PETSCSPMV_VARIANT:-real}" = single ] && [ "$tol" = 0 ] && tol=2
  if [ "$tol" != 0 ]; then
    # linear counts may move by up to tol% (at least 1): rows summed in another order (atomics, a
    # different kernel) change the rounding; Newton counts and the number of solves must match
    paste -d'|' "$dir/ref.it" "$dir/test.it" | awk -F'|' -v tol="$tol" '
      { na = split($1, a, " "); nb = split($2, b, " "); ra = a[na]; rb = b[nb]; $1 = $1 }
      { sub(/[0-9]+$/, "", $1); sub(/[0-9]+$/, "", $2) }
      $1 != $2 { bad = 1 }
      $1 ~ /Nonlinear|SNES/ && ra != rb { bad = 1 }
      ra != rb && (ra - rb > tol / 100 * ra + 1 || rb - ra > tol / 100 * ra + 1) { bad = 1 }
      END { exit bad }' && [ "$(wc -l <"$dir/ref.it")" = "$(wc -l <"$dir/test.it")" ] ||
      { diff "$dir/ref.it" "$dir/test.it"; echo "iteration counts differ by more than $tol% (reference < > $prog)"; return 1; }
  else
    diff "$dir/ref.it" "$dir/test.it" || { echo "iteration counts differ (reference < > $prog)"; return 1; }
  fi
  echo "same iterations:"; cat "$dir/test.it"
}
# KSPSolve's host<->device copies (counts) in a -log_view -log_view_gpu_time log and the linear
# iterations of the run: "cpu2gpu gpu2cpu iterations"
copies() {
  local its
  its=$(grep -Eo "Linear solve (converged|did not converge).* iterations [0-9]+" "$1" | awk '{ s += $NF } END { print s + 0 }')
  awk -v its="$its" '$1 == "KSPSolve" { print $(NF-4), $(NF-2), its }' "$1"
}
# tolerance extra reference-args -- test-args. Tolerance 0: the test's KSPSolve makes no more copies
# than the reference's plus extra uploads (runs that take the same iterations: ILU, Jacobi,
# polynomial; extra: a format's one-time upload of a plan made on the host, or "layout": the uploads
# the test run's Mat<FMT>Build/Refresh events logged, for layouts built on the host). Tolerance
# t%: no more copies per linear iteration than the reference's plus t% (GAMG: its iteration
# counts, and with them aijcusparse's own copy counts, vary from run to run; a copy per product
# or per level setup would still show as several percent)
no_more_copies() {
  local tol=$1 extra=$2
  shift 2
  copy_counts "$@" || return 1
  if [ "$extra" = layout ]; then # the uploads the test run's layouts logged at their builds and refreshes (host-built layouts)
    extra=$(awk 'NF > 10 && $1 ~ /^Mat[A-Z]+(Build|Refresh)$/ && $(NF-4) ~ /^[0-9.e+]+$/ { n += $(NF-4) } END { print n + 0 }' "$copies_dir/test.log")
  fi
  echo "KSPSolve copies CpuToGpu/GpuToCpu in linear iterations: reference $rc/$rg in $ri, test $tc/$tg in $ti (tolerance $tol%, extra uploads $extra)"
  if [ "$tol" = 0 ]; then
    [ "$tc" -le $((rc + extra)) ] && [ "$tg" -le "$rg" ] || { copy_events; return 1; }
  else
    # each direction: no more per iteration, or no more in all (the set-up's few copies, divided by
    # fewer iterations than the reference's, would otherwise count as more per iteration)
    awk -v a="$tc" -v b="$rc" -v c="$tg" -v d="$rg" -v ti="$ti" -v ri="$ri" -v t="$tol" 'BEGIN { f = 1 + t / 100; exit !((a / ti <= f * b / ri || a <= b) && (c / ti <= f * d / ri || c <= d)) }'
  fi
}
# after a failed comparison: each -log_view event that copied, in both runs (where the extra copies sit)
copy_events() {
  local side
  for side in ref test; do
    echo "$side: events with copies (CpuToGpu GpuToCpu counts)"
    awk 'NF > 10 && $1 ~ /^[A-Z]/ && $(NF-4) ~ /^[0-9.e+]+$/ && ($(NF-4) > 0 || $(NF-2) > 0) { print "  " $1, $(NF-4), $(NF-2) }' "$copies_dir/$side.log" | sort -u
  done
}
# KSPSolve's copies (both directions) of the test run at most share% of the reference run's: reference -- test
copies_share() {
  local share=$1
  shift
  copy_counts "$@" || return 1
  echo "KSPSolve copies CpuToGpu/GpuToCpu in linear iterations: reference $rc/$rg in $ri, test $tc/$tg in $ti (at most $share%)"
  awk -v a="$tc" -v b="$tg" -v c="$rc" -v d="$rg" -v s="$share" 'BEGIN { exit !((a + b) * 100 <= (c + d) * s) }' || { copy_events; return 1; }
}
# reference -- test, each run with -log_view -log_view_gpu_time: KSPSolve's copy counts and the linear
# iterations into rc rg ri (reference) and tc tg ti (test), for the two checks above
copy_counts() {
  local ref=() tst=() side=ref dir
  for a in "$@"; do
    if [ "$a" = -- ]; then side=tst; continue; fi
    if [ $side = ref ]; then ref+=("$a"); else tst+=("$a"); fi
  done
  dir=$(mktemp -d "$logs/copies.XXXXXX")
  copies_dir=$dir # for copy_events
  "${ref[@]}" -log_view -log_view_gpu_time >"$dir/ref.log" 2>&1 || { echo "reference run failed"; cat "$dir/ref.log"; return 1; }
  "${tst[@]}" -log_view -log_view_gpu_time >"$dir/test.log" 2>&1 || { echo "test run failed"; cat "$dir/test.log"; return 1; }
  read -r rc rg ri <<<"$(copies "$dir/ref.log")"
  read -r tc tg ti <<<"$(copies "$dir/test.log")"
  [ -n "$rc" ] && [ -n "$tc" ] && [ "${ri:-0}" -gt 0 ] && [ "${ti:-0}" -gt 0 ] || { echo "no KSPSolve line with copy counts, or no iterations"; return 1; }
}
# a failed program's long output: its error message's first lines (the cause, past -help's or -info's
# lines, or the options a PETSc error ends with), then its last ones (log [how many, default 8])
failure_lines() {
  grep -m 12 'PETSC ERROR' "$1"
  echo "..."
  tail -"${2:-8}" "$1"
}
# -help lists the format's options: option -- command... (the command's output must name the option)
lists_option() {
  local opt=$1; shift; shift
  "$@" -help >"$logs/help.$$.log" 2>&1 || { echo "the program failed"; failure_lines "$logs/help.$$.log"; return 1; }
  grep -q -- "$opt" "$logs/help.$$.log" || { echo "$opt not listed by: $*"; return 1; }
}
# the factor package -ksp_view reports (PCFactor's "package used to perform factorization"), and a
# line -info must print (none: "")
factor_package() { # expected-package info-pattern program args...
  local want=$1 info=$2; shift 2
  local log="$logs/factor.$$.log"
  "$@" -ksp_view -info :mat >"$log" 2>&1 || { echo "the program failed"; failure_lines "$log"; return 1; }
  grep "package used to perform factorization" "$log" | sort -u
  grep -q "package used to perform factorization: $want\$" "$log" || { echo "expected the $want package"; return 1; }
  [ -z "$info" ] || grep -m1 -- "$info" "$log" || { echo "no -info line matching: $info"; return 1; }
}

# examples/ex1 (what a user copies): CG + ICC(0) by MATSOLVERSPMVFACTOR on brc, made by -mat_type and by
# MatConvert, and on aij: the same iterations as aij with PETSc's own ICC(0), the same factorization
ex1_case() { # np matrix-type-shown solver-type-shown ex1-options...
  local np=$1 mtype=$2 stype=$3 dir ref tst tol=0 sub=
  shift 3
  [ $np -gt 1 ] && sub=sub_ # block Jacobi
  dir=$(mktemp -d "$logs/ex1.XXXXXX")
  $PETSCSPMV_MPIEXEC_N $np $bin/ex1 -n 40 -mat_type aij -${sub}pc_factor_mat_solver_type petsc >"$dir/ref.log" 2>&1 ||
    { echo "reference run failed"; cat "$dir/ref.log"; return 1; }
  $PETSCSPMV_MPIEXEC_N $np $bin/ex1 -n 40 "$@" >"$dir/test.log" 2>&1 || { echo "ex1 $* failed"; cat "$dir/test.log"; return 1; }
  cat "$dir/test.log"
  grep -q "^Matrix: $mtype," "$dir/test.log" || { echo "not a $mtype matrix"; return 1; }
  grep -q "factor solver type: $stype\$" "$dir/test.log" || { echo "the factor is not $stype's"; return 1; }
  grep -q "factor solver type: petsc\$" "$dir/ref.log" || { echo "the reference's factor is not PETSc's"; cat "$dir/ref.log"; return 1; }
  ref=$(sed -n 's/.*: CONVERGED_[A-Z_]* after \([0-9]*\) iterations.*/\1/p' "$dir/ref.log")
  tst=$(sed -n 's/.*: CONVERGED_[A-Z_]* after \([0-9]*\) iterations.*/\1/p' "$dir/test.log")
  [ -n "$ref" ] && [ -n "$tst" ] || { echo "did not converge (reference: ${ref:-no}, ex1: ${tst:-no})"; return 1; }
  [ "${PETSCSPMV_VARIANT:-real}" = single ] && tol=$((ref / 50 + 1)) # products summed in another order
  [ $((tst - ref)) -le $tol ] && [ $((ref - tst)) -le $tol ] || { echo "iterations $tst, aij with PETSc's ICC(0) $ref"; return 1; }
  echo "iterations $tst, as aij with PETSc's ICC(0)"
}

# petsc4py must load this PETSc's library, not another build's of the same version
same_petsc() {
  local so
  so=$(find "$1" -name 'PETSc*.so' -path '*petsc4py*' | head -1)
  [ -n "$so" ] || { echo "no petsc4py extension in $1"; return 1; }
  local got
  got=$(ldd "$so" | awk '/libpetsc\.so/ { print $3; exit }')
  echo "petsc4py loads $got"
  # compared as resolved directories: the library may be reached through a link (the GPU bundle)
  [ -n "$got" ] && [ "$(readlink -f "$(dirname "$got")")" = "$(readlink -f "$PETSC_DIR/${PETSC_ARCH:-}/lib")" ] ||
    { echo "petsc4py in $1 does not load the PETSc at $PETSC_DIR (rebuild it: rm -rf $1; make python)"; return 1; }
}

# make install's pkg-config file builds a program against the installed copy alone (a tree without
# make, PETSc's compiler or its PETSc.pc, such as the GPU bundle, cannot install: there the same
# program as built in the tree by make)
installed() {
  local prefix pcpath cc
  prefix=$(mktemp -d "$logs/install.XXXXXX")
  make --no-print-directory -C "$root" install PREFIX="$prefix" || return 1
  pcpath=$prefix/lib/pkgconfig:$PETSC_DIR/${PETSC_ARCH:-}/lib/pkgconfig
  cat "$prefix/lib/pkgconfig/petscspmv.pc"
  cc=$(PKG_CONFIG_PATH=$pcpath pkg-config --variable=ccompiler PETSc) || return 1
  # shellcheck disable=SC2046
  $cc -o "$prefix/prog" "$root/tests/test_installed.c" $(PKG_CONFIG_PATH=$pcpath pkg-config --cflags --libs petscspmv) \
    -Wl,-rpath,"$(PKG_CONFIG_PATH=$pcpath pkg-config --variable=libdir PETSc)" || return 1
  ldd "$prefix/prog" | grep -F "$prefix/lib/libpetscspmv.so" || { echo "not linked to the installed library"; return 1; }
  "$prefix/prog" && $np2 "$prefix/prog" || return 1
  # a user's program built by PETSc's sample makefile, share/petsc/Makefile.user, with PACKAGES := petscspmv
  local user mk
  mk=$(ls "$PETSC_DIR/share/petsc/Makefile.user" "$PETSC_DIR/${PETSC_ARCH:-}/share/petsc/Makefile.user" 2>/dev/null | head -1)
  [ -n "$mk" ] || { echo "no share/petsc/Makefile.user in PETSC_DIR: the sample makefile's build not tried"; return 0; }
  user=$prefix/user
  mkdir -p "$user" && cp "$root/tests/test_installed.c" "$user/prog.c"
  sed 's/^PACKAGES := .*/PACKAGES := petscspmv/' "$mk" >"$user/Makefile"
  PKG_CONFIG_PATH=$pcpath make --no-print-directory -C "$user" prog || { echo "PETSc's Makefile.user with PACKAGES := petscspmv did not build"; return 1; }
  ldd "$user/prog" | grep -F "$prefix/lib/libpetscspmv.so" || { echo "the sample makefile's program is not linked to the installed library"; return 1; }
  "$user/prog"
}

# GAMG with our coarsening against PETSc's (issue 51): reference-args -- test-args, both with -ksp_view.
# The test's view says our coarsening ran; its linear iterations are at most 1.15x the reference's
# (plus 1), and it has as many levels, each operator within 20% of the reference's rows; with
# GAMG_EXPECT set, the test's log has a line matching that extended regular expression
gamg_like_petsc() {
  local dir
  dir=$(mktemp -d "$logs/gamg.XXXXXX")
  run_pair "$dir" "$@" || return 1
  grep -q "petscspmv coarsened" "$dir/test.log" || { echo "the test run did not take petscspmv's coarsening"; grep -i "coarsening" "$dir/test.log"; return 1; }
  ! grep -q "petscspmv coarsened" "$dir/ref.log" || { echo "the reference run took petscspmv's coarsening"; return 1; }
  [ -z "${GAMG_EXPECT:-}" ] || grep -Eq "$GAMG_EXPECT" "$dir/test.log" || { echo "the test run's log has no line matching $GAMG_EXPECT"; grep "petscspmv coarsened" "$dir/test.log"; return 1; }
  # each level's operator: the first rows= after a level's solver header
  levels() { awk '/(Coarse grid solver|Down solver \(pre-smoother\) on level)/ { want = 1 } want && /rows=/ { sub(/.*rows=/, ""); sub(/,.*/, ""); print; want = 0 }' "$1"; }
  levels "$dir/ref.log" >"$dir/ref.rows"; levels "$dir/test.log" >"$dir/test.rows"
  [ -s "$dir/ref.rows" ] || { echo "no -ksp_view levels in the reference run"; return 1; }
  echo "levels' rows, PETSc's | ours:"; paste -d'|' "$dir/ref.rows" "$dir/test.rows"
  [ "$(wc -l <"$dir/ref.rows")" = "$(wc -l <"$dir/test.rows")" ] || { echo "not as many levels as PETSc's"; return 1; }
  # (a coarsest level of a row or two may have one more or less; GAMG_ROWS_SLACK rows, default 2)
  local slack=${GAMG_ROWS_SLACK:-2}
  paste "$dir/ref.rows" "$dir/test.rows" | awk -v s="$slack" '{ d = $2 - $1; if (d < 0) d = -d; if (d > 0.2 * $1 && d > s) bad = 1 } END { exit bad }' ||
    { echo "a level's rows differ from PETSc's by more than 20% (and $slack rows)"; return 1; }
  local ri ti
  ri=$(iters "$dir/ref.log" | awk '{ s += $NF } END { print s + 0 }')
  ti=$(iters "$dir/test.log" | awk '{ s += $NF } END { print s + 0 }')
  echo "linear iterations, PETSc's coarsening $ri, ours $ti"
  [ "$ri" -gt 0 ] && awk -v r="$ri" -v t="$ti" 'BEGIN { exit !(t <= 1.15 * r + 1) }' || { echo "more than 1.15x PETSc's iterations"; return 1; }
}
# Two runs of a Krylov solve that must take the same steps: as many residual norms (-ksp_monitor), each
# within RES_RTOL (default 1e-8) of the other run's, relative (products summed in another order round
# differently, nothing more); RES_EXPECT, RES_REF_EXPECT: regexes the test's and the reference's logs
# must match (what each run took). Args: reference-args -- test-args
same_residuals() {
  local dir
  dir=$(mktemp -d "$logs/residuals.XXXXXX")
  run_pair "$dir" "$@" || return 1
  [ -z "${RES_EXPECT:-}" ] || grep -Eq "$RES_EXPECT" "$dir/test.log" || { echo "the test run's log has no line matching $RES_EXPECT"; return 1; }
  [ -z "${RES_REF_EXPECT:-}" ] || grep -Eq "$RES_REF_EXPECT" "$dir/ref.log" || { echo "the reference run's log has no line matching $RES_REF_EXPECT"; return 1; }
  for f in ref test; do grep -E "KSP Residual norm" "$dir/$f.log" | awk '{ print $NF }' >"$dir/$f.res"; done
  [ -s "$dir/ref.res" ] || { echo "no residual norms (-ksp_monitor) in the reference run"; return 1; }
  echo "residual norms, reference | test: $(wc -l <"$dir/ref.res") | $(wc -l <"$dir/test.res"), last $(tail -1 "$dir/ref.res") | $(tail -1 "$dir/test.res")"
  [ "$(wc -l <"$dir/ref.res")" = "$(wc -l <"$dir/test.res")" ] || { echo "not as many residual norms"; return 1; }
  paste "$dir/ref.res" "$dir/test.res" | awk -v tol="${RES_RTOL:-1e-8}" '
    { d = $1 - $2; if (d < 0) d = -d; m = ($1 > $2 ? $1 : $2); if (d > tol * m + 1e-300) { print "step " NR ": " $1 " vs " $2; bad = 1 } }
    END { exit bad }' || { echo "residual norms differ by more than ${RES_RTOL:-1e-8} (relative)"; return 1; }
}
# text program-args...: the program stops (exit status not 0) with an error saying text (bad input refused clearly)
fails_with() {
  local text=$1 out rc
  shift
  out=$("$@" 2>&1)
  rc=$?
  [ $rc != 0 ] || { echo "$*: exited 0, expected an error saying: $text"; return 1; }
  echo "$out" | grep -qF -- "$text" || { echo "$out" | tail -20; echo "stopped (exit $rc) without saying: $text"; return 1; }
  echo "refused (exit $rc): $(echo "$out" | grep -m1 -F -- "$text" | sed 's/^\[[0-9]*\]PETSC ERROR: //')"
}
# "-option value: message" ... -- program-args: the program given each option alone stops saying that message
refuses() {
  local specs=() s
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    specs+=("$1")
    shift
  done
  shift
  for s in "${specs[@]}"; do
    # shellcheck disable=SC2086 # the option and its value, two words
    fails_with "$s" "$@" ${s%%:*} || return 1
  done
}
# program args...: the program run with -petscspmv_fail_device_alloc N, N over its device allocations
# (all of the first 12, then 12 spread over the rest): each run either takes the iterations of the run
# without a failure (a fallback) or stops with PETSc's out-of-device-memory error; never an abort, a
# signal or another error
survives_alloc_failures() {
  local dir total ns n rc fine=0 stopped=0
  dir=$(mktemp -d "$logs/allocfail.XXXXXX")
  "$@" -petscspmv_fail_device_alloc 2000000000 >"$dir/ref.log" 2>&1 || { echo "the run without a failure failed"; tail -30 "$dir/ref.log"; return 1; }
  total=$(grep -Eo "petscspmv: [0-9]+ device allocations counted" "$dir/ref.log" | awk '{ print $2 }' | tail -1)
  [ "${total:-0}" -gt 0 ] || { echo "no device allocation counted"; tail -5 "$dir/ref.log"; return 1; }
  iters "$dir/ref.log" >"$dir/ref.it"
  ns=$({ seq 1 $((total < 12 ? total : 12)); [ "$total" -le 12 ] || awk -v t="$total" 'BEGIN { for (k = 1; k <= 12; k++) print 12 + int(k * (t - 12) / 12) }'; } | sort -un)
  for n in $ns; do
    "$@" -petscspmv_fail_device_alloc "$n" >"$dir/$n.log" 2>&1
    rc=$?
    # on several ranks the launcher ends the others (signal 15) once one stops with PETSc's error
    if [ $rc != 0 ] && grep -q "Out of device memory" "$dir/$n.log" && \
      ! grep -qE "terminate called|Caught signal number ([0-9]|1[0-46-9]|[2-9][0-9]) |Segmentation|Aborted" "$dir/$n.log"; then
      stopped=$((stopped + 1))
    elif [ $rc -ge 128 ] || grep -qE "terminate called|Caught signal|Segmentation|Aborted" "$dir/$n.log"; then
      echo "allocation $n of $total: the process aborted (exit $rc)"; tail -20 "$dir/$n.log"; return 1
    elif [ $rc = 0 ]; then
      iters "$dir/$n.log" | diff "$dir/ref.it" - >/dev/null || { echo "allocation $n of $total failed: finished with other iterations"; iters "$dir/$n.log" | diff "$dir/ref.it" -; return 1; }
      fine=$((fine + 1))
    else
      grep -q "Out of device memory" "$dir/$n.log" || { echo "allocation $n of $total failed: stopped (exit $rc) without PETSc's out-of-device-memory error"; tail -20 "$dir/$n.log"; return 1; }
      stopped=$((stopped + 1))
    fi
  done
  echo "$total device allocations; each of $(echo "$ns" | wc -w) made to fail: $fine runs finished with the same iterations (a fallback), $stopped stopped with PETSc's out-of-device-memory error"
}
# program args...: a run with PETSc's defaults whose -info and -ksp_view say, for each matrix that
# MatSOR() met, the path the cost model chose and its predictions
sor_paths() {
  local out
  out=$("$@" -info :mat -ksp_view 2>&1) || { echo "$out" | tail -30; return 1; }
  echo "$out" | grep -qE "^\[0\] .*MatSOR\(\) (on the device|by PETSc's host code): chosen by cost(, timed)?; .*predicted" || { echo "-info does not say the MatSOR() path"; return 1; }
  echo "$out" | grep -qE "^ +MatSOR\(\) (on the device|by PETSc's host code): chosen by cost" || { echo "-ksp_view does not say the MatSOR() path"; return 1; }
  echo "$out" | grep -oE "^ +MatSOR\(\) .*" | sed 's/^ *//' | sort -u
}
# -petscspmv_format_only: a run with -info prints none of our device operations' lines (the device SOR,
# SpGEMM, graph, coarsening, factor) and converges
format_only() { # program args...
  local out
  out=$("$@" -petscspmv_format_only -info 2>&1) || { echo "$out" | tail -30; return 1; }
  echo "$out" | grep -m1 "format_only: only the SpMV formats" || { echo "-info does not say -petscspmv_format_only"; return 1; }
  if echo "$out" | grep -E "MatSOR\(\) on the device|by the device SpGEMM|MatSpmvCreateGraph|spmvmis|MATSOLVERSPMVFACTOR|aggregates of [0-9]+ nodes"; then
    echo "a device operation of ours ran under -petscspmv_format_only"; return 1
  fi
  echo "$out" | grep -E "solve converged" | sort | uniq -c
}
export -f copy_events format_only sor_paths survives_alloc_failures fails_with refuses iters run_pair same_iterations copies copy_counts no_more_copies copies_share failure_lines lists_option factor_package ex1_case same_petsc installed gamg_like_petsc same_residuals
