# sharechaos: the two commands a newcomer needs are `make chaos` and `make test`.
GO       ?= go
BIN      := bin/sharechaos
# testcontainers: no reaper image can be pulled here, and these machines look
# like containers, so testcontainers must be told to dial loopback.
export TESTCONTAINERS_RYUK_DISABLED := true
export TESTCONTAINERS_HOST_OVERRIDE := 127.0.0.1

.PHONY: test-long ssh-hosts bench-checker bench-nightly build chaos nightly test test-go test-short lint images bench clean refbroker test-refbroker mutants hunt-mutants mutants-cli java-worker

build: refbroker
	$(GO) build -ldflags "-X main.revision=$$(git rev-parse HEAD 2>/dev/null)" -o $(BIN) ./cmd/sharechaos

## refbroker: bin/sharechaos-refbroker, the embedded kfake broker with KIP-1289
## (refbroker/build.sh patches a copy of the pinned kfake into build/).
refbroker:
	GO=$(GO) bash refbroker/build.sh

## test-refbroker: kfake's own test suite with the KIP-1289 patch applied (about
## two minutes), our KIP-1289 tests inside it, and the refbroker module's tests.
test-refbroker:
	GO=$(GO) bash refbroker/build.sh tree
	cd refbroker && $(GO) vet . github.com/twmb/franz-go/pkg/kfake
	cd refbroker && $(GO) test -count=1 -timeout 20m . github.com/twmb/franz-go/pkg/kfake

## java-worker: build/sharechaos-java-worker.jar, the CTP worker on Apache
## Kafka's Java clients (clients/java/worker, issue 24; `--client java`):
## Maven builds and tests it (JUnit) and the target prints its build time.
java-worker: build/sharechaos-java-worker.jar

# The jar is rebuilt only when its sources, its pom or the Kafka release it
# is built against changed, so every target that needs it can depend on it.
JAVA_WORKER_INPUTS := $(shell git ls-files clients/java/worker 2>/dev/null) docker/images/kafka/version
build/sharechaos-java-worker.jar: $(JAVA_WORKER_INPUTS)
	bash clients/java/worker/build.sh

## chaos: the smoke scenario matrix, on Docker when an engine answers and the
## images exist, else on the embedded kfake cluster.
chaos: build
	$(BIN) run --profile smoke

## nightly: every row once; the cells whose faults stay inside their workers
## run on a second cluster while the cluster-fault rows run on the first.
nightly: build
	$(BIN) run --profile nightly --clusters 2

## bench-nightly: the nightly profile on Docker (3 brokers, NIGHTLY_RECORDS a
## cell), then its wall time beside the serial sum of its cells and of their
## unavoidable waits, and the verdict counts; the run's directory is kept
## under build/bench-nightly/.
NIGHTLY_RECORDS ?= 1000
bench-nightly: build
	@out=build/bench-nightly/$$(date -u +%Y%m%dT%H%M%SZ); mkdir -p build/bench-nightly; \
	$(BIN) run --backend docker --profile nightly --clusters 2 --records $(NIGHTLY_RECORDS) --out $$out > $$out.log 2>&1; rc=$$?; \
	grep -E '^wall time' $$out.log; \
	grep -oE '^(PASS|FAIL|ANOMALY|UNKNOWN|HARNESS-ERROR|N/A) ' $$out.log | sort | uniq -c | tr '\n' ' '; echo; \
	echo "run directory: $$out (exit $$rc)"

## test: every test, real brokers included (Docker tests skip when no engine
## answers, unless SHARECHAOS_REQUIRE_DOCKER=1). Two packages run at once,
## beside kfake's own suite: the real-Kafka tests spend most of their time
## waiting on brokers (a lock to expire, a killed broker to come back; the
## cores were 75-90% idle with one package at a time), so two clusters at
## once halve the wall time on two cores without starving either.
test: lint refbroker java-worker
	@$(MAKE) --no-print-directory -j2 test-go test-refbroker

test-go:
	$(GO) test -count=1 -p 2 -timeout 80m ./...

## test-long: make test with the long tests too (SHARECHAOS_LONG_TESTS=1:
## the Kafka toxic through cluster up's hooks, three faults in a row on
## Docker), for a nightly job; CI runs make test.
test-long:
	SHARECHAOS_LONG_TESTS=1 $(MAKE) --no-print-directory test

## lint: the tree as committed must be formatted, vetted and tidy.
lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) mod tidy -diff

## mutants: the suite's own mutants (suites/mutants_test.go, build tag
## mutants): each test-only variant of the loop breaks one promise and must be
## caught as ANOMALY by its paired scenario and mode on embedded; prints the
## table; a mutant that passes fails the target. SHARECHAOS_MUTANTS=a,b runs a few.
## It also hunts one of them (ack-before-commit) without its row: the hunt must
## find it and shrink it to a scenario file within a minute each, two trials a
## round so the first round is short (CI: 25 minutes).
mutants: refbroker build/sharechaos-java-worker.jar
	$(GO) test -tags mutants -count=1 -v -run '^TestMutants$$' -timeout 30m ./suites/
	SHARECHAOS_MUTANTS=ack-before-commit SHARECHAOS_HUNT_BUDGET=1m SHARECHAOS_HUNT_TRIALS=2 $(GO) test -tags mutants -count=1 -v -run '^TestHuntFindsMutants$$' -timeout 15m ./suites/hunt/

## hunt-mutants: sharechaos hunt against every one of make mutants' broken
## systems on the embedded backend, each without its row, for
## SHARECHAOS_HUNT_BUDGET (default 5m) to find and as long to shrink: each
## must be found and shrunk to a scenario file that fails in 2 of 3 replays
## (prints the table; about an hour: nightly, not CI).
hunt-mutants: refbroker build/sharechaos-java-worker.jar
	$(GO) test -tags mutants -count=1 -v -run '^TestHuntFindsMutants$$' -timeout 4h ./suites/hunt/

## mutants-cli: bin/sharechaos-mutants, the CLI built with the mutants tag:
## SHARECHAOS_MUTANT=<mutant> makes its workers run that broken loop (to hunt
## a mutant by hand, and to replay what such a hunt found).
mutants-cli: refbroker
	$(GO) build -tags mutants -o bin/sharechaos-mutants ./cmd/sharechaos

## test-short: for contributors, in about a minute: lint, the unit tests and
## the embedded cluster's short tests (no Docker, no kfake suite).
test-short: lint
	$(GO) test -count=1 -short ./...

## ssh-hosts: Kafka on three hosts reached only by ssh (systemd, iptables,
## netem or netdelay) and two worker hosts (cluster up --layout ssh-hosts):
## every cluster-fault row in explicit and transactional mode, each fault by
## examples/hooks/ssh-systemd.yaml, the workers over ssh; then no hook
## bypassed ssh and nothing is left on a host (.ci/ssh-hosts.sh; about 6
## minutes, plus the images the first time).
ssh-hosts: images
	bash .ci/ssh-hosts.sh

## images: the container images, built offline (debootstrap, Maven, Go);
## KAFKA_VERSIONS="4.2.2 4.3.2 4.4.0" builds our stock image of each release
## (sharechaos/kafka:<version>, for run --kafka-version), each skipped when
## its inputs did not change.
images:
	KAFKA_VERSIONS="$(KAFKA_VERSIONS)" bash docker/build-images.sh

## bench: the ack modes' load curve at batch 10 (rates 5, 20, 50 and the
## closed loop, 5 repeats each, the cluster's floor), about 20 minutes on Docker.
bench: build
	$(BIN) bench --mode transactional,explicit,implicit --repeats 5 --batch 10 --rate 5,20,50,0

clean:
	rm -rf bin runs

## bench-checker: the large-run checker on a synthetic stored run of RECORDS
## records (made once into build/bench-checker/RECORDS, then reused): prints
## `checker records=N bytes_per_record=B check_vs_read=R`.
RECORDS ?= 10000000
bench-checker:
	$(GO) build -o bin/benchchecker ./cmd/benchchecker
	bin/benchchecker -records $(RECORDS) -cache build/bench-checker
