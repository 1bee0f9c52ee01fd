#!/usr/bin/env bash
# make bench, the PostGIS part: device-fix check-ins through one vsh serve on SpatiaLite, one on
# PostgreSQL + PostGIS and two on the same PostGIS database (two wrk processes, half the connections
# each), in one run on this machine; photo check-ins through one of each, on leagues that hold
# 100,000 earlier photos; then `vsh locate --fixes` of 1,000,000 fixes on 5,000 stops
# with the stops in SpatiaLite and in PostGIS. The PostgreSQL cluster is a throwaway one in
# bench-data/pg (initdb, loopback, durable: fsync and synchronous_commit on, as SQLite's FULL).
set -uo pipefail
cd "$(dirname "$0")/.."
# VSH_BENCH_BIN measures another build of vsh (the build before a change, run beside this one).
BIN=${VSH_BENCH_BIN:-.build/release/vsh}
PG=/usr/lib/postgresql/15/bin
D=bench-data/postgis
CONNECTIONS=${VSH_BENCH_CONNECTIONS:-64}
SECONDS_EACH=${VSH_BENCH_SECONDS:-15}
NOW=2026-11-21T20:00:00Z
export VSH_BENCH_FIX_TIME=2026-11-21T19:59:00Z VSH_BENCH_LUA=$PWD/Benchmarks/wrk
[ -x $PG/initdb ] || { echo "PostgreSQL 15 is not installed (make test-deps installs it)" >&2; exit 1; }
RELEASE_FLAGS=$(make -s --no-print-directory release-flags)
# The two programs only: a release build of every target would build the tests' support library,
# which needs the toolchain's test framework.
{ [ -n "${VSH_BENCH_BIN:-}" ] || swift build $RELEASE_FLAGS --product vsh; } >/dev/null || exit 1
swift build $RELEASE_FLAGS --product vsh-master >/dev/null || exit 1
rm -rf "$D" && mkdir -p "$D"
AS=()
if [ "$(id -u)" = 0 ]; then chown postgres "$D"; AS=(runuser -u postgres --); fi
PORT=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
"${AS[@]}" $PG/initdb -D "$PWD/$D/data" -U postgres -A trust -E UTF8 --locale=C >/dev/null || exit 1
"${AS[@]}" $PG/pg_ctl -D "$PWD/$D/data" -l "$PWD/$D/server.log" -w \
  -o "-p $PORT -k $PWD/$D -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null || exit 1
trap '"${AS[@]}" $PG/pg_ctl -D "$PWD/$D/data" -m fast -w stop >/dev/null 2>&1' EXIT
psql() { command psql -X -q -h 127.0.0.1 -p "$PORT" -U postgres "$@"; }
psql -d postgres -c "CREATE DATABASE league" -c "CREATE DATABASE world" || exit 1
URL=postgres://postgres@127.0.0.1:$PORT/league

# The same league on both: the shipped hunts, 200 players with session tokens minted into the database.
$BIN sync --db "$D/vsh.sqlite" --hunts hunts >/dev/null || exit 1
$BIN sync --db "$URL" --hunts hunts >/dev/null || exit 1
python3 - "$D" <<'PY' || exit 1
import hashlib, secrets, sqlite3, sys
d = sys.argv[1]
db = sqlite3.connect(f"{d}/vsh.sqlite")
sql = open(f"{d}/players.sql", "w")
with open(f"{d}/tokens.txt", "w") as out:
    for i in range(200):
        name = f"Bench Player {i}"
        token = secrets.token_hex(32)
        digest = hashlib.sha256(token.encode()).hexdigest()
        db.execute("INSERT INTO players(id, name, name_key, email, created_at) VALUES (?, ?, ?, ?, ?)",
                   (i + 1, name, name.lower(), f"p{i}@example.org", "2026-11-21T00:00:00Z"))
        db.execute("INSERT INTO sessions(token_hash, player_id, created_at, expires_at, last_used_at) VALUES (?, ?, ?, ?, ?)",
                   (digest, i + 1, "2026-11-21T00:00:00Z", 4e9, "2026-11-21T00:00:00Z"))
        sql.write(f"INSERT INTO players(id, name, name_key, email, created_at) VALUES ({i + 1}, '{name}', '{name.lower()}', 'p{i}@example.org', '2026-11-21T00:00:00Z');\n")
        sql.write(f"INSERT INTO sessions(token_hash, player_id, created_at, expires_at, last_used_at) VALUES ('{digest}', {i + 1}, '2026-11-21T00:00:00Z', 4e9, '2026-11-21T00:00:00Z');\n")
        out.write(token + "\n")
    sql.write("SELECT setval(pg_get_serial_sequence('players', 'id'), 201, false);\n")
db.commit()
PY
psql -d league -f "$D/players.sql" >/dev/null || exit 1
export VSH_BENCH_TOKENS=$PWD/$D/tokens.txt

serve() { # serve DB LOG: starts vsh serve on a free port, prints its base URL
  $BIN serve --port 0 --db "$1" --hunts hunts --now $NOW --checkins-per-minute 1000000 > "$2.out" 2> "$2.log" &
  echo $! > "$2.pid"
  for _ in $(seq 1 400); do grep -q "^listening on" "$2.out" 2>/dev/null && break; sleep 0.025; done
  sed -n 's/^listening on //p' "$2.out"
}
stop() { kill -TERM "$(cat "$1.pid")"; wait "$(cat "$1.pid")" 2>/dev/null; }
wrk_run() { # wrk_run CONNECTIONS BASE [SCRIPT]: one wrk run, prints "rate p50 p99 non2xx requests"
  wrk -t1 -c"$1" -d"${SECONDS_EACH}s" --latency -s "${3:-Benchmarks/wrk/checkin.lua}" "$2" 2>&1 | grep '^RESULT' \
    | sed 's/^RESULT //' | tr ' ' '\n' | awk -F= '{v[$1]=$2} END {print v["rate"], v["p50_ms"], v["p99_ms"], v["non2xx"], v["requests"]}'
}

# Three seconds of check-ins before each measured run, then the statistics PostgreSQL's planner
# reads: a running server's autovacuum gathers them within its first minute, once a table has
# changed by a tenth, and without them every plan is a guess (a cluster made a moment ago has
# none). SpatiaLite's instance gets the same three seconds.
warm_up() { # warm_up BASE...: check-ins to each, then ANALYZE on PostgreSQL
  for base in "$@"; do wrk -t1 -c"$CONNECTIONS" -d3s -s Benchmarks/wrk/checkin.lua "$base" >/dev/null 2>&1; done
  psql -d league -c "ANALYZE" >/dev/null
}

# The machine's busy CPU time (every process: vsh, PostgreSQL, wrk, the kernel), in ticks of 1/100 s:
# its growth over a run divided by the requests is what one check-in costs the machine in all.
busy() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8}' /proc/stat; }
per_checkin() { python3 -c "print(round(($2 - $1) * 10000 / max($3, 1)))"; } # per_checkin BEFORE AFTER REQUESTS: µs

BASE=$(serve "$D/vsh.sqlite" "$D/sl")
warm_up "$BASE"
T0=$(busy)
read -r SL_RATE SL_P50 SL_P99 SL_NON SL_REQ < <(wrk_run "$CONNECTIONS" "$BASE")
SL_CPU=$(per_checkin "$T0" "$(busy)" "$SL_REQ")
stop "$D/sl"
BASE=$(serve "$URL" "$D/pg1")
warm_up "$BASE"
T0=$(busy)
read -r P1_RATE P1_P50 P1_P99 P1_NON P1_REQ < <(wrk_run "$CONNECTIONS" "$BASE")
P1_CPU=$(per_checkin "$T0" "$(busy)" "$P1_REQ")
stop "$D/pg1"
A=$(serve "$URL" "$D/pga")
B=$(serve "$URL" "$D/pgb")
warm_up "$A" "$B"
T0=$(busy)
wrk_run $((CONNECTIONS / 2)) "$A" > "$D/wrk-a" &
wrk_run $((CONNECTIONS / 2)) "$B" > "$D/wrk-b"
wait %1 2>/dev/null; wait
T1=$(busy)
stop "$D/pga"; stop "$D/pgb"
read -r A_RATE A_P50 A_P99 A_NON A_REQ < "$D/wrk-a"
read -r B_RATE B_P50 B_P99 B_NON B_REQ < "$D/wrk-b"
TWO_CPU=$(per_checkin "$T0" "$T1" "$((A_REQ + B_REQ))")
DOCTOR=$($BIN doctor --db "$URL" --json)

# Photo check-ins on leagues that already hold 100,000 photos of other check-ins (rejected, each
# with its own picture and perceptual hash, as a season of a city's hunt leaves them): every photo
# check-in looks for an earlier use of its picture and for a near copy among them. Each sends a
# picture of its own (Benchmarks/wrk/upload.lua), decided by every rule and archived.
python3 Benchmarks/make_photos.py "$D/photos" 64 460 345 7 p || exit 1
export VSH_BENCH_PHOTOS=$PWD/$D/photos/list.txt
SEEDED=100000
python3 - "$D/vsh.sqlite" "$SEEDED" <<'PY' || exit 1
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("""WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
  INSERT INTO checkins(player_id, received_at, source, verdict, points, rules, image_sha256, pixel_sha256, phash)
  SELECT 1 + i % 200, '2026-11-21T00:00:00Z', 'photo', 'rejected', 0, '[]', 'seed-i-' || i, 'seed-p-' || i,
    random() FROM n""", (int(sys.argv[2]),))
db.commit()
PY
psql -d league -c "INSERT INTO checkins(player_id, received_at, source, verdict, points, rules, image_sha256,
    pixel_sha256, phash)
  SELECT 1 + i % 200, '2026-11-21T00:00:00Z', 'photo', 'rejected', 0, '[]', 'seed-i-' || i, 'seed-p-' || i,
    hashtextextended(i::text, 7) FROM generate_series(1, $SEEDED) AS i" >/dev/null || exit 1
photo_warm_up() { # photo_warm_up BASE: photo check-ins, then VACUUM and ANALYZE on PostgreSQL
  # (autovacuum visits a table that grew by a fifth within a minute: the season's photos long since)
  wrk -t1 -c"$CONNECTIONS" -d3s -s Benchmarks/wrk/upload.lua "$1" >/dev/null 2>&1
  psql -d league -c "VACUUM ANALYZE checkins" >/dev/null
}
photo_run() { # photo_run DB NAME: one instance's photo check-ins, prints "rate p50 p99 non2xx µs"
  local base t0 rate p50 p99 non req
  base=$(serve "$1" "$D/$2")
  photo_warm_up "$base"
  t0=$(busy)
  read -r rate p50 p99 non req < <(wrk_run "$CONNECTIONS" "$base" Benchmarks/wrk/upload.lua)
  echo "$rate $p50 $p99 $non $(per_checkin "$t0" "$(busy)" "$req")"
  stop "$D/$2"
}
read -r SP_RATE SP_P50 SP_P99 SP_NON SP_CPU < <(photo_run "$D/vsh.sqlite" sl-photo)
read -r PP_RATE PP_P50 PP_P99 PP_NON PP_CPU < <(photo_run "$URL" pg-photo)

# Locate: 1,000,000 fixes on 5,000 stops, the stops read from each backend.
[ -d bench-data/world-5000 ] || python3 Benchmarks/make_world.py stops bench-data/world-5000 5000
[ -f bench-data/world-fixes-1m.csv ] || python3 Benchmarks/make_world.py fixes bench-data/world-fixes-1m.csv 1000000
[ -f bench-data/world-5000.sqlite ] || $BIN sync --db bench-data/world-5000.sqlite --hunts bench-data/world-5000 >/dev/null
WORLD=postgres://postgres@127.0.0.1:$PORT/world
$BIN sync --db "$WORLD" --hunts bench-data/world-5000 >/dev/null || exit 1
locate() { /usr/bin/time -f "%e %M" "$BIN" locate --fixes bench-data/world-fixes-1m.csv --db "$1" --hunts bench-data/world-5000 2>&1 >/dev/null | tail -n 1; }
read -r LS_S LS_KB < <(locate bench-data/world-5000.sqlite)
read -r LP_S LP_KB < <(locate "$WORLD")

fmt() { python3 -c "import sys; print(f'{int(float(sys.argv[1])):,}')" "$1"; }
TWO=$(python3 -c "print(${A_RATE} + ${B_RATE})")
echo "PostgreSQL + PostGIS beside SpatiaLite, $(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), PostgreSQL 15 on loopback (fsync on), wrk ${SECONDS_EACH}s, $CONNECTIONS connections in all, every process on the same cores"
echo
echo "| device-fix check-ins (200 players) | rate | p50 | p99 | non-2xx | machine CPU a check-in |"
echo "| --- | --- | --- | --- | --- | --- |"
echo "| one vsh serve, SpatiaLite | $(fmt "$SL_RATE")/s | $SL_P50 ms | $SL_P99 ms | $SL_NON | $SL_CPU µs |"
echo "| one vsh serve, PostGIS | $(fmt "$P1_RATE")/s | $P1_P50 ms | $P1_P99 ms | $P1_NON | $P1_CPU µs |"
echo "| two vsh serve, one PostGIS | $(fmt "$TWO")/s | $A_P50 / $B_P50 ms | $A_P99 / $B_P99 ms | $((A_NON + B_NON)) | $TWO_CPU µs |"
echo
echo "two PostGIS instances at $(python3 -c "print(round($TWO / max($SL_RATE, 1), 2))")x one SpatiaLite instance; vsh doctor afterwards: $DOCTOR"
# The most this machine could give the PostGIS setup were every tick of its cores busy with check-ins.
echo "at $TWO_CPU µs a check-in, $(nproc) cores could carry at most $(fmt "$(python3 -c "print($(nproc) * 1e6 / max($TWO_CPU, 1))")") PostGIS check-ins a second ($(python3 -c "print(round($(nproc) * 1e6 / max($TWO_CPU, 1) / max($SL_RATE, 1), 2))")x the SpatiaLite instance)"
echo
echo "| photo check-ins ($(( $(stat -c %s "$D/photos/p00.jpg") / 1024 )) KB JPEG + device fix), the league holding $(fmt $SEEDED) other photos | rate | p50 | p99 | non-2xx | machine CPU a photo |"
echo "| --- | --- | --- | --- | --- | --- |"
echo "| one vsh serve, SpatiaLite | $(fmt "$SP_RATE")/s | $SP_P50 ms | $SP_P99 ms | $SP_NON | $SP_CPU µs |"
echo "| one vsh serve, PostGIS | $(fmt "$PP_RATE")/s | $PP_P50 ms | $PP_P99 ms | $PP_NON | $PP_CPU µs |"
echo
echo "| \`vsh locate --fixes\`, 1,000,000 fixes, 5,000 stops | time | rate | memory |"
echo "| --- | --- | --- | --- |"
echo "| stops in SpatiaLite | $LS_S s | $(fmt "$(python3 -c "print(1e6 / $LS_S)")")/s | $((LS_KB / 1024)) MB |"
echo "| stops in PostGIS | $LP_S s | $(fmt "$(python3 -c "print(1e6 / $LP_S)")")/s | $((LP_KB / 1024)) MB |"
