#!/usr/bin/env bash
# make bench-compare REV=<commit>: the same tasks timed with this tree's release vsh and with REV's,
# alternating, RUNS times each (default 5), on the data `make bench` generated (bench-data/). Prints
# the median wall time of each and the ratio, so a change can say which figures moved and by how much.
set -uo pipefail
cd "$(dirname "$0")/.."
REV=${1:?usage: Benchmarks/compare.sh REV [RUNS]}
RUNS=${2:-5}
D=bench-data
OLD=.build-compare
NOW="--now 2026-11-21T23:00:00Z"
[ -d "$D/world-5000" ] && [ -f "$D/league.sqlite" ] || { echo "run make bench first (it makes $D/)" >&2; exit 1; }
RELEASE_FLAGS=$(make -s --no-print-directory release-flags)
swift build $RELEASE_FLAGS --product vsh >/dev/null || exit 1
if [ ! -d "$OLD/src" ]; then git worktree add --detach "$OLD/src" "$REV" >/dev/null; fi
git -C "$OLD/src" checkout --quiet --detach "$REV"
(cd "$OLD/src" && swift build $RELEASE_FLAGS --scratch-path ../build --product vsh >/dev/null) || exit 1
NEW_BIN=.build/release/vsh
OLD_BIN=$OLD/build/release/vsh

median() { python3 -c "import statistics,sys; print(f'{statistics.median(float(x) for x in sys.argv[1:]):.4f}')" "$@"; }
# Wall time of one command, to the microsecond (the clock read around the child, not Python's start-up).
seconds() {
  python3 -c 'import subprocess, sys, time
t = time.perf_counter(); subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(f"{time.perf_counter() - t:.4f}")' "$@"
}

# task NAME SETUP-FUNCTION COMMAND... (the command names the binary as BIN and the scratch database as SCRATCH)
ROWS=()
task() {
  local name=$1 setup=$2; shift 2
  local old=() new=()
  for ((i = 0; i < RUNS; i++)); do
    for which in old new; do
      local bin=$NEW_BIN; [ $which = old ] && bin=$OLD_BIN
      local scratch="$D/compare-$which.sqlite"
      $setup "$bin" "$scratch"
      local args=("${@//BIN/$bin}"); args=("${args[@]//SCRATCH/$scratch}")
      local t; t=$(seconds "${args[@]}")
      if [ $which = old ]; then old+=("$t"); else new+=("$t"); fi
    done
  done
  local mo mn; mo=$(median "${old[@]}"); mn=$(median "${new[@]}")
  ROWS+=("| $name | $mo s | $mn s | $(python3 -c "print(f'{$mo / max($mn, 0.001):.2f}x')") |")
}
nothing() { :; }
fresh_player() { rm -rf "$2" "$2"-wal "$2"-shm "$2".photos; "$1" player add Bench --db "$2" --hunts hunts >/dev/null; }

task "locate, 1,000,000 fixes, 5,000 stops" nothing BIN locate --fixes "$D/world-fixes-1m.csv" --db "$D/world-5000.sqlite" --hunts "$D/world-5000"
task "locate, 1,000,000 fixes, 50,000 stops" nothing BIN locate --fixes "$D/world-fixes-1m.csv" --db "$D/world-50000.sqlite" --hunts "$D/world-50000"
task "checkin --photo DIR: 10,000 photos, durable" fresh_player BIN checkin --player Bench --photo "$D/photos" $NOW --db SCRATCH --hunts hunts
task "checkin: one photo, a new player" fresh_player BIN checkin --player Bench --photo Fixtures/photos/sign-inside.jpg $NOW --db SCRATCH --hunts hunts
task "replay --dry-run: the 100,000-point walk" fresh_player BIN replay "$D/walk-100k.gpx" --player Bench --dry-run --db SCRATCH --hunts hunts
task "leaderboard --limit 20: 100,000 players" nothing BIN leaderboard --limit 20 --db "$D/league.sqlite" --hunts hunts
task "leaderboard --format csv: 100,000 players" nothing BIN leaderboard --format csv --db "$D/league.sqlite" --hunts hunts
task "profile: one player of that league" nothing BIN profile "Player 004242" --db "$D/league.sqlite" --hunts hunts
rm -rf "$D"/compare-*.sqlite*

echo "median of $RUNS runs each, alternating; $(nproc) cores; before = $(git rev-parse --short "$REV"), after = $(git rev-parse --short HEAD)$(git diff --quiet || echo ' + changes')"
echo
echo "| task | before | after | before / after |"
echo "| --- | --- | --- | --- |"
printf '%s\n' "${ROWS[@]}"
