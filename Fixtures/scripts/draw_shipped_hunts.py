#!/usr/bin/env python3
"""Draw the hunts shipped in hunts/ and the landmark table the end-to-end tests use.

Each stop is a shape (rectangle, ellipse, circle, street corridor) placed on the
landmark's published coordinates, sized from the site's known extent (acreage,
diameter, street length). Writes:

  hunts/strip-classics.geojson    hunts/downtown-fremont.geojson
  Fixtures/landmarks.csv          stop id, landmark lat/lon, where the coordinate comes from

Run from the project root:  python3 Fixtures/scripts/draw_shipped_hunts.py
Standard library only. Exterior rings are counterclockwise and holes clockwise
(RFC 7946 section 3.1.6); positions are [longitude, latitude] with 7 decimals.
"""
import csv
import math
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def metres_per_degree(lat):
    """Metres per degree of latitude and of longitude at a latitude (WGS84 series)."""
    phi = math.radians(lat)
    m_lat = 111132.92 - 559.82 * math.cos(2 * phi) + 1.175 * math.cos(4 * phi)
    m_lon = 111412.84 * math.cos(phi) - 93.5 * math.cos(3 * phi)
    return m_lat, m_lon


def offset(center, north_m, east_m):
    lat, lon = center
    m_lat, m_lon = metres_per_degree(lat)
    return (lat + north_m / m_lat, lon + east_m / m_lon)


def ring_from_local(center, points_ne, clockwise=False):
    """(north, east) offsets in metres -> closed ring of [lon, lat], oriented."""
    pts = [offset(center, n, e) for n, e in points_ne]
    # shoelace in (lon, lat): positive = counterclockwise
    area = sum(a[1] * b[0] - b[1] * a[0] for a, b in zip(pts, pts[1:] + pts[:1]))
    if (area > 0) == clockwise:
        pts.reverse()
    ring = [[round(lon, 7), round(lat, 7)] for lat, lon in pts]
    ring.append(ring[0])
    return ring


def ellipse(center, half_ns, half_ew, vertices=24, rotation_deg=0.0, clockwise=False):
    rot = math.radians(rotation_deg)
    pts = []
    for i in range(vertices):
        t = 2 * math.pi * i / vertices
        n, e = half_ns * math.sin(t), half_ew * math.cos(t)
        pts.append((n * math.cos(rot) + e * math.sin(rot), -n * math.sin(rot) + e * math.cos(rot)))
    return ring_from_local(center, pts, clockwise)


def rectangle(center, half_ns, half_ew, rotation_deg=0.0, clockwise=False):
    rot = math.radians(rotation_deg)
    corners = [(-half_ns, -half_ew), (-half_ns, half_ew), (half_ns, half_ew), (half_ns, -half_ew)]
    pts = [(n * math.cos(rot) + e * math.sin(rot), -n * math.sin(rot) + e * math.cos(rot)) for n, e in corners]
    return ring_from_local(center, pts, clockwise)


def corridor(start, end, half_width_m):
    """A street corridor: the rectangle around the segment start-end."""
    m_lat, m_lon = metres_per_degree(start[0])
    dn = (end[0] - start[0]) * m_lat
    de = (end[1] - start[1]) * m_lon
    length = math.hypot(dn, de)
    un, ue = dn / length, de / length  # along
    pn, pe = ue, -un  # perpendicular
    pts = [
        (-pn * half_width_m, -pe * half_width_m),
        (dn - pn * half_width_m, de - pe * half_width_m),
        (dn + pn * half_width_m, de + pe * half_width_m),
        (pn * half_width_m, pe * half_width_m),
    ]
    return ring_from_local(start, pts)


def polygon(*rings):
    return {"type": "Polygon", "coordinates": list(rings)}


def multipolygon(*polygons):
    return {"type": "MultiPolygon", "coordinates": [p["coordinates"] for p in polygons]}


# ---------------------------------------------------------------------------
# The Strip. Coordinates: Wikipedia's infobox coordinates for the landmark
# (the sign, the Sphere, the High Roller, the STRAT) or, for features on a
# resort's frontage, the feature's position on the resort's site plan.
# ---------------------------------------------------------------------------
STRIP = {
    "hunt": {
        "id": "strip-classics",
        "name": "Strip Classics",
        "description": "Ten icons of Las Vegas Boulevard, from the Welcome sign at the south end to the STRAT "
        "at the north: a long day's walk (about 7 km) or a few hops on the Deuce bus.",
        "difficulty": "medium",
        "bonus_points": 200,
        "ordered": False,
        "timezone": "America/Los_Angeles",
        "starts_at": None,
        "ends_at": None,
        "max_accuracy_m": 50,
        "max_photo_age_s": 86400,
        "tolerance_m": 25,
        "image": None,
    },
    "stops": [],
}
DOWNTOWN = {
    "hunt": {
        "id": "downtown-fremont",
        "name": "Downtown & Fremont",
        "description": "Old Vegas on foot: under the Fremont Street canopy, into the Mob Museum's courthouse, "
        "past the neon boneyard and out to the Arts District. About 4 km.",
        "difficulty": "easy",
        "bonus_points": 150,
        "ordered": False,
        "timezone": "America/Los_Angeles",
        "starts_at": None,
        "ends_at": None,
        "max_accuracy_m": 50,
        "max_photo_age_s": 86400,
        "tolerance_m": 25,
        "image": None,
    },
    "stops": [],
}
LANDMARKS = []


def stop(hunt, sid, name, description, points, geometry, landmark, source):
    hunt["stops"].append((sid, name, description, points, geometry))
    LANDMARKS.append((hunt["hunt"]["id"], sid, landmark[0], landmark[1], source))


# 1. The sign stands in the median; the parking lot runs south of it in the median too.
sign = (36.082014, -115.172734)
stop(STRIP, "welcome-sign", "Welcome to Fabulous Las Vegas Sign",
     "Betty Willis's 1959 Googie sign in the median of Las Vegas Boulevard. Use the small parking lot "
     "south of it and cross at the signals, never through traffic.",
     50, polygon(rectangle(offset(sign, -45, 0), 75, 16)), sign, "Wikipedia infobox (NRHP 09000284)")

# 2. Luxor's Sphinx faces the Strip in front of the pyramid.
sphinx = (36.09570, -115.17410)
stop(STRIP, "luxor-sphinx", "The Sphinx at Luxor",
     "A 110-foot sphinx guarding the black glass pyramid; the beam at the apex is visible from space.",
     40, polygon(rectangle(sphinx, 80, 75)), sphinx, "Luxor site plan: the Sphinx on the Strip frontage")

# 3. New York-New York's frontage: Statue of Liberty, Brooklyn Bridge, the skyline.
liberty = (36.10200, -115.17360)
stop(STRIP, "new-york-new-york", "Lady Liberty at New York-New York",
     "A 150-foot Statue of Liberty and a Brooklyn Bridge on the corner of Tropicana Avenue, under the "
     "Big Apple Coaster.",
     40, polygon(rectangle(liberty, 110, 60)), liberty, "New York-New York site plan: the Strip frontage")

# 4. Paris: the Eiffel Tower and the Arc de Triomphe, two separate spots (a MultiPolygon).
eiffel = (36.11245, -115.17135)
arc = (36.11345, -115.17170)
stop(STRIP, "paris-eiffel-arc", "Eiffel Tower and Arc de Triomphe at Paris",
     "Half-scale Eiffel Tower (its legs come through the casino roof) and the Arc de Triomphe by the "
     "main entrance. A photo at either counts.",
     60, multipolygon(polygon(rectangle(eiffel, 45, 45)), polygon(rectangle(arc, 25, 25))), eiffel,
     "Paris Las Vegas site plan: tower at the Strip frontage, Arc by the north entrance")

# 5. The Bellagio lake (8.5 acres) and the Strip-side promenade.
lake = (36.11260, -115.17400)
stop(STRIP, "bellagio-fountains", "Fountains of Bellagio",
     "1,214 nozzles in an 8.5-acre lake, a show every 30 minutes (every 15 after 8 pm). Watch from the "
     "balustrade along the Strip.",
     60, polygon(ellipse(lake, 140, 115, vertices=28)), lake, "Bellagio site plan: the lake between the resort and the Strip")

# 6. The Flamingo's wildlife habitat: gardens around a pond; the flamingos' island is off limits (a hole).
habitat = (36.11620, -115.16950)
island = offset(habitat, 15, 20)
stop(STRIP, "flamingo-wildlife-habitat", "Flamingo Wildlife Habitat",
     "Chilean flamingos, koi and turtles in a garden behind the Flamingo's casino. Free. The birds' "
     "island in the pond is not part of the stop.",
     40, polygon(rectangle(habitat, 50, 55), ellipse(island, 9, 12, vertices=12, clockwise=True)),
     offset(habitat, -20, -25), "Flamingo site plan: the habitat behind the casino, by the pool")

# 7. The High Roller (158 m wheel) and its boarding plaza at the end of the LINQ Promenade.
wheel = (36.11750, -115.16810)
stop(STRIP, "high-roller", "High Roller",
     "A 550-foot observation wheel; one turn takes 30 minutes. The plaza at its foot is the stop.",
     50, polygon(ellipse(wheel, 70, 70, vertices=24)), wheel, "Wikipedia infobox")

# 8. The Venetian's Rialto Bridge, Campanile and gondola lagoon on the Strip frontage.
rialto = (36.12160, -115.17120)
stop(STRIP, "venetian-rialto", "Rialto Bridge at the Venetian",
     "Rialto Bridge, the Campanile and the outdoor gondola canal along the Strip.",
     40, polygon(rectangle(rialto, 120, 70)), rialto, "Venetian site plan: the Strip frontage")

# 9. Sphere: 157 m wide, and the plaza around it.
sphere = (36.12056, -115.16139)
stop(STRIP, "sphere", "Sphere",
     "The 366-foot LED globe behind the Venetian; its Exosphere is the largest screen on Earth.",
     70, polygon(ellipse(sphere, 125, 125, vertices=32)), sphere, "Wikipedia infobox")

# 10. The STRAT tower's base (the tower is 350 m tall).
strat = (36.14750, -115.15556)
stop(STRIP, "strat-tower", "The STRAT Tower",
     "The tallest freestanding observation tower in the USA, 1,149 feet. Its base is the stop; the "
     "rides on top are optional.",
     60, polygon(ellipse(strat, 60, 60, vertices=24)), strat, "Wikipedia infobox")

# ---------------------------------------------------------------------------
# Downtown.
# ---------------------------------------------------------------------------
# Fremont Street runs WNW-ESE. The canopy spans Main Street to Las Vegas Boulevard (about 460 m).
main_st = (36.17170, -115.14640)
lv_blvd = (36.16946, -115.14213)
canopy_mid = (36.17072, -115.14453)
stop(DOWNTOWN, "fremont-street-experience", "Fremont Street Experience",
     "Five blocks of Glitter Gulch under the Viva Vision canopy, 12.5 million LEDs; shows on the hour "
     "after dark.",
     80, polygon(corridor(main_st, lv_blvd, 16)), canopy_mid, "the canopy between Main Street and Las Vegas Boulevard")

mob = (36.172823, -115.141252)
stop(DOWNTOWN, "mob-museum", "The Mob Museum",
     "The 1933 federal courthouse where the Kefauver hearings sat, now the National Museum of Organized "
     "Crime and Law Enforcement.",
     60, polygon(rectangle(mob, 45, 50)), mob, "Wikipedia infobox")

neon = (36.176513, -115.135277)
stop(DOWNTOWN, "neon-museum", "The Neon Museum",
     "The Neon Boneyard: 250 retired signs and the La Concha motel lobby as visitor centre.",
     60, polygon(rectangle(neon, 50, 55)), neon, "Wikipedia infobox")

fort = (36.18030, -115.13360)
stop(DOWNTOWN, "mormon-fort", "Old Las Vegas Mormon Fort",
     "The oldest building in Nevada (1855), where Las Vegas began beside a creek.",
     50, polygon(rectangle(fort, 60, 60)), fort, "Wikipedia infobox (state historic park)")

container = (36.167590, -115.138432)
stop(DOWNTOWN, "container-park", "Downtown Container Park",
     "Shops in shipping containers around a playground, guarded by a fire-breathing praying mantis.",
     40, polygon(rectangle(container, 40, 45)), container, "Wikipedia infobox")

smith = (36.16750, -115.15250)
stop(DOWNTOWN, "smith-center", "The Smith Center",
     "Art Deco performing-arts centre at Symphony Park, with a 17-storey carillon tower.",
     40, polygon(rectangle(smith, 65, 70)), smith, "Wikipedia infobox")

arts = (36.15880, -115.15250)
stop(DOWNTOWN, "arts-district", "18b Arts District",
     "Galleries, murals and vintage shops around Main Street and Charleston Boulevard; First Friday "
     "every month.",
     30, polygon(rectangle(arts, 90, 90)), arts, "the crossing of Main Street and Charleston Boulevard")


# ---------------------------------------------------------------------------
# Writing: two-space indentation, positions on one line, fixed key order.
# ---------------------------------------------------------------------------
def dump(value, level=0):
    pad = "  " * level
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f'{pad}  "{k}": {dump(v, level + 1)}' for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list):
        if all(isinstance(v, (int, float)) for v in value):
            return "[" + ", ".join(dump(v) for v in value) + "]"
        items = [pad + "  " + dump(v, level + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(round(value, 7)) if value != int(value) else str(int(value))
    if isinstance(value, int):
        return str(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_hunt(hunt):
    document = {
        "type": "FeatureCollection",
        "hunt": hunt["hunt"],
        "features": [
            {
                "type": "Feature",
                "id": sid,
                "properties": {"name": name, "description": desc, "points": points, "image": None},
                "geometry": geometry,
            }
            for sid, name, desc, points, geometry in hunt["stops"]
        ],
    }
    path = os.path.join(ROOT, "hunts", hunt["hunt"]["id"] + ".geojson")
    with open(path, "w") as f:
        f.write(dump(document) + "\n")


os.makedirs(os.path.join(ROOT, "hunts"), exist_ok=True)
write_hunt(STRIP)
write_hunt(DOWNTOWN)
with open(os.path.join(ROOT, "Fixtures", "landmarks.csv"), "w", newline="") as f:
    writer = csv.writer(f, lineterminator="\n")
    writer.writerow(["hunt", "stop", "lat", "lon", "source"])
    for hunt_id, sid, lat, lon, source in LANDMARKS:
        writer.writerow([hunt_id, sid, f"{lat:.6f}", f"{lon:.6f}", source])
