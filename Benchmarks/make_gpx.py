#!/usr/bin/env python3
"""Write a large GPX walk for `make bench`: N track points (default 1,000,000), one a second,
wandering across the Strip and through its stops with GPS noise. Fixed seed, streamed to disk.

usage: make_gpx.py OUT.gpx [N]
"""
import math
import random
import sys
from datetime import datetime, timedelta, timezone

out, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
rng = random.Random(7)
# A loop along Las Vegas Boulevard from the Welcome sign to the STRAT and back, through stop frontages.
loop = [(36.0815, -115.17274), (36.0957, -115.1741), (36.1020, -115.1736), (36.11245, -115.17135),
        (36.1126, -115.1740), (36.1175, -115.1681), (36.1216, -115.1712), (36.12056, -115.16139),
        (36.1475, -115.15556), (36.1216, -115.1712), (36.1020, -115.1736)]
t = datetime(2026, 11, 21, 0, 0, 0, tzinfo=timezone.utc)
with open(out, "w", buffering=1 << 20) as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="vsh bench" '
            'xmlns="http://www.topografix.com/GPX/1/1">\n<trk><name>bench</name><trkseg>\n')
    i = 0
    leg = 0
    while i < n:
        (a_lat, a_lon), (b_lat, b_lon) = loop[leg % len(loop)], loop[(leg + 1) % len(loop)]
        dist = math.hypot((b_lat - a_lat) * 111000, (b_lon - a_lon) * 90000)
        steps = max(1, int(dist / 1.4))
        for k in range(steps):
            if i >= n:
                break
            lat = a_lat + (b_lat - a_lat) * k / steps + rng.gauss(0, 3) / 111000
            lon = a_lon + (b_lon - a_lon) * k / steps + rng.gauss(0, 3) / 90000
            f.write(f'<trkpt lat="{lat:.7f}" lon="{lon:.7f}"><ele>{610 + rng.random() * 5:.1f}</ele>'
                    f'<time>{t.strftime("%Y-%m-%dT%H:%M:%SZ")}</time><extensions><hAcc>5</hAcc></extensions></trkpt>\n')
            t += timedelta(seconds=1)
            i += 1
        leg += 1
    f.write('</trkseg></trk>\n</gpx>\n')
