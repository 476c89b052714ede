# `make install` and `make install-setuid` (included by the Makefile).
#
#   make install [PREFIX=/usr/local] [DESTDIR=]     the socket-activated layout
#   make install-setuid                              the same, jailer 4750 root:cellgate
#
# Programs, units and documentation follow PREFIX; the configuration is always
# /etc/cellgate (the programs' compiled-in defaults).  An existing file in
# /etc/cellgate is never overwritten: the new version is installed beside it
# as FILE.new and the run says so.  Installed straight onto this host (no
# DESTDIR, as root), the run also creates the cellgate user and applies the
# tmpfiles entries, so the units can be enabled at once.

MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/cellgate
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
CONFDIR := /etc/cellgate
JAILER_GROUP := cellgate
UNITS := cellgate-jailer.socket cellgate-jailer.service cellgate.service

.PHONY: install install-setuid
install: all
	install -d -m 0755 $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) $(DESTDIR)$(UNITDIR) \
		$(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(CONFDIR)
	install -m 0755 $(BUILD)/cellgate $(DESTDIR)$(BINDIR)/cellgate
	install -m 0755 $(BUILD)/cellgate-jailer $(DESTDIR)$(SBINDIR)/cellgate-jailer
	@# The units name the Debian package's paths; point them at this PREFIX.
	for u in $(UNITS); do \
		sed -e 's|/usr/sbin/cellgate-jailer|$(SBINDIR)/cellgate-jailer|g' \
		    -e 's|/usr/bin/cellgate |$(BINDIR)/cellgate |g' \
		    systemd/$$u >$(DESTDIR)$(UNITDIR)/$$u.tmp && \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$u.tmp && \
		mv $(DESTDIR)$(UNITDIR)/$$u.tmp $(DESTDIR)$(UNITDIR)/$$u || exit 1; \
	done
	install -m 0644 systemd/cellgate.sysusers $(DESTDIR)$(SYSUSERSDIR)/cellgate.conf
	install -m 0644 systemd/cellgate.tmpfiles $(DESTDIR)$(TMPFILESDIR)/cellgate.conf
	install -m 0644 man/cellgate.8 man/cellgate-jailer.8 $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 man/cellgate.conf.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 etc/cellgate.conf etc/tenants.conf etc/jailer.conf \
		$(DESTDIR)$(DOCDIR)/examples/
	scripts/install-config.sh etc $(DESTDIR)$(CONFDIR)
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v systemd-sysusers >/dev/null; then \
		systemd-sysusers $(SYSUSERSDIR)/cellgate.conf && \
		systemd-tmpfiles --create $(TMPFILESDIR)/cellgate.conf && \
		echo "install: now run: systemctl daemon-reload &&" \
		     "systemctl enable --now cellgate-jailer.socket cellgate.service"; \
	fi

# For hosts without the socket: the gateway starts the jailer itself, and
# only the cellgate group may execute it.  The group must exist (a plain
# `make install` as root creates it).
install-setuid: install
	@getent group $(JAILER_GROUP) >/dev/null || \
		{ echo "install-setuid: no group '$(JAILER_GROUP)' (run systemd-sysusers" \
		       "$(SYSUSERSDIR)/cellgate.conf)" >&2; exit 1; }
	chown root:$(JAILER_GROUP) $(DESTDIR)$(SBINDIR)/cellgate-jailer
	chmod 4750 $(DESTDIR)$(SBINDIR)/cellgate-jailer
