#!/usr/bin/env bash
# Runs every suite against the binaries in $BUILD and prints one summary
# line "N passed, N failed".  Exits non-zero on any failure.
#  - unit tests: build/tests/test_* (cmocka)
#  - integration: tests/integration/run.py (real jailer + gateway)
#  - attacks: tests/attacks/run.py (the attack corpus, real jailer + gateway)
#  - interop: tests/interop/run.sh (the official MCP TypeScript SDK client)
#  - systemd: systemd/verify.sh (sysusers, tmpfiles and every unit verified
#    on a scratch root; one result)
#  - install: tests/install/check.sh (make install and install-setuid into a
#    DESTDIR, the setuid helper run for real; one result)
#  - selinux: make -C selinux check (the policy module builds, links with
#    Debian's policy and keeps its properties; one result)
#  - fuzz: `make fuzz-smoke` (every libFuzzer target, bounded; one result)
#  - soak: bench/soak, two minutes (one result)
# Each suite reports with a line "RESULT passed=N failed=N skipped=N"; fuzz
# and soak count as one test each, by exit status.  CELLGATE_SUITES picks
# suites (default: all of them; `make asan` leaves out fuzz and soak, which
# have their own sanitizers or nothing to gain from them).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export BUILD
passed=0 failed=0 skipped=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

count_cmocka() { # file -> adds to totals
	local p f s
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -n1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -n1)
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$1" | tail -n1)
	passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); skipped=$((skipped + ${s:-0}))
}
count_result() { # file
	local line
	line=$(grep -E '^RESULT passed=[0-9]+ failed=[0-9]+' "$1" | tail -n1)
	if [ -z "$line" ]; then
		echo "  (no RESULT line: counted as one failure)"; failed=$((failed + 1)); return
	fi
	passed=$((passed + $(sed 's/.*passed=\([0-9]*\).*/\1/' <<<"$line")))
	failed=$((failed + $(sed 's/.*failed=\([0-9]*\).*/\1/' <<<"$line")))
	skipped=$((skipped + $(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' <<<"$line" | grep . || echo 0)))
}

for t in "$BUILD"/tests/test_*; do
	[[ " ${CELLGATE_SUITES:-unit} " == *" unit "* ]] || break
	[ -x "$t" ] || continue
	name=$(basename "$t")
	echo "== unit: $name"
	"$t" >"$log/$name" 2>&1
	rc=$?
	grep -E '^\[ +(FAILED|SKIPPED|ERROR) +\]|^\[  PASSED  \]' "$log/$name" | sed 's/^/  /'
	before=$failed
	count_cmocka "$log/$name"
	if [ $rc -ne 0 ] && [ $failed -eq $before ]; then
		echo "  $name exited $rc without reporting a failure"; failed=$((failed + 1))
		tail -n 20 "$log/$name" | sed 's/^/  | /'
	elif [ $failed -ne $before ]; then
		tail -n 40 "$log/$name" | sed 's/^/  | /'
	fi
done

SUITES=${CELLGATE_SUITES:-unit integration attacks interop systemd install selinux fuzz soak}
wanted() { [[ " $SUITES " == *" $1 "* ]]; }

for suite in integration attacks interop systemd install selinux fuzz soak; do
	wanted "$suite" || continue
	case $suite in
	integration) cmd=(/usr/bin/python3 tests/integration/run.py) ;;
	attacks) cmd=(/usr/bin/python3 tests/attacks/run.py) ;;
	interop) cmd=(bash tests/interop/run.sh) ;;
	systemd) cmd=(bash systemd/verify.sh) ;;
	install) cmd=(sh tests/install/check.sh) ;;
	selinux) cmd=(env CELLGATE_SELINUX_REQUIRE_LINKED=1 make --no-print-directory -C selinux check) ;;
	fuzz) cmd=(make --no-print-directory BUILD="$BUILD" fuzz-smoke) ;;
	soak) cmd=(/usr/bin/python3 bench/soak --build "$BUILD") ;;
	esac
	echo "== $suite"
	case $suite in
	systemd | install | selinux | fuzz | soak)
		if "${cmd[@]}" >"$log/$suite" 2>&1; then
			tail -n 25 "$log/$suite" | sed 's/^/  /'
			passed=$((passed + 1))
		else
			tail -n 60 "$log/$suite" | sed 's/^/  /'
			echo "  $suite FAILED"
			failed=$((failed + 1))
		fi
		;;
	*)
		[ -e "${cmd[-1]}" ] || continue
		"${cmd[@]}" 2>&1 | tee "$log/$suite" | sed 's/^/  /'
		count_result "$log/$suite"
		;;
	esac
done

echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
