#!/usr/bin/env python3
"""The conformance corpus: fetch it into a folder and write the peers' answers beside it.

    python3 corpus/corpus.py fetch [--into corpus] [--source URL]
    python3 corpus/corpus.py reference [--into corpus]

`fetch` downloads every file of corpus/MANIFEST.tsv from SOURCE/<repository>/<commit>/<path>
(SOURCE is https://raw.githubusercontent.com unless --source or VSH_CORPUS_SOURCE names a mirror
laid out the same way) and keeps it only when its SHA-256 is the manifest's. A file already there
with the right SHA-256 is not fetched again. Exit 0 when every file is there, 69 when a source
cannot be reached, 65 when a file is not what the manifest says (nothing of it is kept).

`reference` writes reference/*.json, the answers the conformance tests compare vsh with:
exiftool (photos.json, photos_groups.json), gpxpy 1.6.2 and pyproj (gpx.json), shapely 2.2
(pip.json). Exit 69 when a peer is missing, naming how to install it.
"""

import argparse
import csv
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "MANIFEST.tsv")
HOLE_CASES = os.path.join(HERE, "HOLE_CASES.tsv")
DEFAULT_SOURCE = "https://raw.githubusercontent.com"
EXIFTOOL_TAGS = [
    "-GPSLatitude", "-GPSLongitude", "-GPSAltitude", "-GPSAltitudeRef", "-GPSDateStamp", "-GPSTimeStamp",
    "-GPSHPositioningError", "-DateTimeOriginal", "-OffsetTimeOriginal", "-Make", "-Model", "-Software",
    "-ImageWidth", "-ImageHeight",
]
EXIFTOOL_GROUP_TAGS = ["-*GPS*", "-File:ExifByteOrder", "-File:FileType", "-Warning", "-Error"]


def table(path):
    with open(path, newline="", encoding="utf-8") as f:
        lines = [line for line in f if not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch(into, source):
    rows = table(MANIFEST)
    fetched = kept = 0
    for row in rows:
        target = os.path.join(into, row["file"])
        if os.path.isfile(target) and sha256(target) == row["sha256"]:
            kept += 1
            continue
        url = f"{source.rstrip('/')}/{row['repository']}/{row['commit']}/{urllib.parse.quote(row['path'])}"
        try:
            with urllib.request.urlopen(url, timeout=60) as answer:
                # The manifest says how big the file is: read at most one byte more.
                body = answer.read(int(row["bytes"]) + 1)
        except urllib.error.HTTPError as e:
            print(f"make corpus: {row['file']}: {url} answered {e.code}", file=sys.stderr)
            return 65 if e.code == 404 else 69
        except (urllib.error.URLError, OSError, ValueError) as e:
            reason = getattr(e, "reason", e)
            print(f"make corpus: cannot reach {source} ({reason}); the corpus needs a network, "
                  f"or VSH_CORPUS_SOURCE naming a mirror laid out as <repository>/<commit>/<path>",
                  file=sys.stderr)
            return 69
        got = hashlib.sha256(body).hexdigest()
        if got != row["sha256"]:
            print(f"make corpus: {row['file']}: SHA-256 {got} from {url}, the manifest says "
                  f"{row['sha256']}; not kept", file=sys.stderr)
            return 65
        os.makedirs(os.path.dirname(target), exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".fetch-")
        with os.fdopen(fd, "wb") as f:
            f.write(body)
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
        fetched += 1
    print(f"make corpus: {len(rows)} files in {into} ({fetched} fetched, {kept} already there), "
          f"each matching its SHA-256 in corpus/MANIFEST.tsv")
    return 0


def write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(value, f, indent=1, ensure_ascii=False)
        f.write("\n")
    os.replace(path + ".tmp", path)


def exiftool_json(into, files, arguments):
    # exiftool exits 1 when a file has an error; its JSON still has an entry for every file.
    run = subprocess.run(["exiftool", "-n", "-json", *arguments, *files], cwd=into,
                         capture_output=True, check=False)
    entries = json.loads(run.stdout.decode("utf-8") or "[]")
    if len(entries) != len(files):
        raise SystemExit(f"make corpus: exiftool answered for {len(entries)} of {len(files)} photos")
    return entries


def photos_reference(into, rows):
    files = sorted(row["file"] for row in rows if row["file"].startswith("photos/"))
    write_json(os.path.join(into, "reference/photos.json"), exiftool_json(into, files, EXIFTOOL_TAGS))
    write_json(os.path.join(into, "reference/photos_groups.json"),
               exiftool_json(into, files, ["-G1", "-a", *EXIFTOOL_GROUP_TAGS]))
    return len(files)


def gpx_reference(into, rows):
    import gpxpy
    from pyproj import Geod

    geod = Geod(ellps="WGS84")
    answers = {}
    for name in sorted(row["file"] for row in rows if row["file"].startswith("gpx/")):
        try:
            with open(os.path.join(into, name), "rb") as f:
                gpx = gpxpy.parse(f)
        except Exception as e:  # gpxpy's own refusal is an answer too
            answers[name] = {"parsed": False, "error": f"{type(e).__name__}: {e}"}
            continue
        points = [p for t in gpx.tracks for s in t.segments for p in s.points]
        geodesic = 0.0
        for track in gpx.tracks:
            for segment in track.segments:
                for a, b in zip(segment.points, segment.points[1:]):
                    geodesic += geod.inv(a.longitude, a.latitude, b.longitude, b.latitude)[2]
        bounds = gpx.get_time_bounds()
        extremes = gpx.get_elevation_extremes()

        def point(p):
            return None if p is None else [p.latitude, p.longitude, p.elevation]

        def when(t):
            return None if t is None else t.isoformat()

        answers[name] = {
            "parsed": True,
            "gpx_version": gpx.version,
            "tracks": len(gpx.tracks),
            "segments": sum(len(t.segments) for t in gpx.tracks),
            "track_points": len(points),
            "waypoints": len(gpx.waypoints),
            "routes": len(gpx.routes),
            "route_points": sum(len(r.points) for r in gpx.routes),
            "length_2d_m": gpx.length_2d(),
            "length_2d_geodesic_m": geodesic,
            "time_bounds": {"start": when(bounds.start_time), "end": when(bounds.end_time)},
            "elevation_extremes": {"min": extremes.minimum, "max": extremes.maximum},
            "first_point": point(points[0] if points else None),
            "last_point": point(points[-1] if points else None),
        }
    import pyproj
    write_json(os.path.join(into, "reference/gpx.json"), {
        "tool": f"gpxpy {gpxpy.__version__ if hasattr(gpxpy, '__version__') else '1.6.2'}; "
                f"pyproj {pyproj.__version__} (PROJ {pyproj.proj_version_str}) for geodesic",
        "parse_call": "gpxpy.parse(open(path, 'rb'))",
        "field_notes": {
            "length_2d_geodesic_m": "sum over track segments of pyproj Geod(ellps='WGS84').inv distances",
            "time_bounds": "gpxpy GPX.get_time_bounds(): first and last trkpt time in document order",
            "elevation_extremes": "gpxpy GPX.get_elevation_extremes(): tracks only, points without ele ignored",
            "first_point/last_point": "[latitude, longitude, elevation] of the first and last track point",
        },
        "files": answers,
    })
    return len(answers)


def pip_reference(into, rows):
    import shapely
    from shapely.geometry import Point, shape

    def location(polygon, point):
        if polygon.contains(point):
            return "interior"
        return "boundary" if polygon.covers(point) else "exterior"

    fixtures = []
    for name in sorted(row["file"] for row in rows if row["file"].startswith("pip/")):
        if "__bpip__" in name or name.startswith("pip/turf-bpip__"):
            continue
        with open(os.path.join(into, name), encoding="utf-8") as f:
            features = json.load(f)["features"]
        kinds = [feature["geometry"]["type"] for feature in features]
        polygon_index = next(i for i, k in enumerate(kinds) if k in ("Polygon", "MultiPolygon"))
        point_index = kinds.index("Point")
        polygon = shape(features[polygon_index]["geometry"])
        xy = features[point_index]["geometry"]["coordinates"]
        point = Point(xy)
        predicate, verdict = name.split("/")[1].split("__")[0:2]
        fixtures.append({
            "file": name,
            "point": [float(xy[0]), float(xy[1])],
            "polygon_feature_index": polygon_index,
            "polygon_type": kinds[polygon_index],
            "polygon_valid": bool(polygon.is_valid),
            "turf_predicate": f"{predicate.removeprefix('turf-')}(features[0], features[1])",
            "turf_expected": verdict == "true",
            "shapely_location": location(polygon, point),
            "expected_inside_boundary_inclusive": bool(polygon.covers(point)),
            "expected_inside_strict": bool(polygon.contains(point)),
        })
    cases = []
    for case in table(HOLE_CASES):
        with open(os.path.join(into, case["polygon_file"]), encoding="utf-8") as f:
            document = json.load(f)
        geometry = document.get("geometry") or document["features"][0]["geometry"]
        polygon = shape(geometry)
        point = Point(float(case["longitude"]), float(case["latitude"]))
        cases.append({
            "source": "turf-boolean-point-in-polygon test.ts",
            "polygon_file": case["polygon_file"],
            "point": [point.x, point.y],
            "expected_turf_default": case["turf_inside"] == "true",
            "polygon_valid": bool(polygon.is_valid),
            "shapely_covers": bool(polygon.covers(point)),
            "shapely_contains": bool(polygon.contains(point)),
            "shapely_location": location(polygon, point),
        })
    write_json(os.path.join(into, "reference/pip.json"), {
        "tool": f"shapely {shapely.__version__} (GEOS {'.'.join(map(str, shapely.geos_version))})",
        "conventions": {
            "inside_boundary_inclusive": "shapely covers(polygon, point)",
            "inside_strict": "shapely contains(polygon, point)",
            "location": "interior | boundary | exterior per shapely",
        },
        "predicate_fixtures": fixtures,
        "bpip_cases": cases,
    })
    return len(fixtures) + len(cases)


def reference(into):
    rows = table(MANIFEST)
    missing = [row["file"] for row in rows if not os.path.isfile(os.path.join(into, row["file"]))]
    if missing:
        print(f"make corpus: {len(missing)} files are not in {into} (first: {missing[0]}); fetch first",
              file=sys.stderr)
        return 66
    absent = []
    if subprocess.run(["sh", "-c", "command -v exiftool"], capture_output=True).returncode != 0:
        absent.append("exiftool (Debian: libimage-exiftool-perl)")
    for module, package in (("gpxpy", "gpxpy==1.6.2"), ("shapely", "shapely==2.2.0"), ("pyproj", "pyproj")):
        try:
            __import__(module)
        except ImportError:
            absent.append(f"{module} (PyPI: {package})")
    if absent:
        print("make corpus: the reference answers need " + ", ".join(absent), file=sys.stderr)
        return 69
    photos = photos_reference(into, rows)
    tracks = gpx_reference(into, rows)
    pip = pip_reference(into, rows)
    print(f"make corpus: reference answers written to {os.path.join(into, 'reference')}: "
          f"{photos} photos (exiftool), {tracks} GPX files (gpxpy, pyproj), {pip} point-in-polygon cases (shapely)")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["fetch", "reference"])
    parser.add_argument("--into", default=os.path.join(os.path.dirname(HERE), "corpus"))
    parser.add_argument("--source", default=os.environ.get("VSH_CORPUS_SOURCE") or DEFAULT_SOURCE)
    arguments = parser.parse_args()
    if arguments.command == "fetch":
        return fetch(arguments.into, arguments.source)
    return reference(arguments.into)


if __name__ == "__main__":
    sys.exit(main())
