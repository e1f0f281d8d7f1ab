# The project's test command; .ci/run calls it too.
.PHONY: test bench fuzz dist
test:
	go vet ./...
	# The memory-bound and allocation-bound tests without the race detector,
	# whose shadow memory would hide what they measure (under -race they
	# skip); and the CLI's scripts, whose hundreds of toolscope processes
	# each start ten times slower race-built (100 s instead of 3 s; the Go
	# tests of the same code run under -race below).
	go test -count=1 -run 'RSS|MemoryBounded|Allocs' ./builtin ./internal/proc ./internal/textfile ./internal/search ./mcp ./host ./tracing ./internal/cli
	go test -count=1 -run '^TestScripts$$' ./internal/cli
	cd temporal && go vet ./...
	# The core's tests, and beside them the Temporal module's (its own
	# go.mod; its integration tests start a Temporal dev server, which
	# .ci/temporal-cli builds, and mostly wait on it); their output follows.
	@log=$$(mktemp); (cd temporal && go test -race ./...) >$$log 2>&1 & pid=$$!; \
	go test -race -skip '^TestScripts$$' ./...; core=$$?; wait $$pid; temporal=$$?; \
	echo "# the Temporal module (cd temporal && go test -race ./...):"; cat $$log; rm -f $$log; \
	test $$core -eq 0 && test $$temporal -eq 0

bench:
	go test -run '^$$' -bench . -benchmem ./...
	cd temporal && go test -run '^$$' -bench . -benchmem ./...

# A short fuzzing pass over every parser.
fuzz:
	go test -run '^$$' -fuzz FuzzParseRule -fuzztime 20s ./permission
	go test -run '^$$' -fuzz FuzzEditable -fuzztime 20s ./console
	go test -run '^$$' -fuzz FuzzPlainHTMLChars -fuzztime 20s ./console
	go test -run '^$$' -fuzz FuzzRuleRoundTrip -fuzztime 20s ./permission
	go test -run '^$$' -fuzz FuzzGitignorePattern -fuzztime 20s ./internal/walk
	go test -run '^$$' -fuzz FuzzGlobPattern -fuzztime 20s ./internal/search
	go test -run '^$$' -fuzz FuzzValidate -fuzztime 20s ./tool
	go test -run '^$$' -fuzz FuzzDecodeInput -fuzztime 20s ./tool
	go test -run '^$$' -fuzz FuzzDupKey -fuzztime 20s ./tool
	go test -run '^$$' -fuzz FuzzSplitJSON -fuzztime 20s ./tool
	go test -run '^$$' -fuzz FuzzStateFileRecords -fuzztime 20s ./tool
	go test -run '^$$' -fuzz FuzzNext -fuzztime 20s ./internal/sbinit
	go test -run '^$$' -fuzz FuzzResolve -fuzztime 20s ./internal/pathpolicy
	go test -run '^$$' -fuzz '^FuzzMatch$$' -fuzztime 20s ./internal/bashglob
	go test -run '^$$' -fuzz FuzzMatchPrefix -fuzztime 20s ./internal/bashglob
	go test -run '^$$' -fuzz FuzzExpand -fuzztime 20s ./internal/bashglob
	go test -run '^$$' -fuzz FuzzExcludePattern -fuzztime 20s ./internal/search
	go test -run '^$$' -fuzz FuzzExcludeMatcher -fuzztime 20s ./internal/search
	go test -run '^$$' -fuzz 'FuzzExcludeFold$$' -fuzztime 20s ./internal/search
	go test -run '^$$' -fuzz FuzzExcludeFoldCoversSpelling -fuzztime 20s ./internal/search
	go test -run '^$$' -fuzz FuzzLowerPath -fuzztime 10s ./internal/search
	go test -run '^$$' -fuzz FuzzCompileGlob -fuzztime 20s ./internal/search
	go test -run '^$$' -fuzz FuzzWindowFinder -fuzztime 20s ./internal/search
	go test -run '^$$' -fuzz FuzzAnalyze -fuzztime 20s ./shell
	go test -run '^$$' -fuzz FuzzFastParse -fuzztime 20s ./shell
	go test -run '^$$' -fuzz FuzzParseSpecs -fuzztime 20s ./shell/internal/specs
	go test -run '^$$' -fuzz FuzzClean -fuzztime 20s ./internal/pathpolicy
	go test -run '^$$' -fuzz FuzzMatchRule -fuzztime 20s ./shell
	go test -run '^$$' -fuzz FuzzMemberPath -fuzztime 20s ./shell/internal/archivelist
	go test -run '^$$' -fuzz FuzzClassify -fuzztime 20s ./shell/internal/sedexpr
	go test -run '^$$' -fuzz FuzzPlainConfig -fuzztime 20s ./shell/internal/outside
	go test -run '^$$' -fuzz FuzzCheckerImpliesResolves -fuzztime 20s ./tool
	go test -run '^$$' -fuzz FuzzReadLines -fuzztime 20s ./internal/textfile
	go test -run '^$$' -fuzz FuzzToCRLF -fuzztime 20s ./internal/textfile
	go test -run '^$$' -fuzz FuzzUnified -fuzztime 20s ./internal/udiff
	go test -run '^$$' -fuzz FuzzOutput -fuzztime 20s ./internal/proc
	go test -run '^$$' -fuzz FuzzParse -fuzztime 20s ./subagent
	go test -run '^$$' -fuzz FuzzRedact -fuzztime 20s ./tracing
	go test -run '^$$' -fuzz FuzzFromEnvLists -fuzztime 20s ./tracing
	go test -run '^$$' -fuzz FuzzDomainPattern -fuzztime 20s ./sandbox
	go test -run '^$$' -fuzz FuzzNormalizeHost -fuzztime 20s ./sandbox
	go test -run '^$$' -fuzz FuzzParseVerdict -fuzztime 20s ./host
	go test -run '^$$' -fuzz FuzzStripJSONC -fuzztime 20s ./host

# Release binaries: linux/darwin x amd64/arm64, static, stamped with the
# version, commit and date (toolscope version), checksums and completions
# (scripts/dist.sh). .ci/run builds them too.
dist:
	scripts/dist.sh

