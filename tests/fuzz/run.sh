#!/bin/sh
# Run the libFuzzer targets built by tests/fuzz/fuzz.mk, one after another.
#
#   tests/fuzz/run.sh smoke FUZZ_DIR SECONDS TARGET...
#       each target for SECONDS on a fresh copy of its seeds
#       (FUZZ_DIR/smoke/TARGET; the repository is never written), then
#       every file under tests/fuzz/regressions/TARGET/ once
#   tests/fuzz/run.sh long FUZZ_DIR SECONDS TARGET...
#       each target for SECONDS (0: no limit) on FUZZ_DIR/corpus/TARGET,
#       which keeps what it finds across runs, seeded from the repository
#
# Logs go to FUZZ_DIR/logs/TARGET.log, crash reproducers to
# FUZZ_DIR/artifacts/TARGET/.  Exits 1 if any target crashed, leaked, hung
# (10 s for one input) or ran out of memory, after running all of them.
# Run from the repository root.
set -u

if [ $# -lt 4 ]; then
	echo "usage: $0 smoke|long FUZZ_DIR SECONDS TARGET..." >&2
	exit 2
fi
mode=$1
dir=$2
secs=$3
shift 3
case $mode in smoke | long) ;; *)
	echo "$0: unknown mode $mode" >&2
	exit 2
	;;
esac

# Longest input per target: room for its largest seed and then some,
# small enough to keep executions fast.
max_len() {
	case $1 in
	ipc_decode) echo 8192 ;;
	mcp | http) echo 16384 ;;
	policy | tenants) echo 8192 ;;
	*) echo 4096 ;;
	esac
}

failed=""
summary=""
for t in "$@"; do
	bin=$dir/fuzz_$t
	seeds=tests/fuzz/corpus/$t
	log=$dir/logs/$t.log
	art=$dir/artifacts/$t/
	if [ ! -x "$bin" ] || [ ! -d "$seeds" ]; then
		echo "fuzz $t: no $bin or no $seeds" >&2
		failed="$failed $t"
		continue
	fi
	mkdir -p "$dir/logs" "$art" || exit 1
	if [ "$mode" = smoke ]; then
		corpus=$dir/smoke/$t
		rm -rf "$corpus" && mkdir -p "$corpus" && cp "$seeds"/* "$corpus"/ || exit 1
		set -- "$corpus"
	else
		corpus=$dir/corpus/$t
		mkdir -p "$corpus" || exit 1
		set -- "$corpus" "$seeds"
	fi
	echo "fuzz $t: ${secs}s, corpus $corpus, log $log"
	"$bin" -max_total_time="$secs" -max_len="$(max_len "$t")" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$art" "$@" >"$log" 2>&1
	rc=$?
	done_line=$(grep -a 'DONE' "$log" | tail -n 1 | sed 's/^#[0-9]*[[:space:]]*DONE[[:space:]]*//')
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	line="fuzz $t: ${runs:-?} runs, ${rate:-?}/s, ${done_line:-no stats}"
	if [ $rc -ne 0 ]; then
		echo "fuzz $t: FAILED (exit $rc); reproducer in $art; end of $log:" >&2
		tail -n 60 "$log" >&2
		failed="$failed $t"
		line="$line: FAILED"
	fi
	# Crashes found earlier (and fixed) stay fixed.
	regs=$(find "tests/fuzz/regressions/$t" -type f ! -name '.*' 2>/dev/null | sort)
	if [ -n "$regs" ]; then
		# shellcheck disable=SC2086 # file names are ours, without blanks
		if "$bin" -timeout=10 -rss_limit_mb=2048 $regs >>"$log" 2>&1; then
			line="$line; $(echo "$regs" | wc -l) regression input(s) pass"
		else
			echo "fuzz $t: a regression input fails again; see $log" >&2
			tail -n 60 "$log" >&2
			failed="$failed $t"
			line="$line; regression FAILED"
		fi
	fi
	summary="$summary$line
"
done

printf '%s' "$summary"
if [ -n "$failed" ]; then
	echo "fuzz: failed:$failed" >&2
	exit 1
fi
exit 0
