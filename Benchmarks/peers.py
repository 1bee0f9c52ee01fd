#!/usr/bin/env python3
"""In-process peer measurements for `make bench` (each prints "rate units/s" or "n/a: reason").

  peers.py shapely HUNTS_DIR FIXES.csv     shapely 2: STRtree of prepared polygons, points queried with
                                           "intersects" (boundary included); rate of the query alone
  peers.py piexif PHOTO_DIR N / exifread PHOTO_DIR N
  peers.py etree FILE.gpx / gpxpy FILE.gpx
"""
import glob
import json
import os
import sys
import time


def shapely_rate(hunts, csv_path):
    import numpy as np
    import shapely
    polys = []
    for path in sorted(glob.glob(os.path.join(hunts, "*.geojson"))):
        for f in json.load(open(path))["features"]:
            rings = f["geometry"]["coordinates"]
            polys.append(shapely.Polygon(rings[0], rings[1:]))
    coords = np.loadtxt(csv_path, delimiter=",")
    points = shapely.points(coords[:, 1], coords[:, 0])
    shapely.prepare(polys)
    tree = shapely.STRtree(polys)
    start = time.perf_counter()
    tree.query(points, predicate="intersects")
    return len(points) / (time.perf_counter() - start)


def exif_rate(lib, folder, n):
    files = sorted(glob.glob(os.path.join(folder, "p*.jpg")))[:n]
    start = time.perf_counter()
    for path in files:
        if lib == "piexif":
            import piexif
            piexif.load(path).get("GPS")
        else:
            import exifread
            with open(path, "rb") as fh:
                exifread.process_file(fh, details=False).get("GPS GPSLatitude")
    return len(files) / (time.perf_counter() - start)


def gpx_rate(lib, path):
    start = time.perf_counter()
    count = 0
    if lib == "etree":
        import xml.etree.ElementTree as ET
        for _, element in ET.iterparse(path):
            if element.tag.endswith("trkpt"):
                float(element.get("lat")), float(element.get("lon"))
                count += 1
                element.clear()
    else:
        import gpxpy
        with open(path) as fh:
            gpx = gpxpy.parse(fh)
        count = sum(len(s.points) for t in gpx.tracks for s in t.segments)
    return count / (time.perf_counter() - start)


if __name__ == "__main__":
    try:
        kind = sys.argv[1]
        if kind == "shapely":
            rate = shapely_rate(sys.argv[2], sys.argv[3])
        elif kind in ("piexif", "exifread"):
            rate = exif_rate(kind, sys.argv[2], int(sys.argv[3]))
        else:
            rate = gpx_rate(kind, sys.argv[2])
        print(f"{rate:.0f}")
    except ImportError as error:
        print(f"n/a: {error}")
