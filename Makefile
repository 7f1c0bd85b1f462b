# zksim: every target runs from a fresh checkout; Go fetches what it needs.
GO          ?= go
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: demo test soak shrink-sizes explore differential live libraries fuzz bench pgo lint rules

## demo: the main job, on the embedded simulator (no server needed)
demo:
	$(GO) run ./cmd/zksim demo

## test: every test, and the formatting and determinism rules. The
## timeouts are explicit and generous: no test's outcome hangs on the
## machine's speed (searches and shrinking in tests end by their counts), so
## a loaded machine takes longer, and only a hang runs into them.
test: rules
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 40m ./...
	$(GO) test -race -short -count=1 -timeout 60m ./...

## soak: every correct recipe on 10,000 seeds under every fault kind, and
## under client-side session loss with zksimtest's defaults, and the tutorial's
## callback-style keeper on 10,000 seeds of zksimtest's defaults (a few minutes
## on two cores; not part of `make test`)
soak:
	$(GO) test -count=1 -timeout 6h ./search -run '^TestRecipesHold(UnderEveryFault|UnderClientSessionLoss)$$' -v -seeds 10000
	$(GO) test -count=1 -timeout 1h ./zksimtest -run '^TestKeeper$$' -v -zksim.seeds 10000 -zksim.budget 50m

## shrink-sizes: every teaching variant under zksimtest's random, trigger-heavy
## faults (its scripted schedule set aside), shrunk: the faults each
## counterexample ends with, and how many end above 3 (a few minutes)
shrink-sizes:
	$(GO) test -count=1 -timeout 1h ./search -run '^TestShrinkSizes$$' -v -shrink.sizes

## explore: every correct recipe, every fault schedule of up to 2 faults tied to
## its clients' writes, with 2 and 3 clients (bounded exhaustive exploration)
explore:
	$(GO) test -count=1 -timeout 2h ./search -run '^TestExploreRecipes$$' -v -explore

## differential: 1,000 random programs of 50 steps, by one to three clients,
## in the simulator and on a local ensemble, compared field by field, then
## the same programs with go-zk through zksim serve's front end against the
## ensemble; prints the divergences counted by the operation at which each
## program first diverged (`make test` runs 30 of 60 steps each way)
differential:
	$(GO) test -count=1 -timeout 3h ./differential -run '^TestDifferential(SimAgainstLive|FrontEndAgainstLive)$$' -v -diff.programs 1000 -diff.steps 50

## live: every built-in scenario the live world can run, on local ensembles
## with its faults (the others listed with the reason), and each pause
## scenario 10 times, every run reaching its verdict (tens of minutes)
live:
	$(GO) test -count=1 -timeout 3h ./scenarios -run '^Test(EveryScenarioLive|PauseVerdictsLive)$$' -v -live.all -live.repeat 10

## libraries: every library recipe (kazoo, Curator), unmodified, under every
## trial of harness/table.go, each run three times through zksim serve, and the
## table README holds (written to libraries.md too; progress as it goes; two
## trials at once; each breaking trial's first breaking run's tape kept in
## libraries-tapes/, for zksim replay --tape). ONLY='kazoo.*Lock' runs the
## trials whose "library recipe: faults" it matches.
ONLY ?=
libraries:
	$(GO) test -count=1 -timeout 3h ./cmd/zksim -run '^TestLibraryTable$$' -v -libraries -libraries.out $(CURDIR)/libraries.md \
		-libraries.tapes $(CURDIR)/libraries-tapes -libraries.only '$(ONLY)'

## fuzz: the scenario decoder, the fault-schedule parser and the wire
## protocol's decoders under Go's fuzzing, a minute each (make test runs
## their seed corpora: every built-in scenario's faults, the malformed files
## under scenarios/testdata/bad, every frame in jute/testdata/frames.txt)
fuzz:
	$(GO) test ./scenarios -run '^$$' -fuzz FuzzParseScenario -fuzztime 1m
	$(GO) test ./fault -run '^$$' -fuzz FuzzParseSchedule -fuzztime 1m
	$(GO) test ./jute -run '^$$' -fuzz '^FuzzDecodeRequest$$' -fuzztime 1m
	$(GO) test ./jute -run '^$$' -fuzz '^FuzzDecodeReply$$' -fuzztime 1m
	$(GO) test ./jute -run '^$$' -fuzz '^FuzzDecodeConnect$$' -fuzztime 1m
	$(GO) test ./jute -run '^$$' -fuzz '^FuzzReadFrame$$' -fuzztime 1m

## bench: every performance figure measured in one run, printed as one
## table against its target (zksim bench; the live figure starts a local
## ensemble). The Go benchmarks: go test -run '^$$' -bench . ./search; the
## front end's (frames a second, a request's latency beside a local live
## ensemble's): go test -run '^$$' -bench . ./serve; the go-zk mode's time
## compression: go test -run '^$$' -bench GoZKLockTimeCompression ./zksimtest
bench:
	$(GO) run ./cmd/zksim bench

## pgo: the CPU profile zksim is built with (cmd/zksim/default.pgo: Go's
## profile-guided optimization, used by every go build and go run of
## ./cmd/zksim), made again from the search's benchmarks (lock-contention,
## lock-faults on every core, and every built-in scenario), under zksim's
## GOGC; commit it when the code it profiles has changed much (a minute)
pgo:
	@d=$$(mktemp -d) && trap 'rm -rf "$$d"' EXIT && \
	GOGC=1600 $(GO) test -count=1 -run '^$$' -bench '^Benchmark(LockContention|SeedsWithFaults|Library)$$' -benchtime 5s \
		-o "$$d/search.test" -outputdir "$$d" -cpuprofile pgo.prof ./search && \
	cp "$$d/pgo.prof" cmd/zksim/default.pgo && echo "cmd/zksim/default.pgo written"

## lint: the rules, vet and staticcheck
lint: rules
	$(GO) vet ./...
	$(STATICCHECK) ./...

## rules: gofmt, and no wall clock, global rand, goroutines or channels in
## deterministic code (sim, trace, fault, recipes, models, workload, jute;
## the scheduler's hand-off and seeded sources excepted)
rules:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	@bad=$$(grep -rnE 'time\.(Now|Sleep|After|AfterFunc|Tick|NewTimer|NewTicker|Since|Until)\(|[^./a-zA-Z]rand\.[A-Z][a-zA-Z0-9]*\(|go func|make\(chan' \
		--include='*.go' sim trace fault recipes models workload jute | grep -v '_test.go' \
		| grep -vE 'sim/world.go:.*(go func|make\(chan)|sim/choice.go:.*rand\.New|workload/store.go:.*rand\.New\(rand\.NewPCG'); \
	if [ -n "$$bad" ]; then echo "wall clock, global rand, goroutines or channels in deterministic code:"; echo "$$bad"; exit 1; fi
