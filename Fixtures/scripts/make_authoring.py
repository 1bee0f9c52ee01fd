#!/usr/bin/env python3
"""Make the vsh-master fixtures in Fixtures/authoring/ (see Fixtures/README.md).

  plaza-perimeter.gpx   an organiser walking the edge of Caesars Palace's fountain forecourt, a
                        60 x 40 m rectangle, with GPS noise, a jitter loop where the walk starts
                        and ends, and one place where the walker crossed their own path (a figure
                        of eight in one corner): vsh-master must clean both and keep the rectangle
  open-walk.gpx         a walk that does not come back to its start (it ends 150 m away): refused
  corner-ne.jpg ... corner-sw.jpg
                        photos taken at the four corners of a 50 x 50 m square around El Cortez,
                        with EXIF GPS (the first becomes the stop's image)

Run from the project root: python3 Fixtures/scripts/make_authoring.py   (python3 and cjpeg)
"""
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jpegexif import camera, exif_block, exif_times, gps_ifd, jpeg_from_picture, with_exif  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "Fixtures", "authoring")
os.makedirs(OUT, exist_ok=True)


def m_per_deg(lat):
    return 111132.92 - 559.82 * math.cos(2 * math.radians(lat)), 111412.84 * math.cos(math.radians(lat))


def local(center, north, east):
    ml, mo = m_per_deg(center[0])
    return center[0] + north / ml, center[1] + east / mo


def write_gpx(name, points, seed, noise=1.5):
    rng = random.Random(seed)
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<gpx version="1.1" creator="vsh Fixtures/scripts/make_authoring.py" xmlns="http://www.topografix.com/GPX/1/1">',
             f"<trk><name>{name}</name><trkseg>"]
    for i, (north, east) in enumerate(points):
        lat, lon = local(CAESARS, north + rng.gauss(0, noise), east + rng.gauss(0, noise))
        lines.append(f'<trkpt lat="{lat:.7f}" lon="{lon:.7f}"><time>2026-11-20T17:{i // 30:02d}:{(i * 2) % 60:02d}Z</time></trkpt>')
    lines += ["</trkseg></trk>", "</gpx>", ""]
    with open(os.path.join(OUT, name), "w") as f:
        f.write("\n".join(lines))


def edge(a, b, step=2.0):
    n = max(1, int(math.hypot(b[0] - a[0], b[1] - a[1]) / step))
    return [(a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n) for i in range(n)]


CAESARS = (36.11620, -115.17330)
# The rectangle (north, east offsets in metres), walked counterclockwise from the south-west corner.
sw, se, ne, nw = (-20, -30), (-20, 30), (20, 30), (20, -30)
walk = [(-23, -33), (-19, -31), (-22, -27)]  # dithering at the start (a jitter loop)
walk += edge(sw, se) + edge(se, ne)
# In the north-east corner the walker steps past the corner and back, crossing their path.
walk += [(22, 30), (24, 34), (18, 34), (20, 28)]
walk += edge(ne, nw) + edge(nw, sw)
walk += [(-22, -32), (-18, -29), (-21, -31)]  # back where they began, dithering again
write_gpx("plaza-perimeter.gpx", walk, 1)
write_gpx("open-walk.gpx", edge(sw, se) + edge(se, ne) + edge(ne, (150, 120)), 2)

EL_CORTEZ = (36.16900, -115.13970)
for i, (name, north, east) in enumerate([("corner-ne", 25, 25), ("corner-nw", 25, -25), ("corner-sw", -25, -25), ("corner-se", -25, 25)]):
    lat, lon = local(EL_CORTEZ, north, east)
    data = with_exif(jpeg_from_picture(40 + i), exif_block(camera("Apple", "iPhone 15", "17.1"),
                                                            exif_times("2026:11:20 09:0%d:00" % i),
                                                            gps_ifd(lat, lon, when="2026-11-20T17:0%d:00Z" % i, accuracy=4)))
    with open(os.path.join(OUT, name + ".jpg"), "wb") as f:
        f.write(data)
print("wrote", len(os.listdir(OUT)), "files to", OUT)
