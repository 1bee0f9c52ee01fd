#!/usr/bin/env python3
"""Fill a vsh database with a league for `make bench`: P players (default 100,000) and C accepted
check-ins (default 1,000,000) at the shipped stops over a month, fixed seed. The database must
exist (made by vsh, which creates the schema); scores are then computed by `vsh rescore`.

usage: make_league.py DB [PLAYERS] [CHECKINS]
"""
import json
import random
import sqlite3
import sys

db, players, checkins = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 100_000, int(sys.argv[3]) if len(sys.argv) > 3 else 1_000_000
rng = random.Random(5)
con = sqlite3.connect(db)
stops = con.execute("SELECT s.id, s.hunt_id FROM stops s").fetchall()
rules = json.dumps([{"rule": "at_stop", "result": "passed", "detail": "bench"}])
with con:
    con.executemany(
        "INSERT INTO players(name, name_key, email, created_at) VALUES (?, ?, NULL, '2026-11-01T00:00:00Z')",
        ((f"Player {i:06d}", f"player {i:06d}") for i in range(players)))
    base = 1_793_491_200  # 2026-11-01T00:00:00Z
    def rows():
        for i in range(checkins):
            player = rng.randrange(players) + 1
            stop, hunt = stops[rng.randrange(len(stops))]
            t = base + rng.randrange(30 * 86400)
            yield (player, "2026-11-21T20:00:00Z", "device", None, None, None, 36.1, -115.17, 5.0,
                   "2026-11-21T20:00:00Z", t, hunt, stop, "accepted", 0, rules)
    con.executemany(
        """INSERT INTO checkins(player_id, received_at, source, photo_file, photo_sha256, image_sha256, lat, lon,
           accuracy_m, fix_time, fix_epoch, hunt_id, stop_id, verdict, points, rules)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""", rows())
con.close()
