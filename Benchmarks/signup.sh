#!/usr/bin/env bash
# make bench, the start line: 300 players sign up at once through nginx, the recommended reverse
# proxy (all from one address, as a venue's players behind its NAT), to a release `vsh serve
# --trust-proxy 127.0.0.1/32` on a fresh durable SpatiaLite league. Each player is a client that
# sends POST /v1/accounts and, answered 429 (a limit) or 503 (the password-hashing queue is full),
# waits the Retry-After it is given and tries again (Benchmarks/start_line.py). Prints a Markdown table: the time until all 300 are
# in, the answers, each sign-up's latency, and the CPU the service spent a sign-up (from /proc),
# beside one bcrypt hash at the default cost timed alone. Once at the default cost (12), once at
# `--password-cost 10`, the lowest the service allows (VSH_BENCH_PASSWORD_COSTS chooses).
set -uo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/nginx.sh
BIN=.build/release/vsh
D=bench-data/signup
PLAYERS=${VSH_BENCH_PLAYERS:-300}
rm -rf "$D" && mkdir -p "$D"
# One run at the default cost and one at the lowest the service allows, each on a fresh league.
COSTS_RUN=()
for COST in ${VSH_BENCH_PASSWORD_COSTS:-12 10}; do
rm -rf "$D/nginx" "$D"/vsh.sqlite* && mkdir -p "$D/nginx"
for tool in nginx python3; do
  command -v $tool >/dev/null || [ -x /usr/sbin/$tool ] || { echo "$tool is not installed (make bench installs it)" >&2; exit 1; }
done
$BIN sync --db "$D/vsh.sqlite" --hunts hunts >/dev/null || exit 1
trap '[ -n "${PID:-}" ] && kill "$PID" 2>/dev/null; [ -f "$D/nginx/nginx.pid" ] && kill "$(cat "$D/nginx/nginx.pid")" 2>/dev/null' EXIT
$BIN serve --port 0 --db "$D/vsh.sqlite" --hunts hunts --trust-proxy 127.0.0.1/32 --password-cost "$COST" > "$D/serve.out" 2> "$D/serve.log" &
PID=$!
for _ in $(seq 1 400); do grep -q "^listening on" "$D/serve.out" 2>/dev/null && break; sleep 0.025; done
BASE=$(sed -n 's/^listening on //p' "$D/serve.out")
[ -n "$BASE" ] || { echo "vsh serve did not start" >&2; exit 1; }
NGINX_PORT=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
nginx_start "$PWD/$D/nginx" "$NGINX_PORT" "location / {
    proxy_pass ${BASE};
    proxy_http_version 1.1;
    proxy_set_header Connection \"\";
    proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
    proxy_set_header X-Forwarded-Proto \$scheme;
    proxy_read_timeout 120s;
  }" || exit 1
sleep 0.3
python3 Benchmarks/start_line.py "http://127.0.0.1:$NGINX_PORT" "$PLAYERS" "$PID" > "$D/result-$COST.json" || exit 1
kill -TERM $PID; wait $PID
[ -f "$D/nginx/nginx.pid" ] && kill "$(cat "$D/nginx/nginx.pid")" 2>/dev/null
sleep 0.3
COSTS_RUN+=("$COST")
done
# One bcrypt hash at the service's cost, alone: `vsh player password` of a new player, minus the
# same command's time for a name that does not exist (start-up, database), best of five.
$BIN player add "Cost Probe" --db "$D/vsh.sqlite" --hunts hunts >/dev/null
best() { python3 - "$@" <<'PY'
import subprocess, sys, time
runs = []
for _ in range(5):
    began = time.monotonic()
    subprocess.run(sys.argv[1:], input=b"a long password\n", capture_output=True)
    runs.append(time.monotonic() - began)
print(min(runs) * 1000)
PY
}
WITH=$(best $BIN player password "Cost Probe" --db "$D/vsh.sqlite" --hunts hunts)
WITHOUT=$(best $BIN player password "Nobody At All" --db "$D/vsh.sqlite" --hunts hunts)
for COST in "${COSTS_RUN[@]}"; do
python3 - "$D/result-$COST.json" "$WITH" "$WITHOUT" "$PLAYERS" "$COST" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
hash_ms = float(sys.argv[2]) - float(sys.argv[3])
players, cost = int(sys.argv[4]), int(sys.argv[5])
created = r["statuses"].get("201", 0)
print(f"| {players} sign-ups at once through nginx, one address, `--password-cost {cost}` | {r['seconds']:.1f} s until all are in | "
      f"{r['p50_ms']:.0f} ms | {r['p99_ms']:.0f} ms | {created} created; {r['statuses'].get('429', 0)} answers 429 and {r['statuses'].get('503', 0)} 503, each retried after its Retry-After | "
      f"{r['cpu_s'] / max(created, 1) * 1000:.0f} ms of CPU a sign-up in vsh (one bcrypt hash at the default cost 12 alone: {hash_ms:.0f} ms; each step down halves it) |")
PY
done
