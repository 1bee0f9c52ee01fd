# vsh: `make demo` runs the main job, `make test` the tests. Both work on a fresh
# Debian machine: `make deps` installs what is missing (apt-get, as root or via sudo).

SHELL := /bin/bash
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Build and link: SQLite, SpatiaLite (brings GEOS, PROJ, RTTOPO), libexif, libjpeg, libheif (HEIC photos),
# libqrencode (the QR codes of join codes).
APT_BUILD := libsqlite3-dev libspatialite-dev libexif-dev libjpeg-dev libheif-dev libproj-dev libxml2-dev libicu-dev libqrencode-dev pkg-config
# Tests talk to the real tools: ogrinfo (GDAL) reads our database and exported KML/GeoJSON,
# gpsbabel our GPX, rsvg-convert our SVG maps, exiftool our avatars (no metadata may survive);
# jpegtran, djpeg and cjpeg (libjpeg-turbo-progs) make the lossless and re-saved copies of photos;
# heif-enc (libheif-examples) makes HEIC photos from the fixture JPEGs; nginx (nginx-light) runs the
# example site of deploy/ in front of vsh; osmium (osmium-tool) reads the OpenStreetMap test extract
# as the independent count of its ways and writes the .osm.pbf and GeoJSON that `vsh-master basemap
# import` reads (it reads .osm.pbf through osmium too); zbarimg (zbar-tools) decodes vsh's QR codes.
# The web app runs in real headless Chromium (chromium, chromium-driver); Leaflet (libjs-leaflet)
# draws its maps over street tiles when the operator gives `vsh serve --tiles`.
# From PyPI: schemathesis (the API against its OpenAPI document), aiosmtpd (an SMTP sink for e-mail),
# selenium (drives Chromium), axe-selenium-python (carries axe-core, the accessibility checker).
# PostgreSQL 15 + PostGIS 3: the tests start a throwaway cluster themselves (initdb, pg_ctl on loopback).
APT_TEST := gdal-bin gpsbabel librsvg2-bin libimage-exiftool-perl chromium chromium-driver libjs-leaflet \
  postgresql-15 postgresql-15-postgis-3 libjpeg-turbo-progs libheif-examples openssl nginx-light nodejs osmium-tool zbar-tools
PG_BIN := /usr/lib/postgresql/15/bin
# The conformance corpus (real photos, GPX files and geofence fixtures made by others, with the
# peers' answers): the folder VSH_CORPUS names when it is set, else corpus/ in the clone, which
# `make corpus` fills. Without one, `make test` runs everything else and lists what it skipped.
CORPUS := $(if $(VSH_CORPUS),$(VSH_CORPUS),$(CURDIR)/corpus)
BIN := .build/debug
DEMO_DB := out/demo.sqlite
DEMO_NOW := --now 2026-11-21T20:00:00Z

.PHONY: all deps venv corpus units install-service test-deps build build-tests lint serve test replay-test bench bench-compare bench-peers fuzz demo install format clean release-flags

# Release builds (make install, bench, fuzz). The Swift runtime and Foundation are linked in
# (--static-swift-stdlib: 14 shared libraries instead of 28, and no Swift toolchain needed where the
# binaries are installed). The Swift driver exports every symbol of such a binary (50,000, which the
# runtime's dladdr walks at start-up): --no-export-dynamic keeps 700. lld packs the 150,000 relative
# relocations (pack-relative-relocs, glibc 2.36). Together a command starts about 2 ms sooner.
RELEASE_FLAGS := -c release --static-swift-stdlib -Xlinker --no-export-dynamic \
  -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs

all: build

deps:
	@if ! pkg-config --exists spatialite libexif libjpeg libheif proj sqlite3 libxml-2.0 icu-i18n libqrencode 2>/dev/null; then \
	  echo "make deps: installing $(APT_BUILD)"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(APT_BUILD) >/dev/null; \
	fi

# The Python tools the tests drive (schemathesis, aiosmtpd, selenium, axe-selenium-python) live in a
# virtual environment of the project's own, .build/venv: a stock Debian 12 refuses `pip install` into
# its system interpreter (PEP 668). It sees the system's packages too (--system-site-packages), so a
# machine that already has them installs nothing. `make test` puts it first on the tests' PATH.
VENV := $(CURDIR)/.build/venv
# gpxpy, shapely and pyproj write the corpus's reference answers (make corpus) and check that they
# still do (CorpusTests); the versions are the ones the answers were first made with.
PYTHON_TOOLS := schemathesis aiosmtpd selenium axe-selenium-python prometheus-client \
  gpxpy==1.6.2 shapely==2.2.0 pyproj==3.7.2

venv: $(VENV)/bin/python3
$(VENV)/bin/python3:
	@if ! command -v python3 >/dev/null || ! python3 -c "import venv, ensurepip" 2>/dev/null; then \
	  echo "make venv: installing python3 and python3-venv (Debian)"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends python3 python3-venv >/dev/null; \
	fi
	@mkdir -p .build
	python3 -m venv --system-site-packages $(VENV)

test-deps: deps venv
	@if ! $(VENV)/bin/python3 -c "import schemathesis, aiosmtpd, selenium, axe_selenium_python, prometheus_client, gpxpy, shapely, pyproj" 2>/dev/null; then \
	  echo "make test-deps: installing $(PYTHON_TOOLS) into $(VENV) (PyPI)"; \
	  $(VENV)/bin/python3 -m pip install --quiet $(PYTHON_TOOLS); \
	fi
	@if ! command -v ogrinfo >/dev/null || ! command -v gpsbabel >/dev/null || ! command -v jpegtran >/dev/null || ! command -v heif-enc >/dev/null || ! command -v rsvg-convert >/dev/null || ! command -v exiftool >/dev/null \
	  || ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null || ! command -v openssl >/dev/null || ! command -v node >/dev/null || ! command -v osmium >/dev/null || ! command -v zbarimg >/dev/null || [ ! -x /usr/sbin/nginx ] || [ ! -f /usr/share/javascript/leaflet/leaflet.esm.min.js ] \
	  || [ ! -x $(PG_BIN)/initdb ] || [ ! -f /usr/share/postgresql/15/extension/postgis.control ]; then \
	  echo "make test-deps: installing $(APT_TEST)"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(APT_TEST) >/dev/null; \
	fi

# The compiler's output goes to .build/build.log: the dependencies' own warnings (hundreds of lines
# on a first build) would bury what a command prints. Errors are shown when the build fails.
build: deps
	@mkdir -p .build
	@echo "swift build (a first build takes several minutes; the compiler's output: .build/build.log)"
	@swift build > .build/build.log 2>&1 || { grep -E "error:" .build/build.log | sort -u | head -40; \
	  echo "make: the build failed (.build/build.log)"; exit 1; }

# The build must be free of compiler warnings in vsh's own files (a fresh clone builds everything,
# so CI sees every warning; an incremental build shows only what it recompiled).
build-tests: deps
	@mkdir -p .build
	@swift build --build-tests > .build/build.log 2>&1; status=$$?; \
	  grep -E "error|warning: |Build complete" .build/build.log | grep -v "^\[" | tail -40; \
	  if [ $$status != 0 ]; then echo "make: the build failed (.build/build.log)"; exit 1; fi
	@if grep -E "^($(CURDIR)/(Sources|Tests)/|macro expansion ).*warning:" .build/build.log | sort -u | grep .; then \
	  echo "make: compiler warnings in vsh's own files (above)"; exit 1; fi

# The checked-in .swift-format, enforced: no lint warning in Sources, Tests or Package.swift.
# The house style, then the layer rules of docs/design.md (the core without I/O or C, adapters used
# from the edges only, SQL in the SQL adapters, nothing pointing outside the repository) and a syntax
# check of every module of the web app (Debian's nodejs, installed by test-deps).
lint:
	swift format lint --strict --recursive Sources Tests Package.swift
	sh scripts/check-layers.sh

# Without a corpus the conformance tests are skipped, and said so before and after the run; with
# VSH_CORPUS set (as CI sets it) a missing corpus fails them instead.
test: test-deps lint build-tests
	@$(call corpus_banner,will not run)
	@set -o pipefail; PATH="$(VENV)/bin:$$PATH" swift test 2>&1 | tee .build/test.log; status=$$?; \
	  $(call corpus_banner,did not run); exit $$status

define corpus_banner
if [ -z "$(VSH_CORPUS)" ] && [ ! -f "$(CORPUS)/reference/gpx.json" ]; then \
  echo "**********************************************************************************************"; \
  echo "** NO CONFORMANCE CORPUS: the tests that hold vsh to exiftool, gpxpy, pyproj and shapely on"; \
  echo "** real photos and GPX files $(1). \`make corpus\` fetches the corpus into corpus/"; \
  echo "** (it needs a network), or set VSH_CORPUS to a corpus folder."; \
  if [ "$(1)" = "did not run" ]; then echo "** Skipped:"; \
    grep -a "skipped: \"conformance corpus" .build/test.log | sed -E 's/^[^A-Za-z]*(Test|Suite) ([^ ]+).*/**   \1 \2/'; fi; \
  echo "**********************************************************************************************"; \
fi
endef

# The conformance corpus into corpus/: every file of corpus/MANIFEST.tsv from its repository at its
# pinned commit, checked by SHA-256, then the peers' answers (exiftool, gpxpy, pyproj, shapely).
# VSH_CORPUS_SOURCE names a mirror laid out as <repository>/<commit>/<path> instead of GitHub.
corpus: test-deps
	$(VENV)/bin/python3 corpus/corpus.py fetch --into corpus
	$(VENV)/bin/python3 corpus/corpus.py reference --into corpus

# The replay tests alone: every Fixtures/walks/*.gpx against its expected timeline (also part of `make test`).
replay-test: test-deps build
	PATH="$(VENV)/bin:$$PATH" swift test --filter ReplayTests

# Speed and memory of the main tasks on generated data (README, "Speed"). Not part of `make test`.
bench: deps
	@command -v cjpeg >/dev/null || (DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq libjpeg-turbo-progs >/dev/null)
	@if ! command -v wrk >/dev/null || ! command -v perf >/dev/null || { ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; }; then \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq wrk nginx-light linux-perf >/dev/null; fi
	PATH="$(VENV)/bin:$$PATH" bash Benchmarks/run.sh
	bash Benchmarks/boards.sh
	bash Benchmarks/serve.sh
	bash Benchmarks/profile.sh
	bash Benchmarks/signup.sh
	bash Benchmarks/postgis.sh

# This tree against another commit on the same data, alternating runs (after make bench): REV=<commit> RUNS=5.
REV ?= HEAD~1
RUNS ?= 5
bench-compare: deps
	bash Benchmarks/compare.sh $(REV) $(RUNS)

# The tools vsh is measured against: exiftool, gpsbabel, the SpatiaLite shell; shapely, gpxpy, piexif, exifread.
bench-peers: deps
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq libimage-exiftool-perl gpsbabel spatialite-bin libjpeg-turbo-progs >/dev/null
	$(MAKE) --no-print-directory venv
	$(VENV)/bin/python3 -m pip install --quiet shapely gpxpy piexif exifread numpy

# The mutation fuzzer (Sources/vsh-fuzz) on the EXIF, GPX and hunt-file readers, the three at once,
# each for SECONDS, seeded with the corpus and Fixtures/. A crash or hang keeps its input in
# .build/fuzz/crash-* and fails. VSH_FUZZ_SEED=n repeats a run. Not part of `make test`.
SECONDS ?= 60
fuzz: deps
	swift build $(RELEASE_FLAGS) --product vsh-fuzz
	@mkdir -p .build/fuzz; status=0; \
	.build/release/vsh-fuzz exif $(SECONDS) "$(CORPUS)/photos" Fixtures/photos Fixtures/authoring Fixtures/hostile --out .build/fuzz/exif & e=$$!; \
	.build/release/vsh-fuzz gpx $(SECONDS) "$(CORPUS)/gpx" Fixtures/walks Fixtures/authoring Fixtures/hostile --out .build/fuzz/gpx & g=$$!; \
	.build/release/vsh-fuzz hunt $(SECONDS) hunts "$(CORPUS)/pip" Fixtures/authoring Fixtures/hostile --out .build/fuzz/hunt & h=$$!; \
	wait $$e || status=1; wait $$g || status=1; wait $$h || status=1; \
	if [ $$status != 0 ]; then echo "make fuzz: a crash or hang; its input is in .build/fuzz/*/crash-*"; fi; exit $$status

demo: build
	@mkdir -p out && rm -rf $(DEMO_DB) $(DEMO_DB)-wal $(DEMO_DB)-shm $(DEMO_DB).photos
	@echo "== the hunts, published into a fresh SpatiaLite database ($(DEMO_DB))"
	$(BIN)/vsh sync --db $(DEMO_DB)
	$(BIN)/vsh hunts --db $(DEMO_DB)
	@echo
	$(BIN)/vsh hunt downtown-fremont --db $(DEMO_DB)
	@echo
	@echo "== where are we? (the Welcome sign, the Sphere, a car park off the Strip)"
	$(BIN)/vsh locate 36.082014 -115.172734 --db $(DEMO_DB)
	$(BIN)/vsh locate 36.12056 -115.16139 --db $(DEMO_DB)
	$(BIN)/vsh locate 36.1160 -115.1760 --db $(DEMO_DB)
	@echo
	@echo "== players check in with photos (Fixtures/photos; the clock is set to 2026-11-21 20:00 UTC)"
	$(BIN)/vsh player add "Ann Lee" --db $(DEMO_DB)
	$(BIN)/vsh player add "Bo Chen" --db $(DEMO_DB)
	$(BIN)/vsh player add "Cy Reyes" --db $(DEMO_DB)
	$(BIN)/vsh exif Fixtures/photos/sign-inside.jpg
	$(BIN)/vsh checkin --player "Ann Lee" --photo Fixtures/photos/sign-inside.jpg $(DEMO_NOW) --db $(DEMO_DB)
	$(BIN)/vsh checkin --player "Bo Chen" --photo Fixtures/photos/sign-vertex.jpg $(DEMO_NOW) --db $(DEMO_DB)
	$(BIN)/vsh checkin --player "Bo Chen" --photo Fixtures/photos/sign-retagged.jpg $(DEMO_NOW) --db $(DEMO_DB) || echo "(exit $$?: rejected)"
	$(BIN)/vsh checkin --player "Cy Reyes" --photo Fixtures/photos/sphere-camera-clock.jpg $(DEMO_NOW) --db $(DEMO_DB)
	$(BIN)/vsh checkin --player "Cy Reyes" --photo Fixtures/photos/poor-accuracy.jpg $(DEMO_NOW) --db $(DEMO_DB) || echo "(exit $$?: pending review)"
	$(BIN)/vsh checkin --player "Ann Lee" --fix 36.16759,-115.138432 --time 2026-11-21T19:59:00Z --accuracy 6 $(DEMO_NOW) --db $(DEMO_DB)
	@echo
	@echo "== a recorded walk through Downtown, replayed through the engine on its own clock (Fixtures/walks; --dry-run: a test of the hunt, not points)"
	$(BIN)/vsh player add "Dee Walker" --db $(DEMO_DB)
	$(BIN)/vsh replay Fixtures/walks/downtown-complete.gpx --player "Dee Walker" --hunt downtown-fremont --dry-run --db $(DEMO_DB) --map out/downtown-walk.svg
	@echo "(map of the walk: out/downtown-walk.svg)"
	@echo
	@echo "== a moderator looks at the pending check-in and approves it"
	$(BIN)/vsh review list --db $(DEMO_DB)
	$(BIN)/vsh review approve 5 --moderator demo --reason "the fountains are in the picture" $(DEMO_NOW) --db $(DEMO_DB)
	@echo
	@echo "== the players"
	$(BIN)/vsh players --db $(DEMO_DB)
	@echo
	@echo "== a profile, the leaderboard (also as a page for a venue screen), and a collage"
	$(BIN)/vsh profile "Cy Reyes" --db $(DEMO_DB)
	@echo
	$(BIN)/vsh leaderboard --db $(DEMO_DB)
	$(BIN)/vsh leaderboard --format html --db $(DEMO_DB) > out/leaderboard.html
	$(BIN)/vsh collage --player "Cy Reyes" --hunt strip-classics -o out/collage-cy.jpg --db $(DEMO_DB)
	@echo "(out/leaderboard.html, out/collage-cy.jpg, out/downtown-walk.svg)"

# The HTTP service and its web app on the demo league (out/demo.sqlite; `make demo` makes it first
# when it is missing), port 8080 (PORT=... for another). TILES=URL-template adds street tiles.
serve: build
	@if [ ! -f $(DEMO_DB) ]; then $(MAKE) --no-print-directory demo >/dev/null && echo "(the demo league: $(DEMO_DB))"; fi
	@echo "open the printed URL in a browser (Ctrl-C stops the server)"
	$(BIN)/vsh serve --db $(DEMO_DB) --hunts hunts --port $${PORT:-8080} $${TILES:+--tiles "$$TILES" --tiles-attribution "$${TILES_ATTRIBUTION:-© OpenStreetMap contributors}"}

# Release binaries into $(PREFIX)/bin (default /usr/local/bin; DESTDIR for packaging), with the
# resource folders SwiftPM keeps beside them (the web app's files); built with RELEASE_FLAGS above.
PREFIX ?= /usr/local
install: deps
	swift build $(RELEASE_FLAGS) --product vsh
	swift build $(RELEASE_FLAGS) --product vsh-master
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 0755 .build/release/vsh .build/release/vsh-master "$(DESTDIR)$(PREFIX)/bin/"
	for r in .build/release/*.resources; do rm -rf "$(DESTDIR)$(PREFIX)/bin/$${r##*/}"; cp -R "$$r" "$(DESTDIR)$(PREFIX)/bin/"; done
	@$(MAKE) --no-print-directory units UNITDIR="$(DESTDIR)$(PREFIX)/share/vsh"
	install -m 0644 deploy/vsh.env deploy/nginx-site.conf "$(DESTDIR)$(PREFIX)/share/vsh/"
	install -d "$(DESTDIR)$(PREFIX)/share/doc/vsh"
	install -m 0644 README.md docs/*.md "$(DESTDIR)$(PREFIX)/share/doc/vsh/"
	@echo "installed vsh and vsh-master in $(DESTDIR)$(PREFIX)/bin; a systemd unit and an nginx site in $(DESTDIR)$(PREFIX)/share/vsh (make install-service puts them to work)"

# The systemd units with their paths filled in (for vsh in $(PREFIX)/bin), into UNITDIR.
UNITDIR ?= .build/units
units:
	install -d "$(UNITDIR)"
	for unit in vsh.service vsh-backup.service; do sed "s|@BINDIR@|$(PREFIX)/bin|g" deploy/$$unit.in > "$(UNITDIR)/$$unit"; done
	install -m 0644 deploy/vsh-backup.timer "$(UNITDIR)/"

# vsh as a system service (as root): make install, then the units in /etc/systemd/system, the
# settings in /etc/vsh/vsh.env and the hunts in /etc/vsh/hunts (both kept when present). Then:
# edit /etc/vsh/vsh.env, systemctl enable --now vsh.service vsh-backup.timer (docs/operations.md).
install-service: install
	$(MAKE) --no-print-directory units UNITDIR=/etc/systemd/system
	install -d -m 0755 /etc/vsh
	[ -f /etc/vsh/vsh.env ] || install -m 0644 deploy/vsh.env /etc/vsh/vsh.env
	[ -d /etc/vsh/hunts ] || cp -R hunts /etc/vsh/hunts
	if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
	@echo "installed vsh.service and vsh-backup.timer: edit /etc/vsh/vsh.env, then systemctl enable --now vsh.service vsh-backup.timer"

# The flags of a release build, for the benchmark scripts.
release-flags:
	@echo $(RELEASE_FLAGS)

format:
	swift format --in-place --recursive Sources Tests Package.swift

clean:
	rm -rf .build out
