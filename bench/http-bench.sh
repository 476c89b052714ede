#!/bin/sh
# bench/http-bench.sh: cellgate's Streamable HTTP transport side by side with
# the official MCP TypeScript SDK server (bench/sdk-server.mjs), measured by
# the same client (bench/http-load.c), closed loop and, with RATE, open loop.
#
# Build the tools (this script does it too when they are missing or stale):
#   mkdir -p build/bench
#   cc -std=c17 -O2 -Wall -Wextra -o build/bench/http-load bench/http-load.c bench/http_wire.c
#   cc -std=c17 -O2 -Wall -Wextra -o build/bench/sse-idle bench/sse-idle.c bench/http_wire.c
#   npm install --prefix bench
#
# Usage: bench/http-bench.sh [list|execute|sse|all]     (default: list)
#   list     tools/list on both servers at CONNS connections, closed loop,
#            interleaved (ours, sdk, ours, sdk, ...), then a table with
#            ours/sdk rps.  With RATE set, in the same run and the same
#            rounds, also open loop at OPEN_CONNS connections and each rate
#            of RATE, and a second table: latency from each request's
#            scheduled time (no coordinated omission), and how many requests
#            fell behind schedule.  E.g.
#              RATE=20000 bench/http-bench.sh            (256 clients at 20000/s)
#              RATE="5000 20000" OPEN_CONNS=256 bench/http-bench.sh list
#   execute  tools/call execute print(1) on ours only, at EXEC_CONNS, closed loop.
#   sse      SSE_STREAMS idle event streams held on ours; with GATEWAY_PID,
#            the gateway's VmRSS before and while they are held.
#   all      list, execute and sse.
#
# Without GATEWAY_URL (as `make bench-http` runs it) the script starts its
# own jailer and gateway from $BUILD (as root, like `make run`: a temporary
# directory, its own cgroup root, a "bench" tenant whose rate and
# concurrency limits are above what the run asks for) and removes them at
# the end.  A gateway started by the caller is named by the environment:
#   GATEWAY_URL   Streamable HTTP endpoint, e.g. http://127.0.0.1:8080/mcp
#   GATEWAY_KEY   API key, sent as "Authorization: Bearer ..." (never printed)
#   GATEWAY_PID   the gateway's pid (sse mode: VmRSS, open-file limit)
#   DURATION=10 WARMUP=2 ROUNDS=1 CONNS="1 16 256" EXEC_CONNS="1 4"
#   RATE=         list mode: also open loop at these rates (requests/s over
#                 all OPEN_CONNS connections, each on its own fixed schedule)
#   OPEN_CONNS=256
#   SDK_PORT=0    port of the SDK server (0: any free port)
#   SSE_URL       default: the gateway's /sse; when equal to GATEWAY_URL, the
#                 GET carries the session and protocol headers
#   SSE_STREAMS=10000 SSE_HOLD=10
#   BUILD=build
#   PIN=1         on 2+ CPUs: the server under test (ours or the SDK's) on
#                 CPU 0, the load client on CPU 1 -- the same for both, so
#                 neither competes with the client for a core; PIN=0: off
# Every command that produces a figure is printed first, prefixed with "+".
set -eu

cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
LOAD=$BUILD/bench/http-load
SSE_IDLE=$BUILD/bench/sse-idle
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-2}
ROUNDS=${ROUNDS:-1}
CONNS=${CONNS:-1 16 256}
EXEC_CONNS=${EXEC_CONNS:-1 4}
RATE=${RATE:-}
OPEN_CONNS=${OPEN_CONNS:-256}
SDK_PORT=${SDK_PORT:-0}
SSE_STREAMS=${SSE_STREAMS:-10000}
SSE_HOLD=${SSE_HOLD:-10}
GATEWAY_URL=${GATEWAY_URL:-}
GATEWAY_KEY=${GATEWAY_KEY:-}
GATEWAY_PID=${GATEWAY_PID:-}
PROTO=2025-11-25
MODE=${1:-list}
PIN=${PIN:-1}
if [ "$PIN" = 1 ] && [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
	SERVER_CPU="taskset -c 0"
	CLIENT_CPU="taskset -c 1"
else
	SERVER_CPU=
	CLIENT_CPU=
fi

AUTH_HDR=
if [ -n "$GATEWAY_KEY" ]; then
	AUTH_HDR="Authorization: Bearer $GATEWAY_KEY"
fi

LIST_BODY='{"jsonrpc":"2.0","id":{{id}},"method":"tools/list"}'
EXEC_BODY='{"jsonrpc":"2.0","id":{{id}},"method":"tools/call","params":{"name":"execute","arguments":{"code":"print(1)"}}}'
INIT_BODY='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"'$PROTO'","capabilities":{},"clientInfo":{"name":"http-bench","version":"0"}}}'
NOTE_BODY='{"jsonrpc":"2.0","method":"notifications/initialized"}'

die() {
	echo "http-bench: $*" >&2
	exit 1
}

case $MODE in
list | execute | sse | all) ;;
*) die "usage: $0 [list|execute|sse|all]" ;;
esac
TMP=$(mktemp -d)
SDK_PID=
OWN_JAILER_PID= OWN_GATEWAY_PID= OWN_TAG=
cleanup() {
	if [ -n "$SDK_PID" ]; then
		kill "$SDK_PID" 2>/dev/null || true
	fi
	for p in $OWN_GATEWAY_PID $OWN_JAILER_PID; do
		kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	if [ -n "$OWN_TAG" ]; then
		for c in /sys/fs/cgroup/*/"$OWN_TAG"; do
			[ -d "$c" ] && rmdir "$c" 2>/dev/null
		done
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Prints a command as a shell line; the key never appears.
quote() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}
show() {
	line=+
	for a in "$@"; do
		if [ -n "$AUTH_HDR" ] && [ "$a" = "$AUTH_HDR" ]; then
			line="$line \"Authorization: Bearer \$GATEWAY_KEY\""
		else
			case $a in
			'' | *[!A-Za-z0-9_./:=@%+,-]*) line="$line $(quote "$a")" ;;
			*) line="$line $a" ;;
			esac
		fi
	done
	printf '%s\n' "$line"
}

# A numeric field of http-load's or sse-idle's JSON line.
field() {
	printf '%s\n' "$1" | sed -n "s/.*\"$2\":\([-0-9.eE+]*\).*/\1/p"
}

build_tools() {
	mkdir -p "$BUILD/bench"
	for t in http-load sse-idle; do
		if [ ! -x "$BUILD/bench/$t" ] || [ -n "$(find "bench/$t.c" bench/http_wire.c \
			bench/http_wire.h -newer "$BUILD/bench/$t")" ]; then
			set -- cc -std=c17 -O2 -Wall -Wextra -o "$BUILD/bench/$t" "bench/$t.c" \
				bench/http_wire.c
			show "$@"
			"$@"
		fi
	done
}

# Our own jailer and gateway (no GATEWAY_URL given).
start_ours() {
	[ "$(id -u)" = 0 ] || die "starting a gateway needs root (the jailer); or set GATEWAY_URL"
	[ -x "$BUILD/cellgate" ] && [ -x "$BUILD/cellgate-jailer" ] || die "build first: make all"
	OWN_TAG=cellgate-bench-$$
	sed -e "s/^cgroup_root =.*/cgroup_root = $OWN_TAG/" etc/jailer.conf >"$TMP/jailer.conf"
	chmod 600 "$TMP/jailer.conf"
	keys=$("$BUILD/cellgate" key new --tenant bench)
	GATEWAY_KEY=$(printf '%s\n' "$keys" | head -n 1)
	AUTH_HDR="Authorization: Bearer $GATEWAY_KEY"
	cat >"$TMP/tenants.conf" <<CONF
[tenant bench]
$(printf '%s\n' "$keys" | tail -n 1)
languages = python javascript
network = no
max_concurrent_jobs = 64
rate = 1000000
burst = 1000000
CONF
	port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	cat >"$TMP/cellgate.conf" <<CONF
[gateway]
listen = 127.0.0.1:$port
tenants = $TMP/tenants.conf
jailer_socket = $TMP/jailer.sock
[limits]
max_connections = 20000
max_sessions_per_tenant = 20000
[audit]
file = $TMP/audit.jsonl
journald = no
CONF
	chmod 600 "$TMP/tenants.conf" "$TMP/cellgate.conf"
	show "$BUILD/cellgate-jailer" --listen "$TMP/jailer.sock" --policy "$TMP/jailer.conf"
	"$BUILD/cellgate-jailer" --listen "$TMP/jailer.sock" --policy "$TMP/jailer.conf" \
		2>"$TMP/jailer.log" &
	OWN_JAILER_PID=$!
	i=0
	until [ -S "$TMP/jailer.sock" ]; do
		i=$((i + 1))
		[ $i -le 200 ] || die "the jailer did not start: $(tail -n 5 "$TMP/jailer.log")"
		sleep 0.05
	done
	show $SERVER_CPU "$BUILD/cellgate" --listen "127.0.0.1:$port" --config "$TMP/cellgate.conf"
	$SERVER_CPU "$BUILD/cellgate" --listen "127.0.0.1:$port" --config "$TMP/cellgate.conf" \
		2>"$TMP/gateway.log" &
	OWN_GATEWAY_PID=$!
	GATEWAY_PID=$OWN_GATEWAY_PID
	i=0
	until curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -le 200 ] || die "the gateway did not start: $(tail -n 5 "$TMP/gateway.log")"
		sleep 0.05
	done
	GATEWAY_URL=http://127.0.0.1:$port/mcp
}

start_sdk() {
	if [ ! -d bench/node_modules/@modelcontextprotocol/sdk ]; then
		show npm install --prefix bench
		npm install --prefix bench >&2
	fi
	show $SERVER_CPU node bench/sdk-server.mjs "$SDK_PORT"
	$SERVER_CPU node bench/sdk-server.mjs "$SDK_PORT" >"$TMP/sdk.out" 2>"$TMP/sdk.err" &
	SDK_PID=$!
	i=0
	while ! grep -q '^listening ' "$TMP/sdk.out" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 "$SDK_PID" 2>/dev/null; then
			cat "$TMP/sdk.err" >&2
			die "the SDK server did not start"
		fi
		sleep 0.1
	done
	SDK_URL="http://$(sed -n 's/^listening //p' "$TMP/sdk.out")/mcp"
}

# post NAME URL SESSION BODY [AUTH]: one request with curl; status in
# $TMP/NAME.code, headers in $TMP/NAME.h, body in $TMP/NAME.b.
post() {
	# sh has no local variables: these names are used nowhere else.
	p_name=$1 p_url=$2 p_sid=$3 p_body=$4 p_auth=$5
	set -- curl -sS -o "$TMP/$p_name.b" -D "$TMP/$p_name.h" -w '%{http_code}' -X POST "$p_url" \
		-H 'Content-Type: application/json' \
		-H 'Accept: application/json, text/event-stream' --data "$p_body"
	if [ -n "$p_sid" ]; then
		set -- "$@" -H "Mcp-Session-Id: $p_sid" -H "MCP-Protocol-Version: $PROTO"
	fi
	if [ -n "$p_auth" ]; then
		set -- "$@" -H "$p_auth"
	fi
	show "$@"
	"$@" >"$TMP/$p_name.code" || die "$p_name: curl failed"
}

# init NAME URL AUTH: an MCP session; prints its id.
init_session() {
	name=$1 url=$2 auth=$3
	post "$name-init" "$url" "" "$INIT_BODY" "$auth" >&2
	code=$(cat "$TMP/$name-init.code")
	[ "$code" = 200 ] || die "$name: initialize answered HTTP $code: $(head -c 300 "$TMP/$name-init.b")"
	sid=$(sed -n 's/^[Mm][Cc][Pp]-[Ss][Ee][Ss][Ss][Ii][Oo][Nn]-[Ii][Dd]: *\([^[:space:]]*\).*/\1/p' \
		"$TMP/$name-init.h")
	[ -n "$sid" ] || die "$name: initialize returned no Mcp-Session-Id"
	post "$name-note" "$url" "$sid" "$NOTE_BODY" "$auth" >&2
	code=$(cat "$TMP/$name-note.code")
	[ "$code" = 202 ] || [ "$code" = 200 ] || [ "$code" = 204 ] ||
		die "$name: notifications/initialized answered HTTP $code"
	printf '%s\n' "$sid"
}

# check NAME URL SID BODY AUTH WANT: one request whose body must contain WANT.
check() {
	post "$1-check" "$2" "$3" "$4" "$5"
	code=$(cat "$TMP/$1-check.code")
	[ "$code" = 200 ] || die "$1: HTTP $code: $(head -c 300 "$TMP/$1-check.b")"
	grep -q "$6" "$TMP/$1-check.b" || die "$1: no $6 in: $(head -c 300 "$TMP/$1-check.b")"
}

# load SERVER CONNS BODY [RATE]: one http-load run, closed loop or (with
# RATE) open loop; appends to $TMP/results or $TMP/open.
load() {
	server=$1 conns=$2 body=$3 rate=${4:-}
	if [ "$server" = ours ]; then
		url=$GATEWAY_URL sid=$OURS_SID
	else
		url=$SDK_URL sid=$SDK_SID
	fi
	set -- $CLIENT_CPU "$LOAD" --url "$url" --connections "$conns" --duration "$DURATION" \
		--warmup "$WARMUP" --header 'Content-Type: application/json' \
		--header 'Accept: application/json, text/event-stream' \
		--header "MCP-Protocol-Version: $PROTO" --header "Mcp-Session-Id: $sid" \
		--body-string "$body"
	if [ "$server" = ours ] && [ -n "$AUTH_HDR" ]; then
		set -- "$@" --header "$AUTH_HDR"
	fi
	if [ -n "$rate" ]; then
		set -- "$@" --rate "$rate"
	fi
	show "$@"
	out=$("$@") || die "http-load failed"
	printf '%s\n' "$out"
	if [ -n "$rate" ]; then
		# key: server rate; sorted on p99
		printf '%s %s %s %s %s %s %s %s %s %s %s %s\n' "$server" "$rate" "$conns" \
			"$(field "$out" rps)" "$(field "$out" p50_ms)" "$(field "$out" p99_ms)" \
			"$(field "$out" p999_ms)" "$(field "$out" max_ms)" "$(field "$out" behind)" \
			"$(field "$out" scheduled)" "$(field "$out" errors)" "$(field "$out" non2xx)" \
			>>"$TMP/open"
		return
	fi
	printf '%s %s %s %s %s %s %s %s %s\n' "$server" "$conns" "$(field "$out" rps)" \
		"$(field "$out" p50_ms)" "$(field "$out" p90_ms)" "$(field "$out" p99_ms)" \
		"$(field "$out" max_ms)" "$(field "$out" errors)" "$(field "$out" non2xx)" \
		>>"$TMP/results"
}

# median_run SERVER KEY [FILE [COLUMN]]: of the runs in FILE (default
# $TMP/results) whose first two fields are SERVER and KEY, the one with the
# median value in COLUMN (default 3: rps), all fields.
median_run() {
	awk -v s="$1" -v c="$2" '$1 == s && $2 == c' "${3:-$TMP/results}" |
		sort -g -k"${4:-3}" >"$TMP/sel"
	n=$(wc -l <"$TMP/sel")
	[ "$n" -gt 0 ] || return 0
	sed -n "$(((n + 1) / 2))p" "$TMP/sel"
}

table() {
	servers=$1 conns_list=$2 title=$3
	echo
	echo "== $title: median of $ROUNDS round(s), ${DURATION}s each after ${WARMUP}s warm-up"
	printf '%-6s %6s %10s %9s %9s %9s %9s %7s %7s\n' server conns rps p50_ms p90_ms \
		p99_ms max_ms errors non2xx
	for c in $conns_list; do
		for s in $servers; do
			r=$(median_run "$s" "$c")
			[ -n "$r" ] || continue
			# shellcheck disable=SC2086
			printf '%-6s %6s %10s %9s %9s %9s %9s %7s %7s\n' $r
		done
	done
	case " $servers " in
	*ours*sdk*)
		echo
		printf '%6s %14s\n' conns "ours/sdk rps"
		for c in $conns_list; do
			o=$(median_run ours "$c" | awk '{print $3}')
			k=$(median_run sdk "$c" | awk '{print $3}')
			if [ -n "$o" ] && [ -n "$k" ]; then
				awk -v c="$c" -v o="$o" -v k="$k" \
					'BEGIN { printf "%6s %14s\n", c, (k > 0 ? sprintf("%.2f", o / k) : "-") }'
			fi
		done
		;;
	esac
}

# open_table SERVERS: the open-loop runs, the median p99 of each.
open_table() {
	echo
	echo "== tools/list open loop at $OPEN_CONNS connections: median (by p99) of $ROUNDS" \
		"round(s), ${DURATION}s each after ${WARMUP}s warm-up"
	echo "   latency from each request's scheduled time (one unanswered at the end counts with"
	echo "   its age then, a lower bound); behind/scheduled: sent late or never, of those due"
	printf '%-6s %8s %6s %10s %9s %9s %9s %9s %9s %7s %7s\n' server rate conns rps \
		p50_ms p99_ms p99.9_ms max_ms behind errors non2xx
	for rt in $RATE; do
		for s in $1; do
			r=$(median_run "$s" "$rt" "$TMP/open" 6)
			[ -n "$r" ] || continue
			printf '%s\n' "$r" | awk '{ printf "%-6s %8s %6s %10s %9s %9s %9s %9s %9s %7s %7s\n",
				$1, $2, $3, $4, $5, $6, $7, $8, $9 "/" $10, $11, $12 }'
		done
	done
}

mode_list() {
	start_sdk
	SDK_SID=$(init_session sdk "$SDK_URL" "")
	check sdk "$SDK_URL" "$SDK_SID" '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' "" \
		'"name":"execute"'
	servers=sdk
	if [ -n "$GATEWAY_URL" ]; then
		OURS_SID=$(init_session ours "$GATEWAY_URL" "$AUTH_HDR")
		check ours "$GATEWAY_URL" "$OURS_SID" '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' \
			"$AUTH_HDR" '"name":"execute"'
		servers="ours sdk"
	else
		echo "http-bench: GATEWAY_URL unset: measuring the SDK server only" >&2
	fi
	: >"$TMP/results"
	: >"$TMP/open"
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		r=$((r + 1))
		for c in $CONNS; do
			for s in $servers; do
				load "$s" "$c" "$LIST_BODY"
			done
		done
		for rt in $RATE; do
			for s in $servers; do
				load "$s" "$OPEN_CONNS" "$LIST_BODY" "$rt"
			done
		done
	done
	table "$servers" "$CONNS" "tools/list closed loop"
	if [ -n "$RATE" ]; then
		open_table "$servers"
	fi
}

mode_execute() {
	[ -n "${OURS_SID:-}" ] || OURS_SID=$(init_session ours "$GATEWAY_URL" "$AUTH_HDR")
	check ours "$GATEWAY_URL" "$OURS_SID" \
		'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute","arguments":{"code":"print(1)"}}}' \
		"$AUTH_HDR" '"isError":false'
	: >"$TMP/results"
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		r=$((r + 1))
		for c in $EXEC_CONNS; do
			load ours "$c" "$EXEC_BODY"
		done
	done
	table ours "$EXEC_CONNS" "tools/call execute print(1)"
}

mode_sse() {
	base=$(printf '%s\n' "$GATEWAY_URL" | sed 's|^\(http://[^/]*\).*|\1|')
	url=${SSE_URL:-$base/sse}
	set -- "$SSE_IDLE" --url "$url" --connections "$SSE_STREAMS" --hold "$SSE_HOLD"
	if [ -n "$AUTH_HDR" ]; then
		set -- "$@" --header "$AUTH_HDR"
	fi
	if [ "$url" = "$GATEWAY_URL" ]; then
		[ -n "${OURS_SID:-}" ] || OURS_SID=$(init_session ours "$GATEWAY_URL" "$AUTH_HDR")
		set -- "$@" --header "Mcp-Session-Id: $OURS_SID" --header "MCP-Protocol-Version: $PROTO"
	fi
	if [ -n "$GATEWAY_PID" ]; then
		set -- "$@" --pid "$GATEWAY_PID"
		grep 'Max open files' "/proc/$GATEWAY_PID/limits" >&2 || true
	fi
	show "$@"
	out=$("$@") || die "sse-idle failed"
	printf '%s\n' "$out"
	echo
	echo "== $SSE_STREAMS idle SSE streams on $url, held ${SSE_HOLD}s"
	est=$(field "$out" established)
	echo "established $est, failed $(field "$out" failed), dropped during hold $(field "$out" dropped)"
	if [ -n "$GATEWAY_PID" ]; then
		before=$(field "$out" rss_kb_before)
		held=$(field "$out" rss_kb_held)
		awk -v b="$before" -v h="$held" -v n="$est" 'BEGIN {
			printf "gateway VmRSS: %d KiB before, %d KiB held (%.1f MiB)", b, h, h / 1024
			if (n > 0 && b > 0 && h > 0) printf ", %.2f KiB per stream", (h - b) / n
			printf "\n" }'
	fi
}

build_tools
if [ -z "$GATEWAY_URL" ]; then
	start_ours
elif [ -n "$GATEWAY_PID" ] && [ -n "$SERVER_CPU" ]; then
	show taskset -pc 0 "$GATEWAY_PID"
	taskset -pc 0 "$GATEWAY_PID" >/dev/null
fi
case $MODE in
list) mode_list ;;
execute) mode_execute ;;
sse) mode_sse ;;
all)
	mode_list
	mode_execute
	mode_sse
	;;
esac
