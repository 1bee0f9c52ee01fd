#!/usr/bin/env bash
# make bench: builds a release vsh, generates the benchmark data (fixed seeds, in bench-data/,
# kept out of git) and prints wall time, throughput and peak memory of each task.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=bench-data
BIN=.build/release/vsh
mkdir -p "$DATA"
swift build -c release >/dev/null
[ -f "$DATA/walk-1m.gpx" ] || python3 Benchmarks/make_gpx.py "$DATA/walk-1m.gpx" 1000000
[ -f "$DATA/fixes-1m.csv" ] || python3 - "$DATA/fixes-1m.csv" <<'PY'
import random, sys
rng = random.Random(11)
with open(sys.argv[1], "w") as f:
    for _ in range(1_000_000):
        f.write(f"{36.08 + rng.random() * 0.1:.6f},{-115.18 + rng.random() * 0.05:.6f}\n")
PY
DB="$DATA/bench.sqlite"
rm -f "$DB" "$DB-wal" "$DB-shm"
$BIN player add Bench --db "$DB" --hunts hunts >/dev/null

measure() {  # name, units, count, command...
  local name=$1 units=$2 count=$3; shift 3
  local log; log=$(mktemp)
  /usr/bin/time -f "%e %M" -o "$log" "$@" >/dev/null
  read -r seconds kilobytes <"$log"; rm -f "$log"
  local rate; rate=$(python3 -c "print(f'{$count / max($seconds, 0.001):,.0f}')")
  printf '| %s | %s s | %s %s/s | %s MB |\n' "$name" "$seconds" "$rate" "$units" "$((kilobytes / 1024))"
}

echo "vsh benchmarks, $(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/ {print $2}') GiB"
echo
echo "| task | wall | throughput | peak memory |"
echo "| --- | --- | --- | --- |"
measure "vsh gpx: 1,000,000-point GPX (140 MB)" points 1000000 $BIN gpx "$DATA/walk-1m.gpx"
measure "vsh replay --dry-run: the same walk" fixes 1000000 $BIN replay "$DATA/walk-1m.gpx" --player Bench --db "$DB" --hunts hunts --dry-run --json
measure "vsh locate --fixes: 1,000,000 fixes, 17 stops" fixes 1000000 $BIN locate --fixes "$DATA/fixes-1m.csv" --db "$DB" --hunts hunts
measure "vsh exif: 24 fixture photos" photos 24 $BIN exif Fixtures/photos/sign-inside.jpg Fixtures/photos/sign-vertex.jpg Fixtures/photos/sign-near.jpg Fixtures/photos/sign-outside.jpg Fixtures/photos/far-away.jpg Fixtures/photos/no-gps.jpg Fixtures/photos/gps-no-time.jpg Fixtures/photos/future.jpg Fixtures/photos/too-old.jpg Fixtures/photos/poor-accuracy.jpg Fixtures/photos/clock-mismatch.jpg Fixtures/photos/sign-retagged.jpg Fixtures/photos/teleport-sign.jpg Fixtures/photos/teleport-fremont.jpg Fixtures/photos/null-island.jpg Fixtures/photos/sphere-camera-clock.jpg Fixtures/photos/edge-zero-seconds.jpg Fixtures/photos/edge-zero-degrees.jpg Fixtures/photos/edge-no-ref.jpg Fixtures/photos/edge-signed-no-ref.jpg Fixtures/photos/edge-below-sea.jpg Fixtures/photos/edge-bad-dates.jpg Fixtures/photos/sign-inside.jpg Fixtures/photos/sign-vertex.jpg
LEAGUE="$DATA/league.sqlite"
if [ ! -f "$LEAGUE" ]; then
  $BIN hunts --db "$LEAGUE" --hunts hunts >/dev/null
  python3 Benchmarks/make_league.py "$LEAGUE" 100000 1000000
  /usr/bin/time -f "(rescore of 100,000 players / 1,000,000 check-ins: %e s, %M KB)" $BIN rescore --db "$LEAGUE" --hunts hunts >/dev/null
fi
measure "vsh leaderboard: 100,000 players, 1,000,000 check-ins (top 20)" boards 1 $BIN leaderboard --limit 20 --db "$LEAGUE" --hunts hunts
measure "vsh leaderboard --format csv: all 100,000 players" boards 1 $BIN leaderboard --format csv --db "$LEAGUE" --hunts hunts
measure "vsh leaderboard --hunt --since: one hunt, one week" boards 1 $BIN leaderboard --hunt downtown-fremont --since 2026-11-08T00:00:00Z --until 2026-11-15T00:00:00Z --limit 20 --db "$LEAGUE" --hunts hunts
measure "vsh profile: one player of the league" profiles 1 $BIN profile "Player 004242" --db "$LEAGUE" --hunts hunts
measure "vsh checkin: one photo (process start to exit)" check-ins 1 $BIN checkin --player Bench --photo Fixtures/photos/sign-inside.jpg --db "$DB" --hunts hunts --now 2026-11-21T20:00:00Z
