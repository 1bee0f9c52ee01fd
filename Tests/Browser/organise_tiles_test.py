"""An organiser draws a stop with a hole over the operator's street tiles (`vsh serve --tiles`), on a
phone (390 x 844, headless Chromium). Run by WebAppBrowserTests.anOrganiserDrawsOverStreetTiles, which
starts the server with `--tiles http://127.0.0.1:VSH_TILE_PORT/{z}/{x}/{y}.png` and passes:

  VSH_URL, VSH_BIN, VSH_DB   the server, the binary and the league (to grant the role)
  VSH_TILE_PORT              where this script serves the tiles (a real HTTP server, PNG tiles)
  VSH_SCREENSHOTS            where the screenshots go

Checks: the console's map is Leaflet over the tiles (tiles fetched at the phone's position); a stop
drawn by tapping four corners, one dragged; a hole cut in it by tapping three corners inside; both
saved in the draft; published; the players' page draws it over the same tiles.
"""

import os
import struct
import subprocess
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from phone import Phone, check, console_errors, finish, http
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

BASE = os.environ["VSH_URL"]
HERE = (36.17100, -115.19000)
ORGANISER = "Tia Tiles"
PASSWORD = "a long password"
HUNT = "arts-district"


def tile_png():
    """A 256 x 256 PNG: pale ground with darker 'streets' every 64 pixels."""
    rows = []
    for y in range(256):
        row = bytearray([0])
        for x in range(256):
            street = x % 64 < 6 or y % 64 < 6
            row += bytes((200, 200, 205) if street else (238, 234, 224))
        rows.append(bytes(row))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 256, 256, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"".join(rows))) + chunk(b"IEND", b""))


TILE = tile_png()
requested = []


class Tiles(BaseHTTPRequestHandler):
    timeout = 10

    def do_GET(self):
        parts = self.path.strip("/").removesuffix(".png").split("/")
        if len(parts) != 3 or not all(p.isdigit() for p in parts):
            self.send_error(404)
            return
        requested.append(tuple(int(p) for p in parts))
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(TILE)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(TILE)

    def log_message(self, *args):
        pass


tiles = ThreadingHTTPServer(("127.0.0.1", int(os.environ["VSH_TILE_PORT"])), Tiles)
tiles.daemon_threads = True
threading.Thread(target=tiles.serve_forever, daemon=True).start()

phone = Phone(BASE, os.environ["VSH_SCREENSHOTS"])
driver, wait, text_of = phone.driver, phone.wait, phone.text_of
step, press = phone.step, phone.press


def box():
    return driver.find_element(By.CSS_SELECTOR, ".editor-map .leaflet-box")


def tap(dx, dy):
    """A tap at (dx, dy) CSS pixels from the map's centre."""
    ActionChains(driver).move_to_element_with_offset(box(), dx, dy).click().perform()


def corners():
    return driver.execute_script("return document.querySelectorAll('.editor-map .corner').length")


def draft(token):
    return http("GET", f"/v1/hunts/{HUNT}/draft", token=token)[1] or {}


try:
    step("an organiser opens a new hunt: Leaflet over the tiles, at the phone's position")
    status, _ = http("POST", "/v1/accounts", {"username": ORGANISER, "email": "tia@example.org", "password": PASSWORD})
    check(status == 201, f"Tia registers: {status}")
    role = subprocess.run([os.environ["VSH_BIN"], "player", "role", ORGANISER, "organiser", "--db", os.environ["VSH_DB"]],
                          capture_output=True, text=True)
    check(role.returncode == 0, f"vsh player role: {role.stderr}")
    driver.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["geolocation"], "origin": BASE})
    phone.place(HERE)
    phone.sign_in(ORGANISER, PASSWORD)
    driver.get(BASE + "/organise")
    wait.until(EC.presence_of_element_located((By.ID, "new-name"))).send_keys("Arts District")
    press("Create the hunt")
    wait.until(lambda d: d.current_url.endswith("/organise/" + HUNT))
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".editor-map .leaflet-box")))
    check(not driver.find_elements(By.CSS_SELECTOR, ".editor-map svg.map"), "no SVG map when there are tiles")
    # Zoomed in on the phone's position: street-level tiles drawn.
    wait.until(lambda d: any(z == 18 for z, _, _ in requested))
    wait.until(lambda d: d.execute_script("return document.querySelectorAll('.editor-map img.leaflet-tile-loaded').length") > 0)
    driver.execute_script("document.querySelector('.editor-map').scrollIntoView({block: 'center'})")

    step("a stop drawn by tapping four corners, one dragged")
    for dx, dy in [(-60, -60), (60, -60), (60, 60), (-60, 60)]:
        tap(dx, dy)
    wait.until(lambda d: corners() == 4)
    shape = "return document.querySelector('.editor-map path.drawing').getAttribute('d')"
    before = driver.execute_script(shape)
    corner = driver.find_element(By.CSS_SELECTOR, '.editor-map .corner[data-corner="2"]')
    ActionChains(driver).click_and_hold(corner).move_by_offset(8, 5).pause(0.2).move_by_offset(8, 5).pause(0.2).release().perform()
    wait.until(lambda d: d.execute_script(shape) != before)
    check(driver.execute_script(shape) != before, "dragging a corner moves the shape")
    press("Make it a stop")
    wait.until(lambda d: d.execute_script("return document.querySelectorAll('li.stop-editor').length") == 1)
    token = driver.execute_script("return JSON.parse(localStorage.getItem('vsh.session')).token")
    wait.until(lambda d: len((draft(token).get("features") or [])) == 1)
    outer = draft(token)["features"][0]["geometry"]["coordinates"][0]
    check(len(outer) == 5, f"four corners and the closing one: {outer}")

    step("a hole cut inside it")
    press("Cut a hole")
    check("a hole in" in text_of(".tool-panel"), f"the panel says what to do: {text_of('.tool-panel')!r}")
    driver.execute_script("document.querySelector('.editor-map').scrollIntoView({block: 'center'})")
    for dx, dy in [(-25, -20), (25, -20), (0, 25)]:
        tap(dx, dy)
    wait.until(lambda d: corners() == 3)
    press("Make it a hole")
    wait.until(lambda d: len(draft(token)["features"][0]["geometry"]["coordinates"]) == 2)
    wait.until(lambda d: text_of(".save-state") == "Draft saved")
    rings = draft(token)["features"][0]["geometry"]["coordinates"]
    lons = [p[0] for p in rings[0]]
    check(all(min(lons) < p[0] < max(lons) for p in rings[1]), f"the hole inside the stop: {rings}")
    check(driver.execute_script("return document.querySelectorAll('.editor-map path.stop').length") == 1, "the stop drawn over the tiles")
    driver.execute_script("document.querySelector('.editor-map').scrollIntoView({block: 'start'}); window.scrollBy(0, -70)")
    phone.shot("organise-tiles")

    step("published; the players' page draws it over the same tiles")
    press("Publish")
    wait.until(lambda d: "Published: revision 1" in text_of("#notice"))
    status, hunt = http("GET", f"/v1/hunts/{HUNT}")
    check(status == 200 and len(hunt["features"][0]["geometry"]["coordinates"]) == 2, f"the published stop keeps its hole: {status}")
    driver.get(BASE + "/hunts/" + HUNT)
    wait.until(lambda d: d.execute_script("return document.querySelectorAll('.leaflet-box path').length") > 0)
    console_errors(driver)
except Exception:
    phone.shot("organise-tiles-failure")
    raise
finally:
    driver.quit()

finish("organise-tiles")
