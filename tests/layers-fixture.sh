#!/usr/bin/env bash
# scripts/check-layers.py catches a circle and an upward call: src/a.c (floor 0) calls b.c's
# function (upward), b.c and c.c (floor 1) call each other (a circle), and inside the directory unit
# src/d/ (floor 2) its files d1.c and d2.c call each other.   tests/layers-fixture.sh DIR
set -u
dir=$1
rm -rf "$dir" && mkdir -p "$dir/src/d" "$dir/docs"
printf '%s\n' '# fixture' '## Files' '| file | floor | role |' '| --- | --- | --- |' \
  '| `src/a.c` | 0 | bottom |' '| `src/b.c` | 1 | b |' '| `src/c.c` | 1 | c |' '| `src/d/` | 2 | d |' >"$dir/docs/design.md"
printf '%s\n' 'int D2(int);' 'int D1(int x) { return x ? D2(x - 1) : 0; }' >"$dir/src/d/d1.c"
printf '%s\n' 'int D1(int);' 'int D2(int x) { return D1(x); }' >"$dir/src/d/d2.c"
printf '%s\n' 'int B(int);' 'int A(int x) { return B(x); }' >"$dir/src/a.c"
printf '%s\n' 'int C(int);' 'int B(int x) { return x ? C(x - 1) : 0; }' >"$dir/src/b.c"
printf '%s\n' 'int B(int);' 'static int helper(int x) { return x; }' 'int C(int x) { return B(helper(x)); }' >"$dir/src/c.c"
out=$(python3 "$(dirname "$0")/../scripts/check-layers.py" --root "$dir"); rc=$?
echo "$out"; echo "exit $rc"
[ $rc = 1 ] && grep -q '^circle:' <<<"$out" && grep -q 'upward call:' <<<"$out" && grep -q 'circle inside src/d/: d1.c -> d2.c -> d1.c' <<<"$out"
