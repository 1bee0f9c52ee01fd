#!/usr/bin/env bash
# make bench, the boards: how long a fresh `vsh serve` takes to answer the first request for each
# board of the benchmark league (100,000 players, 1,000,000 check-ins, made by Benchmarks/run.sh),
# with every player on a team of five in downtown-fremont (20,000 teams) and that hunt's check-ins
# recorded with their teams. "Cold": each board is the first request a new server process answers,
# so nothing is in its read cache and its statements are not prepared yet (the operating system's
# file cache is warm: the league was just read). Each board asks for 100 rows, as the web app does.
# Prints a Markdown table: the time to the last byte (curl), best and worst of RUNS fresh processes.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=.build/release/vsh
D=bench-data
B=$D/boards
RUNS=${VSH_BENCH_RUNS:-5}
[ -f "$D/league.sqlite" ] || { echo "run Benchmarks/run.sh first (it makes $D/league.sqlite)" >&2; exit 1; }
rm -rf "$B" && mkdir -p "$B"
cp "$D/league.sqlite" "$B/league.sqlite"
python3 - "$B/league.sqlite" <<'PY' || exit 1
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
hunt, size = "downtown-fremont", 5
players = [row[0] for row in con.execute("SELECT id FROM players ORDER BY id")]
# Check-ins are append-only (a trigger); the benchmark copy records its teams after the fact, as if
# the players had been on them when they checked in.
trigger = con.execute("SELECT sql FROM sqlite_master WHERE name = 'checkins_no_update'").fetchone()[0]
with con:
    con.execute("DROP TRIGGER checkins_no_update")
    con.executemany(
        "INSERT INTO teams(id, hunt_id, name, name_key, join_code, created_at) VALUES (?, ?, ?, ?, ?, '2026-11-01T00:00:00Z')",
        ((t + 1, hunt, f"Team {t:05d}", f"team {t:05d}", f"T{t:07d}") for t in range(len(players) // size)))
    con.executemany(
        "INSERT INTO team_members(team_id, hunt_id, player_id, joined_at) VALUES (?, ?, ?, '2026-11-01T00:00:00Z')",
        ((i // size + 1, hunt, p) for i, p in enumerate(players)))
    con.execute("""UPDATE checkins SET team_id = (SELECT team_id FROM team_members m
                   WHERE m.hunt_id = checkins.hunt_id AND m.player_id = checkins.player_id)
                   WHERE hunt_id = ?""", (hunt,))
    con.execute(trigger)
con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
PY
# The teams' running totals, as the service keeps them (the check-ins were changed behind its back).
$BIN rescore --db "$B/league.sqlite" --hunts hunts >/dev/null || exit 1
TEAM_CHECKINS=$(python3 -c "import sqlite3; print(sqlite3.connect('$B/league.sqlite').execute('SELECT COUNT(*) FROM checkins WHERE team_id IS NOT NULL').fetchone()[0])")
trap '[ -n "${PID:-}" ] && kill "$PID" 2>/dev/null' EXIT
# first PATH: a fresh server's first answer to GET PATH, in milliseconds (time to the last byte).
first() {
  $BIN serve --port 0 --db "$B/league.sqlite" --hunts hunts > "$B/serve.out" 2> "$B/serve.log" &
  PID=$!
  for _ in $(seq 1 400); do grep -q "^listening on" "$B/serve.out" 2>/dev/null && break; sleep 0.025; done
  local base; base=$(sed -n 's/^listening on //p' "$B/serve.out")
  [ -n "$base" ] || { echo "vsh serve did not start" >&2; exit 1; }
  curl -s -o "$B/body" -w '%{http_code} %{time_total} %{size_download}\n' "$base$1" > "$B/timing"
  kill -TERM $PID; wait $PID; PID=
  local code seconds bytes; read -r code seconds bytes < "$B/timing"
  [ "$code" = 200 ] || { echo "GET $1 answered $code" >&2; exit 1; }
  echo "$(python3 -c "print(f'{$seconds * 1000:.1f}')") $bytes"
}
ROWS=()
board() { # board NAME PATH
  local times=() bytes
  for ((i = 0; i < RUNS; i++)); do
    local out; out=$(first "$2") || exit 1
    times+=("${out% *}"); bytes=${out#* }
  done
  local range; range=$(python3 -c "import sys; v = sorted(float(x) for x in sys.argv[1:]); print(f'{v[0]:.1f}-{v[-1]:.1f}')" "${times[@]}")
  ROWS+=("| $1 | \`GET $2\` | $range ms | $(printf "%'d" "$bytes") bytes |")
}
board "players, all time" "/v1/leaderboard?limit=100"
board "players, one hunt" "/v1/leaderboard?hunt=downtown-fremont&limit=100"
board "teams, one hunt (20,000 teams)" "/v1/leaderboard?by=team&hunt=downtown-fremont&limit=100"
board "one team's page (rank among 20,000)" "/v1/teams/4242"
board "one player's profile" "/v1/players/Player%20004242"
echo "cold boards, $(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')): 100,000 players, 1,000,000 check-ins ($(printf "%'d" "$TEAM_CHECKINS") of them with a team); each the first request of a fresh \`vsh serve\`, best-worst of $RUNS"
echo
echo "| board | request | first answer | size |"
echo "| --- | --- | --- | --- |"
printf '%s\n' "${ROWS[@]}"
