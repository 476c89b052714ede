#!/bin/sh
# Properties of the built module, read from the fully expanded policy source
# the build leaves in tmp/cellgate.tmp (every interface and macro resolved to
# allow/type_transition rules).  Run by `make -C selinux check`.
set -eu
cd "$(dirname "$0")"
[ -f tmp/cellgate.tmp ] || { echo "selinux/check.sh: build first (make -C selinux)" >&2; exit 2; }
exec /usr/bin/python3 - tmp/cellgate.tmp <<'PY'
import re, sys

text = open(sys.argv[1]).read()
rules = []  # (kind, sources, targets, classes, perms)
for m in re.finditer(r"^\s*(allow|dontaudit|auditallow|neverallow)\s+(.*?);", text, re.M | re.S):
    kind, body = m.group(1), " ".join(m.group(2).split())
    mm = re.fullmatch(r"(\{[^}]*\}|\S+)\s+(\{[^}]*\}|\S+)\s*:\s*(\{[^}]*\}|\S+)\s+(.*)", body)
    if not mm:
        continue
    words = lambda s: set(s.strip("{} ").split())
    rules.append((kind, words(mm.group(1)), words(mm.group(2)), words(mm.group(3)),
                  words(mm.group(4))))
attrs = {}
for t, a in re.findall(r"^\s*typeattribute\s+(\S+)\s+([^;]+);", text, re.M):
    attrs.setdefault(t, set()).update(x.strip() for x in a.split(","))

failures = []
def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)

def allowed(src):
    return [r for r in rules if r[0] == "allow" and src in r[1]]

# The cells reach none of the gateway's or jailer's files, by type or by an
# attribute of those types.
private = ["cellgate_conf_t", "cellgate_log_t", "cellgate_runtime_t", "cellgate_exec_t",
           "cellgate_jailer_exec_t"]
for t in private:
    names = {t} | attrs.get(t, set())
    hits = [r for r in allowed("cellgate_cell_t") if r[2] & names]
    check(not hits, "cells have no access to %s (or its attributes %s)"
          % (t, sorted(attrs.get(t, ()))))
check(bool(attrs.get("cellgate_conf_t")), "cellgate_conf_t has attributes to check against")
# No unix socket of anyone else: no connectto, no sendto but to itself.
hits = [r for r in allowed("cellgate_cell_t")
        if r[4] & {"connectto", "sendto"} and r[2] - {"self", "cellgate_cell_t"}]
check(not hits, "cells connect to no other domain's socket")
# Cells cannot signal, trace or inspect the jailer or the gateway.
hits = [r for r in allowed("cellgate_cell_t")
        if r[2] & {"cellgate_jailer_t", "cellgate_t"} and r[3] & {"process", "process2"}]
check(not hits, "cells have no process access to the jailer or the gateway")
check(not [r for r in allowed("cellgate_cell_t") if r[3] & {"capability", "capability2"}],
      "cells have no capabilities")
# The gateway has no capability at all, and cannot write the configuration.
check(not [r for r in allowed("cellgate_t") if r[3] & {"capability", "capability2", "cap_userns"}],
      "the gateway has no capabilities")
hits = [r for r in allowed("cellgate_t") if "cellgate_conf_t" in r[2]
        and r[4] & {"write", "append", "create", "unlink", "rename", "setattr"}]
check(not hits, "the gateway cannot change its configuration")
hits = [r for r in allowed("cellgate_t") if "cellgate_log_t" in r[2] and "file" in r[3]
        and r[4] & {"write", "unlink", "rename", "setattr"}]
check(not hits, "the gateway can only append to the audit log (no write, unlink, rename)")
# The interpreter runs in the cell domain, even under no_new_privs.
check(re.search(r"^\s*type_transition\s+cellgate_jailer_t\s+bin_t\s*:\s*process\s+cellgate_cell_t;",
                text, re.M) is not None, "the jailer's exec of bin_t enters cellgate_cell_t")
check(any("nnp_transition" in r[4] and "cellgate_cell_t" in r[2]
          for r in allowed("cellgate_jailer_t")), "nnp_transition to the cell is allowed")
# Network beyond loopback only through the tunable: outside its
# conditional block the cells reach no interface but lo.
def without_conditional(src, name):
    out, pos = [], 0
    for m in re.finditer(r"if\s*\(\s*%s\s*\)\s*\{" % name, src):
        depth, i = 1, m.end()
        while depth and i < len(src):  # to the matching brace (require
            depth += {"{": 1, "}": -1}.get(src[i], 0)  # blocks nest inside)
            i += 1
        out.append(src[pos:m.start()])
        pos = i
    return "".join(out) + src[pos:]
outside = without_conditional(text, "cellgate_cells_use_network")
check("if (cellgate_cells_use_network)" in text.replace("  ", " "),
      "the network tunable is in the module")
check(re.search(r"allow\s+cellgate_cell_t\s+netif_t\b", outside) is None,
      "cells use no generic network interface unless cellgate_cells_use_network is on")
print("selinux: %s" % ("all checks passed" if not failures else "%d FAILED" % len(failures)))
sys.exit(1 if failures else 0)
PY
