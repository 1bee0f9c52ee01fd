#!/usr/bin/env python3
"""make bench: distinct JPEG photos with GPS at the Welcome sign, as a phone sends them.

Usage: make_photos.py OUT COUNT WIDTH HEIGHT SEED PREFIX

Noise pixels, so that the JPEG does not shrink (460 x 345 at quality 80 is about 100 KB; 2048 x 1536
about 2 MB), each with a camera's EXIF and a GPS fix; OUT/list.txt lists their absolute paths.
A restart marker ends each row of blocks and the headers are the same in all of them, so that
Benchmarks/wrk/upload.lua can make a new picture for every request from rows of these.
"""
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Fixtures", "scripts"))
from jpegexif import camera, exif_block, exif_times, gps_ifd, with_exif  # noqa: E402


def photos(out, count, width, height, seed, prefix):
    os.makedirs(out, exist_ok=True)
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp, open(os.path.join(out, "list.txt"), "w") as listing:
        for i in range(count):
            ppm = os.path.join(tmp, "p.ppm")
            with open(ppm, "wb") as fh:
                fh.write(b"P6 %d %d 255\n" % (width, height) + rng.randbytes(width * height * 3))
            jpeg = subprocess.run(["cjpeg", "-quality", "80", "-restart", "1", ppm], check=True, capture_output=True).stdout
            app1 = exif_block(camera(), exif_times("2026:11:21 11:58:00"),
                              gps_ifd(36.082014, -115.172734, when="2026-11-21T19:58:00Z", accuracy=5))
            path = os.path.join(out, f"{prefix}{i:02d}.jpg")
            with open(path, "wb") as fh:
                fh.write(with_exif(jpeg, app1))
            listing.write(os.path.abspath(path) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    out, count, width, height, seed, prefix = sys.argv[1:]
    photos(out, int(count), int(width), int(height), int(seed), prefix)
