#!/usr/bin/env python3
"""Downloads a `photos.zip` from a running `vsh serve` as a client does, a 64 KiB read at a time,
sampling the server's resident memory (VmRSS of /proc/PID/status) after every MiB, then reads the
archive back with `zipfile`. Prints one JSON object: bytes, samples [[bytes, rss_kib]], hwm_kib (the
server's VmHWM at the end), entries, photos, manifest_rows, bad (testzip's first bad entry or null),
not_jpeg (photos that do not start as a JPEG), with_exif (photos that still carry an Exif segment).

usage: stream_zip.py URL TOKEN PID OUT
"""
import csv
import io
import json
import sys
import urllib.request
import zipfile

url, token, pid, out = sys.argv[1:5]


def status(field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return None


request = urllib.request.Request(url, headers={"Authorization": "Bearer " + token})
samples, read, mark = [], 0, 0
with urllib.request.urlopen(request, timeout=300) as answer, open(out, "wb") as f:
    while True:
        chunk = answer.read(65536)
        if not chunk:
            break
        f.write(chunk)
        read += len(chunk)
        if read - mark >= 1 << 20:
            mark = read
            samples.append([read, status("VmRSS")])
hwm = status("VmHWM")

with zipfile.ZipFile(out) as archive:
    bad = archive.testzip()
    names = archive.namelist()
    photos = [n for n in names if n.startswith("photos/")]
    manifest = list(csv.DictReader(io.StringIO(archive.read("manifest.csv").decode("utf-8"), newline="")))
    not_jpeg = with_exif = 0
    for name in photos:
        data = archive.read(name)
        not_jpeg += not data.startswith(b"\xff\xd8\xff")
        with_exif += b"Exif\x00\x00" in data[:65536]
print(json.dumps({"bytes": read, "samples": samples, "hwm_kib": hwm, "entries": len(names), "photos": len(photos),
                  "manifest_rows": len(manifest), "bad": bad, "not_jpeg": not_jpeg, "with_exif": with_exif}))
