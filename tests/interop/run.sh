#!/usr/bin/env bash
# Interop suite: cellgate --stdio driven by the official MCP TypeScript SDK
# client (tests/interop/sdk_stdio.mjs).  Run from anywhere, as root:
#   BUILD=build bash tests/interop/run.sh
# Installs the pinned SDK into tests/interop/node_modules when missing,
# starts a jailer (tests/integration/harness.py, its own policy, uid range
# and cgroup parent), runs the client, stops the jailer and checks that no
# job process or cgroup is left.  Last line: RESULT passed=N failed=N skipped=N.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
NODE=/usr/bin/node
PY=/usr/bin/python3
SDK_VERSION=1.32.2
HERE=tests/interop

passed=0 failed=0 skipped=0
tmp=""
cleanup() {
	if [ -n "$tmp" ] && [ -f "$tmp/jailer.pid" ]; then
		"$PY" tests/integration/harness.py jailer-stop "$tmp" >/dev/null 2>&1
	fi
	[ -n "$tmp" ] && rm -rf "$tmp"
}
trap cleanup EXIT
setup_fail() {
	echo "FAIL interop.setup: $*"
	echo "RESULT passed=0 failed=1 skipped=0"
	exit 1
}

[ "$(id -u)" = 0 ] || setup_fail "must run as root (the jailer needs it)"
for b in "$BUILD/cellgate" "$BUILD/cellgate-jailer"; do
	[ -x "$b" ] || setup_fail "$b not built (run make)"
done
[ -x "$NODE" ] || setup_fail "$NODE not found"

sdk_pkg=$HERE/node_modules/@modelcontextprotocol/sdk/package.json
if ! grep -q "\"version\": \"$SDK_VERSION\"" "$sdk_pkg" 2>/dev/null; then
	echo "# installing @modelcontextprotocol/sdk@$SDK_VERSION into $HERE/node_modules"
	if ! timeout 300 npm install --no-audit --no-fund --save-exact --prefix "$HERE" \
		"@modelcontextprotocol/sdk@$SDK_VERSION" >"/tmp/cellgate-interop-npm.$$.log" 2>&1; then
		tail -n 5 "/tmp/cellgate-interop-npm.$$.log" | sed 's/^/# npm: /'
		rm -f "/tmp/cellgate-interop-npm.$$.log"
		setup_fail "npm install @modelcontextprotocol/sdk@$SDK_VERSION failed"
	fi
	rm -f "/tmp/cellgate-interop-npm.$$.log"
fi

tmp=$(mktemp -d /tmp/cellgate-interop-XXXXXX) || setup_fail "mktemp"
chmod 700 "$tmp"
sock=$("$PY" tests/integration/harness.py jailer-start "$tmp" "$$" 2>"$tmp/start.err") ||
	setup_fail "jailer did not start: $(tail -n 3 "$tmp/start.err" | tr '\n' ' ') $(tail -n 3 "$tmp/jailer.log" 2>/dev/null | tr '\n' ' ')"

timeout -k 5 170 "$NODE" "$HERE/sdk_stdio.mjs" "$BUILD/cellgate" "$sock" \
	>"$tmp/node.out" 2>"$tmp/node.err"
rc=$?
grep -v '^RESULT ' "$tmp/node.out"
line=$(grep -E '^RESULT passed=[0-9]+ failed=[0-9]+' "$tmp/node.out" | tail -n 1)
if [ -n "$line" ]; then
	passed=$(sed 's/.*passed=\([0-9]*\).*/\1/' <<<"$line")
	failed=$(sed 's/.*failed=\([0-9]*\).*/\1/' <<<"$line")
	skipped=$(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' <<<"$line")
	skipped=${skipped:-0}
	if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
		echo "FAIL interop.client_exit: sdk_stdio.mjs exited $rc without reporting a failure"
		failed=$((failed + 1))
	fi
else
	echo "FAIL interop.client: sdk_stdio.mjs ended (exit $rc) without a RESULT line"
	failed=$((failed + 1))
fi
if [ "$failed" -ne 0 ]; then
	tail -n 20 "$tmp/node.err" | sed 's/^/# stderr: /'
fi

stop_out=$("$PY" tests/integration/harness.py jailer-stop "$tmp" 2>&1)
# The gateway's stderr went to node's; the jailer's (and its supervisors')
# to jailer.log: in the ASan build, any sanitizer report is a failure.
san=$(grep -hE 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:' \
	"$tmp/node.err" "$tmp/jailer.log" 2>/dev/null | head -n 3)
if [ -n "$san" ]; then
	echo "FAIL interop.sanitizers: $(tr '\n' ';' <<<"$san")"
	failed=$((failed + 1))
else
	echo "ok interop.sanitizers"
	passed=$((passed + 1))
fi
stop_rc=$?
rm -f "$tmp/jailer.pid"
if [ "$stop_rc" -eq 0 ]; then
	echo "ok interop.nothing_left"
	passed=$((passed + 1))
else
	echo "FAIL interop.nothing_left: $(tr '\n' ';' <<<"$stop_out")"
	failed=$((failed + 1))
fi

echo "RESULT passed=$passed failed=$failed skipped=$skipped"
[ "$failed" -eq 0 ]
