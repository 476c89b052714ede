#!/usr/bin/env bash
# `make run`: a development jailer and gateway on http://127.0.0.1:8000/mcp
# (override with CELLGATE_DEV_LISTEN=ADDR:PORT) with a fresh key for a `dev`
# tenant.  Everything lives in a temporary directory; Ctrl-C stops both
# processes and removes the directory and the jailer's cgroups.
# Must run as root: the jailer builds namespaces and cgroups.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
LISTEN=${CELLGATE_DEV_LISTEN:-127.0.0.1:8000}

if [ "$(id -u)" != 0 ]; then
	echo "make run: must run as root (the development jailer needs it)" >&2
	exit 1
fi
dir=$(mktemp -d /tmp/cellgate-dev-XXXXXX)
chmod 700 "$dir"
tag=dev-$$
jailer_pid="" gateway_pid=""

cleanup() {
	trap - INT TERM EXIT
	[ -n "$gateway_pid" ] && kill -TERM "$gateway_pid" 2>/dev/null && wait "$gateway_pid" 2>/dev/null
	[ -n "$jailer_pid" ] && kill -TERM "$jailer_pid" 2>/dev/null && wait "$jailer_pid" 2>/dev/null
	# The jailer removes each job's cgroup; its parent is ours to remove.
	for c in /sys/fs/cgroup/*/"cellgate-$tag"; do
		[ -d "$c" ] && rmdir "$c" 2>/dev/null
	done
	rm -rf "$dir"
	echo
	echo "cellgate: stopped; nothing left behind"
}
trap cleanup EXIT
trap 'exit 0' INT TERM

# The jailer's policy: the documented defaults with a cgroup parent of our
# own, so nothing collides with an installed jailer.
sed -e "s/^cgroup_root =.*/cgroup_root = cellgate-$tag/" etc/jailer.conf >"$dir/jailer.conf"
chmod 600 "$dir/jailer.conf"
"$BUILD/cellgate-jailer" --check --policy "$dir/jailer.conf" >/dev/null

key_out=$("$BUILD/cellgate" key new --tenant dev)
key=$(printf '%s\n' "$key_out" | head -n 1)
hash_line=$(printf '%s\n' "$key_out" | tail -n 1)
cat >"$dir/tenants.conf" <<CONF
[tenant dev]
$hash_line
languages = python javascript
network = no
max_concurrent_jobs = 8
rate = 50
burst = 100
CONF
chmod 600 "$dir/tenants.conf"
cat >"$dir/cellgate.conf" <<CONF
[gateway]
listen = $LISTEN
tenants = $dir/tenants.conf
jailer_socket = $dir/jailer.sock
[audit]
file = $dir/audit.jsonl
journald = no
CONF

"$BUILD/cellgate-jailer" --listen "$dir/jailer.sock" --policy "$dir/jailer.conf" &
jailer_pid=$!
for _ in $(seq 100); do [ -S "$dir/jailer.sock" ] && break; sleep 0.05; done
[ -S "$dir/jailer.sock" ] || { echo "make run: the jailer did not start" >&2; exit 1; }

"$BUILD/cellgate" --listen "$LISTEN" --config "$dir/cellgate.conf" &
gateway_pid=$!
for _ in $(seq 100); do
	curl -fsS "http://$LISTEN/healthz" >/dev/null 2>&1 && break
	kill -0 "$gateway_pid" 2>/dev/null || { echo "make run: the gateway exited" >&2; exit 1; }
	sleep 0.05
done

cat <<MSG

cellgate is running at http://$LISTEN/mcp (legacy SSE: http://$LISTEN/sse)
API key of tenant "dev" (shown once): $key
Audit log: $dir/audit.jsonl

MCP client configuration:
{
  "mcpServers": {
    "cellgate": {
      "type": "http",
      "url": "http://$LISTEN/mcp",
      "headers": { "Authorization": "Bearer $key" }
    }
  }
}

Press Ctrl-C to stop.
MSG
wait "$gateway_pid"
