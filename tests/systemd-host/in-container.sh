#!/bin/sh
# Runs inside the booted Debian 12 container, as root, after the package file
# was copied to /root: installs it as an administrator would, checks what the
# package promises, runs jobs over HTTP with a fresh key, then purges it and
# checks that nothing is left.  Prints "ok: ..." or "FAIL: ..." per check.
set -u
cd /root
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
wait_active() { # unit, seconds
	i=0
	while [ "$(systemctl is-active "$1")" != active ] && [ $i -lt $(($2 * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(systemctl is-active "$1")" = active ]
}

# --- install
if dpkg -i /root/cellgate.deb >/root/dpkg-install.log 2>&1; then
	ok "dpkg -i"
else
	bad "dpkg -i"
	sed 's/^/  /' /root/dpkg-install.log
	exit 1
fi
grep -Ei 'warning|error' /root/dpkg-install.log | sed 's/^/  note: /'
getent passwd cellgate >/dev/null && ok "user cellgate created" || bad "no user cellgate"
for u in cellgate-jailer.socket cellgate.service; do
	[ "$(systemctl is-enabled $u)" = enabled ] && ok "$u enabled" || bad "$u not enabled"
	wait_active $u 15 && ok "$u active" || bad "$u: $(systemctl is-active $u)"
done
[ "$(stat -c '%U %G %a' /run/cellgate/jailer.sock)" = "root cellgate 660" ] &&
	ok "socket root:cellgate 0660" || bad "socket is $(stat -c '%U %G %a' /run/cellgate/jailer.sock)"
[ "$(stat -c '%G %a' /etc/cellgate/tenants.conf)" = "cellgate 640" ] &&
	ok "tenants.conf group cellgate 0640" || bad "tenants.conf is $(stat -c '%G %a' /etc/cellgate/tenants.conf)"
gw_pid=$(systemctl show -p MainPID --value cellgate.service)
gw_uid=$(awk '/^Uid:/ {print $2}' /proc/"$gw_pid"/status)
[ "$gw_uid" = "$(id -u cellgate)" ] && ok "gateway runs as cellgate" || bad "gateway uid $gw_uid"
gw_caps=$(awk '/^CapEff:/ {print $2}' /proc/"$gw_pid"/status)
[ "$gw_caps" = 0000000000000000 ] && ok "gateway has no capabilities" || bad "gateway CapEff $gw_caps"

# --- a key for a tenant, as the README says
cellgate key new --tenant ci >/root/key.txt
key=$(head -n 1 /root/key.txt)
line=$(grep '^key = sha256:' /root/key.txt)
printf '\n[tenant ci]\n%s\nlanguages = python javascript\n' "$line" >>/etc/cellgate/tenants.conf
systemctl restart cellgate.service
wait_active cellgate.service 15 && ok "gateway restarted with the key" || bad "gateway restart"

# --- jobs over HTTP
i=0
until python3 -c 'import urllib.request; urllib.request.urlopen("http://127.0.0.1:8000/healthz", timeout=2)' 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { bad "/healthz never 200"; break; }
	sleep 0.1
done
python3 /root/mcp_client.py http://127.0.0.1:8000/mcp "$key" >/root/client.json 2>/root/client.err ||
	{ bad "MCP client failed"; sed 's/^/  /' /root/client.err; }
python3 - /root/client.json <<'EOF' || fail=1
import json, sys
out = json.load(open(sys.argv[1]))
def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    return cond
r = [check(out["python"]["status"] == "ok" and out["python"]["stdout"] == "42\n",
           "python job over HTTP: %s %r" % (out["python"]["status"], out["python"]["stdout"])),
     check(out["javascript"]["stdout"] == "js 42\n",
           "javascript job over HTTP: %r" % out["javascript"]["stdout"]),
     check(out["sleep"].get("stdout") == "slept\n", "sleeping job: %r" % out["sleep"].get("stdout"))]
cg = out["job_cgroups"]
r.append(check(bool(cg), "job processes seen while the job ran (%d)" % len(cg)))
# The controllers that limit a job (memory, pids, cpu; cgroup2 "0::" on a
# v2 host) must put every job process below the jailer service's delegated
# cgroup, in a job-* cgroup of its own.
def limiting(line):
    _, ctrls, _ = line.split(":", 2)
    return ctrls == "" and out.get("v2") or any(c in ("memory", "pids", "cpu") for c in ctrls.split(","))
lines = [(p, l) for p, ls in cg.items() for l in ls if limiting(l)]
bad = [(p, l) for p, l in lines
       if not ("/system.slice/cellgate-jailer.service/" in l and "/job-" in l)]
r.append(check(bool(lines) and not bad, "jobs in job-* cgroups of cellgate-jailer.service: %s"
               % (bad[:2] or [l for _, l in lines[:3]])))
sys.exit(0 if all(r) else 1)
EOF

# --- the jailer was started by its socket
jl_pid=$(systemctl show -p MainPID --value cellgate-jailer.service)
if [ "$jl_pid" != 0 ] && tr '\0' '\n' </proc/"$jl_pid"/environ | grep -qx 'LISTEN_FDNAMES=cellgate-jailer.socket'; then
	ok "jailer (pid $jl_pid) received its socket from systemd"
else
	bad "jailer pid $jl_pid without LISTEN_FDNAMES=cellgate-jailer.socket"
fi
systemctl show -p TriggeredBy --value cellgate-jailer.service | grep -q cellgate-jailer.socket &&
	ok "cellgate-jailer.service is triggered by its socket" || bad "TriggeredBy"
[ "$(systemctl is-enabled cellgate-jailer.service 2>&1)" = static ] &&
	ok "the jailer service itself is not enabled (static)" ||
	bad "jailer service is $(systemctl is-enabled cellgate-jailer.service 2>&1)"
journalctl -u cellgate-jailer.service --no-pager -o cat | grep -q 'ready (socket' &&
	ok "jailer journal: ready (socket-activated)" || {
	bad "jailer journal lacks its ready line"
	journalctl -u cellgate-jailer.service --no-pager -o cat | tail -5 | sed 's/^/  /'
}

# --- audited
if [ -s /var/log/cellgate/audit.jsonl ] && cellgate audit verify /var/log/cellgate/audit.jsonl >/root/verify.txt 2>&1; then
	ok "audit log verifies: $(cat /root/verify.txt)"
else
	bad "audit log: $(cat /root/verify.txt 2>/dev/null)"
fi
[ "$(grep -c '"job.end"' /var/log/cellgate/audit.jsonl)" -ge 3 ] && ok "three job.end records" ||
	bad "job.end records: $(grep -c '"job.end"' /var/log/cellgate/audit.jsonl)"
systemd-analyze security cellgate.service 2>/dev/null | tail -n 1 | sed 's/^/  info: /'

# --- purge leaves nothing
if dpkg --purge cellgate >/root/dpkg-purge.log 2>&1; then ok "dpkg --purge"; else
	bad "dpkg --purge"
	sed 's/^/  /' /root/dpkg-purge.log
fi
sleep 1
left=$(systemctl list-units --all --plain --no-legend 'cellgate*' | grep -v 'not-found' || true)
[ -z "$left" ] && ok "no cellgate unit loaded" || bad "units left: $left"
procs=$(ps -eo pid=,comm= | grep -E 'cellgate|cellgate-init' || true)
jobs=$(ps -eo uid= | awk '$1 >= 2000000000' | wc -l)
[ -z "$procs" ] && [ "$jobs" = 0 ] && ok "no process left" || bad "processes left: $procs ($jobs job)"
for p in /etc/cellgate /var/log/cellgate /run/cellgate /usr/bin/cellgate /usr/sbin/cellgate-jailer \
	/lib/systemd/system/cellgate.service /usr/lib/sysusers.d/cellgate.conf \
	/usr/lib/tmpfiles.d/cellgate.conf /etc/systemd/system/multi-user.target.wants/cellgate.service \
	/etc/systemd/system/sockets.target.wants/cellgate-jailer.socket; do
	[ ! -e "$p" ] || { bad "$p left"; files_left=1; }
done
[ -n "${files_left:-}" ] || ok "no file of the package left (checked the installed paths)"
getent passwd cellgate >/dev/null && bad "user cellgate left" || ok "user cellgate removed"
getent group cellgate >/dev/null && bad "group cellgate left" || ok "group cellgate removed"
cg=$(find /sys/fs/cgroup -maxdepth 3 -name 'cellgate*' 2>/dev/null || true)
[ -z "$cg" ] && ok "no cgroup left" || bad "cgroups left: $cg"

[ $fail = 0 ] && echo "in-container: all checks passed" || echo "in-container: FAILED"
exit $fail
