# Two commands set everything up on a fresh machine: `make run` and `make test`.
SHELL := /bin/bash
GO ?= go
BIN := bin
# Everything make compiles is compiled without DWARF: nothing here reads it
# (stack traces, race reports and profiles come from the Go symbol table),
# and the compiler does less work (the race-detected test binaries, cold:
# 345 CPU-s against 359). It is in GOFLAGS so that go vet, the binaries, the
# test binaries and those the tests build themselves (go build in a test)
# share what is compiled. For a debugger, build with go build yourself.
ifeq ($(findstring -dwarf=false,$(GOFLAGS)),)
export GOFLAGS := $(strip $(GOFLAGS) -gcflags=all=-dwarf=false)
endif
TOOLS := .tools
CONFORMANCE_VERSION := 0.2.0-alpha.12
# A stamp per pinned version: a new pin installs again.
CONFORMANCE := $(TOOLS)/.conformance-$(CONFORMANCE_VERSION)
# The official sequential-thinking server, a real target of another family
# (profile sequential-thinking) in make test.
SEQTHINK_VERSION := 2026.8.31
SEQTHINK := $(TOOLS)/node_modules/@modelcontextprotocol/server-sequential-thinking/dist/index.js
CONFORMANCE_PORT ?= 17931

.PHONY: all build run run-binaries serve test vet prometheus chromium tools unit conformance rules bench ab overhead sidecar power clean race-binaries

all: build

## build: compile thoughtbox (and the other commands) into bin/
# The binaries record the commit they were built from, and whether the tree
# had uncommitted changes, when git can tell (-buildvcs=auto fails the build
# where git is there but refuses the checkout, so it is asked first):
# tbbench's child reference servers then run the thoughtbox built beside it
# from the same clean commit instead of tbbench again
# (harness/target/embedded/program.go).
BUILDVCS := $(shell git status --porcelain >/dev/null 2>&1 && echo auto || echo false)
build:
	GOGC=$${GOGC:-400} $(GO) build -buildvcs=$(BUILDVCS) -o $(BIN)/ ./cmd/...

RUN_ID ?= $(shell date -u +%Y%m%d-%H%M%S)
# Expanded once: a deferred $(shell date) gives each use its own second, and
# the load step then looks for conformance results under another name.
RUN_ID := $(RUN_ID)

## run: the full benchmark against the embedded reference server: conformance (3 times in the http/memory cell: the stability axis) and the robustness catalogue in every transport x storage cell (fs, memory, sqlite), the official MCP conformance suite over HTTP, then the load regression tier on fs, memory and sqlite beside the no-op ceiling; one scorecard in out/<run>-load/. Exit status 0 pass, 1 fail, 3 inconclusive (nothing failed, but the no-op ceiling could not hold the load tier: the machine was too busy to judge)
# The robustness catalogues and the official suite check behaviour, not
# speed (beside the cells an HTTP catalogue takes 43-48 s, a stdio one
# 16-19 s, 200 s in all): they run BESIDE_WITH_CELLS at a time beside the conformance
# cells and, once the cells are done, BESIDE_AFTER_CELLS at a time (the load
# waits for them), each one's output shown when all are done. The load runs
# alone.
CELLS := http/fs http/memory http/sqlite stdio/fs stdio/memory stdio/sqlite
BESIDE_WITH_CELLS ?= 2
BESIDE_AFTER_CELLS ?= 3
# make run's conformance cells run this many at a time (each its own server),
# a new one as soon as one is done, the slowest first (over stdio every MCP
# session is a process of its own), but not the three stdio cells at once:
# their process starts contend; each one's output is shown when it is done.
# A cell is done when its process is gone (kill -0), not when `wait -n -p`
# names it: bash 5.2 can reap a job during a command substitution and never
# report it, and make run then waited for it for ever.
CELLS_AT_ONCE ?= 3
CELLS_SLOWEST_FIRST := stdio/fs http/memory stdio/sqlite stdio/memory http/fs http/sqlite
# What make run needs is compiled, and installed, at once: tbbench and
# thoughtbox (not the sidecar, whose OTLP exporters and gRPC make run never
# uses), Node 22 with the npm packages, Prometheus.
run:
	@$(MAKE) --no-print-directory -j3 run-binaries tools prometheus
	@status=0; with=""; logs=$$(mktemp -d); trap 'rm -rf $$logs' EXIT; \
	{ i=0; for c in $(CELLS) official; do i=$$((i+1)); t=$${c%/*}; s=$${c#*/}; \
	    while :; do at_once=$(BESIDE_WITH_CELLS); [ -e $$logs/cells-done ] && at_once=$(BESIDE_AFTER_CELLS); \
	      [ $$(jobs -rp | wc -l) -lt $$at_once ] && break; wait -n; done; \
	    if [ $$c = official ]; then \
	      { echo; echo "=== official MCP conformance suite $(CONFORMANCE_VERSION): embedded reference server over HTTP"; \
	        ./$(BIN)/tbbench official --transport http --storage memory --run-id $(RUN_ID)-official || echo >$$logs/failed; } >$$logs/beside-$$i.log 2>&1 & \
	    else \
	      { echo; echo "=== robustness: bad-input catalogue and faults, transport $$t, storage $$s"; \
	        ./$(BIN)/tbbench robust --transport $$t --storage $$s --run-id $(RUN_ID)-$$t-$$s-robust || echo >$$logs/failed; } >$$logs/beside-$$i.log 2>&1 & \
	    fi; \
	  done; wait; for k in $$(seq $$i); do cat $$logs/beside-$$k.log; done >$$logs/beside.log; \
	} & beside=$$!; \
	running=0; pids=""; reap() { local pid cell; while read -r pid cell; do case " $$pids " in *" $$pid "*) ;; *) continue;; esac; \
	    kill -0 $$pid 2>/dev/null && continue; pids=$$(echo " $$pids " | sed "s/ $$pid / /"); running=$$((running-1)); \
	    cat $$logs/conform-$${cell%/*}-$${cell#*/}.log; done <$$logs/cells; }; \
	await() { wait -n $$pids 2>/dev/null || sleep 0.1; reap; }; \
	for c in $(CELLS_SLOWEST_FIRST); do t=$${c%/*}; s=$${c#*/}; \
	  repeat=1; [ $$c = http/memory ] && repeat=2; \
	  { echo; echo "=== conformance in both MCP eras: embedded reference server, transport $$t, storage $$s, $$repeat run(s)"; \
	    ./$(BIN)/tbbench conform --transport $$t --storage $$s --repeat $$repeat --progress lines --run-id $(RUN_ID)-$$t-$$s || echo >$$logs/failed; } >$$logs/conform-$$t-$$s.log 2>&1 & echo "$$! $$c" >>$$logs/cells; \
	  pids="$$pids $$!"; running=$$((running+1)); while [ $$running -ge $(CELLS_AT_ONCE) ]; do await; done; \
	done; while [ $$running -gt 0 ]; do await; done; touch $$logs/cells-done; \
	for c in $(CELLS); do with="$$with --with out/$(RUN_ID)-$${c%/*}-$${c#*/} --with out/$(RUN_ID)-$${c%/*}-$${c#*/}-robust"; done; \
	wait $$beside; cat $$logs/beside.log; [ -e $$logs/failed ] && status=1; \
	with="$$with --with out/$(RUN_ID)-official"; \
	echo; echo "=== load: regression tier, fs, memory and sqlite against the no-op ceiling, with Prometheus scraping the sidecars"; \
	./$(BIN)/tbbench load --tier regression --compare-storage fs,memory,sqlite --progress lines --run-id $(RUN_ID)-load $$with; load=$$?; \
	echo; echo "results: out/$(RUN_ID)-*; the scorecard of the whole run: out/$(RUN_ID)-load/scorecard.md"; \
	if [ $$load = 3 ] && [ $$status = 0 ]; then echo "inconclusive: the machine could not sustain the load tier (see out/$(RUN_ID)-load/load.md)"; exit 3; fi; \
	[ $$load = 0 ] || status=1; exit $$status

run-binaries:
	GOGC=$${GOGC:-400} $(GO) build -buildvcs=$(BUILDVCS) -o $(BIN)/ ./cmd/tbbench ./cmd/thoughtbox

## power: how often the A/B regression gate (bench.yml's ab job) reports a regression, in the MCP era POWER_ERA (2025-11-25): POWER_RUNS (20) runs each of the same build, a head 1 ms slower per thought and a head that burns POWER_THOUGHT_CPU (300us) more CPU per thought, with POWER_BUSY (1) CPU-bound processes beside every run; the tally in out/power/summary.md (about an hour with the defaults)
power: build
	.ci/power

## serve: start the reference server over HTTP on 127.0.0.1:1731 with filesystem storage in ~/.thoughtbox
serve: build
	./$(BIN)/thoughtbox

## test: vet and all Go tests (Prometheus and promtool, Chromium, Node 22 and the official MCP conformance suite are installed first if missing); among them the official suite against the reference server in both revisions, without and with its fixtures (make conformance runs it against the thoughtbox binary)
# On a fresh machine most of make test is compiling: once without the race
# detector (vet, then the plain test binaries, which reuse what vet
# compiled) and once with it (the race-detected test binaries). The two
# share nothing, and run one after the other, beside the npm installs,
# which wait on the network: at once they kept more compilers running than
# there are cores, and took longer than in turn (on a 2-core VM, cold: 394 s
# and 755 CPU-s at once, 310 s and 596 CPU-s in turn).
test: prometheus chromium
	@$(MAKE) --no-print-directory tools & tools=$$!; \
	$(MAKE) --no-print-directory vet && $(MAKE) --no-print-directory race-binaries; compiled=$$?; \
	wait $$tools && [ $$compiled = 0 ]
	@$(MAKE) --no-print-directory unit

# The observability tests and make run's load (its observability axis) run a real Prometheus and promtool (Debian package prometheus).
prometheus:
	@command -v prometheus >/dev/null && command -v promtool >/dev/null || { \
	  echo "installing Debian's prometheus package for the observability tests"; \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y --no-install-recommends prometheus; }

# The scorecard page's test opens scorecard.html in headless Chromium (Debian package chromium).
chromium:
	@command -v chromium >/dev/null || { \
	  echo "installing Debian's chromium package for the scorecard page test"; \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y --no-install-recommends chromium; }

# ./... skips testdata: the broken server's own tests are named.
# The compiler collects its garbage at GOGC 400 unless GOGC is set: a tenth
# less CPU. It is the compiler's own setting, not built into what it
# compiles.
vet:
	GOGC=$${GOGC:-400} $(GO) vet ./... ./harness/testdata/brokenserver ./harness/testdata/brokenserver/cmd/broken-thoughtbox ./harness/testdata/brokensidecar

# Two runs, side by side, hold every test. The fault proofs run whole suites
# through deliberately broken servers to show that the harness catches each
# fault (and passes reworded errors), the stdio reference cells (suites and
# robustness catalogue) and the command and URL targets start child
# processes (which the race detector does not watch), the fs reference
# cells repeat the HTTP memory cell's harness code on another store, and the
# load runs beyond the smoke tier (segments, stress ladders, faults, the
# Observatory comparison) repeat the smoke and open-phase tests' load path:
# they drive the same harness code as the race-detected tests, which would
# take them five- to tenfold longer, so they run once without the race
# detector; so do the official suite's runs against the reference server,
# which wait on Node (the 2026-era code they reach is race-tested in
# server/mcpserver and server/suitefixtures), and tbbench's robust run in
# each era and its load of two subjects (the robustness catalogue and the
# load runner are race-tested in their packages, and tbbench's own
# goroutine, the load's progress lines, in TestLoadThresholdExitStatus),
# and so does its load beside a base build (TestLoadBaseBuild, for the same
# reasons); so does the check that the server reads 2026-era params as
# encoding/json does, a function of one string over 30,000 strings, which
# the race detector took eight times as long to run; everything else runs
# with it.
NORACE := ^(TestModernParamsReadsAsEncodingJSON|TestLoadBaseBuild|TestEveryInjectedFaultIsCaught|TestEraFaultsAreCaught|TestRefusalsThatChangeSomethingFail|TestFigureFaultsAreCaught|TestLimitFaultsAreCaught|TestRestartFaultsAreCaught|TestRestartScenariosPassInEveryCell|TestSidecarValueFaultsAreCaught|TestRobustReferencePassesEachEra|TestDurabilityFaultsAreCaught|TestStdioFramingFaultsAreCaught|TestRewordedErrorsPass|TestSidecarCountFaultsAreCaught|TestEventFaultsAreCaught|TestKnowledgeFaultsAreCaught|TestObservatoryFaultsAreCaught|TestReferencePassesCoreAndIntentFS|TestOtherTargets|TestReferenceRefusesTheWholeCatalogueStdio|TestSegmentsAddUpToTheWhole|TestObservatoryComparison|TestStressLadderReportsHalfTheMaximum|TestStressLadderJudgesTheLadder|TestFaultsAreReported|TestABRunCatchesAPlantedRegression|TestSequentialThinkingServer|TestFixedAnswerServerPassesNothing|TestSequentialThinkingCatalogue|TestReferenceServerPassesTheOfficialSuite|TestReferenceServerWithFixturesPassesEverything|TestRobustRunsEachEra|TestLoadSubjectsAndInconclusive|TestDataDirScenariosPassEveryTime)$$
# The notification delivery tests run in both: with the race detector on a
# tenth of their 10,000 notifications, without it on all of them.
NOTIFY := ^(TestEveryNotificationDelivered|TestEveryNotificationRelayed)$$
# Test files built without the race detector only (//go:build !race): the
# two Chromium page tests and the tests that link the OTLP exporters. The
# race-detected build would compile chromedp's protocol packages, gRPC and
# protobuf (about 190 packages) again for them alone, and the race detector
# watches neither Chromium nor what the exporters do; their tests run once,
# without it, beside the race-detected run. Their packages and test names
# are read from the files (those that hold a test), so a test added to one
# runs too.
PLAIN_ONLY_FILES := $(shell grep -rl --include='*_test.go' '^//go:build !race$$' cmd server harness observability | xargs -r grep -l '^func Test')
PLAIN_ONLY_PACKAGES := $(patsubst %/,./%,$(sort $(dir $(PLAIN_ONLY_FILES))))
PLAIN_ONLY := $(shell sed -n 's/^func \(Test[A-Za-z0-9_]*\)(t \*testing\.T).*/\1/p' $(PLAIN_ONLY_FILES) | paste -sd'|')

# A race-detected process sleeps a second when it exits, for reports still
# being written (GORACE atexit_sleep_ms): the race-detected run sets it to
# 0, or its 53 test binaries and the servers they start as children would
# wait about a minute in all. A race is reported when it is detected, and
# the test it happens in fails.
# The tests run from binaries kept in bin/tests (.ci/gotest): go test would
# link every one of them again on each run, about 80 CPU-seconds.
# They start longest first, by the last run's times, or on a fresh
# checkout by those kept in .ci/order-race and .ci/order-plain (a cold
# make test started server/mcpserver's race-detected binary, 70 s, among
# the last, in the alphabet's order).
# Each run prints how long it took; the output of the run without the race
# detector is shown when both are done. Its fault proofs wait for servers
# to time out (the Observatory's slow client, a hung roots request) more
# than they compute, so PROOFS_PARALLEL of them run at once, more than
# there are cores.
PROOFS_PARALLEL ?= 4
# The race-detected run starts RACE_AT_ONCE test binaries at a time (the
# run beside it as many as there are cores). Its longest binaries wait on
# servers and timeouts for much of their time: with only as many at once
# as there are cores, a core stood idle in the last two minutes of it.
RACE_AT_ONCE ?= 3
# Every fault proof tallies whether its fault was caught into $(POWER)
# (brokenserver.Proof); the tally is printed at the end: the harness's power.
POWER := $(BIN)/tests/power.tsv
# The test binaries and the servers they start collect garbage at GOGC
# 400 unless GOGC is set: at the default 100 the collector was a tenth of
# their CPU (make test warm 5 min 54 s, with 400 5 min 41 s).
unit:
	@export GOGC=$${GOGC:-400}; log=$$(mktemp); start=$$(date +%s); mkdir -p $(BIN)/tests; rm -f $(POWER); export TBBENCH_POWER=$$(pwd)/$(POWER); \
	{ GO=$(GO) .ci/gotest -o $(BIN)/tests/plain -order .ci/order-plain ./harness/conform ./harness/robust ./harness/load ./harness/official ./cmd/tbbench -- -test.timeout=15m -test.parallel=$(PROOFS_PARALLEL) -test.run='$(NORACE)'; a=$$?; \
	  GO=$(GO) .ci/gotest -o $(BIN)/tests/plain -order .ci/order-plain $(sort ./server/mcpserver ./observability/sidecar $(PLAIN_ONLY_PACKAGES)) -- -test.timeout=3m -test.run='$(NORACE)|$(NOTIFY)|^($(PLAIN_ONLY))$$'; b=$$?; \
	  echo "(this run took $$(( $$(date +%s) - start )) s)"; \
	  [ $$a = 0 ] && [ $$b = 0 ]; } >$$log 2>&1 & proofs=$$!; \
	GORACE="$$GORACE atexit_sleep_ms=0" GO=$(GO) .ci/gotest -o $(BIN)/tests/race -race -p $(RACE_AT_ONCE) -order .ci/order-race $(RACE_PACKAGES) -- -test.timeout=15m -test.skip='$(NORACE)'; race=$$?; \
	echo "(the race-detected run took $$(( $$(date +%s) - start )) s)"; \
	wait $$proofs; status=$$?; echo "--- the fault proofs, the fs and stdio cells, the command and URL targets, the load runs beyond smoke, tbbench's robust run in each era and its loads of two subjects and beside a base build, the reading of 2026-era params, the 10,000 notifications, and the Chromium page and OTLP tests, without the race detector:"; cat $$log; rm -f $$log; \
	echo "harness power: $$(cat $(POWER) 2>/dev/null | grep -c '^caught') of $$(cat $(POWER) 2>/dev/null | wc -l) injected faults caught (each line of $(POWER): caught or missed, the fault, where it was injected)"; \
	grep '^missed' $(POWER) 2>/dev/null; \
	[ $$race = 0 ] && [ $$status = 0 ]

# The race-detected test binaries (make test compiles them beside vet;
# .ci/gotest then finds them up to date). They are linked without DWARF, as
# .ci/gotest links its own: a third less linking (warm, on 2 cores: 61 s to
# 41 s), and nothing reads it. Nor is go test's own vet run (-vet=off):
# make vet, beside it, vets every package with all of vet's checks, and go
# test's would vet them and everything they import again (on a fresh
# machine, 52 of the 517 CPU-seconds compiling these binaries).
# Only the packages with test files under the race detector: go test
# compiles a package without them too (to see that it builds), which vet
# does already, and a command whose tests are all built without it
# (cmd/mcp-sidecar) would bring gRPC into this build after all. Expanded
# where it is used: go list takes a moment.
RACE_PACKAGES = $(shell $(GO) list -race -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./... ./harness/testdata/brokenserver ./harness/testdata/brokenserver/cmd/broken-thoughtbox)
race-binaries:
	@mkdir -p $(BIN)/tests/race && log=$$(mktemp) && \
	GOGC=$${GOGC:-400} $(GO) test -race -vet=off -ldflags=-w -c -o $(BIN)/tests/race/ $(RACE_PACKAGES) >$$log 2>&1 || \
	  { cat $$log; rm -f $$log; echo "the race-detected test binaries did not build"; exit 1; }; rm -f $$log

## tools: install Node 22, the official MCP conformance suite and the official sequential-thinking server into .tools/ (for tbbench official, the family tests and make test)
tools: $(CONFORMANCE) $(SEQTHINK)

# One npm install makes both (&: a grouped target: make -j runs it once).
# The npm package node@22 fetches its binary in a preinstall script: npm
# 11.16 and later warn about the install scripts of packages not named in
# package.json's allowScripts, and npm 12 skips them. package.json names
# it, written anew each time so that an older one gains it.
$(CONFORMANCE) $(SEQTHINK) &:
	mkdir -p $(TOOLS)
	echo '{"name":"thoughtbox-tools","private":true,"allowScripts":{"node":true}}' > $(TOOLS)/package.json
	cd $(TOOLS) && npm install --no-audit --no-fund node@22 @modelcontextprotocol/conformance@$(CONFORMANCE_VERSION) @modelcontextprotocol/server-sequential-thinking@$(SEQTHINK_VERSION)
	touch $(CONFORMANCE)

## conformance: run the official MCP conformance suite's requirement sets of MCP 2025-11-25 and 2026-07-28 against the thoughtbox binary over HTTP (tbbench official), first as shipped (scenarios and checks needing the suite's fixtures are not applicable), then with --conformance-fixtures (every scenario applies)
conformance: build $(CONFORMANCE)
	@for fixtures in false true; do \
	  echo "=== official suite $(CONFORMANCE_VERSION), both revisions, THOUGHTBOX_CONFORMANCE_FIXTURES=$$fixtures"; \
	  data=$$(mktemp -d); \
	  THOUGHTBOX_CONFORMANCE_FIXTURES=$$fixtures THOUGHTBOX_DATA_DIR=$$data PORT=$(CONFORMANCE_PORT) DISABLE_THOUGHT_LOGGING=true ./$(BIN)/thoughtbox 2>$$data/server.log & pid=$$!; \
	  for i in $$(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$(CONFORMANCE_PORT)) 2>/dev/null && break; sleep 0.1; done; \
	  ./$(BIN)/tbbench official --url http://127.0.0.1:$(CONFORMANCE_PORT)/mcp --tools $(TOOLS) --run-id conformance-official-fixtures-$$fixtures; status=$$?; \
	  kill $$pid 2>/dev/null; wait $$pid 2>/dev/null; rm -rf $$data; \
	  [ $$status = 0 ] || exit $$status; \
	done

## rules: check the Prometheus alert rules and run their unit tests (needs promtool)
rules:
	promtool check rules observability/prometheus/alerts.yml
	cd observability/prometheus && promtool test rules alerts_test.yml

## overhead: the sidecar against its ceiling in one run: direct, a bare ReverseProxy and the sidecar at 1 and 8 sessions (about 80 s)
overhead:
	$(GO) run ./observability/overhead

## sidecar: run mcp-sidecar in front of a server at MCP_UPSTREAM_URL (default the reference server on 1731)
sidecar: build
	./$(BIN)/mcp-sidecar --upstream $${MCP_UPSTREAM_URL:-http://127.0.0.1:1731/mcp} --server-name thoughtbox

# .ci/bench runs the lines one after another and goes on past a line that failed, so that one missed
# threshold does not cost the figures of the lines after it; it lists the failed lines at the end and
# exits with the first one's status. The generator's open loops may miss their lag figure (exit 99)
# without failing it. They run with the real-time scheduler (--realtime-pacer auto), the generator at
# its most precise. The ceiling line is run again for memory and fs with their data on tmpfs (where the
# machine has /dev/shm): beside the first, it shows what the data directory's file system (creating,
# renaming and journaling files) costs fs.
## bench: print the load generator's own figures against the no-op server, each storage mode's share of the no-op ceiling and server CPU per call in both MCP eras (one interleaved run of the realistic mix, one of thought calls only, and memory and fs again with their data on tmpfs), the long session, the maximum sustainable rate with the thought p99 at half of it, thoughts per second (memory, fs) and HTTP latency; every line runs, and the failed ones are listed at the end
bench: build
	BIN=$(BIN) GO=$(GO) .ci/bench

## ab: an A/B of two builds of the reference server, this tree's against BASE's (a commit: make ab BASE=HEAD~1): each build's server CPU per call and throughput in each storage mode of AB_STORAGE (default memory,fs) and both MCP eras, in AB_ROUNDS interleaved rounds (default 16, 2 s each: about 6 minutes), and this build ÷ BASE's with its 95 % interval in out/ab-<commit>-<time>/load.md; tbbench exits 99 when this build costs more than 5 % more CPU per call by the whole interval, 3 when the run cannot tell (make then fails with its own status, 2, and shows tbbench's). The data directories are new ones under TMPDIR (its file system weighs on fs: docs/figures.md)
AB_STORAGE ?= memory,fs
AB_ROUNDS ?= 16
ab: build
	@test -n "$(BASE)" || { echo 'make ab: name the build to compare with: BASE=<commit>, e.g. make ab BASE=HEAD~1' >&2; exit 2; }
	@rev=$$(git rev-parse --verify --quiet "$(BASE)^{commit}") || { echo "make ab: BASE=$(BASE) is not a commit of this repository" >&2; exit 2; }; \
	base=$(TOOLS)/ab/$$rev/thoughtbox; \
	if [ ! -x $$base ]; then \
	  src=$$(mktemp -d) && trap 'rm -rf "$$src"' EXIT && git archive $$rev | tar -x -C "$$src" && \
	  (cd "$$src" && GOGC=$${GOGC:-400} $(GO) build -o $(CURDIR)/$$base.tmp ./cmd/thoughtbox) && mv $$base.tmp $$base || exit 1; \
	fi; \
	echo "make ab: this tree against $(BASE) ($${rev:0:12}), $(AB_STORAGE), both eras, $(AB_ROUNDS) rounds"; \
	./$(BIN)/tbbench load --tier regression --workload harness/load/testdata/ab.yaml --compare-storage $(AB_STORAGE) --era both \
	  --base-build $$base --rounds $(AB_ROUNDS) --ceiling=false --progress lines --run-id ab-$${rev:0:12}-$$(date -u +%Y%m%d-%H%M%S)

clean:
	rm -rf $(BIN) out $(TOOLS)
