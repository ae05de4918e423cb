#!/usr/bin/env bash
# tests/run.sh on a table of its own: one case runs by its id, axes and tags expand and select, a case
# continues over lines ending in a backslash, PASS and FAIL are counted in the last line, a repeated id
# is refused, a command list outside quotes (&&, ;) is refused unrun; tests/run-gpus.sh leaves out
# earlier passes and runs the longest first.   tests/harness-fixture.sh DIR
set -u
dir=$1
cd "$(dirname "$0")/.."
rm -rf "$dir" && mkdir -p "$dir"
printf '%s\n' '# fixture' 'def word=yes' \
  'ok-np$np | type=brc np=1,2 even | passes, $ranks | test $word = yes' \
  'fails | broken | fails | false' \
  'gpu-only | gpu | needs a GPU | true' \
  'long | joined | a case on three lines \' '    whose command \' '    | test "$word  x" = "yes  x"' >"$dir/cases"
unset PETSCSPMV_TEST_IDS PETSCSPMV_TEST_CLAIMS PETSCSPMV_TEST_LIST # a run's own selection (tests/run-gpus.sh) is not the fixture's
export PETSCSPMV_TEST_CASES=$dir/cases PETSCSPMV_TEST_TYPES=brc PETSCSPMV_TEST_LOGS=$dir/logs
check() { # what expected-output command...
  local what=$1 want=$2 got
  shift 2
  got=$("$@" 2>&1)
  [ "$got" = "$want" ] || { printf '%s: expected\n%s\ngot\n%s\n' "$what" "$want" "$got"; exit 1; }
  echo "ok $what"
}
check "the table's ids" "$(printf 'brc/ok-np1\nbrc/ok-np2\nfails\nlong')" bash -c 'PATH=/nonexistent-gpu:$PATH tests/run.sh --list | cut -f1 | grep -v "^gpu-only$"'
check "one case by its id" "brc/ok-np2	brc: passes, 2 ranks" tests/run.sh --list brc/ok-np2
check "tags select (all of them)" "brc/ok-np1" bash -c 'tests/run.sh --list -t even -t np1 | cut -f1'
check "-k on ids" "fails" bash -c 'tests/run.sh --list -k ail | cut -f1'
check "a case continued on the next lines (backslash): one blank where the lines join" "long	a case on three lines whose command" tests/run.sh --list long
out=$(tests/run.sh long 2>&1) && grep -q '^PASS long ' <<<"$out" || { echo "the continued case did not run as one: $out"; exit 1; }
echo "ok a continued case runs"
out=$(tests/run.sh brc/ok-np1 fails 2>&1); rc=$?
echo "$out"
[ $rc != 0 ] && grep -q '^PASS brc/ok-np1 ' <<<"$out" && grep -q '^FAIL fails ' <<<"$out" && [ "$(tail -1 <<<"$out")" = "1 passed, 1 failed" ] ||
  { echo "a run of one passing and one failing case: exit $rc"; exit 1; }
echo "ok PASS and FAIL counted, exit $rc"
printf '%s\n' 'twice | a | first | true' 'twice | b | second | true' >"$dir/cases"
out=$(tests/run.sh --list 2>&1); rc=$?
[ $rc = 2 ] && grep -q 'the id twice is given twice' <<<"$out" || { echo "a repeated id: exit $rc, $out"; exit 1; }
echo "ok a repeated id refused: $out"
printf '%s\n' "listed | a | two commands | touch $dir/ran-first && touch $dir/ran-second" >"$dir/cases"
out=$(tests/run.sh listed 2>&1); rc=$?
[ $rc = 2 ] && grep -q 'its command is not one command' <<<"$out" && [ ! -e "$dir/ran-second" ] ||
  { echo "a command list outside quotes: exit $rc, $out"; exit 1; }
echo "ok a command list outside quotes refused, nothing of it run: $out"
# tests/run-gpus.sh (CUDA_VISIBLE_DEVICES given: no nvidia-smi asked): earlier PASS lines leave their
# cases out (PETSCSPMV_TEST_DONE), earlier times put the longest first (PETSCSPMV_TEST_TIMES)
printf '%s\n' 'quick | a | quick | true' 'slow | a | slow | true' 'new | a | unknown | true' 'done | a | passed before | true' >"$dir/cases"
printf '%s\n' 'PASS quick  a (2 s)' 'FAIL slow  a (301 s, log: x)' 'PASS done  a (40 s)' >"$dir/times.txt"
printf '%s\n' 'PASS done  a (40 s)' >"$dir/done.txt"
out=$(CUDA_VISIBLE_DEVICES=0 PETSCSPMV_GPU_LOGS=$dir/gpus PETSCSPMV_TEST_DONE=$dir/done.txt PETSCSPMV_TEST_TIMES=$dir/times.txt tests/run-gpus.sh 2>&1); rc=$?
[ $rc = 0 ] && [ "$(tail -1 <<<"$out")" = "3 passed, 0 failed" ] && [ "$(tr '\n' ' ' <"$dir/gpus/cases.ids")" = "slow new quick " ] ||
  { echo "run-gpus.sh with DONE and TIMES: exit $rc, order $(tr '\n' ' ' <"$dir/gpus/cases.ids"), $out"; exit 1; }
echo "ok run-gpus.sh: a passed case left out, the longest first (unknown: 30 s)"
