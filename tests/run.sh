#!/usr/bin/env bash
# The petscspmv test suite (make check): the cases of tests/cases, one line each; last line "N passed, N failed".
#   tests/run.sh [-k pattern] [-t tag]... [--list] [id...]
#     id...         only these cases (shell patterns: 'brc/*', '*/ex19-*-np2')
#     -k pattern    only the cases whose id contains pattern ('a|b': a or b)
#     -t tag        only the cases with this tag (a type, np2, gpu, factor, ...; repeated: all of them)
#     --list        print "id  what it checks" of the selected cases, run nothing
# More: tests/README.md
set -u
cd "$(dirname "$0")/.."
root=$PWD
. scripts/petsc-env.sh
. tests/helpers.sh
filter= list=0 wanted=() tagged=()
while [ $# -gt 0 ]; do
  case $1 in
    -k) filter=${2:-}; shift 2 ;;
    -t) tagged+=("${2:-}"); shift 2 ;;
    --list) list=1; shift ;;
    -h | --help) sed -n '2,8p' "$0"; exit 0 ;;
    *) wanted+=("$1"); shift ;;
  esac
done
if [ "${PETSCSPMV_VARIANT:-real}" = real ]; then builddir=${BUILDDIR:-build} libdir=${LIBDIR:-lib}
else builddir=${BUILDDIR:-build/$PETSCSPMV_VARIANT} libdir=${LIBDIR:-$builddir/lib}; fi
bin=$root/$builddir/bin
lib=$root/$libdir/libpetscspmv.so
mats=$root/tests/matrices
logs=${PETSCSPMV_TEST_LOGS:-$root/$builddir/test-logs}
mkdir -p "$logs"
np2="$PETSCSPMV_MPIEXEC_N 2" # the launcher (scripts/petsc-env.sh: $MPIEXEC, else PETSc's), --oversubscribe where Open MPI's
types=${PETSCSPMV_TEST_TYPES:-$(scripts/formats.sh)} # every registered format
export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0"
export root bin lib logs np2 # the checks run in child shells: their files go here, not to /

gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then gpu=1; fi
# PETSCSPMV_TEST_DUMP=host|gpu: print every selected case's expanded command as on such a machine, run
# nothing (a change to tests/cases that must not change what runs compares two dumps)
case ${PETSCSPMV_TEST_DUMP:-} in host) gpu=0 ;; gpu) gpu=1 ;; esac
backend=host base=aij vbase= dmvbase=
[ $gpu = 1 ] && backend=cuda base=aijcusparse vbase="-vec_type cuda" dmvbase="-dm_vec_type cuda"
pyenv=$(petscspmv_python_venv)
cuobjdump=${CUOBJDUMP:-$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null || true)}

# the needs of "if:" tags: true when met, else the reason on stdout
need_clang14() { command -v clang-format >/dev/null 2>&1 && clang-format --version | grep -q 'version 14\.' || echo "clang-format 14 not found (the sources were formatted with it)"; }
need_cuobjdump() {
  [ -n "$cuobjdump" ] && [ "${PETSCSPMV_VARIANT:-real}" = real ] && grep -E '^CUDAC *= *[^ ]' "$PETSC_DIR/lib/petsc/conf/petscvariables" >/dev/null 2>&1 ||
    echo "no cuobjdump (the CUDA toolkit's, or PyPI's nvidia-cuda-cuobjdump: CUOBJDUMP=...), or a build without CUDA"
}
need_mpmd() { timeout 60 $PETSCSPMV_MPIEXEC_N 1 true : -n 1 true >/dev/null 2>&1 || echo "the MPI launcher runs no two programs at once (prog : -n 1 prog)"; }
need_petsc4py() { "$pyenv/bin/python" -c 'import petsc4py' >/dev/null 2>&1 || echo "petsc4py not set up for this PETSc (make python)"; }
need_slepc4py() { "$pyenv/bin/python" -c 'import slepc4py' >/dev/null 2>&1 || echo "SLEPc not set up for this PETSc (make slepc)"; }
need_install() {
  command -v make >/dev/null && command -v pkg-config >/dev/null && [ -f "$PETSC_DIR/${PETSC_ARCH:-}/lib/pkgconfig/PETSc.pc" ] &&
    command -v "$(PKG_CONFIG_PATH=$PETSC_DIR/${PETSC_ARCH:-}/lib/pkgconfig pkg-config --variable=ccompiler PETSc)" >/dev/null ||
    echo "no make, pkg-config, PETSc.pc or PETSc's compiler here"
}
# the device graph (its weights are real) and GAMG's device tentative prolongator take real scalars: complex builds take PETSc's
need_realdevice() { [ "${PETSCSPMV_VARIANT:-real}" != complex ] || echo "complex scalars: MatCreateGraph() and the tentative prolongator are PETSc's by design"; }
# the device SpGEMM, SOR sweep, graph and COO assembly index with 32 bits: with 64-bit PetscInt those are aijcusparse's or PETSc's
need_int32() {
  grep -qs '^#define PETSC_USE_64BIT_INDICES 1' "$PETSC_DIR/${PETSC_ARCH:-}/include/petscconf.h" "$PETSC_DIR/include/petscconf.h" &&
    echo "64-bit indices: the device SpGEMM, SOR sweep, graph, COO assembly and GAMG's page-locked set-up take 32-bit ones (aijcusparse's or PETSc's run)"
  true
}
# brc's 64-bit slot offsets (the layout past 2^31 slots) exist only with 64-bit PetscInt
need_int64() { [ -n "$(need_int32)" ] || echo "32-bit indices: brc's 64-bit slot offsets are for 64-bit PetscInt"; }
need_noinstall() { [ -n "$(need_install)" ] || echo "make install can be tried here"; }
declare -A need_reason=()
unmet() { # need: prints the reason when not met (each need checked once)
  [ -n "${need_reason[$1]+x}" ] || need_reason[$1]=$("need_$1")
  [ -n "${need_reason[$1]}" ] && echo "${need_reason[$1]}"
}

[ -n "${PETSCSPMV_TEST_LIST:-}${PETSCSPMV_TEST_DUMP:-}" ] || [ $list = 1 ] || echo "petscspmv tests: PETSC_DIR=$PETSC_DIR (variant $PETSCSPMV_VARIANT), GPU: $([ $gpu = 1 ] && nvidia-smi -L | head -1 || echo none, host reference kernels)"

pass=0 fail=0 skip=0 skipgpu=0
declare -A seen=()
# PETSCSPMV_TEST_IDS=file: only the ids listed in it; PETSCSPMV_TEST_CLAIMS=dir: only those this
# copy claims first in dir, shared with other copies (tests/run-gpus.sh)
selected() { # id tags
  local id=$1 tags=" $2 " pattern patterns
  if [ -n "${PETSCSPMV_TEST_IDS:-}" ] && ! grep -qxF -- "$id" "$PETSCSPMV_TEST_IDS"; then return 1; fi
  if [ ${#wanted[@]} -gt 0 ]; then
    local ok=1 w
    for w in "${wanted[@]}"; do
      # shellcheck disable=SC2053
      [[ $id == $w ]] && { ok=0; break; }
    done
    [ $ok = 0 ] || return 1
  fi
  for pattern in "${tagged[@]}"; do case $tags in *" $pattern "*) ;; *) return 1 ;; esac; done
  IFS='|' read -ra patterns <<<"$filter"
  [ ${#patterns[@]} = 0 ] && return 0
  for pattern in "${patterns[@]}"; do case $id in *"$pattern"*) return 0 ;; esac; done
  return 1
}
run() { # id name limit command...
  local id=$1 name=$2 limit=$3
  shift 3
  if [ -n "${PETSCSPMV_TEST_LIST:-}" ]; then echo "CASE $id"; return 0; fi # ids only
  if [ $list = 1 ]; then printf '%s\t%s\n' "$id" "$name"; return 0; fi
  # copies sharing PETSCSPMV_TEST_CLAIMS (tests/run-gpus.sh) each run the cases they claim first
  if [ -n "${PETSCSPMV_TEST_CLAIMS:-}" ]; then mkdir "$PETSCSPMV_TEST_CLAIMS/$(printf '%s' "$id" | md5sum | cut -c1-32)" 2>/dev/null || return 0; fi
  local log="$logs/$(printf '%s' "$id" | tr -c 'A-Za-z0-9_.-' _).log" t0=$SECONDS
  if timeout "$limit" bash -c '"$@"' _ "$@" >"$log" 2>&1 </dev/null; then
    pass=$((pass + 1)); echo "PASS $id  $name ($((SECONDS - t0)) s)"
  else
    fail=$((fail + 1)); echo "FAIL $id  $name ($((SECONDS - t0)) s, log: $log)"; failure_lines "$log" 15 | sed 's/^/     /'
  fi
}

# The case's command as words (into words): an array's assignment, where a command list (&&, ;) outside
# quotes is a syntax error; with "set --" the rest of the list ran in the harness, uncounted
case_words() {
  words=()
  eval "words=($c_cmd)" 2>/dev/null || {
    echo "${PETSCSPMV_TEST_CASES:-tests/cases}: $cid: its command is not one command (&&, || or ; outside quotes: put the list in bash -c '...')"
    exit 2
  }
}
# One line of tests/cases, its axes set: the variables of the case, its id, selection and run
one_case() {
  local d cid name words reason limit=${PETSCSPMV_TEST_TIMEOUT:-900} tags
  mpi= sub= bj= ranks="$np rank" # one rank without the launcher
  if [ "$np" -gt 1 ]; then mpi="$PETSCSPMV_MPIEXEC_N $np" sub=sub_ bj="-pc_type bjacobi" ranks="$np ranks"; fi
  gpuopt= seqt=
  [ -n "$t" ] && gpuopt="-mat_${t}_backend $backend" seqt=seqaij$t
  for d in "${defs[@]}"; do eval "$d"; done
  eval "cid=\"$c_id\""
  [ -n "$t" ] && cid=$t/$cid
  [ -z "${seen[$cid]+x}" ] || { echo "${PETSCSPMV_TEST_CASES:-tests/cases}: the id $cid is given twice"; exit 2; }
  seen[$cid]=1
  tags="$t np$np $c_gpu $c_labels $axisvals"
  selected "$cid" "$tags" || return 0
  eval "name=\"$c_name\""
  [ -n "$t" ] && name="$t: $name"
  if [ -n "${PETSCSPMV_TEST_DUMP:-}" ]; then
    case_words
    printf 'CASE %s | %s | %s %s | limit %s |' "$cid" "$name" "$c_gpu" "$c_needs" "${c_limit:-default}"
    printf ' %q' "${words[@]}"
    echo
    return 0
  fi
  if [ "$c_gpu" = gpu ] && [ $gpu = 0 ]; then skipgpu=$((skipgpu + 1)); return 0; fi
  if [ "$c_gpu" = nogpu ] && [ $gpu = 1 ]; then return 0; fi
  for d in $c_needs; do
    if reason=$(unmet "$d"); then
      case $d in no*) return 0 ;; esac # the other form of a case whose need is met: not a skip
      [ -z "${PETSCSPMV_TEST_LIST:-}" ] && [ $list = 0 ] && echo "SKIP $cid  $name: $reason"
      skip=$((skip + 1)); return 0
    fi
  done
  [ -n "$c_limit" ] && [ "$c_limit" -lt "$limit" ] && limit=$c_limit
  case_words
  run "$cid" "$name" "$limit" "${words[@]}"
}
expand() { # axis... : one case per value of each axis ("name=v1,v2")
  if [ $# = 0 ]; then one_case; return; fi
  local axis=$1 v vals
  shift
  IFS=, read -ra vals <<<"${axis#*=}"
  for v in "${vals[@]}"; do
    printf -v "${axis%%=*}" %s "$v"
    axisvals="$axisvals ${axis%%=*}=$v"
    expand "$@"
    axisvals=${axisvals%" ${axis%%=*}=$v"}
  done
}

mapfile -t raw <"${PETSCSPMV_TEST_CASES:-tests/cases}" # PETSCSPMV_TEST_CASES: another table (tests/harness-fixture.sh)
# a line ending in a backslash goes on in the next one: the two joined by one blank (the backslash,
# the blanks before it and the next line's indentation dropped)
lines=() held=
for line in "${raw[@]}"; do
  [ -n "$held" ] && line=${line#"${line%%[![:blank:]]*}"}
  if [[ $line =~ ^(.*[^[:blank:]])[[:blank:]]*\\$ ]]; then held="$held${held:+ }${BASH_REMATCH[1]}"; continue; fi
  [ -n "$held" ] && line="$held $line" held=
  lines+=("$line")
done
defs=()
for line in "${lines[@]}"; do
  case $line in '' | '#'*) continue ;; 'def '*) defs+=("${line#def }"); continue ;; esac
  IFS='|' read -r c_id c_tags c_name c_cmd <<<"$line"
  c_id=$(echo $c_id) c_name=${c_name# } c_name=${c_name% } c_cmd=${c_cmd# }
  c_gpu= c_needs= c_limit= c_labels= axes=() t= np=1 axisvals=
  typelist=
  for tag in $c_tags; do
    case $tag in
      type) typelist=$types ;;
      type=*) case " $types " in *" ${tag#type=} "*) typelist=${tag#type=} ;; *) typelist=none ;; esac ;;
      gpu | nogpu) c_gpu=$tag ;;
      if:*) c_needs="$c_needs ${tag#if:}" ;;
      limit=*) c_limit=${tag#limit=} ;;
      *=*) axes+=("$tag") ;;
      *) c_labels="$c_labels $tag" ;;
    esac
  done
  [ "$typelist" = none ] && continue
  if [ -n "$typelist" ]; then
    for t in $typelist; do expand "${axes[@]}"; done
  else expand "${axes[@]}"; fi
done
[ -n "${PETSCSPMV_TEST_LIST:-}${PETSCSPMV_TEST_DUMP:-}" ] || [ $list = 1 ] && exit 0
echo "($skip skipped$([ $skipgpu = 0 ] || echo ", and $skipgpu cases that need a GPU"))"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
