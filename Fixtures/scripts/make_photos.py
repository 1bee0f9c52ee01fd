#!/usr/bin/env python3
"""Make the fixture photos in Fixtures/photos/ (see Fixtures/README.md for what each is for).

Image data: a small picture drawn per fixture (a different pattern each, so that no two
fixtures are "the same photo" unless meant to be), compressed by cjpeg (Debian's
libjpeg-turbo-progs). EXIF: written here byte by byte (TIFF 6.0 / EXIF 2.32 layout), so
that the edge cases real cameras produce can be made on purpose: both byte orders,
SRATIONAL coordinates, 0/0 rationals, missing Refs, impossible dates.

Run from the project root: python3 Fixtures/scripts/make_photos.py
Needs: python3, cjpeg. Output is deterministic and committed.
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "Fixtures", "photos")

from jpegexif import *  # noqa: F401,F403 (the EXIF writer and value helpers)


# Landmarks and the Welcome sign's polygon, from the shipped hunt file.
with open(os.path.join(ROOT, "hunts", "strip-classics.geojson")) as f:
    strip = json.load(f)
sign_ring = strip["features"][0]["geometry"]["coordinates"][0]
SIGN = (36.082014, -115.172734)
SIGN_EAST_EDGE_LON = sign_ring[1][0]  # the ring's east side
SPHERE = (36.12056, -115.16139)
HIGH_ROLLER = (36.1175, -115.1681)
BELLAGIO = (36.1126, -115.1740)
EIFFEL = (36.11245, -115.17135)
FREMONT = (36.17072, -115.14453)

FIXTURES = []


def fixture(name, seed, ifd0=None, exif=None, gps=None, big_endian=True, base=None):
    jpeg = base if base is not None else jpeg_from_picture(seed)
    data = with_exif(jpeg, exif_block(ifd0 or camera(), exif or [], gps or [], big_endian))
    FIXTURES.append((name, data))
    return jpeg


T = "2026-11-21T19:30:00Z"  # 11:30 in Las Vegas (-08:00)
LOCAL = "2026:11:21 11:30:00"

sign_base = fixture("sign-inside.jpg", 1, exif=exif_times(LOCAL, subsec="25"), gps=gps_ifd(*SIGN, when=T, accuracy=5, altitude=659.5))
fixture("sign-retagged.jpg", 0, base=sign_base, ifd0=camera("Google", "Pixel 8", "edited"),
        exif=exif_times("2026:11:21 11:40:00"), gps=gps_ifd(*SIGN, when="2026-11-21T19:40:00Z", accuracy=3), big_endian=False)
vertex_lon, vertex_lat = sign_ring[0]
fixture("sign-vertex.jpg", 2, exif=exif_times(LOCAL), gps=gps_ifd(vertex_lat, vertex_lon, when=T, accuracy=4, exact=True), big_endian=False)
near = (SIGN[0], SIGN_EAST_EDGE_LON + 12 / (111412.84 * math.cos(math.radians(SIGN[0]))))
fixture("sign-near.jpg", 3, exif=exif_times(LOCAL), gps=gps_ifd(*near, when=T, accuracy=15))
outside = (SIGN[0], SIGN_EAST_EDGE_LON + 60 / (111412.84 * math.cos(math.radians(SIGN[0]))))
fixture("sign-outside.jpg", 4, exif=exif_times(LOCAL), gps=gps_ifd(*outside, when=T, accuracy=5))
fixture("far-away.jpg", 5, exif=exif_times(LOCAL), gps=gps_ifd(*offset_point(*SIGN, -2000, -1500), when=T, accuracy=5))
fixture("no-gps.jpg", 6, exif=exif_times(LOCAL))
fixture("gps-no-time.jpg", 7, exif=[(0x9000, UNDEFINED, b"0232")], gps=gps_ifd(*SPHERE, accuracy=5))
fixture("future.jpg", 8, exif=exif_times("2026:11:21 15:00:00"), gps=gps_ifd(*SPHERE, when="2026-11-21T23:00:00Z", accuracy=5))
fixture("too-old.jpg", 9, exif=exif_times("2026:11:18 11:30:00"), gps=gps_ifd(*HIGH_ROLLER, when="2026-11-18T19:30:00Z", accuracy=5))
fixture("poor-accuracy.jpg", 10, exif=exif_times(LOCAL), gps=gps_ifd(*BELLAGIO, when=T, accuracy=120))
fixture("clock-mismatch.jpg", 11, exif=exif_times("2026:11:21 13:30:00"), gps=gps_ifd(*EIFFEL, when=T, accuracy=5))
fixture("teleport-sign.jpg", 12, exif=exif_times(LOCAL), gps=gps_ifd(*SIGN, when=T, accuracy=5))
fixture("teleport-fremont.jpg", 13, exif=exif_times("2026:11:21 11:32:00"), gps=gps_ifd(*FREMONT, when="2026-11-21T19:32:00Z", accuracy=5))
fixture("null-island.jpg", 14, exif=exif_times(LOCAL), gps=gps_ifd(0.0, 0.0, when=T, accuracy=5))
fixture("sphere-camera-clock.jpg", 15, exif=exif_times("2026:11:21 11:45:00", offset=None),
        gps=[(0x0001, ASCII, "N"), (0x0002, RATIONAL, dms(SPHERE[0])), (0x0003, ASCII, "W"), (0x0004, RATIONAL, dms(SPHERE[1]))])

# EXIF edge cases for `vsh exif`.
zero_seconds = [(0x0001, ASCII, "N"), (0x0002, RATIONAL, [(36, 1), (492084, 100000), (0, 0)]),
                (0x0003, ASCII, "W"), (0x0004, RATIONAL, [(115, 1), (1036404, 100000), (0, 0)])]
fixture("edge-zero-seconds.jpg", 20, exif=exif_times(LOCAL), gps=zero_seconds)
zero_degrees = [(0x0001, ASCII, "N"), (0x0002, RATIONAL, [(0, 0), (4, 1), (55, 1)]),
                (0x0003, ASCII, "W"), (0x0004, RATIONAL, [(115, 1), (10, 1), (22, 1)])]
fixture("edge-zero-degrees.jpg", 21, exif=exif_times(LOCAL), gps=zero_degrees)
fixture("edge-no-ref.jpg", 22, exif=exif_times(LOCAL), gps=gps_ifd(*SIGN, when=T, lat_ref=False, lon_ref=False), big_endian=False)
signed = [(0x0001, ASCII, "N"), (0x0002, RATIONAL, dms(SIGN[0])),
          (0x0004, SRATIONAL, [(-115, 1), (-10, 1), (-224426, 10000)])]
fixture("edge-signed-no-ref.jpg", 23, exif=exif_times(LOCAL), gps=signed, big_endian=False)
fixture("edge-below-sea.jpg", 24, ifd0=camera("GoPro", "HERO12 Black", "H23.01"),
        exif=exif_times("2026:11:21 04:30:00", offset="-07:00", subsec="125"),
        gps=gps_ifd(36.2, -116.8, when="2026-11-21T11:30:00.5Z", altitude=-12.5, accuracy=2.5))
bad_dates = [(0x0001, ASCII, "N"), (0x0002, RATIONAL, dms(SIGN[0])), (0x0003, ASCII, "W"), (0x0004, RATIONAL, dms(SIGN[1])),
             (0x0007, RATIONAL, [(19, 1), (30, 1), (0, 1)]), (0x001D, ASCII, "2026:02:30")]
fixture("edge-bad-dates.jpg", 25, exif=[(0x9003, ASCII, "0000:00:00 00:00:00")], gps=bad_dates)

os.makedirs(OUT, exist_ok=True)
for name, data in FIXTURES:
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
# Broken files: not a JPEG, and a JPEG cut off inside its EXIF segment.
with open(os.path.join(OUT, "not-a-jpeg.jpg"), "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
with open(os.path.join(OUT, "truncated.jpg"), "wb") as f:
    f.write(dict(FIXTURES)["sign-inside.jpg"][:200])
print("wrote", len(FIXTURES) + 2, "photos to", OUT)
