"""The organiser's base layer on the players' map (390 x 844, headless Chromium): a hunt in Vaduz
over the committed OpenStreetMap extract (Fixtures/osm), imported with `vsh-master basemap import`.
Run by WebAppBrowserTests.theMapsDrawTheBasemapUnderTheStops, which passes VSH_URL and
VSH_SCREENSHOTS, and VSH_STREETS: how many street ways of the extract cross the map's area.

Checks: the hunt page's map draws the streets, footpaths and buildings under the stops, with
OpenStreetMap's attribution; the stops are drawn over them.
"""

import os

from phone import check, console_errors, finish, start, text_reader

BASE = os.environ["VSH_URL"]
SHOTS = os.environ["VSH_SCREENSHOTS"]

driver, wait = start()
text_of = text_reader(driver)
driver.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["geolocation"], "origin": BASE})
driver.execute_cdp_cmd("Emulation.setGeolocationOverride", {"latitude": 47.1395, "longitude": 9.5213, "accuracy": 10})
try:
    driver.get(BASE + "/hunts/vaduz-town")
    wait.until(lambda d: d.execute_script("return document.querySelectorAll('svg.map .basemap .bm-street').length") > 0)
    count = lambda selector: driver.execute_script("return document.querySelectorAll(arguments[0]).length", selector)
    streets = count("svg.map .basemap .bm-street")
    check(streets >= int(os.environ["VSH_STREETS"]) // 2, f"streets drawn: {streets}")
    check(count("svg.map .basemap .bm-footway") > 0, "footpaths drawn")
    check(count("svg.map .basemap .bm-building") > 0, "buildings drawn")
    check("OpenStreetMap contributors" in text_of("svg.map .basemap .attribution"), "the attribution is shown")
    # The stops are drawn over the streets: after the base layer in the SVG.
    order = driver.execute_script(
        "const s = document.querySelector('svg.map'); const kids = [...s.children];"
        "return [kids.findIndex(k => k.classList && k.classList.contains('basemap')),"
        " kids.findIndex(k => k.querySelector && k.querySelector('path.stop') || (k.classList && k.classList.contains('stop')))]")
    check(0 <= order[0] < order[1], f"stops over the base layer: {order}")
    driver.execute_script("document.querySelector('svg.map').scrollIntoView({block: 'center'})")
    driver.save_screenshot(os.path.join(SHOTS, "basemap.png"))
    console_errors(driver)
finally:
    driver.quit()

finish("basemap")
