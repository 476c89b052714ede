#!/usr/bin/env bash
# Interop suite: cellgate against the official MCP TypeScript SDK client and
# the official MCP conformance suite.  Run from anywhere, as root:
#   BUILD=build bash tests/interop/run.sh
# - installs the pinned packages (tests/interop/package-lock.json: the SDK,
#   the conformance suite and Node 22 for it) with `npm ci` when
#   node_modules is missing or older than the lockfile;
# - starts a jailer (tests/integration/harness.py: its own policy, uid range
#   and cgroup parent);
# - stdio: sdk_stdio.mjs drives `cellgate --stdio`;
# - HTTP: writes a tenants file and a gateway config, starts
#   `cellgate --listen 127.0.0.1:PORT --config FILE`, waits for /healthz,
#   runs sdk_http.mjs (Streamable HTTP and legacy HTTP+SSE) and
#   conformance.sh, then stops the gateway with SIGTERM;
# - stops the jailer and checks that no job process or cgroup is left.
# The SDK client tests run on /usr/bin/node; Node 22 only runs the
# conformance suite.  Last line: RESULT passed=N failed=N skipped=N.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
NODE=/usr/bin/node
PY=/usr/bin/python3
HERE=tests/interop
STAMP=$HERE/node_modules/.cellgate-lock-sha256

passed=0 failed=0 skipped=0
tmp=""
gw_pid=""
cleanup() {
	if [ -n "$gw_pid" ]; then
		kill -KILL "$gw_pid" 2>/dev/null
		wait "$gw_pid" 2>/dev/null
	fi
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
pass() {
	echo "ok interop.$1"
	passed=$((passed + 1))
}
fail() {
	echo "FAIL interop.$1: $2"
	failed=$((failed + 1))
}
# absorb NAME OUTFILE ERRFILE RC: print a sub-run's lines and add its RESULT.
absorb() {
	local name=$1 out=$2 err=$3 rc=$4 line p f s
	grep -v '^RESULT ' "$out"
	line=$(grep -E '^RESULT passed=[0-9]+ failed=[0-9]+' "$out" | tail -n 1)
	if [ -z "$line" ]; then
		fail "$name" "ended (exit $rc) without a RESULT line"
		tail -n 20 "$err" | sed 's/^/# stderr: /'
		return
	fi
	p=$(sed 's/.*passed=\([0-9]*\).*/\1/' <<<"$line")
	f=$(sed 's/.*failed=\([0-9]*\).*/\1/' <<<"$line")
	s=$(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' <<<"$line")
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		fail "${name}_exit" "exited $rc without reporting a failure"
		f=1
	fi
	if [ "$f" -ne 0 ]; then
		tail -n 20 "$err" | sed 's/^/# stderr: /'
	fi
}

[ "$(id -u)" = 0 ] || setup_fail "must run as root (the jailer needs it)"
for b in "$BUILD/cellgate" "$BUILD/cellgate-jailer"; do
	[ -x "$b" ] || setup_fail "$b not built (run make)"
done
[ -x "$NODE" ] || setup_fail "$NODE not found"

# npm ci installs exactly the lockfile; the stamp records which lockfile
# node_modules was installed from.
lock_sum=$(sha256sum "$HERE/package-lock.json" | cut -d' ' -f1) ||
	setup_fail "$HERE/package-lock.json missing"
if [ "$(cat "$STAMP" 2>/dev/null)" != "$lock_sum" ]; then
	echo "# npm ci in $HERE (node_modules missing or stale)"
	npm_log=$(mktemp /tmp/cellgate-interop-npm.XXXXXX)
	if ! (cd "$HERE" && timeout 600 npm ci --no-audit --no-fund) >"$npm_log" 2>&1; then
		tail -n 5 "$npm_log" | sed 's/^/# npm: /'
		rm -f "$npm_log"
		setup_fail "npm ci in $HERE failed"
	fi
	rm -f "$npm_log"
	echo "$lock_sum" >"$STAMP"
fi

tmp=$(mktemp -d /tmp/cellgate-interop-XXXXXX) || setup_fail "mktemp"
chmod 700 "$tmp"
sock=$("$PY" tests/integration/harness.py jailer-start "$tmp" "$$" 2>"$tmp/start.err") ||
	setup_fail "jailer did not start: $(tail -n 3 "$tmp/start.err" | tr '\n' ' ') $(tail -n 3 "$tmp/jailer.log" 2>/dev/null | tr '\n' ' ')"

# ------------------------------------------------------------------ stdio
timeout -k 5 170 "$NODE" "$HERE/sdk_stdio.mjs" "$BUILD/cellgate" "$sock" \
	>"$tmp/stdio.out" 2>"$tmp/stdio.err"
absorb client "$tmp/stdio.out" "$tmp/stdio.err" $?

# ------------------------------------------------------------------- HTTP
# Two tenants: dev for everything, other to check that a session is bound
# to its tenant.  Only a key's SHA-256 is stored.
newkey() {
	"$PY" -c 'import secrets; print("cgk_" + secrets.token_urlsafe(32))'
}
keyhash() {
	printf '%s' "$1" | sha256sum | cut -d' ' -f1
}
key=$(newkey) other_key=$(newkey)
cat >"$tmp/tenants.conf" <<CONF
[tenant dev]
key = sha256:$(keyhash "$key")
languages = python javascript
network = no
rate = 1000
burst = 1000
max_concurrent_jobs = 8

[tenant other]
key = sha256:$(keyhash "$other_key")
languages = python
network = no
rate = 1000
burst = 1000
max_concurrent_jobs = 2
CONF
cat >"$tmp/gateway.conf" <<CONF
[gateway]
tenants = $tmp/tenants.conf
jailer_socket = $sock
[audit]
file = $tmp/audit.jsonl
journald = no
CONF
chmod 600 "$tmp/tenants.conf" "$tmp/gateway.conf"

port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$BUILD/cellgate" --listen "127.0.0.1:$port" --config "$tmp/gateway.conf" \
	>"$tmp/gw.out" 2>"$tmp/gw.err" &
gw_pid=$!

# Up when GET /healthz answers 200; a gateway that exits is reported at once.
gw_up=0 probe=""
for _ in $(seq 100); do
	if ! kill -0 "$gw_pid" 2>/dev/null; then
		wait "$gw_pid"
		probe="exited with status $?"
		gw_pid=""
		break
	fi
	probe=$("$PY" - "$port" <<'EOF' 2>&1
import http.client, sys
try:
    c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=1)
    c.request("GET", "/healthz")
    print(c.getresponse().status)
except Exception as e:
    print(repr(e))
EOF
)
	if [ "$probe" = 200 ]; then
		gw_up=1
		break
	fi
	sleep 0.1
done

if [ "$gw_up" = 1 ]; then
	pass http.gateway_start
	# HTTP/1.1 clients such as Python's urllib send `Connection: close`: the
	# reply must still arrive before the connection closes.
	probe=$("$PY" - "$port" <<'EOF' 2>&1
import sys, urllib.request
try:
    with urllib.request.urlopen("http://127.0.0.1:%s/healthz" % sys.argv[1], timeout=5) as r:
        print(r.status, "body" if r.read() else "empty")
except Exception as e:
    print(repr(e))
EOF
)
	if [ "$probe" = "200 body" ]; then
		pass http.healthz_connection_close
	else
		fail http.healthz_connection_close "GET /healthz with Connection: close: $probe"
	fi
	CELLGATE_KEY=$key CELLGATE_OTHER_KEY=$other_key timeout -k 5 170 \
		"$NODE" "$HERE/sdk_http.mjs" "http://127.0.0.1:$port" >"$tmp/http.out" 2>"$tmp/http.err"
	absorb http_client "$tmp/http.out" "$tmp/http.err" $?

	CELLGATE_KEY=$key bash "$HERE/conformance.sh" "$port" >"$tmp/conf.out" 2>"$tmp/conf.err"
	absorb conformance "$tmp/conf.out" "$tmp/conf.err" $?
else
	fail http.gateway_start "cellgate --listen 127.0.0.1:$port --config FILE: no 200 from /healthz (last: ${probe:-none}); stderr: $(tail -n 3 "$tmp/gw.err" | tr '\n' ' ')"
fi

# SIGTERM ends the gateway cleanly, promptly and with status 0.
if [ -n "$gw_pid" ]; then
	kill -TERM "$gw_pid"
	for _ in $(seq 50); do
		kill -0 "$gw_pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$gw_pid" 2>/dev/null; then
		fail http.gateway_sigterm "still running 5 s after SIGTERM"
		kill -KILL "$gw_pid"
		wait "$gw_pid" 2>/dev/null
	else
		wait "$gw_pid"
		gw_rc=$?
		if [ "$gw_rc" -eq 0 ]; then
			pass http.gateway_sigterm
		else
			fail http.gateway_sigterm "exit status $gw_rc; stderr: $(tail -n 3 "$tmp/gw.err" | tr '\n' ' ')"
		fi
	fi
	gw_pid=""
fi

# ------------------------------------------------------------- after all
stop_out=$("$PY" tests/integration/harness.py jailer-stop "$tmp" 2>&1)
stop_rc=$?
rm -f "$tmp/jailer.pid"
# The gateways' stderr went to stdio.err, http.err and gw.err; the jailer's
# (and its supervisors') to jailer.log: in the ASan build, any sanitizer
# report is a failure.
san=$(grep -hE 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:' \
	"$tmp/stdio.err" "$tmp/gw.err" "$tmp/jailer.log" 2>/dev/null | head -n 3)
if [ -n "$san" ]; then
	fail sanitizers "$(tr '\n' ';' <<<"$san")"
else
	pass sanitizers
fi
if [ "$stop_rc" -eq 0 ]; then
	pass nothing_left
else
	fail nothing_left "$(tr '\n' ';' <<<"$stop_out")"
fi

echo "RESULT passed=$passed failed=$failed skipped=$skipped"
[ "$failed" -eq 0 ]
