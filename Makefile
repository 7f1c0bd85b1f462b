# zksim: every target runs from a fresh checkout; Go fetches what it needs.
GO          ?= go
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: demo test bench lint

## demo: the main job, on the embedded simulator (no server needed)
demo:
	$(GO) run ./cmd/zksim demo

## test: every test
test:
	$(GO) vet ./...
	$(GO) test -count=1 ./...

## bench: the performance benchmarks (simulated operations per second, ...)
bench:
	$(GO) test -run '^$$' -bench . -benchmem -cpu 1 ./...

## lint: formatting, vet, staticcheck, and the determinism rules
lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...
	@bad=$$(grep -rnE 'time\.(Now|Sleep|After|AfterFunc|Tick|NewTimer|NewTicker|Since|Until)\(|[^./a-zA-Z]rand\.[A-Z][a-zA-Z0-9]*\(|go func|make\(chan' \
		--include='*.go' sim recipes models | grep -v '_test.go' \
		| grep -vE 'sim/world.go:.*(go func|make\(chan)|sim/choice.go:.*rand\.New'); \
	if [ -n "$$bad" ]; then echo "wall clock, global rand, goroutines or channels in deterministic code:"; echo "$$bad"; exit 1; fi
