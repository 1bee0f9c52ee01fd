#!/usr/bin/env python3
"""Make the hostile inputs in Fixtures/hostile/ (see Fixtures/README.md): files built to break a
reader, each with the answer vsh must give (Tests/EndToEndTests/HostileInputTests.swift).

  encoding-shift-jis.gpx     found by `make fuzz`: text that is not valid in its declared
                             encoding; libxml2 stopped without an error callback, vsh said
                             "0 points" and exit 0 (now: one line, exit 65)
  billion-laughs.gpx         nested entities that expand to gigabytes: never expanded
  external-entity.gpx        an entity naming file:///etc/passwd: never read
  deep-nesting.gpx           100,000 nested elements inside a track point: refused (libxml2's depth limit)
  deep-nesting.geojson       100,000 nested arrays as coordinates: refused (the JSON depth limit)
  huge-number.geojson        a coordinate of 1e999 (infinity in most parsers): refused
  control-characters.geojson a stop name with a terminal escape sequence: refused
  rtl-override.geojson       a stop name with a right-to-left override: refused
  absurd-dimensions.jpg      a 4 kB JPEG whose frame header claims 65,500 x 65,500 pixels:
                             refused before decoding
  exif-loop.jpg              an EXIF block whose IFD chain points back to itself: read once, no hang

Run from the project root: python3 Fixtures/scripts/make_hostile.py   (python3 only)
"""
import json
import os
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "Fixtures", "hostile")
os.makedirs(OUT, exist_ok=True)


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as fh:
        fh.write(data if isinstance(data, bytes) else data.encode("utf-8"))


GPX_HEAD = '<gpx version="1.1" creator="vsh" xmlns="http://www.topografix.com/GPX/1/1">'
write("encoding-shift-jis.gpx",
      b'<?xml version="1.0" encoding="Shift_JIS"?>\n' + GPX_HEAD.encode() +
      b'<trk><trkseg><trkpt lat="36.1" lon="-115.1"><name>\x81\x00\x00\x00</name></trkpt></trkseg></trk></gpx>\n')

laughs = ['<!ENTITY lol0 "lol">'] + [f'<!ENTITY lol{i} "{("&lol%d;" % (i - 1)) * 10}">' for i in range(1, 10)]
write("billion-laughs.gpx",
      '<?xml version="1.0"?>\n<!DOCTYPE gpx [\n' + "\n".join(laughs) + "\n]>\n" + GPX_HEAD +
      '<trk><name>&lol9;</name><trkseg><trkpt lat="36.1" lon="-115.1"><time>2026-11-21T19:30:00Z</time></trkpt>'
      "</trkseg></trk></gpx>\n")

write("external-entity.gpx",
      '<?xml version="1.0"?>\n<!DOCTYPE gpx [<!ENTITY secret SYSTEM "file:///etc/passwd">]>\n' + GPX_HEAD +
      '<trk><name>&secret;</name><trkseg><trkpt lat="36.1" lon="-115.1"><time>2026-11-21T19:30:00Z</time></trkpt>'
      "</trkseg></trk></gpx>\n")

write("deep-nesting.gpx",
      '<?xml version="1.0"?>\n' + GPX_HEAD + '<trk><trkseg><trkpt lat="36.1" lon="-115.1"><extensions>' +
      "<x>" * 100_000 + "</x>" * 100_000 + "</extensions></trkpt></trkseg></trk></gpx>\n")


def hunt(stop_name="Welcome sign", coordinates=None):
    ring = coordinates or [[-115.1729, 36.0819], [-115.1725, 36.0819], [-115.1725, 36.0822], [-115.1729, 36.0822], [-115.1729, 36.0819]]
    return {
        "type": "FeatureCollection",
        "hunt": {"id": "hostile", "name": "Hostile", "difficulty": "easy"},
        "features": [{"type": "Feature", "id": "sign", "properties": {"name": stop_name, "points": 10},
                      "geometry": {"type": "Polygon", "coordinates": [ring]}}],
    }


write("deep-nesting.geojson", json.dumps(hunt()).replace('"coordinates": [[', '"coordinates": ' + "[" * 100_000 + "]" * 100_000 + ', "x": [[', 1))
write("huge-number.geojson", json.dumps(hunt()).replace("-115.1725, 36.0819", "-115.1725, 1e999", 1))
write("control-characters.geojson", json.dumps(hunt("Welcome \x1b[2J\x1b[31msign")))
write("rtl-override.geojson", json.dumps(hunt("Welcome \u202esign")))


def segments(data):
    """(marker, start, end) of each segment before the scan; the scan's start."""
    i, out = 2, []
    while data[i] == 0xFF and data[i + 1] != 0xDA:
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        out.append((data[i + 1], i, i + 2 + length))
        i += 2 + length
    return out, i


base = open(os.path.join(ROOT, "Fixtures", "photos", "sign-inside.jpg"), "rb").read()
segs, scan = segments(base)

# The frame header's height and width (SOF0..SOF2: FFC0-FFC2, length, precision, then H, W).
sof = next(s for m, s, e in segs if m in (0xC0, 0xC1, 0xC2))
absurd = bytearray(base)
absurd[sof + 5:sof + 9] = struct.pack(">HH", 65500, 65500)
write("absurd-dimensions.jpg", bytes(absurd))

# The IFD0 "next IFD" pointer set to IFD0 itself: a cycle.
app1 = next(s for m, s, e in segs if m == 0xE1 and base[s + 4:s + 10] == b"Exif\0\0")
tiff = app1 + 10
endian = "<" if base[tiff:tiff + 2] == b"II" else ">"
ifd0 = struct.unpack(endian + "I", base[tiff + 4:tiff + 8])[0]
count = struct.unpack(endian + "H", base[tiff + ifd0:tiff + ifd0 + 2])[0]
looped = bytearray(base)
pointer = tiff + ifd0 + 2 + 12 * count
looped[pointer:pointer + 4] = struct.pack(endian + "I", ifd0)
write("exif-loop.jpg", bytes(looped))
print(f"wrote {len(os.listdir(OUT))} files to {OUT}")
