#!/usr/bin/env python3
"""The synthetic Las Vegas world for `make bench` (fixed seeds, written to bench-data/, not in git).

  world.py stops OUT_DIR M      hunt files with M stops: star-shaped polygons 30-300 m across with
                                8-40 vertices, one in ten with a hole, over 30 x 30 km of the valley,
                                at most 5,000 stops a file
  world.py fixes OUT.csv N      N uniform "lat,lon" fixes over the same area
  world.py photos OUT_DIR N     N small JPEGs with EXIF GPS at Strip landmarks, each with pixels of
                                its own (16 pictures, each quantised 3,600 ways), and
                                three 12-megapixel photos (cjpeg; not with --no-big)
"""
import json
import math
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "Fixtures", "scripts"))
CENTER = (36.17, -115.14)
SPAN = 0.27  # degrees of latitude, about 30 km


def star(rng, lat, lon, radius_deg, n, scale=1.0, clockwise=False):
    angles = [(k + rng.random() * 0.8) / n * 2 * math.pi for k in range(n)]
    if clockwise:
        angles.reverse()
    ring = []
    for a in angles:
        r = radius_deg * scale * (0.55 + rng.random() * 0.45)
        ring.append([round(lon + r * math.cos(a) / math.cos(math.radians(lat)), 7), round(lat + r * math.sin(a), 7)])
    ring.append(ring[0])
    return ring


def stops(out, m):
    rng = random.Random(1000 + m)
    os.makedirs(out, exist_ok=True)
    per_file = 5000
    for f in range((m + per_file - 1) // per_file):
        features = []
        for i in range(f * per_file, min(m, (f + 1) * per_file)):
            lat = CENTER[0] + (rng.random() - 0.5) * SPAN
            lon = CENTER[1] + (rng.random() - 0.5) * SPAN / math.cos(math.radians(CENTER[0]))
            radius = (15 + rng.random() * 135) / 111000
            rings = [star(rng, lat, lon, radius, 8 + rng.randrange(33))]
            if i % 10 == 0:
                rings.append(star(rng, lat, lon, radius, 6, scale=0.3, clockwise=True))
            features.append({"type": "Feature", "id": f"w{i}", "properties": {"name": f"Stop {i}", "points": 10},
                             "geometry": {"type": "Polygon", "coordinates": rings}})
        doc = {"type": "FeatureCollection", "hunt": {"id": f"world-{f}", "name": f"World {f}", "timezone": "America/Los_Angeles"},
               "features": features}
        with open(os.path.join(out, f"world-{f}.geojson"), "w") as fh:
            json.dump(doc, fh, separators=(",", ":"))


def fixes(out, n):
    rng = random.Random(2000 + n)
    with open(out, "w") as fh:
        for _ in range(n):
            lat = CENTER[0] + (rng.random() - 0.5) * SPAN
            lon = CENTER[1] + (rng.random() - 0.5) * SPAN / math.cos(math.radians(CENTER[0]))
            fh.write(f"{lat:.7f},{lon:.7f}\n")


def segments(data):
    """(marker, start, end) of each segment before the scan, and the scan's start."""
    i, out = 2, []
    while i < len(data):
        marker = data[i + 1]
        length = int.from_bytes(data[i + 2:i + 4], "big")
        out.append((marker, i, i + 2 + length))
        if marker == 0xDA:
            return out, i + 2 + length
        i += 2 + length
    raise ValueError("no scan")


def photos(out, n, big=True):
    from jpegexif import camera, exif_block, exif_times, gps_ifd, jpeg_from_picture, with_exif
    os.makedirs(out, exist_ok=True)
    # 16 pictures (cjpeg), each made into many by its quantisation table: the DC entry and the
    # first AC entry of table 0 set to one of 60 values each. Every file decodes whole (flipped
    # scan bytes, used before, could corrupt the data, which check-ins now refuse) and to
    # pixels of its own.
    bases = []
    for seed in range(16):
        jpeg = jpeg_from_picture(40 + seed)
        segs, _ = segments(jpeg)
        dqt = next(s for m, s, e in segs if m == 0xDB)
        assert jpeg[dqt + 4] == 0x00, "table 0, 8-bit entries"
        bases.append((jpeg, dqt + 5))
    landmarks = [(36.082014, -115.172734), (36.12056, -115.16139), (36.1175, -115.1681), (36.1126, -115.174)]
    for i in range(n):
        jpeg, table = bases[i % 16]
        data = bytearray(jpeg)
        k = i // 16
        data[table] = 2 + k % 60
        data[table + 1] = 2 + (k // 60) % 60
        lat, lon = landmarks[i % len(landmarks)]
        minute = i % 600
        stamp = f"2026-11-21T{10 + minute // 60:02d}:{minute % 60:02d}:00Z"
        app1 = exif_block(camera(), exif_times(f"2026:11:21 {2 + minute // 60:02d}:{minute % 60:02d}:00"),
                          gps_ifd(lat, lon, when=stamp, accuracy=5))
        with open(os.path.join(out, f"p{i:05d}.jpg"), "wb") as fh:
            fh.write(with_exif(bytes(data), app1))
    # Three 12-megapixel photos (4000 x 3000), for the limits of decoding and hashing.
    if not big:
        return
    with tempfile.TemporaryDirectory() as tmp:
        for j in range(3):
            ppm = os.path.join(tmp, "big.ppm")
            with open(ppm, "wb") as fh:
                fh.write(b"P6 4000 3000 255\n")
                row = bytes((x * 7 + j * 50) % 256 for x in range(12000))
                for y in range(3000):
                    fh.write(row[y % 97:] + row[:y % 97])
            jpeg = subprocess.run(["cjpeg", "-quality", "90", ppm], check=True, capture_output=True).stdout
            app1 = exif_block(camera(), exif_times("2026:11:21 11:00:00"), gps_ifd(*landmarks[j], when="2026-11-21T19:00:00Z", accuracy=5))
            with open(os.path.join(out, f"big-{j}.jpg"), "wb") as fh:
                fh.write(with_exif(jpeg, app1))


if __name__ == "__main__":
    kind, target, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if kind == "photos":
        photos(target, count, big="--no-big" not in sys.argv[4:])
    else:
        {"stops": stops, "fixes": fixes}[kind](target, count)
