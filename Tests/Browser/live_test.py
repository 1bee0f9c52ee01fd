"""The moderators' live feed on a phone (390 x 844, headless Chromium) against a real `vsh serve`, and a
featured photo on the projector board (1920 x 1080). Run by WebAppBrowserTests.aModeratorFeaturesAPhoto,
which serves the shipped hunts at the photos' time (`--now`) and passes VSH_URL, VSH_SCREENSHOTS,
VSH_BIN, VSH_DB and VSH_PHOTO (a camera JPEG taken at the Welcome sign).

Checks: a player's photo check-in appears in the feed without a reload, with its thumbnail; "Feature"
puts it on the projector board, where it shows with the player's name; "Revoke" with a reason takes
it off the board and the feed shows it revoked. The hunt shares players' positions: Ann's hunt page
tells her so and sends where she is, and the organiser's live page draws her and Bo on the hunt's map.
"""

import os
import subprocess
import uuid

from phone import Phone, check, console_errors, finish, http
from phone import register as phone_register
from selenium.webdriver.common.by import By

BASE = os.environ["VSH_URL"]
PASSWORD = "a long password"

phone = Phone(BASE, os.environ["VSH_SCREENSHOTS"])
driver, wait, text_of = phone.driver, phone.wait, phone.text_of
step, press = phone.step, phone.press


def register(name, email):
    return phone_register(name, email, PASSWORD)


def photo_checkin(token, path):
    boundary = "vsh" + uuid.uuid4().hex
    data = open(path, "rb").read()
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="p.jpg"\r\n'
            f'Content-Type: image/jpeg\r\n\r\n').encode() + data + f"\r\n--{boundary}--\r\n".encode()
    return http("POST", "/v1/checkins", token=token, raw=body,
                headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})


try:
    step("the moderator opens the live feed")
    ann = register("Ann Lee", "ann@example.org")
    mo = register("Mo Kent", "mo@example.org")
    role = subprocess.run([os.environ["VSH_BIN"], "player", "role", "Mo Kent", "organiser", "--db", os.environ["VSH_DB"]],
                          capture_output=True, text=True)
    check(role.returncode == 0, f"vsh player role: {role.stderr}")
    phone.sign_in("Mo Kent", PASSWORD)
    driver.get(BASE + "/live")
    wait.until(lambda d: "Live feed" in text_of("h1"))
    wait.until(lambda d: "Live" in text_of(".live"))

    step("a photo check-in appears at once, with its thumbnail")
    status, answer = photo_checkin(ann, os.environ["VSH_PHOTO"])
    check(status == 201 and answer["verdict"] == "accepted", f"Ann checks in: {status} {answer}")
    wait.until(lambda d: "Ann Lee" in text_of(".live-feed"))
    wait.until(lambda d: d.execute_script(
        "const i = document.querySelector('.live-item img'); return i && i.complete && i.naturalWidth === 160"))
    phone.shot("live-feed")

    step("featured: on the projector board")
    press("☆ Feature")
    wait.until(lambda d: "★ Featured" in text_of(".live-feed"))
    driver.set_window_size(1920, 1080)
    driver.get(BASE + "/board/strip-classics")
    wait.until(lambda d: d.execute_script(
        "const i = document.querySelector('.pj-photo img'); return i && i.complete && i.naturalWidth > 0"))
    check("Ann Lee" in text_of(".pj-photos"), f"the caption: {text_of('.pj-photos')!r}")
    phone.shot("projector-featured")
    driver.set_window_size(390, 844)

    step("revoked with a reason: off the board, revoked in the feed")
    driver.get(BASE + "/live")
    wait.until(lambda d: "Ann Lee" in text_of(".live-feed"))
    press("Revoke")
    wait.until(lambda d: "Say why" in text_of("#notice"))
    reason = driver.find_element(By.CSS_SELECTOR, ".live-item input")
    reason.send_keys("Not the sign")
    press("Revoke")
    wait.until(lambda d: "revoked" in text_of(".live-item .state"))
    status, featured = http("GET", "/v1/hunts/strip-classics/featured")
    check(status == 200 and featured == [], f"off the board: {featured}")

    step("a hunt that shares positions: the player is told, and her page sends where she is")
    bo = register("Bo Diaz", "bo@example.org")
    status, _ = http("PUT", "/v1/hunts/strip-classics/position", {"lat": 36.1126, "lon": -115.1767, "accuracy_m": 15}, token=bo)
    check(status == 204, f"Bo's position: {status}")
    phone.sign_in("Ann Lee", PASSWORD)
    driver.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["geolocation"], "origin": BASE})
    phone.place((36.0822, -115.1728), accuracy=12)
    driver.get(BASE + "/hunts/strip-classics")
    wait.until(lambda d: "organisers see on their map" in text_of(".sharing"))

    def where_is(name):
        status, answer = http("GET", "/v1/hunts/strip-classics/positions", token=mo)
        return next((p for p in answer.get("positions", []) if p["player"] == name), None) if status == 200 else None
    wait.until(lambda d: where_is("Ann Lee") is not None)
    ann_at = where_is("Ann Lee")
    check(abs(ann_at["lat"] - 36.0822) < 1e-6 and abs(ann_at["lon"] + 115.1728) < 1e-6, f"Ann's position: {ann_at}")
    phone.shot("hunt-sharing")

    step("the organiser's live page: both players on the hunt's map")
    phone.sign_in("Mo Kent", PASSWORD)
    driver.get(BASE + "/live?hunt=strip-classics")
    wait.until(lambda d: "Where players are" in text_of(".positions h2"))
    wait.until(lambda d: "Ann Lee" in text_of(".positions-list") and "Bo Diaz" in text_of(".positions-list"))
    dots = driver.execute_script("return document.querySelectorAll('.positions svg.map .player').length")
    check(dots == 2, f"two players on the map: {dots}")
    check("just now" in text_of(".positions-list"), f"ages on the server's clock: {text_of('.positions-list')!r}")
    driver.execute_script("document.querySelector('.positions').scrollIntoView()")
    phone.shot("players-map")
    console_errors(driver)
except Exception:
    phone.shot("live-failure")
    raise
finally:
    driver.quit()

finish("live")
