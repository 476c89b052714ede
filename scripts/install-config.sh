#!/bin/sh
# Install the configuration of a host install (`make install`, the Debian
# package) into DEST from the documented examples in SRC (etc/):
#
#   jailer.conf    the example with `allow_uid = root` and `allow_gid = cellgate`
#                  switched on: the gateway (group cellgate) and root may submit
#                  jobs (the built-in default admits only root);
#   cellgate.conf  the example with the audit file switched on
#                  (/var/log/cellgate/audit.jsonl);
#   tenants.conf   the example with every tenant commented out: no key works
#                  until the administrator adds one (`cellgate key new`), so no
#                  example key hash ever reaches a host.
#
# An existing file is never overwritten: a different new version goes beside
# it as FILE.new.  Usage: scripts/install-config.sh SRC DEST
set -eu

[ $# -eq 2 ] || { echo "usage: $0 SRC DEST" >&2; exit 2; }
src=$1
dest=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cellgate-conf.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# Each edit must change exactly what it names; an example that drifted from
# these patterns fails the install instead of installing something else.
expect() {
	grep -qx -- "$2" "$1" || { echo "install-config: $1 lacks the line '$2'" >&2; exit 1; }
}

sed -e 's/^#allow_uid = cellgate$/allow_uid = root/' \
    -e 's/^#allow_gid = cellgate$/allow_gid = cellgate/' "$src/jailer.conf" >"$tmp/jailer.conf"
expect "$tmp/jailer.conf" 'allow_uid = root'
expect "$tmp/jailer.conf" 'allow_gid = cellgate'

sed -e 's|^file =$|file = /var/log/cellgate/audit.jsonl|' "$src/cellgate.conf" >"$tmp/cellgate.conf"
expect "$tmp/cellgate.conf" 'file = /var/log/cellgate/audit.jsonl'

{
	sed -n '/^\[tenant /q;p' "$src/tenants.conf"
	echo "# No tenant is enabled yet.  Add one (see above), for example"
	echo "#     cellgate key new --tenant alice"
	echo "# then restart the gateway: systemctl restart cellgate"
	echo "# The examples below are commented out."
	echo "#"
	sed -n '/^\[tenant /,$p' "$src/tenants.conf" | sed -e 's/^\([^#]\)/#\1/'
} >"$tmp/tenants.conf"
if grep -q '^[^#[:space:]]' "$tmp/tenants.conf"; then
	echo "install-config: tenants.conf would enable a tenant" >&2
	exit 1
fi

mkdir -p "$dest"
for f in jailer.conf:0644 cellgate.conf:0640 tenants.conf:0640; do
	name=${f%%:*}
	mode=${f#*:}
	if [ ! -e "$dest/$name" ]; then
		install -m "$mode" "$tmp/$name" "$dest/$name"
		echo "install-config: installed $dest/$name"
	elif cmp -s "$tmp/$name" "$dest/$name"; then
		echo "install-config: $dest/$name is up to date"
	else
		install -m "$mode" "$tmp/$name" "$dest/$name.new"
		echo "install-config: kept $dest/$name; the new version is $dest/$name.new"
	fi
done
