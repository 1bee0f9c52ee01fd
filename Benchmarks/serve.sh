#!/usr/bin/env bash
# make bench, the service part: a release `vsh serve` on a fresh durable SpatiaLite league (the
# shipped hunts), driven by wrk on loopback, with nginx serving the same leaderboard bytes as a
# static file in the same run. Prints a Markdown table. Players' sessions are minted straight into
# the database (200 tokens, stored hashed as the service stores them), so the run measures check-ins,
# not 200 bcrypt sign-ins.
set -uo pipefail
# VSH_BENCH_BIN measures another build of vsh (the build before a change, run beside this one).
cd "$(dirname "$0")/.."
. Benchmarks/nginx.sh
BIN=${VSH_BENCH_BIN:-.build/release/vsh}
D=bench-data/serve
CONNECTIONS=${VSH_BENCH_CONNECTIONS:-64}
SECONDS_EACH=${VSH_BENCH_SECONDS:-15}
NOW=2026-11-21T20:00:00Z
export VSH_BENCH_FIX_TIME=2026-11-21T19:59:00Z
rm -rf "$D" && mkdir -p "$D/photos" "$D/nginx/html"

# The league: 200 players, each with a session token.
$BIN sync --db "$D/vsh.sqlite" --hunts hunts >/dev/null || exit 1
python3 - "$D" <<'PY' || exit 1
import hashlib, secrets, sqlite3, sys, subprocess
d = sys.argv[1]
db = sqlite3.connect(f"{d}/vsh.sqlite")
with open(f"{d}/tokens.txt", "w") as out:
    for i in range(200):
        name = f"Bench Player {i}"
        db.execute("INSERT INTO players(name, name_key, email, created_at) VALUES (?, ?, ?, ?)",
                   (name, name.lower(), f"p{i}@example.org", "2026-11-21T00:00:00Z"))
        pid = db.execute("SELECT last_insert_rowid()").fetchone()[0]
        token = secrets.token_hex(32)
        db.execute("INSERT INTO sessions(token_hash, player_id, created_at, expires_at, last_used_at) VALUES (?, ?, ?, ?, ?)",
                   (hashlib.sha256(token.encode()).hexdigest(), pid, "2026-11-21T00:00:00Z", 4e9, "2026-11-21T00:00:00Z"))
        out.write(token + "\n")
db.commit()
PY
# Distinct photos with GPS at the sign (noise pixels, so the JPEG does not shrink): 64 of ~100 KB
# (460 x 345) and 8 of ~2 MB (a phone's 3-megapixel shot: 2048 x 1536), each at quality 80. Each
# request sends a new picture made of their rows (Benchmarks/wrk/upload.lua): a picture sent twice
# would be refused as a copy, which is not what a player's check-in costs.
python3 Benchmarks/make_photos.py "$D/photos" 64 460 345 7 p || exit 1
python3 Benchmarks/make_photos.py "$D/photos-2mb" 8 2048 1536 11 q || exit 1
export VSH_BENCH_TOKENS=$PWD/$D/tokens.txt VSH_BENCH_PHOTOS=$PWD/$D/photos/list.txt VSH_BENCH_LUA=$PWD/Benchmarks/wrk
PHOTO_KB=$(( $(stat -c %s "$D/photos/p00.jpg") / 1024 ))
BIG_KB=$(( $(stat -c %s "$D/photos-2mb/q00.jpg") / 1024 ))
BIG_CONNECTIONS=${VSH_BENCH_BIG_CONNECTIONS:-16}

for tool in wrk python3; do
  command -v $tool >/dev/null || { echo "$tool is not installed (make bench installs it)" >&2; exit 1; }
done
# Start-up: from exec to the "listening on" line. The server is stopped however the script ends.
trap '[ -n "${PID:-}" ] && kill "$PID" 2>/dev/null' EXIT
serve_on() { # serve_on DB NAME: a fresh `vsh serve` on DB (its output in $D/NAME.out and .log),
  # listening when this returns, with PID and BASE set
  $BIN serve --port 0 --db "$1" --hunts hunts --now $NOW --checkins-per-minute 1000000 \
    > "$D/$2.out" 2> "$D/$2.log" &
  PID=$!
  for _ in $(seq 1 400); do grep -q "^listening on" "$D/$2.out" 2>/dev/null && break; sleep 0.025; done
  BASE=$(sed -n 's/^listening on //p' "$D/$2.out")
  [ -n "$BASE" ] || { echo "vsh serve did not start" >&2; kill $PID; exit 1; }
}
START=$(date +%s.%N)
serve_on "$D/vsh.sqlite" serve
READY=$(date +%s.%N)
STARTUP_MS=$(python3 -c "print(round(($READY - $START) * 1000))")
RSS_IDLE=$(awk '/VmRSS/ {print int($2 / 1024)}' /proc/$PID/status)

# CPU from /proc, in clock ticks: the server's own (user + system) and the whole machine's busy time
# (every process, wrk and nginx included, and the kernel's interrupts).
TICK=$(getconf CLK_TCK)
process_ticks() { [ -n "${1:-}" ] && [ -r "/proc/$1/stat" ] && awk '{print $14 + $15}' "/proc/$1/stat" || echo 0; }
machine_ticks() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8}' /proc/stat; }
run() { # run wrk-args...: one wrk run, its RESULT line parsed into R_* variables, with R_cpu_us and
  # R_machine_us: the server's and the machine's CPU time a request, in microseconds
  local p0 m0; p0=$(process_ticks "${PID:-}"); m0=$(machine_ticks)
  local out; out=$(wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_EACH}s" --latency "$@" 2>&1)
  local p1 m1; p1=$(process_ticks "${PID:-}"); m1=$(machine_ticks)
  local line; line=$(echo "$out" | grep '^RESULT') || { echo "$out" >&2; return 1; }
  eval "$(echo "$line" | sed 's/^RESULT //; s/\([a-z0-9_]*\)=/R_\1=/g')"
  R_cpu_us=$(python3 -c "print(round(($p1 - $p0) * 1e6 / $TICK / max($R_requests, 1)))")
  R_machine_us=$(python3 -c "print(round(($m1 - $m0) * 1e6 / $TICK / max($R_requests, 1)))")
}

# Memory: VmHWM counts the pages of mapped files the process touched (the league, read through its
# memory map, and the program itself), which the kernel's page cache holds and can drop. The process's
# own memory (RssAnon) is sampled every 0.1 s while wrk runs: its peak is what requests cost.
anon_sampler() { # anon_sampler PID FILE: RssAnon in kB, every 0.1 s, until the process ends
  while [ -r "/proc/$1/status" ]; do awk '/RssAnon/ {print $2}' "/proc/$1/status" 2>/dev/null; sleep 0.1; done > "$2"
}
anon_peak() { sort -n "$1" | tail -n 1 | awk '{print int($1 / 1024)}'; } # anon_peak FILE: MB
file_mb() { awk '/RssFile/ {print int($2 / 1024)}' "/proc/$1/status"; }
anon_sampler $PID "$D/anon.txt" &
SAMPLER=$!

run -s Benchmarks/wrk/checkin.lua "$BASE" || exit 1
FIX=("$R_rate" "$R_p50_ms" "$R_p99_ms" "$R_non2xx" "$R_errors" "$R_requests" "$R_cpu_us" "$R_machine_us")
run -s Benchmarks/wrk/upload.lua "$BASE" || exit 1
PHOTO=("$R_rate" "$R_p50_ms" "$R_p99_ms" "$R_non2xx" "$R_errors" "$R_requests" "$R_cpu_us" "$R_machine_us")
RSS_PEAK=$(awk '/VmHWM/ {print int($2 / 1024)}' /proc/$PID/status)
RSS_FILE=$(file_mb $PID)
curl -s "$BASE/v1/leaderboard" > "$D/nginx/html/leaderboard.json"
BOARD_BYTES=$(stat -c %s "$D/nginx/html/leaderboard.json")
run -s Benchmarks/wrk/get.lua "$BASE/v1/leaderboard" || exit 1
BOARD=("$R_rate" "$R_p50_ms" "$R_p99_ms" "$R_non2xx" "$R_errors" "$R_requests" "$R_cpu_us" "$R_machine_us")
# The board while check-ins flow, as at an event's start: two connections of check-ins beside the
# readers. Each check-in empties the read cache, and every reader then wants the board at once.
# The CPU columns of this row are a request of either kind.
wrk -t1 -c2 -d"${SECONDS_EACH}s" -s Benchmarks/wrk/checkin.lua "$BASE" > "$D/flowing.txt" 2>&1 &
FLOWING=$!
run -s Benchmarks/wrk/get.lua "$BASE/v1/leaderboard" || exit 1
wait $FLOWING
FLOW_LINE=$(grep '^RESULT' "$D/flowing.txt") || { cat "$D/flowing.txt" >&2; exit 1; }
FLOW_RATE=$(echo "$FLOW_LINE" | sed 's/.* rate=\([0-9.]*\).*/\1/')
FLOW_REQUESTS=$(echo "$FLOW_LINE" | sed 's/.* requests=\([0-9]*\).*/\1/')
LIVE=("$R_rate" "$R_p50_ms" "$R_p99_ms" "$R_non2xx" "$R_errors" "$R_requests"
  "$(python3 -c "print(round($R_cpu_us * $R_requests / ($R_requests + $FLOW_REQUESTS)))")"
  "$(python3 -c "print(round($R_machine_us * $R_requests / ($R_requests + $FLOW_REQUESTS)))")")
# Device-fix check-ins while 300 pages follow the league (`GET /v1/events`), as a venue's phones
# do at an event's start: each check-in is a change every page is told of.
PAGES=${VSH_BENCH_PAGES:-300}
python3 Benchmarks/listeners.py 127.0.0.1 "${BASE##*:}" "$PAGES" $((SECONDS_EACH + 2)) > "$D/listeners.txt" 2>&1 &
LISTENING=$!
sleep 1
run -s Benchmarks/wrk/checkin.lua "$BASE" || exit 1
FOLLOWED=("$R_rate" "$R_p50_ms" "$R_p99_ms" "$R_non2xx" "$R_errors" "$R_requests" "$R_cpu_us" "$R_machine_us")
wait $LISTENING
FOLLOW_CHANGES=$(sed -n 's/^LISTENERS changes=\([0-9]*\).*/\1/p' "$D/listeners.txt")
RECORDED=$(python3 -c "import sqlite3; print(sqlite3.connect('$D/vsh.sqlite').execute('SELECT COUNT(*) FROM checkins').fetchone()[0])")
kill -TERM $PID; wait $PID; STOP_STATUS=$?
wait $SAMPLER 2>/dev/null; ANON_PEAK=$(anon_peak "$D/anon.txt")

# 2 MB photos, on a fresh server (so that its memory high-water mark is theirs), fewer connections:
# the rate, the latencies and the peak memory of the process (VmHWM).
serve_on "$D/vsh.sqlite" serve-2mb
BIG_IDLE=$(awk '/VmRSS/ {print int($2 / 1024)}' /proc/$PID/status)
anon_sampler $PID "$D/anon-2mb.txt" &
SAMPLER=$!
SAVED_CONNECTIONS=$CONNECTIONS; CONNECTIONS=$BIG_CONNECTIONS
VSH_BENCH_PHOTOS=$PWD/$D/photos-2mb/list.txt run -s Benchmarks/wrk/upload.lua "$BASE" || exit 1
CONNECTIONS=$SAVED_CONNECTIONS
BIG=("$R_rate" "$R_p50_ms" "$R_p99_ms" "$R_non2xx" "$R_errors" "$R_requests" "$R_cpu_us" "$R_machine_us")
BIG_PEAK=$(awk '/VmHWM/ {print int($2 / 1024)}' /proc/$PID/status)
BIG_FILE=$(file_mb $PID)
kill -TERM $PID; wait $PID
wait $SAMPLER 2>/dev/null; BIG_ANON_PEAK=$(anon_peak "$D/anon-2mb.txt")

# First visits: a fresh league of players who have not checked in, each sending one device-fix
# check-in at the Welcome sign (accepted, with points and a first check-in's badges), as every phone
# does at an event's start. The rows above send 200 players round six places again and again, so
# most of their check-ins are refused (a stop that asks for a photo, an impossible journey) or
# accepted without points (already visited): what a crowd's repeated check-ins cost, not its first.
FIRST_PLAYERS=${VSH_BENCH_FIRST_PLAYERS:-200000}
$BIN sync --db "$D/first.sqlite" --hunts hunts >/dev/null || exit 1
python3 - "$D" "$FIRST_PLAYERS" <<'PY' || exit 1
import hashlib, secrets, sqlite3, sys
d, count = sys.argv[1], int(sys.argv[2])
db = sqlite3.connect(f"{d}/first.sqlite")
tokens = [secrets.token_hex(32) for _ in range(count)]
db.executemany("INSERT INTO players(id, name, name_key, email, created_at) VALUES (?, ?, ?, ?, ?)",
               ((i + 1, f"First Player {i}", f"first player {i}", f"f{i}@example.org", "2026-11-21T00:00:00Z")
                for i in range(count)))
db.executemany("INSERT INTO sessions(token_hash, player_id, created_at, expires_at, last_used_at) VALUES (?, ?, ?, ?, ?)",
               ((hashlib.sha256(t.encode()).hexdigest(), i + 1, "2026-11-21T00:00:00Z", 4e9, "2026-11-21T00:00:00Z")
                for i, t in enumerate(tokens)))
db.commit()
with open(f"{d}/first-tokens.txt", "w") as out:
    out.write("\n".join(tokens) + "\n")
PY
serve_on "$D/first.sqlite" serve-first
VSH_BENCH_TOKENS=$PWD/$D/first-tokens.txt run -s Benchmarks/wrk/firstvisit.lua "$BASE" || exit 1
FIRST=("$R_rate" "$R_p50_ms" "$R_p99_ms" "$R_non2xx" "$R_errors" "$R_requests" "$R_cpu_us" "$R_machine_us")
kill -TERM $PID; wait $PID
FIRST_VERDICTS=$(python3 -c "
import sqlite3
rows = sqlite3.connect('$D/first.sqlite').execute(
    'SELECT verdict, COUNT(*), COUNT(DISTINCT player_id), SUM(points > 0) FROM checkins GROUP BY verdict').fetchall()
print(', '.join(f'{v} {n} ({p} players, {s} with points)' for v, n, p, s in rows))")

# nginx: the same bytes as a static file, same connections, same duration.
NGINX_PORT=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
nginx_start "$PWD/$D/nginx" "$NGINX_PORT" "root $PWD/$D/nginx/html;" || exit 1
sleep 0.3
PID=
run -s Benchmarks/wrk/get.lua "http://127.0.0.1:$NGINX_PORT/leaderboard.json"
PEER=("$R_rate" "$R_p50_ms" "$R_p99_ms" "$R_non2xx" "$R_errors" "$R_requests" "$R_cpu_us" "$R_machine_us")
kill "$(cat "$D/nginx/nginx.pid")"

fmt() { printf "%'d" "${1%.*}"; }
echo "vsh serve, $(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), wrk -t2 -c$CONNECTIONS -d${SECONDS_EACH}s on loopback, durable SQLite (synchronous=FULL)"
echo
echo "| what | rate | p50 | p99 | non-2xx | vsh's CPU a request | machine's CPU a request | notes |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
echo "| device-fix check-ins, 200 players, naming their hunt | $(fmt "${FIX[0]}")/s | ${FIX[1]} ms | ${FIX[2]} ms | ${FIX[3]} | ${FIX[6]} µs | ${FIX[7]} µs | ${FIX[5]} requests, each decided by the rules and recorded; $(python3 -c "print(round(${FIX[0]} / max(${PEER[0]}, 1), 3))")x nginx's static rate |"
echo "| device-fix check-ins, each a new player's first visit (a fresh league of $(fmt "$FIRST_PLAYERS") players) | $(fmt "${FIRST[0]}")/s | ${FIRST[1]} ms | ${FIRST[2]} ms | ${FIRST[3]} | ${FIRST[6]} µs | ${FIRST[7]} µs | ${FIRST[5]} requests; in the league afterwards: $FIRST_VERDICTS; $(python3 -c "print(round(${FIRST[0]} / max(${PEER[0]}, 1), 3))")x nginx's static rate |"
echo "| photo check-ins (${PHOTO_KB} KB JPEG + device fix) | $(fmt "${PHOTO[0]}")/s | ${PHOTO[1]} ms | ${PHOTO[2]} ms | ${PHOTO[3]} | ${PHOTO[6]} µs | ${PHOTO[7]} µs | ${PHOTO[5]} uploads streamed, read, hashed, stored, decided; $(python3 -c "print(round(${PHOTO[0]} / max(${FIX[0]}, 1), 2))")x the device-fix rate |"
echo "| photo check-ins (${BIG_KB} KB JPEG, 2048 x 1536, + device fix), $BIG_CONNECTIONS connections, a fresh server | $(fmt "${BIG[0]}")/s | ${BIG[1]} ms | ${BIG[2]} ms | ${BIG[3]} | ${BIG[6]} µs | ${BIG[7]} µs | ${BIG[5]} uploads; the server's memory ${BIG_IDLE} MB idle, ${BIG_PEAK} MB at its peak (VmHWM), of which ${BIG_FILE} MB mapped files; its own memory (RssAnon) at most ${BIG_ANON_PEAK} MB |"
echo "| GET /v1/leaderboard ($BOARD_BYTES bytes) | $(fmt "${BOARD[0]}")/s | ${BOARD[1]} ms | ${BOARD[2]} ms | ${BOARD[3]} | ${BOARD[6]} µs | ${BOARD[7]} µs | cached until the next write; $(python3 -c "print(round(${BOARD[0]} / max(${PEER[0]}, 1), 2))")x nginx |"
echo "| GET /v1/leaderboard while check-ins flow ($(fmt "$FLOW_RATE")/s beside it, 2 connections) | $(fmt "${LIVE[0]}")/s | ${LIVE[1]} ms | ${LIVE[2]} ms | ${LIVE[3]} | ${LIVE[6]} µs | ${LIVE[7]} µs | every check-in empties the cache; the readers that miss together wait for one board |"
echo "| device-fix check-ins while $PAGES pages follow the league (GET /v1/events) | $(fmt "${FOLLOWED[0]}")/s | ${FOLLOWED[1]} ms | ${FOLLOWED[2]} ms | ${FOLLOWED[3]} | ${FOLLOWED[6]} µs | ${FOLLOWED[7]} µs | the pages were sent ${FOLLOW_CHANGES:-?} change events in all; $(python3 -c "print(round(${FOLLOWED[0]} / max(${FIX[0]}, 1), 2))")x the rate without them |"
echo "| nginx, the same bytes as a static file | $(fmt "${PEER[0]}")/s | ${PEER[1]} ms | ${PEER[2]} ms | ${PEER[3]} | | ${PEER[7]} µs | 2 workers, no access log |"
echo
echo "start-up to listening: ${STARTUP_MS} ms; memory: ${RSS_IDLE} MB idle, ${RSS_PEAK} MB peak under load (VmHWM), of which ${RSS_FILE} MB mapped files (the league read through its memory map, the program), its own (RssAnon) at most ${ANON_PEAK} MB; check-ins in the database afterwards: $RECORDED; exit after SIGTERM: $STOP_STATUS"
