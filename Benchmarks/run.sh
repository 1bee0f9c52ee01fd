#!/usr/bin/env bash
# make bench: builds a release vsh, generates the benchmark world (fixed seeds, in bench-data/, kept
# out of git), times each task and, where the peer tools are installed (make bench-peers), the same
# work done by them on the same data. Prints two Markdown tables.
set -uo pipefail
cd "$(dirname "$0")/.."
D=bench-data
BIN=.build/release/vsh
NOW="--now 2026-11-21T23:00:00Z"
mkdir -p "$D"
RELEASE_FLAGS=$(make -s --no-print-directory release-flags)
# The two programs only: a release build of every target would build the tests' support library,
# which needs the toolchain's test framework.
{ swift build $RELEASE_FLAGS --product vsh && swift build $RELEASE_FLAGS --product vsh-master; } >/dev/null || exit 1
# The previous run's check-in league goes first: ext4 skips inodes freed in the last 5 to 35 seconds
# when it makes a file, and a scan past 10,000 of them (the old photo copies) made the batch row
# measure the file system (its rate varied from 1,400 to 2,400/s between runs).
rm -rf "$D/checkins.sqlite"* "$D/checkins.sqlite.photos"

echo "generating the world (first run only)..." >&2
[ -f "$D/walk-1m.gpx" ] || python3 Benchmarks/make_gpx.py "$D/walk-1m.gpx" 1000000
[ -f "$D/walk-100k.gpx" ] || python3 Benchmarks/make_gpx.py "$D/walk-100k.gpx" 100000
for M in 500 5000 50000; do
  [ -d "$D/world-$M" ] || python3 Benchmarks/make_world.py stops "$D/world-$M" $M
done
[ -f "$D/world-fixes-1m.csv" ] || python3 Benchmarks/make_world.py fixes "$D/world-fixes-1m.csv" 1000000
[ -f "$D/world-fixes-100k.csv" ] || head -n 100000 "$D/world-fixes-1m.csv" > "$D/world-fixes-100k.csv"
[ -d "$D/photos" ] || python3 Benchmarks/make_world.py photos "$D/photos" 10000

declare -A RATE
ROWS=()
# measure KEY "task" units count command...: wall, throughput and peak memory of one run
measure() {
  local key=$1 name=$2 units=$3 count=$4; shift 4
  local log; log=$(mktemp)
  /usr/bin/time -f "%e %M" -o "$log" "$@" >/dev/null 2>/dev/null
  local seconds kb; read -r seconds kb < <(tail -n 1 "$log"); rm -f "$log"
  local rate; rate=$(python3 -c "print(round($count / max($seconds, 0.001)))")
  RATE[$key]=$rate
  ROWS+=("| $name | ${seconds} s | $(printf "%'d" "$rate") $units/s | $((kb / 1024)) MB |")
}

for M in 500 5000 50000; do
  DB="$D/world-$M.sqlite"
  if [ ! -f "$DB" ]; then
    /usr/bin/time -f "(sync of $M stops into SpatiaLite, validated by GEOS: %e s)" $BIN sync --db "$DB" --hunts "$D/world-$M" >/dev/null
  fi
  measure "locate-$M" "\`vsh locate --fixes\`: 1,000,000 fixes, $(printf "%'d" $M) stops" fixes 1000000 \
    $BIN locate --fixes "$D/world-fixes-1m.csv" --db "$DB" --hunts "$D/world-$M"
done
PHOTOS=$(ls "$D"/photos/p*.jpg)
measure exif "\`vsh exif --json DIR\`: 10,000 small JPEGs and three 12-MP ones, both cores" photos 10003 $BIN exif --json "$D/photos"
measure exif-big "\`vsh exif\`: three 12-megapixel JPEGs" photos 3 $BIN exif "$D"/photos/big-*.jpg
measure gpx "\`vsh gpx\`: 1,000,000-point GPX (140 MB)" points 1000000 $BIN gpx "$D/walk-1m.gpx"
$BIN player add Bench --db "$D/checkins.sqlite" --hunts hunts >/dev/null
measure checkins "\`vsh checkin --photo DIR\`: 10,000 photos, batched, durable" check-ins 10000 \
  $BIN checkin --player Bench --photo "$D/photos" $NOW --db "$D/checkins.sqlite" --hunts hunts
$BIN player add Newcomer --db "$D/checkins.sqlite" --hunts hunts >/dev/null
measure checkin-one "\`vsh checkin\`: one photo, a player's first, process start to exit" check-ins 1 \
  $BIN checkin --player Newcomer --photo Fixtures/photos/sign-inside.jpg $NOW --db "$D/checkins.sqlite" --hunts hunts
# A device fix at the Welcome sign half a minute before "now": accepted (a photo of theirs would be
# refused: travel_speed from the world's photos, or a copy of Newcomer's), so their score is recomputed.
measure checkin-heavy "\`vsh checkin\`: one device fix by the player who has the 10,000 above (accepted: their score is recomputed)" check-ins 1 \
  $BIN checkin --player Bench --fix 36.082014,-115.172734 --accuracy 5 --time 2026-11-21T22:59:30Z $NOW --db "$D/checkins.sqlite" --hunts hunts
measure help "\`vsh --help\`: process start-up, 20 runs in a row" runs 20 \
  bash -c "for i in \$(seq 20); do $BIN --help >/dev/null; done"
rm -f "$D/replay.sqlite"*
$BIN player add Bench --db "$D/replay.sqlite" --hunts hunts >/dev/null
measure replay "\`vsh replay --dry-run\`: the 1,000,000-point walk, 17 stops" fixes 1000000 \
  $BIN replay "$D/walk-1m.gpx" --player Bench --dry-run --db "$D/replay.sqlite" --hunts hunts
LEAGUE="$D/league.sqlite"
if [ ! -f "$LEAGUE" ]; then
  $BIN sync --db "$LEAGUE" --hunts hunts >/dev/null
  python3 Benchmarks/make_league.py "$LEAGUE" 100000 1000000
  /usr/bin/time -f "(rescore of 100,000 players / 1,000,000 check-ins: %e s)" $BIN rescore --db "$LEAGUE" --hunts hunts >/dev/null
fi
measure board "\`vsh leaderboard --limit 20\`: 100,000 players, 1,000,000 check-ins" boards 1 $BIN leaderboard --limit 20 --db "$LEAGUE" --hunts hunts
measure board-csv "\`vsh leaderboard --format csv\`: all 100,000 players" boards 1 $BIN leaderboard --format csv --db "$LEAGUE" --hunts hunts
measure profile "\`vsh profile\`: one player of that league" profiles 1 $BIN profile "Player 004242" --db "$LEAGUE" --hunts hunts

echo "vsh benchmarks, $(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(free -g | awk '/Mem:/ {print $2}') GiB"
echo
echo "| task | wall | throughput | peak memory |"
echo "| --- | --- | --- | --- |"
printf '%s\n' "${ROWS[@]}"

# Peers, on the same data. A peer that is not installed is skipped (make bench-peers installs them).
PEERS=()
peer() {  # key "peer" rate
  local key=$1 name=$2 rate=$3
  [[ $rate =~ ^[0-9]+$ ]] || { PEERS+=("| $key | $name | not installed | |"); return; }
  local ratio; ratio=$(python3 -c "print(f'{${RATE[$key]} / max($rate, 1):,.1f}x')")
  PEERS+=("| $key | $name | $(printf "%'d" "$rate")/s | $ratio |")
}
timed_rate() {  # count command...: units/s of a whole external command
  local count=$1; shift
  local log; log=$(mktemp)
  /usr/bin/time -f "%e" -o "$log" "$@" >/dev/null 2>&1 || { echo "n/a"; rm -f "$log"; return; }
  python3 -c "print(round($count / max(float(open('$log').read().split()[-1]), 0.001)))"; rm -f "$log"
}
spatialite_rate() {  # db fixes.csv count: the R*Tree join with ST_Contains, query time only
  command -v spatialite >/dev/null || { echo n/a; return; }
  local out; out=$(spatialite "$1" 2>/dev/null <<SQL
.mode csv
CREATE TEMP TABLE fx(lat REAL, lon REAL);
.import $2 fx
.timer on
SELECT COUNT(*) FROM fx f JOIN stops s ON s.pk IN (SELECT pkid FROM idx_stops_geom WHERE xmin <= f.lon AND xmax >= f.lon AND ymin <= f.lat AND ymax >= f.lat) WHERE ST_Contains(s.geom, MakePoint(f.lon, f.lat, 4326)) = 1;
SQL
)
  local seconds; seconds=$(echo "$out" | grep -o 'user [0-9.]* sys [0-9.]*' | tail -1 | awk '{print $2 + $4}')
  [ -n "$seconds" ] && python3 -c "print(round($3 / max($seconds, 0.001)))" || echo n/a
}
for M in 500 5000 50000; do
  peer "locate-$M" "SpatiaLite R*Tree join + ST_Contains (100,000 fixes)" "$(spatialite_rate "$D/world-$M.sqlite" "$D/world-fixes-100k.csv" 100000)"
  peer "locate-$M" "shapely 2 STRtree, prepared, in-process" "$(python3 Benchmarks/peers.py shapely "$D/world-$M" "$D/world-fixes-1m.csv")"
done
command -v exiftool >/dev/null && peer exif "exiftool -fast2 -json (1,000 photos)" "$(timed_rate 1000 exiftool -fast2 -json -GPSLatitude -GPSLongitude -GPSDateTime -DateTimeOriginal $(echo "$PHOTOS" | head -n 1000))" || peer exif "exiftool" "n/a"
peer exif "piexif, in-process (2,000 photos)" "$(python3 Benchmarks/peers.py piexif "$D/photos" 2000)"
peer exif "exifread, in-process (2,000 photos)" "$(python3 Benchmarks/peers.py exifread "$D/photos" 2000)"
command -v gpsbabel >/dev/null && peer gpx "gpsbabel to unicsv" "$(timed_rate 1000000 gpsbabel -i gpx -f "$D/walk-1m.gpx" -o unicsv -F /dev/null)" || peer gpx "gpsbabel" "n/a"
peer gpx "ElementTree iterparse" "$(python3 Benchmarks/peers.py etree "$D/walk-1m.gpx")"
peer gpx "gpxpy (100,000 points)" "$(python3 Benchmarks/peers.py gpxpy "$D/walk-100k.gpx")"
echo
echo "| task | peer | peer's rate | vsh's advantage |"
echo "| --- | --- | --- | --- |"
printf '%s\n' "${PEERS[@]}"

# Whole processes on small inputs, as a user runs them: each side is one command timed from start to
# exit (start-up, reading the input and writing the answer included), best of five, on the same files.
best_of() {  # best_of COMMAND...: the best wall time of five runs, in seconds
  python3 - "$@" <<'PY'
import subprocess, sys, time
runs = []
for _ in range(5):
    began = time.perf_counter()
    done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    runs.append(time.perf_counter() - began)
    if done.returncode != 0:
        print("n/a"); sys.exit()
print(f"{min(runs):.4f}")
PY
}
WHOLE=()
whole() {  # whole "task" "peer" VSH-SECONDS PEER-SECONDS
  local ratio="n/a"
  [[ $4 =~ ^[0-9.]+$ && $3 =~ ^[0-9.]+$ ]] && ratio=$(python3 -c "print(f'{$4 / max($3, 0.0001):.1f}x')")
  WHOLE+=("| $1 | $3 s | $2 | $4 s | $ratio |")
}
head -n 1000 <<< "$PHOTOS" > "$D/photos-1000.txt"
mkdir -p "$D/photos-1000"; rm -f "$D"/photos-1000/*.jpg
xargs -a "$D/photos-1000.txt" cp -l -t "$D/photos-1000" -- 2>/dev/null || xargs -a "$D/photos-1000.txt" cp -t "$D/photos-1000" --
cat > "$D/spatialite-locate.sql" <<SQL
.mode csv
CREATE TEMP TABLE fx(lat REAL, lon REAL);
.import $D/world-fixes-100k.csv fx
SELECT COUNT(*) FROM fx f JOIN stops s ON s.pk IN (SELECT pkid FROM idx_stops_geom WHERE xmin <= f.lon AND xmax >= f.lon AND ymin <= f.lat AND ymax >= f.lat) WHERE ST_Contains(s.geom, MakePoint(f.lon, f.lat, 4326)) = 1;
SQL
PEER_LOCATE=n/a
command -v spatialite >/dev/null && PEER_LOCATE=$(best_of sh -c "spatialite '$D/world-5000.sqlite' < '$D/spatialite-locate.sql'")
whole "\`vsh locate --fixes\`: 100,000 fixes, 5,000 stops" "the \`spatialite\` shell: import the CSV, R*Tree join + \`ST_Contains\`" \
  "$(best_of $BIN locate --fixes "$D/world-fixes-100k.csv" --db "$D/world-5000.sqlite" --hunts "$D/world-5000")" "$PEER_LOCATE"
PEER_EXIF=n/a
command -v exiftool >/dev/null && PEER_EXIF=$(best_of exiftool -fast2 -json -GPSLatitude -GPSLongitude -GPSDateTime -DateTimeOriginal "$D/photos-1000")
whole "\`vsh exif --json DIR\`: 1,000 small JPEGs" "\`exiftool -fast2 -json DIR\` (four tags)" \
  "$(best_of $BIN exif --json "$D/photos-1000")" "$PEER_EXIF"
whole "\`vsh gpx\`: 100,000-point GPX" "\`python3\`: ElementTree iterparse of every point" \
  "$(best_of $BIN gpx "$D/walk-100k.gpx")" "$(best_of python3 Benchmarks/peers.py etree "$D/walk-100k.gpx")"
echo
echo "| whole process | vsh | peer | peer's time | vsh's advantage |"
echo "| --- | --- | --- | --- | --- |"
printf '%s\n' "${WHOLE[@]}"
