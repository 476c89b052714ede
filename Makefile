# cellgate - see README.md.  `make` builds, `make check` builds and tests.
VERSION := 0.1.0
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
BINDIR ?= $(PREFIX)/bin
BUILD ?= build

CC ?= cc
PKGS_GW := libevent libcjson libcrypto libsystemd
PKGS_JL := libcap-ng libseccomp libsystemd
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS_GW) $(PKGS_JL) 2>/dev/null)
LIBS_GW := $(shell pkg-config --libs $(PKGS_GW) 2>/dev/null)
LIBS_JL := $(shell pkg-config --libs $(PKGS_JL) 2>/dev/null)
LIBS_TEST := $(shell pkg-config --libs cmocka 2>/dev/null)

WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes \
	-Wno-unused-parameter
HARDEN := -D_FORTIFY_SOURCE=3 -fstack-protector-strong -fstack-clash-protection -fPIE
OPT ?= -O2 -g
SAN ?=
CFLAGS_ALL := -std=c17 -D_GNU_SOURCE $(OPT) $(WARN) $(HARDEN) $(SAN) $(PKG_CFLAGS) \
	-Iipc-proto -DCELLGATE_VERSION='"$(VERSION)"' \
	-DCELLGATE_JAILER_PATH='"$(SBINDIR)/cellgate-jailer"' $(CFLAGS)
LDFLAGS_ALL := -pie -Wl,-z,relro,-z,now,-z,noexecstack $(SAN) $(LDFLAGS)

IPC_SRC := $(wildcard ipc-proto/*.c)
CM_SRC := $(wildcard common/*.c)
JL_SRC := $(filter-out jailer/main.c,$(wildcard jailer/*.c))
GW_SRC := $(filter-out gateway/main.c,$(wildcard gateway/*.c))
obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

IPC_LIB := $(BUILD)/libipc.a
CM_LIB := $(BUILD)/libcommon.a
JL_LIB := $(BUILD)/libjailer.a
GW_LIB := $(BUILD)/libgateway.a

UNIT_IPC := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_ipc*.c))
UNIT_JL := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_jl_*.c))
UNIT_GW := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_gw_*.c))
HELPERS := $(patsubst tests/helpers/%.c,$(BUILD)/tests/%,$(wildcard tests/helpers/*.c))
BENCH := $(BUILD)/bench/cellgate-bench
BENCH_HTTP := $(BUILD)/bench/http-load $(BUILD)/bench/sse-idle

.PHONY: all check check-suites asan deps fuzz fuzz-smoke bench bench-http soak run clean unit-tests format
all: $(BUILD)/cellgate $(BUILD)/cellgate-jailer

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Igateway -Ijailer -Icommon -MMD -MP -c $< -o $@

# The gateway has the setuid helper's path compiled in (SBINDIR): when it
# changes (`make install PREFIX=/usr` after a plain `make`), the two objects
# that use it are rebuilt, so an installed gateway never points elsewhere.
$(BUILD)/sbindir.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(SBINDIR)' | cmp -s - $@ || echo '$(SBINDIR)' >$@
$(call obj,gateway/main.c gateway/http_server.c): $(BUILD)/sbindir.stamp
.PHONY: FORCE
FORCE:

$(IPC_LIB): $(call obj,$(IPC_SRC))
	@mkdir -p $(dir $@)
	ar rcs $@ $^
$(CM_LIB): $(call obj,$(CM_SRC))
	@mkdir -p $(dir $@)
	ar rcs $@ $^
$(JL_LIB): $(call obj,$(JL_SRC))
	ar rcs $@ $^
$(GW_LIB): $(call obj,$(GW_SRC))
	ar rcs $@ $^

$(BUILD)/cellgate-jailer: $(call obj,jailer/main.c) $(JL_LIB) $(CM_LIB) $(IPC_LIB)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS_JL)
$(BUILD)/cellgate: $(call obj,gateway/main.c) $(GW_LIB) $(CM_LIB) $(IPC_LIB)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS_GW) -lm

$(BUILD)/tests/test_ipc%: $(call obj,tests/unit/test_ipc%.c) $(IPC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS_TEST)
$(BUILD)/tests/test_jl_%: $(call obj,tests/unit/test_jl_%.c) $(JL_LIB) $(CM_LIB) $(IPC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS_JL) $(LIBS_TEST)
$(BUILD)/tests/test_gw_%: $(call obj,tests/unit/test_gw_%.c) $(GW_LIB) $(CM_LIB) $(IPC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS_GW) $(LIBS_TEST) -lm
$(BUILD)/tests/%: $(call obj,tests/helpers/%.c) $(IPC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS_JL)
$(BENCH): $(call obj,bench/cellgate-bench.c) $(IPC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^

$(BUILD)/bench/%: $(call obj,bench/%.c)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS_GW) -lm
$(BENCH_HTTP): $(call obj,bench/http_wire.c)

unit-tests: $(UNIT_IPC) $(UNIT_JL) $(UNIT_GW) $(HELPERS)

# `make check` installs missing build/test packages first (a fresh machine
# needs nothing else), then builds and runs every suite; tests/run-all.sh
# prints the one summary line "N passed, N failed".
check: deps-if-missing
	$(MAKE) all unit-tests
	BUILD=$(BUILD) tests/run-all.sh

asan:
	$(MAKE) BUILD=build-asan OPT='-O1 -g -fno-omit-frame-pointer' \
		HARDEN='-fPIE' SAN='-fsanitize=address,undefined -fno-sanitize-recover=undefined' \
		CELLGATE_SUITES='unit integration attacks interop' check

DEB_PKGS := build-essential pkg-config clang bubblewrap libevent-dev libcjson-dev libcap-ng-dev \
	libseccomp-dev libsystemd-dev libssl-dev libcmocka-dev python3 util-linux procps curl
# Packaging and host-install checks (the .deb, make check-systemd, the SELinux
# module, linked against Debian's whole policy by secilc and queried with
# setools), without recommends: selinux-policy-dev would pull in a desktop's
# worth of Python.
DEB_PKGS_HOST := debhelper dpkg-dev debootstrap systemd-container selinux-policy-dev \
	secilc python3-setools policycoreutils selinux-policy-default
# node and npm only when absent: a host with NodeSource's nodejs (which
# bundles npm) must not have Debian's npm forced onto it.
deps:
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y $(DEB_PKGS)
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEB_PKGS_HOST)
	command -v node >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y nodejs
	command -v npm >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y npm

.PHONY: deps-if-missing
deps-if-missing:
	@if ! pkg-config --exists $(PKGS_GW) $(PKGS_JL) cmocka || ! command -v clang >/dev/null \
	    || ! test -x /usr/bin/python3 || ! command -v node >/dev/null || ! command -v npm >/dev/null \
	    || ! command -v dh >/dev/null || ! command -v debootstrap >/dev/null \
	    || ! command -v systemd-nspawn >/dev/null || ! test -f /usr/share/selinux/devel/Makefile \
	    || ! command -v secilc >/dev/null || ! test -d /usr/share/selinux/default; \
	then echo "make: build or test packages missing, running 'make deps'"; $(MAKE) deps; fi

# libFuzzer targets: make fuzz-smoke (bounded, in make check), make fuzz.
include tests/fuzz/fuzz.mk
# make install, make install-setuid.
include install.mk

bench: all $(BENCH)
	$(BENCH) --build $(BUILD) $(BENCH_ARGS)

# HTTP side by side with the official TypeScript SDK server (bench/http-bench.sh).
bench-http: all $(BENCH_HTTP)
	BUILD=$(BUILD) bench/http-bench.sh $(BENCH_ARGS)

# Noisy-neighbour soak: a good and a hostile tenant on a jailer and gateway
# of its own (as root); SOAK_ARGS='--duration 600' for a longer run.
soak: all
	/usr/bin/python3 bench/soak --build $(BUILD) $(SOAK_ARGS)

# The Debian package installed on a booted Debian 12 (systemd-nspawn), used
# over HTTP through the socket-activated jailer, then purged (as root).
.PHONY: check-systemd
check-systemd: deps-if-missing
	tests/systemd-host/check-systemd.sh

# A development jailer and gateway on http://127.0.0.1:8000/mcp (as root).
run: all
	BUILD=$(BUILD) scripts/dev-run.sh

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build build-asan

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
