#!/bin/sh
# Check the systemd units, sysusers.d and tmpfiles.d files in this directory
# against a scratch root holding the built binaries where the Debian package
# puts them (/usr/bin/cellgate, /usr/sbin/cellgate-jailer).  Fails on any
# warning; prints the exposure score of systemd-analyze security for both
# services.  Usage: BUILD=build systemd/verify.sh   (run from the repository)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
for b in cellgate cellgate-jailer; do
	[ -x "$build/$b" ] || { echo "verify.sh: $build/$b missing (make all)" >&2; exit 2; }
done

root=$(mktemp -d "${TMPDIR:-/tmp}/cellgate-units.XXXXXX")
trap 'rm -rf "$root"' EXIT INT TERM
mkdir -p "$root/usr/bin" "$root/usr/sbin" "$root/etc/systemd/system" \
	"$root/usr/lib/sysusers.d" "$root/usr/lib/tmpfiles.d" "$root/etc/cellgate"
cp "$build/cellgate" "$root/usr/bin/cellgate"
cp "$build/cellgate-jailer" "$root/usr/sbin/cellgate-jailer"
units="cellgate-jailer.socket cellgate-jailer.service cellgate.service"
for u in $units; do
	cp "$here/$u" "$root/etc/systemd/system/$u"
done
# The host's own units (sysinit.target, sockets.target, ...) that ours
# depend on.
hostunits=/usr/lib/systemd/system
[ -d "$hostunits" ] || hostunits=/lib/systemd/system
mkdir -p "$root/usr/lib/systemd"
cp -R "$hostunits" "$root/usr/lib/systemd/system"
cp "$here/cellgate.sysusers" "$root/usr/lib/sysusers.d/cellgate.conf"
cp "$here/cellgate.tmpfiles" "$root/usr/lib/tmpfiles.d/cellgate.conf"
: >"$root/etc/passwd"
: >"$root/etc/group"
fail=0
out=$root/out

# Runs "$@", shows its output, and fails the check when it fails or prints
# anything at all: each of these commands is silent when all is well.
quiet() {
	if ! "$@" >"$out" 2>&1 || [ -s "$out" ]; then
		echo "FAIL: $*" >&2
		sed 's/^/  /' "$out" >&2
		fail=1
	else
		echo "ok: $*"
	fi
}

# The account first: the socket's group and the gateway's user must exist.
# (systemd-sysusers reports what it creates: not a warning.)
systemd-sysusers --root="$root" "$root"/usr/lib/sysusers.d/cellgate.conf >"$out" 2>&1 ||
	{ echo "FAIL: systemd-sysusers" >&2; cat "$out" >&2; fail=1; }
grep -q '^cellgate:' "$root/etc/passwd" || { echo "FAIL: no cellgate user" >&2; fail=1; }
grep -q '^cellgate:' "$root/etc/group" || { echo "FAIL: no cellgate group" >&2; fail=1; }
: >"$root/etc/cellgate/tenants.conf"
quiet systemd-tmpfiles --root="$root" --create "$root"/usr/lib/tmpfiles.d/cellgate.conf
# Ownership and modes as the tmpfiles entries say (numeric: the scratch
# root's users are not the host's).
cg=$(awk -F: '$1 == "cellgate" { print $3 }' "$root/etc/passwd")
check_stat() {
	got=$(stat -c "%a %u" "$root$1" 2>&1 || true)
	[ "$got" = "$2" ] || { echo "FAIL: $1 is '$got', want '$2'" >&2; fail=1; }
}
check_stat /run/cellgate "755 0"
check_stat /var/log/cellgate "750 $cg"
check_stat /etc/cellgate/tenants.conf "640 0"

for u in $units; do
	quiet systemd-analyze verify --man=no --root="$root" "$root/etc/systemd/system/$u"
done

for s in cellgate.service cellgate-jailer.service; do
	line=$(systemd-analyze security --offline=yes --root="$root" "$s" 2>&1 |
		grep 'Overall exposure level' || true)
	echo "$s: ${line:-no exposure level}"
	[ -n "$line" ] || fail=1
done
exit $fail
