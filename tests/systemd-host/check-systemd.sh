#!/bin/sh
# make check-systemd: the Debian package on a real, booted systemd.
#
#  1. builds the .deb from this working tree (dpkg-buildpackage -us -uc -b, in
#     a scratch copy, so the tree is not touched);
#  2. bootstraps a minimal Debian 12 tree with systemd and the package's
#     dependencies (debootstrap; kept in $CELLGATE_ROOTFS_CACHE and copied per
#     run, so a second run skips this);
#  3. boots it with systemd-nspawn --boot (private network, so its port 8000
#     is its own), waits for the boot to finish, and runs in-container.sh in
#     it: install, jobs over HTTP through the socket-activated jailer, its
#     delegated cgroup, the audit log, then purge and nothing left.
#
# On hosts where systemd is not PID 1, nspawn needs --register=no
# --keep-unit and a tmpfs on /run/systemd/nspawn; that tmpfs is mounted in a
# private mount namespace, so the host is not changed.  As root, from the
# repository.  Needs debootstrap, systemd-container, dpkg-dev and debhelper
# (`make deps` installs them) and the Debian mirror of /etc/apt.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "check-systemd: needs root" >&2; exit 2; }
for t in debootstrap systemd-nspawn dpkg-buildpackage dh nsenter; do
	command -v $t >/dev/null || { echo "check-systemd: $t missing (make deps)" >&2; exit 2; }
done
mirror=${CELLGATE_DEBIAN_MIRROR:-$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)}
mirror=${mirror:-http://deb.debian.org/debian}
cache=${CELLGATE_ROOTFS_CACHE:-/var/cache/cellgate-check-systemd}
# The package's run-time dependencies come with the tree: the container has
# no network, as a package installed with dpkg -i needs none.
include=systemd,systemd-sysv,dbus,procps,python3,nodejs,libevent-2.1-7,libcjson1,libcap-ng0,libseccomp2,libssl3
start=$(date +%s)
work=$(mktemp -d /var/tmp/cellgate-nspawn.XXXXXX)
nspawn_pid=
v1=
cleanup() {
	if [ -n "$nspawn_pid" ] && kill -0 "$nspawn_pid" 2>/dev/null; then
		kill -TERM "$nspawn_pid" 2>/dev/null || true
		i=0
		while kill -0 "$nspawn_pid" 2>/dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
		kill -KILL "$nspawn_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
	# The container's cgroups, deepest first (only empty ones can go).
	for d in $v1; do
		[ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM
step() { echo "== $* ($(($(date +%s) - start)) s)"; }

step "building the package"
mkdir "$work/src"
(cd "$repo" && git ls-files -co --exclude-standard -z | xargs -0 cp -P --parents -t "$work/src")
(cd "$work/src" && dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1) ||
	{ tail -n 40 "$work/build.log"; echo "FAIL: dpkg-buildpackage" >&2; exit 1; }
deb=$(ls "$work"/cellgate_*_*.deb)
echo "  $(basename "$deb")"

key=$(echo "$include $mirror" | sha256sum | cut -c1-12)
tree=$cache/bookworm-$key
if [ ! -x "$tree/usr/lib/systemd/systemd" ]; then
	step "debootstrap bookworm (minbase, $mirror)"
	mkdir -p "$cache"
	rm -rf "$tree.tmp"
	debootstrap --variant=minbase --include="$include" bookworm "$tree.tmp" "$mirror" \
		>"$work/debootstrap.log" 2>&1 ||
		{ tail -n 30 "$work/debootstrap.log"; echo "FAIL: debootstrap" >&2; exit 1; }
	echo cellgate-check >"$tree.tmp/etc/hostname"
	rm -f "$tree.tmp/etc/machine-id"
	mv "$tree.tmp" "$tree"
fi
step "copying the tree"
cp -a "$tree" "$work/root"
systemd-machine-id-setup --root="$work/root" >/dev/null 2>&1
cp "$deb" "$work/root/root/cellgate.deb"
cp "$here/in-container.sh" "$here/mcp_client.py" "$work/root/root/"

step "booting it with systemd-nspawn"
# The container gets cgroups of its own in the v1 hierarchies (created here,
# removed at the end), so what it does there stays below them.
v1=
if [ ! -f /sys/fs/cgroup/cgroup.controllers ]; then
	for c in memory pids cpu cpuacct; do
		[ -d /sys/fs/cgroup/$c ] && v1="$v1 /sys/fs/cgroup/$c/cellgate-check-$$"
	done
fi
unshare -m sh -c '
	set -e
	mount --make-rprivate /
	mkdir -p /run/systemd/nspawn
	mount -t tmpfs tmpfs /run/systemd/nspawn
	root=$1
	shift
	for d in "$@"; do mkdir -p "$d"; echo $$ >"$d/cgroup.procs"; done
	exec systemd-nspawn --boot --register=no --keep-unit --private-network \
		--console=pipe --machine=cellgate-check -D "$root"' sh "$work/root" $v1 \
	</dev/null >"$work/boot.log" 2>&1 &
nspawn_pid=$!
# The container's init is nspawn's child (unshare and sh exec'd into it).
init=
i=0
while [ -z "$init" ] && [ $i -lt 300 ]; do
	kill -0 "$nspawn_pid" 2>/dev/null || break
	init=$(pgrep -P "$nspawn_pid" | head -n 1 || true)
	[ -n "$init" ] || sleep 0.1
	i=$((i + 1))
done
[ -n "$init" ] || { tail -n 30 "$work/boot.log"; echo "FAIL: the container did not boot" >&2; exit 1; }
inside() { nsenter -t "$init" -a env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }
state=$(inside systemctl is-system-running --wait 2>/dev/null || true)
echo "  booted: init pid $init, system $state"
# On a cgroup v1 host nspawn hands the container only the name=systemd
# hierarchy and mounts memory, pids and cpu read-only, where a booted host's
# systemd would manage them (and delegate them to the jailer).  Mount them
# writable in the container (rooted at its own cgroup, by its cgroup
# namespace) and re-execute systemd so it manages them, as PID 1 does on a
# v1 host from boot.
if [ -n "$v1" ]; then
	for c in memory pids cpu cpuacct; do
		inside sh -c "umount /sys/fs/cgroup/$c && mount -t cgroup -o $c cgroup /sys/fs/cgroup/$c" ||
			{ echo "FAIL: cannot mount the $c hierarchy in the container" >&2; exit 1; }
	done
	inside systemctl daemon-reexec
	echo "  v1 controllers memory, pids, cpu, cpuacct writable in the container"
fi
if [ "$state" != running ]; then
	inside systemctl --failed --no-legend --plain 2>/dev/null | sed 's/^/  failed unit: /'
fi

step "installing and using the package inside"
rc=0
inside sh /root/in-container.sh || rc=$?
step "done"
[ $rc = 0 ] && echo "check-systemd: passed" || echo "check-systemd: FAILED" >&2
exit $rc
