#!/usr/bin/env python3
"""Makes Fixtures/hostile/heic-grid-bomb.heic: a HEIF decompression bomb (security round 3).

A real 512 x 512 HEVC tile (a flat picture drawn here, compressed by Debian's heif-enc) is
referenced 1,521 times by a 39 x 39 'grid' item that declares 19,968 x 19,968 pixels: about 4 KB
that a decoder without a budget turns into 399 megapixels (1.2 GB of RGB, 10-19 s of HEVC). Under
the 40,000-pixel side limit and the 400-megapixel declared limit that vsh had for every photo.

Run from the project root: python3 Fixtures/scripts/make_heic_bomb.py (needs heif-enc, cjpeg).
"""
import os
import struct
import subprocess
import sys
import tempfile

SIDE = 512
GRID = 39  # 39 x 39 tiles of 512 px: 19,968 px a side


def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind) + payload


def full_box(kind, version, flags, payload):
    return box(kind, struct.pack(">I", (version << 24) | flags) + payload)


def children(data):
    """The boxes in `data`: (type, payload) pairs."""
    out, at = [], 0
    while at + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        out.append((kind, data[at + 8:at + size]))
        at += size
    return out


def tile():
    """heif-enc's file for one flat 512 x 512 picture: its hvcC property and its coded bytes."""
    with tempfile.TemporaryDirectory() as folder:
        ppm = os.path.join(folder, "tile.ppm")
        with open(ppm, "wb") as f:
            f.write(b"P6 %d %d 255\n" % (SIDE, SIDE) + bytes((200, 120, 40)) * (SIDE * SIDE))
        jpg, heic = os.path.join(folder, "tile.jpg"), os.path.join(folder, "tile.heic")
        with open(jpg, "wb") as out:
            subprocess.run(["cjpeg", "-quality", "90", ppm], stdout=out, check=True)
        subprocess.run(["heif-enc", "-q", "30", jpg, "-o", heic], check=True, stdout=subprocess.DEVNULL)
        data = open(heic, "rb").read()
    top = dict(children(data))
    meta = children(top[b"meta"][4:])
    hvcc = None
    for kind, payload in meta:
        if kind == b"iprp":
            for inner_kind, inner in children(payload):
                if inner_kind == b"ipco":
                    for prop_kind, prop in children(inner):
                        if prop_kind == b"hvcC":
                            hvcc = box(b"hvcC", prop)
        if kind == b"iloc":
            # heif-enc writes one item with one extent; field sizes as the box says.
            version = payload[0]
            offset_size, length_size = payload[4] >> 4, payload[4] & 15
            base_size = payload[5] >> 4
            index_size = (payload[5] & 15) if version in (1, 2) else 0
            assert offset_size == 4 and length_size == 4 and base_size in (0, 4) and index_size == 0

            def number(at, size):
                return int.from_bytes(payload[at:at + size], "big") if size else 0

            at = 6
            assert number(at, 2) == 1, "one item"
            at += 2 + 2 + (2 if version in (1, 2) else 0) + 2  # item_ID, (construction), data ref
            base = number(at, base_size)
            at += base_size
            assert number(at, 2) == 1, "one extent"
            offset, length = base + number(at + 2, 4), number(at + 6, 4)
            coded = data[offset:offset + length]
    assert hvcc is not None
    return hvcc, coded


def bomb():
    hvcc, coded = tile()
    output = SIDE * GRID
    grid_payload = struct.pack(">BBBBHH", 0, 0, GRID - 1, GRID - 1, output, output)
    ftyp = box(b"ftyp", b"heic" + struct.pack(">I", 0) + b"mif1heicmiaf")
    hdlr = full_box(b"hdlr", 0, 0, struct.pack(">I", 0) + b"pict" + bytes(12) + b"\0")
    pitm = full_box(b"pitm", 0, 0, struct.pack(">H", 1))
    infe_grid = full_box(b"infe", 2, 0, struct.pack(">HH", 1, 0) + b"grid" + b"\0")
    infe_tile = full_box(b"infe", 2, 1, struct.pack(">HH", 2, 0) + b"hvc1" + b"\0")
    iinf = full_box(b"iinf", 0, 0, struct.pack(">H", 2) + infe_grid + infe_tile)
    dimg = box(b"dimg", struct.pack(">HH", 1, GRID * GRID) + struct.pack(">H", 2) * (GRID * GRID))
    iref = full_box(b"iref", 0, 0, dimg)
    ispe_tile = full_box(b"ispe", 0, 0, struct.pack(">II", SIDE, SIDE))
    ispe_grid = full_box(b"ispe", 0, 0, struct.pack(">II", output, output))
    ipco = box(b"ipco", hvcc + ispe_tile + ispe_grid)
    # item 1 (the grid): ispe #3; item 2 (the tile): hvcC #1 (essential), ispe #2.
    ipma = full_box(b"ipma", 0, 0, struct.pack(">I", 2)
                    + struct.pack(">HBB", 1, 1, 3)
                    + struct.pack(">HBBB", 2, 2, 0x80 | 1, 2))
    iprp = box(b"iprp", ipco + ipma)

    def meta_with(grid_offset, tile_offset):
        iloc = full_box(b"iloc", 0, 0, struct.pack(">BBH", 0x44, 0x00, 2)
                        + struct.pack(">HHHII", 1, 0, 1, grid_offset, len(grid_payload))
                        + struct.pack(">HHHII", 2, 0, 1, tile_offset, len(coded)))
        return full_box(b"meta", 0, 0, hdlr + pitm + iinf + iloc + iref + iprp)

    head = len(ftyp) + len(meta_with(0, 0)) + 8  # the mdat box's header
    meta = meta_with(head, head + len(grid_payload))
    return ftyp + meta + box(b"mdat", grid_payload + coded)


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else "Fixtures/hostile/heic-grid-bomb.heic"
    data = bomb()
    with open(target, "wb") as f:
        f.write(data)
    print(f"{target}: {len(data)} bytes, {SIDE * GRID} x {SIDE * GRID} pixels declared")
