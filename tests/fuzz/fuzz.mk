# libFuzzer targets (clang; ASan + UBSan + fuzzer instrumentation).
# Included by the top-level Makefile after its variables; it needs only
# BUILD (default build) and, when defined, VERSION and SBINDIR.
#
#   make fuzz-build   build $(BUILD)/fuzz/fuzz_<target> for every target
#   make fuzz-smoke   each target for FUZZ_SMOKE_SECONDS (default 20) on a
#                     fresh copy of its seed corpus, then every reproducer
#                     under tests/fuzz/regressions/<target>/; fails on any
#                     crash, leak, timeout or out-of-memory
#   make fuzz         each target for FUZZ_SECONDS (default 600), one after
#                     another, corpus kept in $(BUILD)/fuzz/corpus/<target>
#   FUZZ_TARGETS=...  a subset, e.g. `make fuzz FUZZ_TARGETS=http`
#
# Targets: ipc_decode (ipc-proto decoder), mcp (JSON-RPC + MCP session),
# http (raw requests into an in-process evhttp server with the gateway's
# guards, transports and sessions), policy (jailer policy parser), tenants
# (tenants file parser).  Each links product sources compiled here with the
# fuzz flags (never the normal build's archives); archives of those
# objects let the linker take only what a target uses.

# Wherever this file is included, it does not change the default goal.
FUZZ_SAVED_GOAL := $(.DEFAULT_GOAL)

BUILD ?= build
FUZZ_CC ?= clang
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_TARGETS ?= ipc_decode mcp http policy tenants
FUZZ_SMOKE_SECONDS ?= 20
FUZZ_SECONDS ?= 600

FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_PKGS := libevent libcjson libcrypto libsystemd
FUZZ_PKG_CFLAGS := $(shell pkg-config --cflags $(FUZZ_PKGS) libcap-ng libseccomp 2>/dev/null)
FUZZ_LIBS := $(shell pkg-config --libs $(FUZZ_PKGS) 2>/dev/null) -lm
FUZZ_CFLAGS := -std=c17 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer $(FUZZ_SAN) \
	$(FUZZ_PKG_CFLAGS) \
	-Iipc-proto -Igateway -Ijailer -Icommon -Itests/fuzz \
	-DCELLGATE_VERSION='"$(or $(VERSION),0.0.0)"' \
	-DCELLGATE_JAILER_PATH='"$(or $(SBINDIR),/usr/local/sbin)/cellgate-jailer"'
# The product's warnings are the normal build's business (gcc, -Werror);
# the harnesses are held to the project's warnings here.
FUZZ_HARNESS_WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wstrict-prototypes \
	-Wmissing-prototypes -Wno-unused-parameter

fuzz_obj = $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(1))
FUZZ_IPC_LIB := $(FUZZ_DIR)/libipc.a
FUZZ_CM_LIB := $(FUZZ_DIR)/libcommon.a
FUZZ_GW_LIB := $(FUZZ_DIR)/libgateway.a
FUZZ_JL_LIB := $(FUZZ_DIR)/libjailer.a
FUZZ_BINS := $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_TARGETS))

# Product sources: instrumented for coverage, no fuzzer main.
$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@
# Harness sources: the same, plus the project's warnings as errors.
$(FUZZ_DIR)/obj/tests/fuzz/%.o: tests/fuzz/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_HARNESS_WARN) -fsanitize=fuzzer-no-link -MMD -MP \
		-c $< -o $@

$(FUZZ_IPC_LIB): $(call fuzz_obj,$(wildcard ipc-proto/*.c))
	rm -f $@ && ar rcs $@ $^
$(FUZZ_CM_LIB): $(call fuzz_obj,$(wildcard common/*.c))
	rm -f $@ && ar rcs $@ $^
$(FUZZ_GW_LIB): $(call fuzz_obj,$(filter-out gateway/main.c,$(wildcard gateway/*.c)))
	rm -f $@ && ar rcs $@ $^
$(FUZZ_JL_LIB): $(call fuzz_obj,$(filter-out jailer/main.c,$(wildcard jailer/*.c)))
	rm -f $@ && ar rcs $@ $^

FUZZ_LINK = $(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@

$(FUZZ_DIR)/fuzz_ipc_decode: $(call fuzz_obj,tests/fuzz/fuzz_ipc_decode.c) $(FUZZ_IPC_LIB)
	$(FUZZ_LINK) $^
$(FUZZ_DIR)/fuzz_mcp: $(call fuzz_obj,tests/fuzz/fuzz_mcp.c tests/fuzz/fuzz_backend.c) \
		$(FUZZ_GW_LIB) $(FUZZ_CM_LIB) $(FUZZ_IPC_LIB)
	$(FUZZ_LINK) $^ $(FUZZ_LIBS)
$(FUZZ_DIR)/fuzz_http: $(call fuzz_obj,tests/fuzz/fuzz_http.c tests/fuzz/fuzz_backend.c) \
		$(FUZZ_GW_LIB) $(FUZZ_CM_LIB) $(FUZZ_IPC_LIB)
	$(FUZZ_LINK) $^ $(FUZZ_LIBS)
$(FUZZ_DIR)/fuzz_policy: $(call fuzz_obj,tests/fuzz/fuzz_policy.c) \
		$(FUZZ_JL_LIB) $(FUZZ_CM_LIB) $(FUZZ_IPC_LIB)
	$(FUZZ_LINK) $^
$(FUZZ_DIR)/fuzz_tenants: $(call fuzz_obj,tests/fuzz/fuzz_tenants.c) \
		$(FUZZ_GW_LIB) $(FUZZ_CM_LIB) $(FUZZ_IPC_LIB)
	$(FUZZ_LINK) $^ $(FUZZ_LIBS)

.PHONY: fuzz fuzz-build fuzz-smoke
fuzz-build: $(FUZZ_BINS)

fuzz-smoke: $(FUZZ_BINS)
	tests/fuzz/run.sh smoke $(FUZZ_DIR) $(FUZZ_SMOKE_SECONDS) $(FUZZ_TARGETS)

fuzz: $(FUZZ_BINS)
	tests/fuzz/run.sh long $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

-include $(shell find $(FUZZ_DIR)/obj -name '*.d' 2>/dev/null)

.DEFAULT_GOAL := $(FUZZ_SAVED_GOAL)
