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
import struct
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "Fixtures", "photos")

ASCII, BYTE, SHORT, LONG, RATIONAL, SRATIONAL, UNDEFINED = 2, 1, 3, 4, 5, 10, 7
SIZES = {ASCII: 1, BYTE: 1, SHORT: 2, LONG: 4, RATIONAL: 8, SRATIONAL: 8, UNDEFINED: 1}


def ifd_bytes(entries, offset, order):
    """One IFD at `offset`: entries (tag, type, values) sorted by tag, values
    that do not fit in 4 bytes placed after the IFD. Returns the bytes."""
    entries = sorted(entries, key=lambda e: e[0])
    head = struct.pack(order + "H", len(entries))
    data_offset = offset + 2 + 12 * len(entries) + 4
    body, data = b"", b""
    for tag, kind, values in entries:
        if kind in (ASCII, UNDEFINED):
            raw = values if isinstance(values, bytes) else values.encode() + b"\0"
            count = len(raw)
        elif kind in (RATIONAL, SRATIONAL):
            fmt = "I" if kind == RATIONAL else "i"
            raw = b"".join(struct.pack(order + fmt + fmt, n, d) for n, d in values)
            count = len(values)
        else:
            fmt = {BYTE: "B", SHORT: "H", LONG: "I"}[kind]
            raw = b"".join(struct.pack(order + fmt, v) for v in values)
            count = len(values)
        if len(raw) <= 4:
            body += struct.pack(order + "HHI", tag, kind, count)[:8] + raw.ljust(4, b"\0")
        else:
            body += struct.pack(order + "HHII", tag, kind, count, data_offset + len(data))
            data += raw
            if len(data) % 2:
                data += b"\0"
    return head + body + struct.pack(order + "I", 0) + data


def exif_block(ifd0, exif, gps, big_endian=True):
    """The APP1 payload: 'Exif\\0\\0' + a TIFF structure with IFD0, ExifIFD and GPS IFD."""
    order = ">" if big_endian else "<"
    header = (b"MM" if big_endian else b"II") + struct.pack(order + "HI", 42, 8)
    # Sizes do not depend on pointer values: lay out with placeholders, then for real.
    pointers = []
    if exif:
        pointers.append((0x8769, LONG, [0]))
    if gps:
        pointers.append((0x8825, LONG, [0]))
    size0 = len(ifd_bytes(ifd0 + pointers, 8, order))
    exif_offset = 8 + size0
    exif_size = len(ifd_bytes(exif, exif_offset, order)) if exif else 0
    gps_offset = exif_offset + exif_size
    real = []
    if exif:
        real.append((0x8769, LONG, [exif_offset]))
    if gps:
        real.append((0x8825, LONG, [gps_offset]))
    tiff = header + ifd_bytes(ifd0 + real, 8, order)
    if exif:
        tiff += ifd_bytes(exif, exif_offset, order)
    if gps:
        tiff += ifd_bytes(gps, gps_offset, order)
    return b"Exif\0\0" + tiff


def picture(seed, width=96, height=64):
    """A PPM picture with a pattern of its own."""
    rng = seed * 2654435761 % 2**32
    pixels = bytearray()
    for y in range(height):
        for x in range(width):
            r = int(128 + 127 * math.sin((x + seed * 7) / (5 + seed % 7)))
            g = int(128 + 127 * math.cos((y + rng % 13) / (4 + seed % 5)))
            b = (x * y + seed * 31) % 256
            pixels += bytes((r, g, b))
    return b"P6 %d %d 255\n" % (width, height) + bytes(pixels)


def jpeg_from_picture(seed):
    with tempfile.TemporaryDirectory() as tmp:
        ppm = os.path.join(tmp, "p.ppm")
        with open(ppm, "wb") as f:
            f.write(picture(seed))
        return subprocess.run(["cjpeg", "-quality", "85", ppm], check=True, capture_output=True).stdout


def with_exif(jpeg, app1_payload):
    """SOI, the EXIF APP1, then the rest of the JPEG without its JFIF APP0."""
    assert jpeg[:2] == b"\xff\xd8"
    rest = jpeg[2:]
    if rest[:2] == b"\xff\xe0":
        rest = rest[2 + struct.unpack(">H", rest[2:4])[0]:]
    return b"\xff\xd8" + b"\xff\xe1" + struct.pack(">H", len(app1_payload) + 2) + app1_payload + rest


# ---------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------
def degrees_only(value):
    """[d/10^7, 0/1, 0/1]: exactly the decimal value (a double read back equals the JSON's)."""
    return [(round(abs(value) * 10**7), 10**7), (0, 1), (0, 1)]


def dms(value):
    d = int(abs(value))
    m_full = (abs(value) - d) * 60
    m = int(m_full)
    s = round((m_full - m) * 60 * 10**4)
    return [(d, 1), (m, 1), (s, 10**4)]


def gps_ifd(lat, lon, when=None, accuracy=None, altitude=None, exact=False, lat_ref=True, lon_ref=True):
    coords = degrees_only if exact else dms
    entries = [(0x0000, BYTE, [2, 3, 0, 0])]
    if lat_ref:
        entries.append((0x0001, ASCII, "N" if lat >= 0 else "S"))
    entries.append((0x0002, RATIONAL, coords(lat)))
    if lon_ref:
        entries.append((0x0003, ASCII, "E" if lon >= 0 else "W"))
    entries.append((0x0004, RATIONAL, coords(lon)))
    if altitude is not None:
        entries += [(0x0005, BYTE, [1 if altitude < 0 else 0]), (0x0006, RATIONAL, [(round(abs(altitude) * 100), 100)])]
    if when is not None:
        date, time = when.split("T")
        h, m, s = time.rstrip("Z").split(":")
        entries += [
            (0x0007, RATIONAL, [(int(h), 1), (int(m), 1), (round(float(s) * 100), 100)]),
            (0x001D, ASCII, date.replace("-", ":")),
        ]
    if accuracy is not None:
        entries.append((0x001F, RATIONAL, [(round(accuracy * 100), 100)]))
    return entries


def camera(make="Apple", model="iPhone 15", software="17.1"):
    return [(0x010F, ASCII, make), (0x0110, ASCII, model), (0x0131, ASCII, software)]


def exif_times(local, offset="-08:00", subsec=None):
    entries = [(0x9000, UNDEFINED, b"0232"), (0x9003, ASCII, local)]
    if offset:
        entries.append((0x9011, ASCII, offset))
    if subsec:
        entries.append((0x9291, ASCII, subsec))
    return entries


def offset_point(lat, lon, north_m, east_m):
    m_lat = 111132.92 - 559.82 * math.cos(2 * math.radians(lat))
    m_lon = 111412.84 * math.cos(math.radians(lat))
    return lat + north_m / m_lat, lon + east_m / m_lon


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
