#!/usr/bin/env python3
"""Fills a vsh SpatiaLite league (made by `vsh`, so the schema is there) with COUNT accepted photo
check-ins at the stops of HUNT, each with a photo of its own: an 800 x 600 JPEG made by libjpeg's
`cjpeg` from a picture whose corner carries the check-in's number in pixels, so that no two photos
are alike. The photos go where `vsh serve` keeps them (DB.photos/ab/<sha256>.jpg, 0600). Used by the
photo-export test (EventTests.aLargePhotoExportStreamsInFlatMemory).

usage: many_photos.py DB HUNT COUNT
"""
import hashlib
import json
import os
import random
import sqlite3
import subprocess
import sys

db, hunt, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
W, H = 800, 600
# A gradient with a little grain (a fixed seed), so that each photo is about as large as a small
# phone picture (tens of kilobytes) and the whole export far larger than the server's memory.
grain = random.Random(7).randbytes(W * H * 3)
base = bytearray()
for y in range(H):
    base += bytes(v for x in range(W) for v in ((x * 255) // W, (y * 255) // H, ((x + y) * 255) // (W + H)))
base = bytearray(min(255, b + (g & 31)) for b, g in zip(base, grain))
header = f"P6\n{W} {H}\n255\n".encode()

con = sqlite3.connect(db)
stops = [row[0] for row in con.execute("SELECT id FROM stops WHERE hunt_id = ? ORDER BY position", (hunt,))]
if not stops:
    sys.exit(f"no stops in hunt {hunt}")
root = db + ".photos"
os.makedirs(root, mode=0o700, exist_ok=True)
rules = json.dumps([{"rule": "photo", "result": "passed", "detail": "made by the export test"}])
with con:
    con.executemany(
        "INSERT INTO players(name, name_key, email, created_at) VALUES (?, ?, NULL, '2026-11-01T00:00:00Z')",
        ((f"Export Player {i:02d}", f"export player {i:02d}") for i in range(20)))
    first = con.execute("SELECT min(id) FROM players WHERE name_key LIKE 'export player %'").fetchone()[0]
    rows = []
    for i in range(count):
        pixels = bytearray(base)
        # The number in a 32-bit band of 8 x 8 blocks, black or white, in the top-left corner.
        for bit in range(32):
            value = 255 if (i >> bit) & 1 else 0
            for y in range(8):
                start = (y * W + bit * 8) * 3
                pixels[start:start + 24] = bytes([value]) * 24
        jpeg = subprocess.run(["cjpeg", "-quality", "85"], input=header + bytes(pixels),
                              capture_output=True, check=True).stdout
        sha = hashlib.sha256(jpeg).hexdigest()
        key = f"{sha[:2]}/{sha}.jpg"
        os.makedirs(os.path.join(root, sha[:2]), mode=0o700, exist_ok=True)
        path = os.path.join(root, key)
        with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
            f.write(jpeg)
        epoch = 1_795_377_600 + i  # 2026-11-23T00:00:00Z onwards
        at = f"2026-11-23T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}Z"
        rows.append((first + i % 20, at, "photo", key, sha, sha, 36.1, -115.17, 5.0, at, epoch, hunt,
                     stops[i % len(stops)], "accepted", 0, rules))
    con.executemany(
        """INSERT INTO checkins(player_id, received_at, source, photo_file, photo_sha256, image_sha256, lat, lon,
           accuracy_m, fix_time, fix_epoch, hunt_id, stop_id, verdict, points, rules)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""", rows)
con.close()
print(count)
