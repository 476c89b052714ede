#!/bin/sh
# Checks properties of the built cellgate module; exits non-zero if any
# breaks.  Run by `make -C selinux check` (which builds cellgate.pp first).
#
# 1. Static, always (python3 only): reads tmp/cellgate.tmp, the module with
#    every interface and macro expanded, and checks the rules it writes.
# 2. Linked, when secilc, setools, policycoreutils (hll/pp) and
#    selinux-policy-default are installed: converts every module that
#    package ships to CIL, links them with cellgate into a complete binary
#    policy (secilc checks every neverallow, of this module and of
#    refpolicy), proves that a violating rule does fail the link, then
#    queries the result with the setools library (what sesearch uses; rules
#    the base policy gives to attributes such as `domain` included) and
#    validates the file contexts.  All packaged modules are linked, also those a host
#    may have disabled: a "never" that holds for the superset holds for any
#    installed subset.  Without the tools this part is skipped, loudly;
#    CELLGATE_SELINUX_REQUIRE_LINKED=1 turns the skip into a failure.
# Everything it writes goes to tmp/ (removed by make clean).
set -eu
cd "$(dirname "$0")"
[ -f tmp/cellgate.tmp ] && [ -f cellgate.pp ] ||
	{ echo "selinux/check.sh: build first (make -C selinux)" >&2; exit 2; }

fails=0
oks=0
ok() { echo "ok: $*"; oks=$((oks + 1)); }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# ---- 1. Static checks of the expanded module source ----
if /usr/bin/python3 - tmp/cellgate.tmp <<'PY'; then oks=$((oks + 1)); else fails=$((fails + 1)); fi
import re, sys

text = open(sys.argv[1]).read()

def strip_conditional(src, name):
    """src without the if (name) { ... } blocks, and the blocks alone."""
    out, inside, pos = [], [], 0
    for m in re.finditer(r"if\s*\(\s*%s\s*\)\s*\{" % name, src):
        depth, i = 1, m.end()
        while depth and i < len(src):
            depth += {"{": 1, "}": -1}.get(src[i], 0)
            i += 1
        out.append(src[pos:m.start()])
        inside.append(src[m.end():i - 1])
        pos = i
    return "".join(out) + src[pos:], "".join(inside)

def rules(src):
    found = []
    for m in re.finditer(r"^\s*(allow|neverallow|type_transition)\s+(.*?);", src, re.M | re.S):
        body = " ".join(m.group(2).replace("{", " { ").replace("}", " } ").split())
        toks = re.findall(r"\{[^}]*\}|[^\s:{}]+|:", body)
        if len(toks) < 5 or toks[2] != ":":
            continue
        words = lambda s: set(s.strip("{} ").split())
        found.append((m.group(1), words(toks[0]), words(toks[1]), words(toks[3]),
                      words(" ".join(toks[4:]))))
    return found

outside, inside = strip_conditional(text, "cellgate_cells_use_network")
always = rules(outside)
failures = []

def check(cond, what):
    print(("ok: static: " if cond else "FAIL: static: ") + what)
    if not cond:
        failures.append(what)

def allow(src, rs=always):
    return [r for r in rs if r[0] == "allow" and src in r[1]]

cell = allow("cellgate_cell_t")
private = {"cellgate_conf_t", "cellgate_log_t", "cellgate_runtime_t", "cellgate_exec_t",
           "cellgate_jailer_exec_t", "cellgate_jailer_tmp_t", "cellgate_jailer_tmpfs_t"}
hits = [r for r in cell + allow("cellgate_cell_t", rules(inside)) if r[2] & private]
check(not hits, "cells have no rule on the configuration, audit log, socket, binaries "
      "or private files of the jailer")
hits = [r for r in cell if r[4] & {"connectto", "sendto"}
        and r[2] - {"self", "cellgate_cell_t"}]
check(not hits, "cells connect or send to no other domain socket")
hits = [r for r in cell
        if r[2] & {"cellgate_jailer_t", "cellgate_t"} and r[3] & {"process", "process2"}]
check(not hits, "cells have no process permission on the jailer or the gateway")
check(not [r for r in cell if r[3] & {"capability", "capability2", "cap_userns", "cap2_userns"}],
      "cells have no capability")
check(not [r for r in cell
           if "cellgate_cell_tmpfs_t" in r[2] and r[4] & {"execute", "execute_no_trans"}],
      "cells execute nothing from their own tmpfs")
check(not [r for r in allow("cellgate_t") if r[3] & {"capability", "capability2", "cap_userns"}],
      "the gateway has no capability")
hits = [r for r in allow("cellgate_t") if "cellgate_log_t" in r[2] and "file" in r[3]
        and r[4] & {"write", "setattr", "rename", "unlink"}]
check(not hits, "the gateway only creates and appends to the audit log")
hits = [r for r in allow("cellgate_t") if "cellgate_conf_t" in r[2]
        and r[4] & {"write", "append", "create", "unlink", "rename", "setattr"}]
check(not hits, "the gateway cannot change its configuration")
check(any(r[0] == "type_transition" and "cellgate_jailer_t" in r[1] and "bin_t" in r[2]
          and "process" in r[3] and "cellgate_cell_t" in r[4] for r in always),
      "the exec of bin_t by the jailer enters cellgate_cell_t")
need = {"nnp_transition", "nosuid_transition", "noatsecure", "rlimitinh"}
got = set().union(*[r[4] for r in allow("cellgate_jailer_t")
                     if "cellgate_cell_t" in r[2]] or [set()])
check(need <= got, "the transition works under no_new_privs and nosuid, keeps pdeathsig "
      "and rlimits (%s)" % " ".join(sorted(need - got) or ["all present"]))
hits = [r for r in cell if "name_connect" in r[4] and r[2] & {"port_type", "reserved_port_type"}]
check(not hits, "cells reach reserved ports only with cellgate_cells_use_network")
check("cellgate_cells_use_network" in text and inside.strip() != "",
      "the network boolean guards rules")
sys.exit(1 if failures else 0)
PY

# ---- 2. Checks on the policy linked with refpolicy ----
HLL_PP=/usr/libexec/selinux/hll/pp
REFPOL=/usr/share/selinux/default
missing=
for t in secilc setfiles selabel_lookup semodule_unpackage; do
	command -v $t >/dev/null 2>&1 || missing="$missing $t"
done
[ -x $HLL_PP ] || missing="$missing $HLL_PP"
/usr/bin/python3 -c 'import setools' 2>/dev/null || missing="$missing python3-setools"
ls $REFPOL/base.pp.bz2 >/dev/null 2>&1 || missing="$missing $REFPOL/base.pp.bz2"
if [ -n "$missing" ]; then
	echo "SKIPPED: checks on the linked policy: missing$missing" \
		"(apt-get install --no-install-recommends secilc setools selinux-policy-default)"
	if [ "${CELLGATE_SELINUX_REQUIRE_LINKED:-0}" = 1 ]; then
		fails=$((fails + 1))
	fi
	echo "selinux: $oks passed, $fails failed, linked-policy checks skipped"
	[ $fails -eq 0 ]
	exit
fi

# The refpolicy modules as CIL, converted once per installed package
# version (cached in tmp/refpolicy).
stamp=$(ls -l $REFPOL/*.pp.bz2 | md5sum | cut -d' ' -f1)
if [ "$(cat tmp/refpolicy/.stamp 2>/dev/null)" != "$stamp" ]; then
	rm -rf tmp/refpolicy
	mkdir -p tmp/refpolicy
	for f in $REFPOL/*.pp.bz2; do
		n=$(basename "$f" .pp.bz2)
		[ "$n" = cellgate ] && continue
		bzcat "$f" | $HLL_PP >"tmp/refpolicy/$n.cil"
	done
	echo "$stamp" >tmp/refpolicy/.stamp
fi
$HLL_PP cellgate.pp tmp/cellgate.cil

link() { # name [extra.cil]: tmp/NAME.bin, log in tmp/NAME.log; neverallows checked
	name=$1
	shift
	secilc -o "tmp/$name.bin" -f /dev/null tmp/refpolicy/*.cil tmp/cellgate.cil "$@" \
		>"tmp/$name.log" 2>&1
}
if link policy; then
	ok "linked with $(ls tmp/refpolicy/*.cil | wc -l) refpolicy modules; every neverallow holds"
else
	fail "link with refpolicy (neverallow or other error):"
	tail -n 30 tmp/policy.log | sed 's/^/  /'
	echo "selinux: $oks passed, $fails failed"
	exit 1
fi
# Neverallow checking is live: each rule below breaks one of ours and must
# fail the link (run two at a time).
set -- "(allow cellgate_cell_t cellgate_conf_t (file (read)))" \
	"(allow cellgate_cell_t cellgate_t (unix_stream_socket (connectto)))" \
	"(allow cellgate_t cellgate_log_t (file (write)))"
i=0
for bad in "$@"; do
	i=$((i + 1))
	echo "$bad" >tmp/bad$i.cil
	(if link bad$i tmp/bad$i.cil; then echo 0; else echo 1; fi >tmp/bad$i.rc) &
	[ $((i % 2)) -eq 0 ] && wait
done
wait
i=0
for bad in "$@"; do
	i=$((i + 1))
	if [ "$(cat tmp/bad$i.rc)" = 0 ]; then
		fail "a link with $bad succeeded"
	elif grep -q neverallow tmp/bad$i.log; then
		ok "a link with $bad fails on a neverallow"
	else
		fail "a link with $bad failed for another reason: $(tail -n 3 tmp/bad$i.log)"
	fi
	rm -f tmp/bad$i.cil tmp/bad$i.bin tmp/bad$i.rc tmp/bad$i.log
done

# Queries on the linked policy.  A type matches through every attribute
# that holds it, as with sesearch.
if /usr/bin/python3 - tmp/policy.bin <<'PY'; then oks=$((oks + 1)); else fails=$((fails + 1)); fi
import sys
import setools

pol = setools.SELinuxPolicy(sys.argv[1])
failures = []

def check(cond, what, detail=()):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        for d in detail:
            print("  %s" % d)
        failures.append(what)

# One pass over the policy: the allow and type_transition rules whose source
# (attributes expanded) holds one of the domains checked here.
SUBJECTS = {"cellgate_cell_t", "cellgate_jailer_t", "cellgate_t", "init_t"}
_expanded = {}

def names(t):
    key = str(t)
    if key not in _expanded:
        _expanded[key] = {str(x) for x in t.expand()}
    return _expanded[key]

INDEX = []
for r in pol.terules():
    if str(r.ruletype) not in ("allow", "type_transition"):
        continue
    src = names(r.source)
    if src & SUBJECTS:
        INDEX.append((r, src, names(r.target)))

def q(ruletype="allow", source=None, target=None, tclass=None, perms=None):
    """Rules like sesearch -A/-T: a type matches through its attributes;
    perms match when the rule has any of them."""
    tclass = {tclass} if isinstance(tclass, str) else tclass
    perms = {perms} if isinstance(perms, str) else perms
    out = []
    for r, src, tgt in INDEX:
        if str(r.ruletype) != ruletype or source not in src:
            continue
        if target is not None and target not in tgt and not (
                str(r.target) == "self" and target == source):
            continue
        if tclass and str(r.tclass) not in tclass:
            continue
        if perms and not (set(r.perms) & perms):
            continue
        out.append(r)
    return out

def cond(r):
    try:
        return (str(r.conditional), r.conditional_block)
    except Exception:
        return None

def none(what, **kw):
    rs = q(**kw)
    check(not rs, what, rs)

def some(what, ruletype="allow", **kw):
    check(bool(q(ruletype, **kw)), what)

def only(what, allowed, **kw):
    rs = [r for r in q(**kw) if str(r.target) not in allowed]
    check(not rs, what, rs)

C, J, G = "cellgate_cell_t", "cellgate_jailer_t", "cellgate_t"

for t in ("cellgate_conf_t", "cellgate_log_t", "cellgate_runtime_t", "cellgate_exec_t",
          "cellgate_jailer_exec_t", "cellgate_jailer_tmp_t", "cellgate_jailer_tmpfs_t",
          "home_root_t", "user_home_dir_t", "user_home_t"):
    none("cells: no access to %s" % t, source=C, target=t)
# setrans_t: every domain may talk to mcstransd (base policy); its socket is
# a path under /run that a cell cannot see.
only("cells: unix stream connectto only to their own sockets (and mcstransd)",
     {C, "setrans_t"}, source=C, tclass="unix_stream_socket", perms="connectto")
only("cells: unix datagram sendto only to their own sockets", {C},
     source=C, tclass="unix_dgram_socket", perms="sendto")
only("cells: write no socket file but their own (and mcstransd)",
     {"cellgate_cell_tmpfs_t", "setrans_runtime_t"}, source=C, tclass="sock_file", perms="write")
none("cells: no process permission on the jailer", source=C, target=J,
     tclass=["process", "process2"])
none("cells: no process permission on the gateway", source=C, target=G,
     tclass=["process", "process2"])
none("cells: ptrace nothing", source=C, tclass="process", perms="ptrace")
none("cells: no capability in any namespace", source=C,
     tclass=["capability", "capability2", "cap_userns", "cap2_userns"])
none("cells: execute nothing they can write", source=C, target="cellgate_cell_tmpfs_t",
     tclass="file", perms={"execute", "execute_no_trans"})
none("cells: no transition out of the cell domain", source=C, tclass="process",
     perms={"transition", "dyntransition"})
for t in ("cellgate_port_t", "soundd_port_t"):
    none("cells: no connection to %s (gateway port types)" % t, source=C, target=t,
         tclass="tcp_socket", perms="name_connect")
web = q(source=C, target="http_port_t", tclass="tcp_socket", perms="name_connect")
check(bool(web) and all(cond(r) == ("cellgate_cells_use_network", True) for r in web),
      "cells: web ports only with cellgate_cells_use_network", web)
check(pol.lookup_boolean("cellgate_cells_use_network").state is False,
      "cellgate_cells_use_network is off by default")

tt = q("type_transition", source=J, target="bin_t", tclass="process")
check([str(r.default) for r in tt] == [C], "jailer: exec of bin_t enters cellgate_cell_t", tt)
for perms, cls in (({"nnp_transition", "nosuid_transition"}, "process2"),
                   ({"transition", "noatsecure", "rlimitinh"}, "process")):
    have = set().union(*[set(r.perms) for r in q(source=J, target=C, tclass=cls)] or [set()])
    check(perms <= have, "jailer: %s to the cell" % " ".join(sorted(perms)))
only("jailer: enters no domain but the cell", {J, C}, source=J, tclass="process",
     perms="transition")
none("jailer: runs nothing in its own domain", source=J, tclass="file",
     perms="execute_no_trans")
none("jailer: cannot change the configuration", source=J, target="cellgate_conf_t",
     perms={"write", "append", "create", "setattr", "rename", "unlink"})
none("jailer: no access to the audit log", source=J, target="cellgate_log_t")
none("jailer: no write to the tmpfs_t of the host (/dev/shm)", source=J, target="tmpfs_t",
     tclass="dir", perms={"write", "add_name"})

for exe, dom in (("cellgate_exec_t", G), ("cellgate_jailer_exec_t", J)):
    tt = q("type_transition", source="init_t", target=exe, tclass="process")
    check([str(r.default) for r in tt] == [dom], "init: %s starts in %s" % (exe, dom), tt)
none("gateway: no capability in any namespace", source=G,
     tclass=["capability", "capability2", "cap_userns", "cap2_userns"])
have = set().union(*[set(r.perms) for r in q(source=G, target="cellgate_log_t", tclass="file")]
                   or [set()])
check({"create", "append", "read"} <= have, "gateway: creates, appends to and reads the audit log")
none("gateway: no write, setattr, rename or unlink on the audit log", source=G,
     target="cellgate_log_t", tclass="file", perms={"write", "setattr", "rename", "unlink"})
none("gateway: cannot change the configuration", source=G, target="cellgate_conf_t",
     perms={"write", "append", "create", "setattr", "rename", "unlink"})
some("gateway: connects to the jailer", source=G, target=J, tclass="unix_stream_socket",
     perms="connectto")
none("gateway: no connection to sockets of init (systemd private)", source=G, target="init_t",
     tclass="unix_stream_socket", perms="connectto")
none("gateway: does not run the setuid helper", source=G, target="cellgate_jailer_exec_t",
     tclass="file", perms={"execute", "execute_no_trans"})
some("gateway: binds tcp/8000 (soundd_port_t)", source=G, target="soundd_port_t",
     tclass="tcp_socket", perms="name_bind")
for who in (J, C):
    have = set().union(*[set(r.perms) for r in
                         q(source=who, target="cellgate_tmpfs_t", tclass="file")] or [set()])
    check({"read", "write", "getattr"} <= have and "open" not in have,
          "%s: receives the memfds of the gateway (read write, no open)" % who)
print("linked: %d failed" % len(failures))
sys.exit(1 if failures else 0)
PY

# File contexts: valid in the linked policy, and the expected types.
semodule_unpackage cellgate.pp tmp/unpacked.mod tmp/unpacked.fc
if setfiles -c tmp/policy.bin tmp/unpacked.fc >tmp/fc.log 2>&1; then
	ok "file contexts are valid in the linked policy"
else
	fail "file contexts are valid in the linked policy: $(cat tmp/fc.log)"
fi
for pair in /usr/bin/cellgate=cellgate_exec_t /usr/local/bin/cellgate=cellgate_exec_t \
	/usr/sbin/cellgate-jailer=cellgate_jailer_exec_t /etc/cellgate/jailer.conf=cellgate_conf_t \
	/var/log/cellgate/audit.jsonl=cellgate_log_t /run/cellgate/jailer.sock=cellgate_runtime_t; do
	path=${pair%=*} want=${pair#*=}
	got=$(selabel_lookup -b file -k "$path" -f tmp/unpacked.fc 2>&1 |
		sed -n 's/.*:object_r:\([^:]*\):.*/\1/p')
	if [ "$got" = "$want" ]; then ok "$path is $want"; else fail "$path is '$got', want $want"; fi
done

echo "selinux: $oks passed, $fails failed (static and linked query blocks: one each)"
[ $fails -eq 0 ]
