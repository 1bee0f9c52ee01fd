#!/usr/bin/env bash
# make bench, the profile: where a release `vsh serve` spends its CPU on device-fix check-ins, by
# `perf record` (999 samples a second, call graphs) on the service while wrk drives it as
# Benchmarks/serve.sh does, on a copy of serve.sh's league (run serve.sh first). Prints the top
# entries by self time (the function the CPU was in) and by module, as Markdown.
# The argument says what wrk sends: `checkin` (device fixes, the default), `photo` (the 100 KB
# JPEG check-ins) or `board` (GET /v1/leaderboard).
set -uo pipefail
# VSH_BENCH_BIN measures another build of vsh (the build before a change, run beside this one).
WHAT=${1:-checkin}
cd "$(dirname "$0")/.."
BIN=${VSH_BENCH_BIN:-.build/release/vsh}
S=bench-data/serve
D=bench-data/profile
CONNECTIONS=${VSH_BENCH_CONNECTIONS:-64}
SECONDS_EACH=${VSH_BENCH_SECONDS:-15}
[ -f "$S/tokens.txt" ] || { echo "run Benchmarks/serve.sh first (its league is profiled)" >&2; exit 1; }
for tool in perf wrk; do
  command -v $tool >/dev/null || { echo "$tool is not installed (make bench installs it)" >&2; exit 1; }
done
case $WHAT in
  checkin) SCRIPT=(-s Benchmarks/wrk/checkin.lua); LABEL="device-fix check-ins" ;;
  photo) SCRIPT=(-s Benchmarks/wrk/upload.lua); LABEL="photo check-ins (100 KB JPEGs)" ;;
  board) SCRIPT=(-s Benchmarks/wrk/get.lua); LABEL="GET /v1/leaderboard" ;;
  *) echo "usage: Benchmarks/profile.sh [checkin|photo|board]" >&2; exit 64 ;;
esac
rm -rf "$D" && mkdir -p "$D"
cp "$S/vsh.sqlite" "$D/vsh.sqlite"
export VSH_BENCH_FIX_TIME=2026-11-21T19:59:00Z VSH_BENCH_TOKENS=$PWD/$S/tokens.txt VSH_BENCH_LUA=$PWD/Benchmarks/wrk \
  VSH_BENCH_PHOTOS=$PWD/$S/photos/list.txt
trap '[ -n "${PID:-}" ] && kill "$PID" 2>/dev/null' EXIT
$BIN serve --port 0 --db "$D/vsh.sqlite" --hunts hunts --now 2026-11-21T20:00:00Z --checkins-per-minute 1000000 \
  > "$D/serve.out" 2> "$D/serve.log" &
PID=$!
for _ in $(seq 1 400); do grep -q "^listening on" "$D/serve.out" 2>/dev/null && break; sleep 0.025; done
BASE=$(sed -n 's/^listening on //p' "$D/serve.out")
[ -n "$BASE" ] || { echo "vsh serve did not start" >&2; exit 1; }
URL=$BASE; [ "$WHAT" = board ] && URL=$BASE/v1/leaderboard
# A short warm-up, then the profile of one wrk run.
wrk -t2 -c"$CONNECTIONS" -d3s "${SCRIPT[@]}" "$URL" >/dev/null 2>&1
perf record -F 999 -g -o "$D/perf.data" -p "$PID" -- sleep "$SECONDS_EACH" 2> "$D/perf.log" &
PERF=$!
wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_EACH}s" --latency "${SCRIPT[@]}" "$URL" > "$D/wrk.txt" 2>&1
wait $PERF
kill -TERM $PID; wait $PID
echo "perf record -F 999 -g of vsh serve during wrk -t2 -c$CONNECTIONS -d${SECONDS_EACH}s of $LABEL ($(grep -o 'rate=[0-9.]*' "$D/wrk.txt" | cut -d= -f2)/s), $(date -u +%Y-%m-%d), $(nproc) cores"
echo
echo "| self % | function |"
echo "| --- | --- |"
# Swift's names demangled (the toolchain's `swift demangle`), cut to 120 characters.
DEMANGLE=(cat)
swift demangle --help >/dev/null 2>&1 && DEMANGLE=(swift demangle --simplified --compact)
perf report -i "$D/perf.data" --no-children --sort symbol --stdio 2>/dev/null \
  | grep -E '^ +[0-9.]+%' | head -20 \
  | sed -E 's/^ +([0-9.]+%) +\[.\] +//; s/ +$//' > "$D/top.txt"
perf report -i "$D/perf.data" --no-children --sort symbol --stdio 2>/dev/null \
  | grep -E '^ +[0-9.]+%' | head -20 | sed -E 's/^ +([0-9.]+%).*/\1/' > "$D/percent.txt"
"${DEMANGLE[@]}" < "$D/top.txt" | cut -c1-120 | sed -E 's/[[:space:]]+$//' | paste -d'\t' "$D/percent.txt" - \
  | awk -F'\t' '{ printf "| %s | `%s` |\n", $1, $2 }'
echo
echo "| self % | module |"
echo "| --- | --- |"
perf report -i "$D/perf.data" --no-children --sort dso --stdio 2>/dev/null \
  | grep -E '^ +[0-9.]+%' | head -8 | sed -E 's/ +$//; s/^ +([0-9.]+%) +(.*)$/| \1 | `\2` |/'
