#!/usr/bin/env bash
# The parameter sweeps behind the README's defaults: every generated matrix, aijcusparse and brc
# for reference, then one format under its option sets (each an spmvbench type@name entry).
#   bench/sweep.sh cmrs|argcsr|ipcsr|ellr [extra spmvbench options]    (PETSCSPMV_VARIANT=single for float)
# Output on stdout: keep it with e.g. "mkdir -p results; ... | tee results/NAME.txt" (results/ is git-ignored).
# cmrs: the basic kernel with automatic lanes at heights 2 and 4; the paper's whole-warp basic
# kernel at heights 1-8 (Eq. 5.2 predicts its speedup over height 1); the modified kernel at
# heights 8 and 16, modulo 4, 8 and 32, sorted. argcsr: chunk sizes 1-32 at block 256, blocks
# 128-1024 with the automatic chunk size. ipcsr: the automatic kernel; ipcsr with the paper's budget
# and 4 KB to 96 KB per block; csrm with fragments of 256 to 4096 nonzeros. ellr: every T at block 128, blocks 64-512 with the
# automatic T (matrices padding more than 3x are refused and reported, e.g. powerlaw and circuit).
set -u
cd "$(dirname "$0")/.."
. scripts/petsc-env.sh >/dev/null
bin=build/bin
[ "${PETSCSPMV_VARIANT:-real}" = real ] || bin=build/$PETSCSPMV_VARIANT/bin
format=${1:?usage: bench/sweep.sh cmrs|argcsr|ipcsr|ellr [spmvbench options]}
shift
case $format in
cmrs)
  configs=( # name: options
    "auto:" "b2: -mat_cmrs_kernel basic -mat_cmrs_height 2" "b4: -mat_cmrs_kernel basic -mat_cmrs_height 4"
    "w1: -mat_cmrs_kernel basic -mat_cmrs_height 1 -mat_cmrs_lanes 32" "w2: -mat_cmrs_kernel basic -mat_cmrs_height 2 -mat_cmrs_lanes 32"
    "w4: -mat_cmrs_kernel basic -mat_cmrs_height 4 -mat_cmrs_lanes 32" "w8: -mat_cmrs_kernel basic -mat_cmrs_height 8 -mat_cmrs_lanes 32"
    "m8: -mat_cmrs_kernel modified -mat_cmrs_height 8" "m16: -mat_cmrs_kernel modified -mat_cmrs_height 16"
    "m16s: -mat_cmrs_kernel modified -mat_cmrs_height 16 -mat_cmrs_sort"
    "m16m4: -mat_cmrs_kernel modified -mat_cmrs_height 16 -mat_cmrs_modulo 4"
    "m16m32: -mat_cmrs_kernel modified -mat_cmrs_height 16 -mat_cmrs_modulo 32") ;;
argcsr)
  configs=("auto:" "c1: -mat_argcsr_chunk 1" "c2: -mat_argcsr_chunk 2" "c4: -mat_argcsr_chunk 4" "c8: -mat_argcsr_chunk 8"
    "c16: -mat_argcsr_chunk 16" "c32: -mat_argcsr_chunk 32" "b128: -mat_argcsr_block 128" "b512: -mat_argcsr_block 512"
    "b1024: -mat_argcsr_block 1024" "c1b1024: -mat_argcsr_chunk 1 -mat_argcsr_block 1024") ;;
ipcsr)
  configs=("auto:" "ip: -mat_ipcsr_kernel ipcsr" "ip4k: -mat_ipcsr_kernel ipcsr -mat_ipcsr_shared 4096"
    "ip8k: -mat_ipcsr_kernel ipcsr -mat_ipcsr_shared 8192" "ip12k: -mat_ipcsr_kernel ipcsr -mat_ipcsr_shared 12288" "ip16k: -mat_ipcsr_kernel ipcsr -mat_ipcsr_shared 16384"
    "ip24k: -mat_ipcsr_kernel ipcsr -mat_ipcsr_shared 24576" "ip32k: -mat_ipcsr_kernel ipcsr -mat_ipcsr_shared 32768"
    "ip48k: -mat_ipcsr_kernel ipcsr -mat_ipcsr_shared 49152" "ip96k: -mat_ipcsr_kernel ipcsr -mat_ipcsr_shared 98304"
    "cm: -mat_ipcsr_kernel csrm" "cm512: -mat_ipcsr_kernel csrm -mat_ipcsr_fragment 512"
    "cm2k: -mat_ipcsr_kernel csrm -mat_ipcsr_fragment 2048" "cm4k: -mat_ipcsr_kernel csrm -mat_ipcsr_fragment 4096") ;;
ellr)
  configs=("auto:" "t1: -mat_ellr_t 1" "t2: -mat_ellr_t 2" "t4: -mat_ellr_t 4" "t8: -mat_ellr_t 8" "t16: -mat_ellr_t 16"
    "t32: -mat_ellr_t 32" "b64: -mat_ellr_block 64" "b256: -mat_ellr_block 256" "b512: -mat_ellr_block 512") ;;
*) echo "unknown format $format: cmrs, argcsr, ipcsr or ellr"; exit 2 ;;
esac
types=aijcusparse,brc opts=()
for c in "${configs[@]}"; do
  name=${c%%:*}
  types+=,$format@$name
  for o in ${c#*:}; do case $o in -*) opts+=("-${name}_${o#-}") ;; *) opts+=("$o") ;; esac; done
done
for m in ${SWEEP_MATRICES:-laplace2d ex19 laplace3d27 elastic3d powerlaw circuit}; do
  timeout ${BENCH_TIMEOUT:-300} $bin/spmvbench -matrix $m -types $types "${opts[@]}" "$@" || echo "spmvbench -matrix $m failed"
  echo
done
