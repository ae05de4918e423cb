#!/usr/bin/env bash
# scripts/check-layers.py catches a circle and an upward call: src/a.c (floor 0) calls b.c's
# function (upward), b.c and c.c (floor 1) call each other (a circle), and inside the directory unit
# src/d/ (floor 2) its files d1.c and d2.c call each other. Globals are followed: src/e.c (floor 0)
# reads f.c's (floor 3) global (upward), but not f.c's static one that g.c (floor 0) names. B's
# prototype in two headers is declared twice (a struct's function-pointer member B is not), and so
# is a global's extern declaration. The MATSPMV_FORMATS line of src/reg.c (floor 6) gives it an
# edge to src/mat/impls/toy/ (no row: floor 5).   tests/layers-fixture.sh DIR
set -u
dir=$1
rm -rf "$dir" && mkdir -p "$dir/src/d" "$dir/src/mat/impls/toy" "$dir/include" "$dir/docs"
printf '%s\n' '# fixture' '## Files' '| file | floor | role |' '| --- | --- | --- |' \
  '| `src/a.c` | 0 | bottom |' '| `src/b.c` | 1 | b |' '| `src/c.c` | 1 | c |' '| `src/d/` | 2 | d |' \
  '| `src/e.c` | 0 | e |' '| `src/f.c` | 3 | f |' '| `src/g.c` | 0 | g |' '| `src/reg.c` | 6 | registration |' >"$dir/docs/design.md"
printf '%s\n' 'int D2(int);' 'int D1(int x) { return x ? D2(x - 1) : 0; }' >"$dir/src/d/d1.c"
printf '%s\n' 'int D1(int);' 'int D2(int x) { return D1(x); }' >"$dir/src/d/d2.c"
printf '%s\n' 'int B(int);' 'int A(int x) { return B(x); }' >"$dir/src/a.c"
printf '%s\n' 'int C(int);' 'int B(int x) { return x ? C(x - 1) : 0; }' >"$dir/src/b.c"
printf '%s\n' 'int B(int);' 'static int helper(int x) { return x; }' 'int C(int x) { return B(helper(x)); }' >"$dir/src/c.c"
printf '%s\n' 'extern int FLimit;' 'int E(int x) { return x < FLimit; }' >"$dir/src/e.c"
printf '%s\n' 'int FLimit = 4;' 'static int FQuiet = 1;' 'int F(int x) { return x + FQuiet; }' >"$dir/src/f.c"
printf '%s\n' 'int G(void) { return FQuiet; }' >"$dir/src/g.c"
printf '%s\n' '#define MATSPMV_FORMATS(F) F(TOY)' 'int Reg(void) { return 0; }' >"$dir/src/reg.c"
printf '%s\n' 'int MatSpmvFormat_TOY = 1;' >"$dir/src/mat/impls/toy/toy.c"
printf '%s\n' 'int B(int);' 'extern int FLimit;' 'static inline int D1(int x) { return x; }' >"$dir/src/low.h"
printf '%s\n' 'int B(int);' 'extern int FLimit;' 'struct ops { int (*B)(int); int (*D1)(int); };' >"$dir/include/fixture.h"
out=$(python3 "$(dirname "$0")/../scripts/check-layers.py" --root "$dir"); rc=$?
graph=$(python3 "$(dirname "$0")/../scripts/check-layers.py" --root "$dir" --graph)
echo "$out"; echo "exit $rc"
[ $rc = 1 ] && grep -q '^circle:' <<<"$out" && grep -q 'upward call: src/a.c' <<<"$out" && grep -q 'circle inside src/d/: d1.c -> d2.c -> d1.c' <<<"$out" &&
  grep -q '^upward call: src/e.c (floor 0) -> src/f.c (floor 3): FLimit$' <<<"$out" && ! grep -q FQuiet <<<"$out" &&
  grep -q '^declared twice: B in include/fixture.h, src/low.h$' <<<"$out" && grep -q '^declared twice: FLimit in include/fixture.h, src/low.h$' <<<"$out" &&
  ! grep -q 'declared twice: D1' <<<"$out" && grep -q '^src/reg.c -> src/mat/impls/toy/: MatSpmvFormat_TOY$' <<<"$graph"
