"""A start line: PLAYERS sign up at once at BASE (POST /v1/accounts), each a thread with its own
connection that, answered 429 (a limit) or 503 (the password-hashing queue is full), waits the
Retry-After it is given and tries again, as the web app's sign-up form lets a player do. With PID,
the CPU that process spent meanwhile (from /proc). Prints one JSON object: the seconds until all are
in, the count of each status, the CPU, and the answers' p50 and p99 latency.

Used by Benchmarks/signup.sh and by the start-line test (OperationsTests).
Usage: python3 Benchmarks/start_line.py BASE PLAYERS [PID]"""
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.request

base, players = sys.argv[1], int(sys.argv[2])
pid = sys.argv[3] if len(sys.argv) > 3 else None
tick = os.sysconf("SC_CLK_TCK")


def cpu():
    if pid is None:
        return 0.0
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / tick


latencies, statuses, lock = [], {}, threading.Lock()


def player(i):
    body = json.dumps({"username": f"Start Line {i:03d}", "email": f"start{i}@example.org",
                       "password": "a long password"}).encode()
    while True:
        request = urllib.request.Request(base + "/v1/accounts", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        began = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=120) as answer:
                status, wait = answer.status, 0
        except urllib.error.HTTPError as error:
            status, wait = error.code, int(error.headers.get("Retry-After") or 1)
        with lock:
            latencies.append(time.monotonic() - began)
            statuses[status] = statuses.get(status, 0) + 1
        if status not in (429, 503):
            return
        time.sleep(wait)


cpu_before, began = cpu(), time.monotonic()
threads = [threading.Thread(target=player, args=(i,)) for i in range(players)]
for t in threads:
    t.start()
for t in threads:
    t.join()
elapsed, cpu_spent = time.monotonic() - began, cpu() - cpu_before
latencies.sort()
print(json.dumps({"seconds": elapsed, "statuses": statuses, "cpu_s": cpu_spent,
                  "p50_ms": latencies[len(latencies) // 2] * 1000,
                  "p99_ms": latencies[int(len(latencies) * 0.99)] * 1000}))
