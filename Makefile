# Latchkey — make run | make test | make demo | make bench | make regen
SHELL := /bin/bash
SWIFT ?= swift
BIN_DEBUG := .build/debug/latchkey
BIN_RELEASE := .build/release/latchkey
SHARED ?= ../shared

.PHONY: test-build test-times test-quick fuzz-smoke-build all deps pg-deps venv venv-interop chromium format format-check build release run test contract-log-reset contract-log-check unit golden golden-record regen regen-check schema schema-check clients-test system failover mcp-test docs-test passkey-interop browser web-demo demo bench fuzz fuzz-smoke fuzz-smoke-webauthn fuzz-replay clean

all: build

# System libraries: jansson (JSON, required), SQLite headers (GRDB), libpq (PostgreSQL store), pkg-config.
deps:
	@missing=""; \
	pkg-config --exists jansson 2>/dev/null || missing="$$missing libjansson-dev"; \
	pkg-config --exists libpq 2>/dev/null || missing="$$missing libpq-dev"; \
	[ -f /usr/include/sqlite3.h ] || missing="$$missing libsqlite3-dev"; \
	command -v pkg-config >/dev/null || missing="$$missing pkg-config"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
	@python3 -c 'import pytest' 2>/dev/null || python3 -m pip install -q pytest

# Debug builds compile C code (BoringSSL's scrypt, PBKDF2, P-256 inside swift-crypto; SQLite) at -O2:
# at -O0 one password hash takes half a second, and every suite spends most of its time there.
# Swift code stays -Onone. Every debug build below passes the same flags, so none rebuilds
# another's work (a bare `swift build` compiles at -O0, into the same .build: it rebuilds).
# No debug information (-gnone, -g0) and lld: less to compile and to link, for binaries that
# tests run and nobody steps through (`make build DEBUG_FLAGS=-Xcc\ -O2` keeps it for lldb).
DEBUG_FLAGS := -Xcc -O2 -Xcc -g0 -Xswiftc -gnone -Xswiftc -use-ld=lld

build: deps
	$(SWIFT) build $(DEBUG_FLAGS)

# BUILT=1 (set by Tests/suites.py, which make test runs after one build): the suites below skip
# their own build step. Unset, each builds what it needs first, as when run alone.
BUILD_STEP := $(if $(BUILT),,build)

# One formatter: swift-format (in the toolchain) with .swift-format (hummingbird's settings, line
# length 150, doc comments that open with a one-line summary). `make format` rewrites the tree;
# `make format-check` (part of make test) fails on any file it would change or any rule it breaks.
# A target's Generated/ file (schema/gen_params.py) is one file however many params types it
# holds: formatted like the rest, not held to 400 lines.
FORMAT_PATHS := Sources Tests Package.swift
format:
	$(SWIFT) format format -i -r --parallel $(FORMAT_PATHS)

format-check:
	@$(SWIFT) format lint -r --strict --parallel $(FORMAT_PATHS)
	@long=$$(awk 'length > 150 { print FILENAME ":" FNR }' $$(find Sources Tests -name '*.swift')); \
	  if [ -n "$$long" ]; then echo "lines over 150 characters:"; echo "$$long"; exit 1; fi
	@big=$$(wc -l $$(find Sources Tests -name '*.swift' -not -path '*/Generated/*') | awk '$$2 != "total" && $$1 > 400 { print $$2 " (" $$1 " lines)" }'); \
	  if [ -n "$$big" ]; then echo "Swift files over 400 lines (split them by concept):"; echo "$$big"; exit 1; fi
	@echo "format check: every Swift file is as swift-format writes it"

# A Python for the tests that use PyPI packages: pytest and pytest-xdist (suites on both cores), cryptography (the Python reference
# device and software authenticator), mcp (the official MCP SDK as a client of `latchkey mcp`),
# webauthn and cbor2 (py_webauthn and a CBOR decoder nobody here wrote, to cross-check the
# clients' software authenticators), selenium (the browser test), segno (the QR code of the web
# example's offline page) and standardwebhooks (the Standard Webhooks reference verifier, for the
# callback receivers). Rebuilt when missing, or when a package the tests import is not in it.
VENV := .build/venv
PY := $(abspath $(VENV))/bin/python
VENV_PACKAGES := pytest pytest-xdist cryptography mcp webauthn cbor2 selenium segno standardwebhooks
venv: $(VENV)/.ready
	@$(PY) -c 'import pytest, xdist, cryptography, mcp, webauthn, cbor2, selenium, segno, standardwebhooks' 2>/dev/null || \
	  $(VENV)/bin/pip install -q --disable-pip-version-check $(VENV_PACKAGES)
$(VENV)/.ready:
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check $(VENV_PACKAGES)
	@touch $@

# A second Python for the passkey interoperability tests: soft-webauthn (a software authenticator
# nobody here wrote) needs python-fido2's 0.9 API, which the main venv's packages do not pin.
VENV_INTEROP := .build/venv-interop
PY_INTEROP := $(abspath $(VENV_INTEROP))/bin/python
venv-interop: $(VENV_INTEROP)/.ready
$(VENV_INTEROP)/.ready: Tests/passkey/requirements.txt
	python3 -m venv $(VENV_INTEROP)
	$(VENV_INTEROP)/bin/pip install -q --disable-pip-version-check -r Tests/passkey/requirements.txt
	@touch $@

# Debian's Chromium and its WebDriver, for the browser test, and zbar-tools (zbarimg reads the
# offline page's QR code back from a screenshot); installed when missing.
chromium: deps pg-deps
	@if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null || ! command -v zbarimg >/dev/null; then \
	  echo "installing: chromium chromium-driver zbar-tools"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium chromium-driver zbar-tools; \
	fi

# Release binaries link the Swift runtime and Foundation statically: a faster cold start.
release: deps
	$(SWIFT) build -c release --static-swift-stdlib

# Serve on stdio with the default SQLite store ($XDG_DATA_HOME/latchkey/latchkey.sqlite).
run: release
	@$(BIN_RELEASE)

# PostgreSQL server binaries for the tests and benchmarks (Debian's postgresql when missing);
# PG_RUN runs a command with a private cluster started for it, stopped after (see Tests/pg/cluster.sh).
PG_RUN := bash Tests/pg/cluster.sh run
pg-deps: deps
	@bash Tests/pg/cluster.sh install

unit: deps pg-deps $(if $(BUILT),,test-build)
	$(PG_RUN) $(SWIFT) test $(DEBUG_FLAGS) --skip-build

# The debug binary checks every answer against its method's declaration in these suites
# (undeclared errors, results off their schema); findings land in CONTRACT_LOG.
CONTRACT_LOG := $(abspath .build/contract-violations.log)
export LATCHKEY_CHECK_CONTRACT := 1
export LATCHKEY_CONTRACT_LOG := $(CONTRACT_LOG)

golden: $(BUILD_STEP)
	python3 Tests/golden/run.py --binary $(BIN_DEBUG)

# Re-records the golden transcripts (all, or those whose path contains FILTER) from the debug
# binary; review `git diff Tests/golden` before committing. run.py exits 3 after recording, so
# a stray LATCHKEY_RECORD in a test run fails; here that status is the expected one.
FILTER ?=
golden-record: build
	@LATCHKEY_RECORD=1 python3 Tests/golden/run.py --binary $(BIN_DEBUG) $(FILTER); status=$$?; \
	  if [ $$status -ne 3 ]; then exit $$status; fi

# Regenerate everything derived from the declarations: first the params decoding of each target
# (Sources/<Target>/Generated/, from each params type's `static let wire`; see schema/gen_params.py),
# then, from the binary built with it, schema/openrpc.json, schema/errors.json and the clients'
# generated method tables (see schema/regen.py).
regen: deps
	python3 schema/gen_params.py
	$(SWIFT) build $(DEBUG_FLAGS)
	python3 schema/regen.py $(BIN_DEBUG)

schema: regen

# Fails with a one-line hint when a derived file is stale, or the document is not valid OpenRPC.
# The params decoding is checked before the build (stale, it may not compile).
regen-check: deps
	@python3 schema/gen_params.py --check
	$(if $(BUILT),,$(SWIFT) build $(DEBUG_FLAGS))
	@python3 schema/regen.py $(BIN_DEBUG) --check
	@[ -f $(SHARED)/openrpc/validate.py ] || { echo "regen-check: $(SHARED)/openrpc/validate.py not found (set SHARED=path/to/shared)"; exit 1; }
	@python3 $(SHARED)/openrpc/validate.py schema/openrpc.json

schema-check: regen-check

clients-test: $(BUILD_STEP) venv
	PYTHON=$(PY) PYTEST_WORKERS=$(PYTEST_WORKERS) LATCHKEY_BIN=$(abspath $(BIN_DEBUG)) bash clients/run-tests.sh

# pytest-xdist workers for the Python suites that can share the machine.
PYTEST_WORKERS ?= 2

# Process-level tests: two processes racing on one store, SIGKILL consistency, secret hygiene,
# signals, time-driven notifications, --deliver-command.
system: $(BUILD_STEP) venv pg-deps
	LATCHKEY_BIN=$(abspath $(BIN_DEBUG)) $(PG_RUN) bash -c '$(PY) -m pytest -q -p no:cacheprovider -n $(PYTEST_WORKERS) -m "not cluster" Tests/system && \
	  $(PY) -m pytest -q -p no:cacheprovider -m cluster Tests/system'

# A failover under load: a private primary with a synchronous standby (Tests/pg/cluster.sh
# run-standby starts and stops both), the primary killed and the standby promoted mid-run. Then
# each COMMIT cut off by a failover, the standby with and without it: each test spends its pair.
FAILOVER_RUN = LATCHKEY_BIN=$(abspath $(BIN_DEBUG)) bash Tests/pg/cluster.sh run-standby $(PY) -m pytest -q -p no:cacheprovider
failover: $(BUILD_STEP) venv pg-deps
	$(FAILOVER_RUN) Tests/system/test_failover.py
	$(FAILOVER_RUN) Tests/system/test_failover_commit.py::test_a_commit_the_standby_never_had_is_not_acknowledged
	$(FAILOVER_RUN) Tests/system/test_failover_commit.py::test_a_commit_the_standby_had_is_acknowledged_though_its_answer_was_lost
	$(FAILOVER_RUN) Tests/system/test_failover_commit.py::test_a_commit_still_waiting_for_its_standby_is_waited_for_past_the_budget

# `latchkey mcp` driven by the official MCP Python SDK as a stdio client, in its default mode
# (server/discover probe, then the handshake) and in handshake mode.
mcp-test: $(BUILD_STEP) venv
	LATCHKEY_BIN=$(abspath $(BIN_DEBUG)) $(PY) -m pytest -q -p no:cacheprovider Tests/mcp

# Passkeys against implementations nobody here wrote: py_webauthn, python-fido2, soft-webauthn.
passkey-interop: $(BUILD_STEP) venv-interop
	LATCHKEY_BIN=$(abspath $(BIN_DEBUG)) $(PY_INTEROP) -m pytest -q -p no:cacheprovider -n $(PYTEST_WORKERS) Tests/passkey

# Passkeys in a real browser: headless Chromium with its virtual authenticator drives the pages of
# clients/web against its back end and the binary (loopback only) — sign-in, and payments approved
# with a passkey and offline by QR code; screenshots in bench/out/browser/.
browser: $(BUILD_STEP) venv chromium
	LATCHKEY_BIN=$(abspath $(BIN_DEBUG)) $(PY) -m pytest -q -p no:cacheprovider -rs Tests/browser

# The pictures in docs/flows.md name only methods the registry has; CONTRIBUTING.md's whole method is the file.
docs-test: regen-check
	python3 -m pytest -q -p no:cacheprovider Tests/docs

# The web example on http://localhost:$(WEB_PORT)/ with a throwaway store and a demo user (its
# password printed on stderr); messages (the reset code) land in bench/out/web-demo-mailbox/.
WEB_PORT ?= 8000
web-demo: build venv
	@echo "web-demo: open http://localhost:$(WEB_PORT)/ (Ctrl-C stops it)"
	LATCHKEY_BIN=$(abspath $(BIN_DEBUG)) $(PY) clients/web/server.py --in-memory --port $(WEB_PORT) \
	  --demo-user demo@example.com --demo-payment --mailbox-dir bench/out/web-demo-mailbox

# Everything, from a fresh clone: the installs, the format check and one build (with the tests')
# first — the installs and the format check beside the build — then every suite of Tests/suites.py,
# TEST_JOBS at a time (the sanitized fuzz build among them), then the contract log. Each suite's
# output is in .build/test-logs/; `make test-times` shows how long each took and the slowest tests.
TEST_JOBS ?= 3
test: contract-log-reset
	@$(MAKE) --no-print-directory -j4 -Otarget test-build format-check venv venv-interop chromium
	python3 Tests/suites.py --jobs $(TEST_JOBS)
	@$(MAKE) --no-print-directory contract-log-check
	@echo "make test: all suites passed"

# One debug build of every product and every test target (the suites share it).
test-build: deps pg-deps
	$(SWIFT) build $(DEBUG_FLAGS) --build-tests

# The last run's suite times and slowest tests.
test-times:
	@cat .build/test-times.txt 2>/dev/null || echo "no times yet: run make test"

# The edit-test loop: the unit tests (SQLite; PostgreSQL's cases skip) and the goldens, on one build.
test-quick: test-build
	$(SWIFT) test $(DEBUG_FLAGS) --skip-build
	python3 Tests/golden/run.py --binary $(BIN_DEBUG)

contract-log-reset:
	@mkdir -p .build && rm -f $(CONTRACT_LOG)

# Fails when any answer in the suites above broke its method's declaration.
contract-log-check:
	@if [ -s $(CONTRACT_LOG) ]; then echo "contract violations (an undeclared error or a result off its schema):"; \
	  sort $(CONTRACT_LOG) | uniq -c | head -40; exit 1; else echo "contract check: every answer kept its method's declaration"; fi

# A scripted session through the binary; exits 0 when every step answered as expected.
demo: $(BUILD_STEP)
	python3 Tests/demo.py $(BIN_DEBUG)

# Protocol benchmarks against the C echo, callbacks, a passkey sign-in beside a Python peer and
# enumeration by timing (bench/run.sh; again on PostgreSQL), the stores side by side and the operations' round trips on
# PostgreSQL, then the domain benchmarks (crypto floor, flows, operations, scale with
# BENCH_SCALE registrations in the store).
BENCH_SCALE ?= 100 100000
bench: deps venv pg-deps release
	LATCHKEY_BIN=$(abspath $(BIN_RELEASE)) bash bench/run.sh
	LATCHKEY_BIN=$(abspath $(BIN_RELEASE)) $(PG_RUN) python3 bench/stores.py
	LATCHKEY_BIN=$(abspath $(BIN_RELEASE)) $(PG_RUN) $(PY) bench/operations.py
	LATCHKEY_BIN=$(abspath $(BIN_RELEASE)) ENUM_STORE=postgres $(PG_RUN) $(PY) bench/enumeration.py
	.build/release/LatchkeyBench 300 $(BENCH_SCALE)

clean:
	rm -rf .build

# libFuzzer over framing + parse + dispatch, with AddressSanitizer and LeakSanitizer.
# FUZZ_SECONDS bounds the run. FUZZ_SEEDS picks the corpus seeded from the golden files:
#   all   - whole transcripts and each of their lines (deep, stateful; ~500 inputs/s)
#   lines - each request line alone, inputs up to 512 bytes (shallow, fast; ~3 000 inputs/s)
# FUZZ_JOBS > 1 runs that many fuzzing processes on one corpus (logs: $(FUZZ_SCRATCH)/fuzz-N.log).
# Each kind keeps its own corpus under $(FUZZ_SCRATCH); findings land in $(FUZZ_SCRATCH)/crashes.
# The long run: `make fuzz FUZZ_SEEDS=lines FUZZ_JOBS=2 FUZZ_SECONDS=2400`.
FUZZ_SECONDS ?= 60
FUZZ_SEEDS ?= all
FUZZ_JOBS ?= 1
FUZZ_MAX_LEN ?= $(if $(filter lines,$(FUZZ_SEEDS)),512,8192)
FUZZ_SCRATCH := .build-fuzz
FUZZ_PARALLEL := $(if $(filter-out 1,$(FUZZ_JOBS)),-jobs=$(FUZZ_JOBS) -workers=$(FUZZ_JOBS),)
fuzz: deps
	$(SWIFT) build -c release --scratch-path $(FUZZ_SCRATCH) --product LatchkeyFuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld
	mkdir -p $(FUZZ_SCRATCH)/corpus-$(FUZZ_SEEDS) $(FUZZ_SCRATCH)/crashes
	python3 Tests/fuzz/seed_corpus.py $(FUZZ_SCRATCH)/corpus-$(FUZZ_SEEDS) $(FUZZ_SEEDS)
	cd $(FUZZ_SCRATCH) && LSAN_OPTIONS=suppressions=$(abspath Tests/fuzz/lsan.supp):print_suppressions=0 ./release/LatchkeyFuzz corpus-$(FUZZ_SEEDS) \
	  $(FUZZ_PARALLEL) -max_total_time=$(FUZZ_SECONDS) -max_len=$(FUZZ_MAX_LEN) -timeout=10 -rss_limit_mb=4096 \
	  -artifact_prefix=crashes/ -print_final_stats=1 2>&1 | tee fuzz-$(FUZZ_SEEDS).log; \
	  exit $${PIPESTATUS[0]}

# The WebAuthn parsers, each its own target (LATCHKEY_FUZZ_TARGET), seeded from the credentials
# in the golden transcripts: `make fuzz FUZZ_TARGET=registration FUZZ_SEEDS=registration`.
FUZZ_TARGET ?= rpc
export LATCHKEY_FUZZ_TARGET = $(FUZZ_TARGET)

# The short form run by make test: a debug build with the same sanitizers, every golden line as
# seed, FUZZ_SMOKE_SECONDS of fuzzing with a fixed seed; any crash, leak or sanitizer report fails.
# It writes no index store (~7 % of a build): only an editor and test discovery read one, and it
# builds no tests (a build with tests needs it: on Linux their discovery reads it).
FUZZ_SMOKE_SECONDS ?= 30
FUZZ_SMOKE_SCRATCH := .build-fuzz-debug
fuzz-smoke-build: deps
	$(SWIFT) build $(DEBUG_FLAGS) --disable-index-store --scratch-path $(FUZZ_SMOKE_SCRATCH) --product LatchkeyFuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld

fuzz-smoke: $(if $(BUILT),,fuzz-smoke-build)
	rm -rf $(FUZZ_SMOKE_SCRATCH)/corpus && mkdir -p $(FUZZ_SMOKE_SCRATCH)/corpus $(FUZZ_SMOKE_SCRATCH)/crashes
	python3 Tests/fuzz/seed_corpus.py $(FUZZ_SMOKE_SCRATCH)/corpus lines
	LSAN_OPTIONS=suppressions=$(abspath Tests/fuzz/lsan.supp):print_suppressions=0 $(FUZZ_SMOKE_SCRATCH)/debug/LatchkeyFuzz $(FUZZ_SMOKE_SCRATCH)/corpus \
	  -seed=1 -max_total_time=$(FUZZ_SMOKE_SECONDS) -max_len=512 -timeout=10 -rss_limit_mb=4096 \
	  -artifact_prefix=$(FUZZ_SMOKE_SCRATCH)/crashes/ -print_final_stats=1 > $(FUZZ_SMOKE_SCRATCH)/fuzz-smoke.log 2>&1 \
	  || { tail -60 $(FUZZ_SMOKE_SCRATCH)/fuzz-smoke.log; exit 1; }
	@grep -E "^stat::(number_of_executed_units|average_exec_per_sec)" $(FUZZ_SMOKE_SCRATCH)/fuzz-smoke.log

# Each parser of untrusted bytes (WebAuthn, operation data, QR payloads) fuzzed for FUZZ_WEBAUTHN_SECONDS on the same
# sanitized build, beside the rpc smoke run: FUZZ_SMOKE_PARALLEL runs at once (make test runs this target).
FUZZ_WEBAUTHN_SECONDS ?= 10
FUZZ_WEBAUTHN_TARGETS := cbor cose authData registration assertion operationData qrPayload
FUZZ_SMOKE_PARALLEL ?= 2
fuzz-smoke-webauthn: $(if $(BUILT),,fuzz-smoke-build)
	@$(MAKE) --no-print-directory -j$(FUZZ_SMOKE_PARALLEL) -Otarget BUILT=1 fuzz-smoke $(addprefix fuzz-smoke-one-,$(FUZZ_WEBAUTHN_TARGETS))

fuzz-smoke-one-%:
	@corpus=$(FUZZ_SMOKE_SCRATCH)/corpus-$*; rm -rf $$corpus && mkdir -p $$corpus $(FUZZ_SMOKE_SCRATCH)/crashes; \
	  python3 Tests/fuzz/seed_corpus.py $$corpus $* >/dev/null || exit 1; \
	  LATCHKEY_FUZZ_TARGET=$* LSAN_OPTIONS=suppressions=$(abspath Tests/fuzz/lsan.supp):print_suppressions=0 \
	    $(FUZZ_SMOKE_SCRATCH)/debug/LatchkeyFuzz $$corpus -seed=1 -max_total_time=$(FUZZ_WEBAUTHN_SECONDS) -max_len=4096 \
	    -timeout=10 -rss_limit_mb=4096 -artifact_prefix=$(FUZZ_SMOKE_SCRATCH)/crashes/ -print_final_stats=1 \
	    > $(FUZZ_SMOKE_SCRATCH)/fuzz-$*.log 2>&1 || { tail -60 $(FUZZ_SMOKE_SCRATCH)/fuzz-$*.log; exit 1; }; \
	  echo "fuzz $*: $$(grep -E '^stat::number_of_executed_units' $(FUZZ_SMOKE_SCRATCH)/fuzz-$*.log)"

# Replays every fuzz finding kept under Tests/fuzz/findings (a normal build; part of make test).
# A crash while replaying fails the target.
fuzz-replay: $(BUILD_STEP)
	@if ls Tests/fuzz/findings/* >/dev/null 2>&1; then .build/debug/LatchkeyFuzz Tests/fuzz/findings/* && echo "fuzz findings replayed"; \
	  else echo "no fuzz findings to replay"; fi
