#!/usr/bin/env python3
"""Make the replay fixtures in Fixtures/walks/: GPX walks across the shipped hunts and, beside
each, the timeline the organiser expects (<walk>.expected.jsonl).

A walk is a plan: legs along real streets at walking speed (or driving, for the pass-through) and
stays at stops. The GPX gets a fix every 5 s (30 s for the car) with seeded Gaussian GPS noise and
an accuracy (hAcc) of 5 m. The expected timeline comes from the plan, not from vsh: this script
finds, on the noiseless path, when each stop is entered and left (its own even-odd point-in-polygon
test on the hunt files' rings), and writes the events vsh must produce:

  enter      when the path enters a stop
  check-in   10 s later (the default --dwell), accepted with the stop's points, or rejected
  exit       when the path is clearly out (15 m past the boundary: vsh's 10 m buffer + the 5 m accuracy)
  hunt-complete  after the check-in that completes a hunt, with the hunt's bonus
  badge      after the check-in that earns it (hunts/badges.json), with the badge's points

The replay test compares event kinds, hunts, stops, verdicts and points exactly, and times within
30 s (GPS noise moves the first fix inside by a few samples).

Run from the project root: python3 Fixtures/scripts/make_walks.py   (standard library only)
"""
import json
import math
import os
import random
from datetime import datetime, timedelta, timezone

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "Fixtures", "walks")
START = datetime(2026, 11, 21, 18, 0, 0, tzinfo=timezone.utc)  # 10:00 in Las Vegas
WALK = 1.3  # m/s
DWELL = 10
EXIT_BUFFER = 15

STOPS = {}
HUNTS = {}
with open(os.path.join(ROOT, "hunts", "badges.json")) as f:
    BADGES = json.load(f)["badges"]
for name in ("strip-classics", "downtown-fremont"):
    with open(os.path.join(ROOT, "hunts", name + ".geojson")) as f:
        doc = json.load(f)
    HUNTS[name] = {"bonus": doc["hunt"]["bonus_points"], "stops": [feat["id"] for feat in doc["features"]],
                   "difficulty": doc["hunt"]["difficulty"]}
    for feat in doc["features"]:
        g = feat["geometry"]
        polys = [g["coordinates"]] if g["type"] == "Polygon" else g["coordinates"]
        STOPS[feat["id"]] = {"hunt": name, "points": feat["properties"]["points"], "polygons": polys}


def m_per_deg(lat):
    return 111132.92 - 559.82 * math.cos(2 * math.radians(lat)), 111412.84 * math.cos(math.radians(lat))


def in_ring(lat, lon, ring):
    inside = False
    for (x1, y1), (x2, y2) in zip(ring, ring[1:]):
        if (y1 > lat) != (y2 > lat):
            x = x1 + (lat - y1) * (x2 - x1) / (y2 - y1)
            if lon < x:
                inside = not inside
    return inside


def covers(stop, lat, lon):
    for poly in STOPS[stop]["polygons"]:
        if in_ring(lat, lon, poly[0]) and not any(in_ring(lat, lon, hole) for hole in poly[1:]):
            return True
    return False


def distance_to_stop(stop, lat, lon):
    """Metres to the nearest boundary segment (local flat approximation: fine at these scales)."""
    ml, mo = m_per_deg(lat)
    best = float("inf")
    for poly in STOPS[stop]["polygons"]:
        for ring in poly:
            for (x1, y1), (x2, y2) in zip(ring, ring[1:]):
                ax, ay = (x1 - lon) * mo, (y1 - lat) * ml
                bx, by = (x2 - lon) * mo, (y2 - lat) * ml
                dx, dy = bx - ax, by - ay
                t = max(0, min(1, -(ax * dx + ay * dy) / (dx * dx + dy * dy or 1)))
                best = min(best, math.hypot(ax + t * dx, ay + t * dy))
    return best


class Plan:
    """A walker's path: (time, lat, lon) each second, noiseless, split into GPX segments."""

    def __init__(self, start_lat, start_lon):
        self.t = START
        self.lat, self.lon = start_lat, start_lon
        self.segments = [[(self.t, self.lat, self.lon)]]

    def go(self, lat, lon, speed=WALK):
        ml, mo = m_per_deg(self.lat)
        dist = math.hypot((lat - self.lat) * ml, (lon - self.lon) * mo)
        steps = max(1, int(dist / speed))
        for i in range(1, steps + 1):
            f = i / steps
            self.t += timedelta(seconds=dist / speed / steps)
            self.segments[-1].append((self.t, self.lat + (lat - self.lat) * f, self.lon + (lon - self.lon) * f))
        self.lat, self.lon = lat, lon
        return self

    def stay(self, seconds):
        for _ in range(int(seconds)):
            self.t += timedelta(seconds=1)
            self.segments[-1].append((self.t, self.lat, self.lon))
        return self

    def teleport(self, lat, lon, after_seconds):
        """A new track segment somewhere else (a GPS jump, or a cheat)."""
        self.t += timedelta(seconds=after_seconds)
        self.lat, self.lon = lat, lon
        self.segments.append([(self.t, lat, lon)])
        return self


def sampled(plan, interval):
    """The noiseless positions at the fixes the GPX will have, per segment."""
    return [[fix for i, fix in enumerate(seg) if i % interval == 0 or i == len(seg) - 1] for seg in plan.segments]


def crosses(stop, a, b):
    """Whether the straight line between two fixes passes through a stop, and the middle of the pass."""
    hits = [k / 200 for k in range(201)
            if covers(stop, a[1] + (b[1] - a[1]) * k / 200, a[2] + (b[2] - a[2]) * k / 200)]
    return (hits[0] + hits[-1]) / 2 if hits else None


def new_badges(earned, visited_at, completed, checkins, t):
    """Badges (hunts/badges.json) whose rule first holds after an accepted check-in at t.
    The walks run at 10:00-11:20 in Las Vegas on one day, so time windows and day streaks never hold."""
    found = []
    for badge in BADGES:
        if badge["id"] in earned:
            continue
        rule = badge["rule"]
        kind = rule["kind"]
        holds = (
            (kind == "first_checkin" and checkins >= 1)
            or (kind == "stops_visited" and len(visited_at) >= rule["count"])
            or (kind == "hunts_completed" and len(completed) >= rule["count"])
            or (kind == "hunt_completed" and rule["hunt"] in completed)
            or (kind == "difficulty_completed" and all(h in completed for h, d in HUNTS.items() if d["difficulty"] == rule["difficulty"]))
            or (kind == "stops_within" and sum(1 for v in visited_at.values() if (t - v).total_seconds() <= rule["hours"] * 3600) >= rule["count"]))
        if holds:
            earned.add(badge["id"])
            found.append(badge)
    return found


def expected_events(plan, interval, speed_limit_kmh=200):
    """What the fixes (without their noise) must produce, by vsh's documented rules."""
    events, visits, visited, accepted_fixes, completed = [], {}, set(), [], set()
    visited_at, earned = {}, set()
    for seg in sampled(plan, interval):
        previous = None  # a new segment: no line is drawn from the last fix (GPX 1.1 trksegType)
        for fix in seg:
            t, lat, lon = fix
            inside = [stop for stop in STOPS if covers(stop, lat, lon)]
            if previous is not None:
                for stop in STOPS:
                    if stop in visits or stop in inside:
                        continue
                    f = crosses(stop, previous, fix)
                    if f is not None:
                        at = previous[0] + (t - previous[0]) * f
                        visits[stop] = {"enter": at, "checked": False, "out": None}
                        events.append((at, "enter", stop, 0, None))
            for stop in inside:
                if stop not in visits:
                    visits[stop] = {"enter": t, "checked": False, "out": None}
                    events.append((t, "enter", stop, 0, None))
                v = visits[stop]
                v["out"] = None
                if not v["checked"] and (t - v["enter"]).total_seconds() >= DWELL:
                    v["checked"] = True
                    fast = any(
                        math.hypot((lat - la) * m_per_deg(lat)[0], (lon - lo) * m_per_deg(lat)[1]) - 10
                        > speed_limit_kmh / 3.6 * max(1, abs((t - ft).total_seconds())) for ft, la, lo in accepted_fixes[-1:])
                    if fast:
                        events.append((t, "check-in", stop, 0, "rejected"))
                    else:
                        first = stop not in visited
                        visited.add(stop)
                        visited_at.setdefault(stop, t)
                        accepted_fixes.append((t, lat, lon))
                        events.append((t, "check-in", stop, STOPS[stop]["points"] if first else 0, "accepted"))
                        hunt = STOPS[stop]["hunt"]
                        if hunt not in completed and all(x in visited for x in HUNTS[hunt]["stops"]):
                            completed.add(hunt)
                            events.append((t, "hunt-complete", None, HUNTS[hunt]["bonus"], None, hunt))
                        for badge in new_badges(earned, visited_at, completed, len(accepted_fixes), t):
                            events.append((t, "badge", None, badge["points"], None, hunt, badge["id"]))
            for stop in list(visits):
                if stop in inside:
                    continue
                if distance_to_stop(stop, lat, lon) > EXIT_BUFFER:
                    if visits[stop]["out"] is None:
                        visits[stop]["out"] = t
                    else:
                        events.append((visits[stop]["out"], "exit", stop, 0, None))
                        del visits[stop]
                else:
                    visits[stop]["out"] = None
            previous = fix
    return events


def write(name, plan, seed, interval=5, noise=3.0, description=""):
    rng = random.Random(seed)
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<gpx version="1.1" creator="vsh Fixtures/scripts/make_walks.py" xmlns="http://www.topografix.com/GPX/1/1">',
        f"  <metadata><name>{name}</name><desc>{description}</desc></metadata>",
        f"  <trk><name>{name}</name>",
    ]
    for seg in plan.segments:
        lines.append("    <trkseg>")
        for i, (t, lat, lon) in enumerate(seg):
            if i % interval and i != len(seg) - 1:
                continue
            ml, mo = m_per_deg(lat)
            nlat = lat + rng.gauss(0, noise) / ml
            nlon = lon + rng.gauss(0, noise) / mo
            stamp = t.strftime("%Y-%m-%dT%H:%M:%SZ")
            lines.append(
                f'      <trkpt lat="{nlat:.7f}" lon="{nlon:.7f}"><ele>{610 + rng.gauss(0, 2):.1f}</ele>'
                f"<time>{stamp}</time><extensions><hAcc>5</hAcc></extensions></trkpt>")
        lines.append("    </trkseg>")
    lines += ["  </trk>", "</gpx>", ""]
    with open(os.path.join(OUT, name + ".gpx"), "w") as f:
        f.write("\n".join(lines))
    with open(os.path.join(OUT, name + ".expected.jsonl"), "w") as f:
        for e in expected_events(plan, interval):
            t, kind, stop, points, verdict = e[:5]
            hunt = e[5] if len(e) > 5 else STOPS[stop]["hunt"]
            record = {"time": t.strftime("%Y-%m-%dT%H:%M:%SZ"), "event": kind, "hunt": hunt, "stop": stop,
                      "points": points, "verdict": verdict}
            if kind == "badge":
                record["badge"] = e[6]
            f.write(json.dumps(record) + "\n")


os.makedirs(OUT, exist_ok=True)

# 1. South Strip: the Welcome sign, Luxor's Sphinx and New York-New York, walking up the east
#    sidewalk of Las Vegas Boulevard (lon -115.1722) and crossing over to each frontage.
p = Plan(36.08150, -115.17274)
p.stay(120).go(36.08300, -115.17274).go(36.08350, -115.17220).go(36.09560, -115.17220)
p.go(36.09570, -115.17400).stay(90).go(36.09570, -115.17220).go(36.10200, -115.17220)
p.go(36.10200, -115.17360).stay(90).go(36.10200, -115.17220).go(36.10500, -115.17220)
write("strip-south", p, 1, description="Welcome sign, Sphinx, Lady Liberty on foot")

# 2. Jitter on a boundary: standing 2 m inside the High Roller's plaza (a 70 m circle) for five
#    minutes with 4 m GPS noise, fixes fall on both sides; then walking away east.
ml, mo = m_per_deg(36.1175)
edge = (36.1175, -115.1681 + 68 / mo)
p = Plan(36.1175, -115.1681 + 140 / mo)
p.go(*edge).stay(300).go(36.1175, -115.1681 + 200 / mo)
write("high-roller-jitter", p, 2, noise=4.0, description="standing on the plaza's edge")

# 3. A pass-through by car: Sands Avenue past the Sphere at 15 m/s with a fix every 30 s, so no
#    fix falls inside the 125 m circle; the segment between two fixes crosses it.
p = Plan(36.12056 + 700 / m_per_deg(36.12)[0], -115.16139)
p.go(36.12056 - 700 / m_per_deg(36.12)[0], -115.16139, speed=15)
write("sphere-pass-through", p, 3, interval=30, noise=2.0, description="driving past the Sphere")

# 4. Downtown: under the Fremont Street canopy, then up Las Vegas Boulevard North past the Mob
#    Museum (120 m away: it is missed) to the Neon Museum.
p = Plan(36.17150, -115.14600)
p.go(36.17040, -115.14390).stay(40).go(36.16946, -115.14180).go(36.17300, -115.13860)
p.go(36.17620, -115.13550).stay(60).go(36.17700, -115.13300)
write("fremont-misses-mob", p, 4, description="Fremont Street and the Neon Museum; the Mob Museum is missed")

# 5. A teleport: a check-in at the Welcome sign, then two minutes later a fix 10 km north under
#    the Fremont Street canopy (a new track segment).
p = Plan(36.08150, -115.17274)
p.stay(60).teleport(36.17072, -115.14453, 120).stay(60)
write("teleport", p, 5, description="the Welcome sign, then Fremont Street two minutes later")

# 6. All of Downtown & Fremont in one loop: the hunt is completed and its bonus earned.
p = Plan(36.17150, -115.14600)
p.go(36.17072, -115.14453).stay(30).go(36.16946, -115.14180).go(36.16759, -115.13843).stay(60)
p.go(36.17200, -115.13500).go(36.17651, -115.13528).stay(60).go(36.17850, -115.13450)
p.go(36.18030, -115.13360).stay(60).go(36.17700, -115.13900).go(36.17282, -115.14125).stay(60)
p.go(36.17100, -115.14900).go(36.16750, -115.15250).stay(60).go(36.16300, -115.15250)
p.go(36.15880, -115.15250).stay(60)
write("downtown-complete", p, 6, description="every Downtown stop in one loop")
print("wrote", len(os.listdir(OUT)), "files to", OUT)
