#!/bin/sh
# `make install` and `make install-setuid` into a DESTDIR, checked for real:
# the layout and modes, units pointing at PREFIX, the host configuration
# (gateway admitted by the jailer policy, audit on, no tenant enabled),
# never overwriting an edited configuration file, and the setuid helper
# running a job for a member of the cellgate group and refusing others.
#
# The host's accounts are not touched: the checks that need the cellgate
# user run in a private mount namespace whose /etc is a copy with that user
# added by our own sysusers.d file.  As root, from the repository, after
# `make all`:  BUILD=build tests/install/check.sh
set -eu

build=${BUILD:-build}
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 0; }
work=$(mktemp -d /var/tmp/cellgate-install.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
chmod 0755 "$work"
dest=$work/dest
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*" >&2; fail=1; }

make -s BUILD="$build" DESTDIR="$dest" install >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log" >&2; echo "FAIL: make install" >&2; exit 1; }

# Layout and modes (PREFIX=/usr/local, the default).
for want in \
	"755 usr/local/bin/cellgate" "755 usr/local/sbin/cellgate-jailer" \
	"644 usr/local/lib/systemd/system/cellgate-jailer.socket" \
	"644 usr/local/lib/systemd/system/cellgate-jailer.service" \
	"644 usr/local/lib/systemd/system/cellgate.service" \
	"644 usr/local/lib/sysusers.d/cellgate.conf" "644 usr/local/lib/tmpfiles.d/cellgate.conf" \
	"644 usr/local/share/man/man8/cellgate.8" "644 usr/local/share/man/man8/cellgate-jailer.8" \
	"644 usr/local/share/man/man5/cellgate.conf.5" \
	"644 usr/local/share/doc/cellgate/examples/tenants.conf" \
	"644 etc/cellgate/jailer.conf" "640 etc/cellgate/cellgate.conf" \
	"640 etc/cellgate/tenants.conf"; do
	mode=${want%% *}
	path=${want#* }
	got=$(stat -c %a "$dest/$path" 2>/dev/null || echo missing)
	[ "$got" = "$mode" ] && ok "$path $mode" || bad "$path: mode $got, want $mode"
done
unit=$dest/usr/local/lib/systemd/system
grep -qx 'ExecStart=/usr/local/sbin/cellgate-jailer --policy /etc/cellgate/jailer.conf --idle-exit 600' \
	"$unit/cellgate-jailer.service" && ok "jailer unit runs /usr/local/sbin" ||
	bad "jailer unit ExecStart: $(grep ExecStart= "$unit/cellgate-jailer.service")"
grep -qx 'ExecStart=/usr/local/bin/cellgate --config /etc/cellgate/cellgate.conf' \
	"$unit/cellgate.service" && ok "gateway unit runs /usr/local/bin" ||
	bad "gateway unit ExecStart: $(grep ExecStart= "$unit/cellgate.service")"
strings "$dest/usr/local/bin/cellgate" | grep -q '^/usr/local/sbin/cellgate-jailer$' &&
	ok "the gateway's compiled-in helper path is SBINDIR's" || bad "compiled-in helper path"

# The host configuration.
conf=$dest/etc/cellgate
grep -qx 'allow_gid = cellgate' "$conf/jailer.conf" && ok "jailer.conf admits group cellgate" ||
	bad "jailer.conf lacks allow_gid = cellgate"
grep -qx 'file = /var/log/cellgate/audit.jsonl' "$conf/cellgate.conf" && ok "audit file on" ||
	bad "cellgate.conf: audit file not set"
if grep -q '^[^#[:space:]]' "$conf/tenants.conf"; then
	bad "tenants.conf enables something: $(grep '^[^#[:space:]]' "$conf/tenants.conf" | head -1)"
else
	ok "tenants.conf enables no tenant"
fi

# A second install keeps an edited file and puts the new one beside it.
echo "# edited by the administrator" >>"$conf/tenants.conf"
cp "$conf/tenants.conf" "$work/tenants.edited"
make -s BUILD="$build" DESTDIR="$dest" install >"$work/install2.log" 2>&1 ||
	{ cat "$work/install2.log" >&2; bad "second make install"; }
cmp -s "$conf/tenants.conf" "$work/tenants.edited" && ok "edited tenants.conf kept" ||
	bad "second install overwrote tenants.conf"
[ -f "$conf/tenants.conf.new" ] && ok "new tenants.conf beside it" || bad "no tenants.conf.new"
[ ! -e "$conf/jailer.conf.new" ] && ok "unchanged jailer.conf: no .new" || bad "jailer.conf.new"
grep -q "kept $conf/tenants.conf" "$work/install2.log" && ok "the run says what it kept" ||
	bad "install did not report the kept file"
rm -f "$conf/tenants.conf.new"

# The rest runs with a private /etc: the host's plus the cellgate account
# made by our sysusers.d file, and /etc/cellgate from the install (the
# setuid helper reads only the installed policy).
mkdir "$work/etc"
cp -a /etc/. "$work/etc/"
rm -rf "$work/etc/cellgate"
mkdir -p "$work/sysroot/etc"
cp /etc/passwd /etc/group "$work/sysroot/etc/"
[ -f /etc/shadow ] && cp /etc/shadow "$work/sysroot/etc/"
[ -f /etc/gshadow ] && cp /etc/gshadow "$work/sysroot/etc/"
systemd-sysusers --root="$work/sysroot" "$dest/usr/local/lib/sysusers.d/cellgate.conf" \
	>"$work/sysusers.log" 2>&1 || { cat "$work/sysusers.log" >&2; bad "systemd-sysusers"; }
cp "$work/sysroot/etc/passwd" "$work/sysroot/etc/group" "$work/etc/"
cp -a "$conf" "$work/etc/cellgate"
printf 'import os\nprint("setuid job", os.getuid())\n' >"$work/job.py"
chmod 0644 "$work/job.py"

cat >"$work/inner.sh" <<'EOF'
set -eu
work=$1 build=$2 dest=$3
mount --make-rprivate /
mount --bind "$work/etc" /etc
getent group cellgate >/dev/null || { echo "FAIL: no cellgate group in the private /etc"; exit 1; }
make -s BUILD="$build" DESTDIR="$dest" install-setuid >"$work/setuid.log" 2>&1 ||
	{ cat "$work/setuid.log"; echo "FAIL: make install-setuid"; exit 1; }
jl=$dest/usr/local/sbin/cellgate-jailer
st=$(stat -c '%a %U %G' "$jl")
[ "$st" = "4750 root cellgate" ] && echo "ok: jailer $st" || echo "FAIL: jailer is $st"
# A member of the group runs a job through the installed helper and policy.
out=$(setpriv --reuid=cellgate --regid=cellgate --clear-groups \
	"$dest/usr/local/bin/cellgate" run --jailer "$jl" "$work/job.py" 2>"$work/run.err") || true
[ "$out" = "setuid job 1000" ] && echo "ok: a cellgate member ran a job via the helper" ||
	{ echo "FAIL: job through the setuid helper printed '$out'"; sed 's/^/  /' "$work/run.err"; }
# Anyone else cannot even execute it.
if setpriv --reuid=nobody --regid=nogroup --clear-groups "$jl" --fd 3 3</dev/null 2>/dev/null; then
	echo "FAIL: nobody executed the setuid helper"
else
	echo "ok: others cannot execute the helper"
fi
EOF
unshare -m sh "$work/inner.sh" "$work" "$build" "$dest" >"$work/inner.out" 2>&1 || true
cat "$work/inner.out"
grep -q '^FAIL' "$work/inner.out" && fail=1
[ "$(grep -c '^ok' "$work/inner.out")" = 3 ] || { echo "FAIL: setuid checks incomplete" >&2; fail=1; }

[ $fail = 0 ] && echo "install: all checks passed" || echo "install: FAILED" >&2
exit $fail
