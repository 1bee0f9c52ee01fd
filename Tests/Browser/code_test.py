"""Proof beyond GPS in a browser against a real `vsh serve`. Run by
WebAppBrowserTests.anIndoorStopTakesItsCodes, which serves the hunt `casino-night` (a stop whose
`proof` is its code, with a printed code and a rotating code whose secret is VSH_SECRET; another
stop with a printed code only) and passes VSH_URL, VSH_SCREENSHOTS, VSH_BIN and VSH_DB.

Checks, on a 390 x 844 phone with no position at all (indoors): the address a printed QR code holds,
opened signed out, leads through sign-in back to the stop, which checks in with the code at once and
says so; the code is then gone from the address bar; at the other stop the player types its code
into the field and checks in without a photo. On a 1920 x 1080 screen: the stop's screen shows the
QR code and the code an independent RFC 6238 computation gives; its link for one screen works
without a session; offline, with its clock moved on 90 s, it shows the code of then from what it
was given. The console's stop editor shows the stop's proof and codes.
"""

import base64
import hashlib
import hmac
import os
import struct
import subprocess
import time

from phone import Phone, check, console_errors, finish, http, register
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

BASE = os.environ["VSH_URL"]
SECRET = os.environ["VSH_SECRET"]
PRINTED = "K7MQR2XWHT"
HALL = "NEQNHRWX22"


def totp(at):
    """RFC 6238 (SHA-1, 6 digits, 30 s), from the standard library: the screen's code at `at`."""
    key = base64.b32decode(SECRET + "=" * (-len(SECRET) % 8))
    mac = hmac.new(key, struct.pack(">Q", int(at // 30)), hashlib.sha1).digest()
    offset = mac[-1] & 0x0F
    number = struct.unpack(">I", mac[offset:offset + 4])[0] & 0x7FFFFFFF
    return "%06d" % (number % 1_000_000)


phone = Phone(BASE, os.environ["VSH_SCREENSHOTS"])
driver, wait, text_of = phone.driver, phone.wait, phone.text_of
step, press = phone.step, phone.press

try:
    register("Pat Indoors", "pat@example.org", "a long password")
    organiser = register("Olga Ortiz", "olga@example.org", "a long password")
    role = subprocess.run([os.environ["VSH_BIN"], "player", "role", "Olga Ortiz", "organiser", "--db", os.environ["VSH_DB"]],
                          capture_output=True, text=True)
    check(role.returncode == 0, f"Olga is an organiser: {role.stderr}")

    step("the hunt's page says which stops have a code")
    driver.get(BASE + "/hunts/casino-night")
    wait.until(lambda d: "Casino night" in text_of("h1"))
    rows = driver.execute_script(
        "return [...document.querySelectorAll('ol.stops li')].map((li) => li.textContent)")
    check(len(rows) == 3 and all("code at the stop" in r for r in rows),
          f"the stops with a code say so: {rows}")
    driver.execute_script("document.querySelector('ol.stops').scrollIntoView({block: 'center'})")
    phone.shot("hunt-codes")

    step("a printed QR code scanned signed out: sign in, come back, checked in by the code")
    # No position at all: the phone's GPS has nothing indoors, and the site was never allowed it.
    driver.execute_cdp_cmd("Browser.resetPermissions", {})
    driver.get(BASE + "/stops/sphere-atrium?code=" + PRINTED)
    wait.until(lambda d: "Sphere atrium" in text_of("h1"))
    # The stop's own link (the header's goes to the feed): it keeps the scanned address.
    phone.click(driver.find_element(By.CSS_SELECTOR, "main p.note a"))
    wait.until(EC.presence_of_element_located((By.ID, "username"))).send_keys("Pat Indoors")
    driver.find_element(By.ID, "password").send_keys("a long password")
    driver.find_element(By.CSS_SELECTOR, "form.account button[type=submit]").click()
    wait.until(lambda d: "/stops/sphere-atrium" in d.current_url)
    wait.until(lambda d: "for the stop" in text_of(".result .verdict"))
    result = text_of(".result .verdict")
    check("50 for the stop" in result and "Sphere atrium" in result, f"the verdict gives the stop's points: {result!r}")
    check("code" not in driver.current_url, f"the code is gone from the address bar: {driver.current_url}")
    source = driver.page_source
    check(PRINTED not in source, "the code is not in the page after the check-in: "
          + source[max(0, source.find(PRINTED) - 300):source.find(PRINTED) + 50])
    time.sleep(1)  # the verdict's entrance animation, for the picture
    phone.shot("stop-code-checkin")

    step("at the other stop the player types its code: no photo, no position")
    driver.get(BASE + "/stops/neon-hall")
    wait.until(lambda d: "Neon hall" in text_of("h1"))
    field = wait.until(EC.presence_of_element_located((By.ID, "code")))
    check("No GPS indoors" in text_of("#code-help"), f"the field says what it is for: {text_of('#code-help')!r}")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", field)
    field.send_keys("neqn-hrwx-22")
    phone.shot("stop-code-typed")
    press("Check in here")
    wait.until(lambda d: "Neon hall" in text_of(".result .verdict"))
    check("+50 points" in text_of(".result .verdict"), f"accepted: {text_of('.result .verdict')!r}")
    status, mine = http("GET", "/v1/me/checkins", token=driver.execute_script(
        "return JSON.parse(localStorage.getItem('vsh.session')).token"))
    check(status == 200 and [c["stop"] for c in mine[:2]] == ["neon-hall", "sphere-atrium"],
          f"both check-ins recorded: {status} {[c.get('stop') for c in (mine or [])[:2]]}")

    step("the stop's screen, signed in as an organiser, on a 1920 x 1080 display")
    driver.execute_script("localStorage.clear()")
    phone.sign_in("Olga Ortiz", "a long password")
    driver.set_window_size(1920, 1080)
    driver.get(BASE + "/display/sphere-atrium")
    wait.until(lambda d: "Sphere atrium" in text_of("h1"))
    wait.until(lambda d: len(text_of(".display-code").replace(" ", "")) == 6)
    shown = text_of(".display-code").replace(" ", "")
    now = time.time()
    check(shown in (totp(now), totp(now - 30)), f"the screen shows the RFC 6238 code: {shown} (now {totp(now)})")
    check(driver.find_element(By.CSS_SELECTOR, ".display-qr svg path").get_attribute("d").count("M") > 100,
          "with its QR code")
    check(not driver.find_element(By.CSS_SELECTOR, "nav.tabs").is_displayed(), "no controls on the screen")
    phone.shot("stop-screen")
    link = driver.find_element(By.CSS_SELECTOR, ".display-link a").get_attribute("href")
    check("/display/sphere-atrium?token=" in link, f"a link for one screen: {link}")

    step("the screen's link works without a session, and offline from its own clock")
    driver.execute_script("localStorage.clear()")
    driver.get(link)
    wait.until(lambda d: len(text_of(".display-code").replace(" ", "")) == 6)
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                           {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    driver.execute_script("const real = Date.now.bind(Date); Date.now = () => real() + 90000;")
    later = time.time() + 90
    wait.until(lambda d: text_of(".display-code").replace(" ", "") in (totp(later), totp(later + 2)))
    check(True, "the code of 90 s later, offline")
    driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                           {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})

    step("the console's stop editor shows the stop's proof and its codes")
    driver.set_window_size(390, 844)
    phone.sign_in("Olga Ortiz", "a long password")
    driver.get(BASE + "/organise/casino-night")
    editor = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "li[data-stop='sphere-atrium'] fieldset.stop-proof")))
    check(driver.find_element(By.CSS_SELECTOR, "li[data-stop='sphere-atrium'] input[name='proof-code']").is_selected(),
          "the code is asked for")
    check(driver.find_element(By.CSS_SELECTOR, "li[data-stop='sphere-atrium'] input[name='code']").get_attribute("value") == PRINTED,
          "the printed code is there for the organiser")
    check(driver.find_element(By.CSS_SELECTOR, "li[data-stop='sphere-atrium'] input[name='rotating_code']").is_selected(),
          "the screen's code is on")
    driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", editor)
    phone.shot("console-stop-codes")
    console_errors(driver, allowed=[r"Network location provider", r"ERR_INTERNET_DISCONNECTED", r"/display"])
except Exception:
    phone.shot("code-failure")
    raise
finally:
    driver.quit()

finish("code")
