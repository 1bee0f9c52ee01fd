"""EXIF and JPEG helpers for the fixture scripts: a byte-level TIFF/EXIF 2.32 writer (both byte
orders, SRATIONALs, any rational, 0/0 included), small pictures compressed by cjpeg, and the APP1
splice. Used by make_photos.py and make_authoring.py. Standard library and cjpeg only."""
import math
import os
import struct
import subprocess
import tempfile

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


