"""A player joins a private hunt by its code on a phone (390 x 844, headless Chromium) against a real
`vsh serve`. Run by WebAppBrowserTests.aPlayerJoinsAPrivateHuntByItsCode, which serves a private hunt
`team-day` with the join code in VSH_JOIN_CODE and passes VSH_URL, VSH_SCREENSHOTS, and VSH_BIN and
VSH_DB (to make an organiser).

Checks: the join address (what the QR code holds) opened without an account asks to sign up and
comes back; after signing up the player has joined and lands on the hunt; the feed lists it, with a
form for another code; a wrong code says so; the code is nowhere in the pages the player is sent; an
organiser's announcement to the hunt appears on the open page without a reload, until "Got it", and
stays listed with the hunts; the projector board at 1920 x 1080 shows the hunt's top players and
the announcement without the app's controls.
"""

import os
import subprocess

from phone import Phone, check, console_errors, device_checkin, finish, http
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

BASE = os.environ["VSH_URL"]
CODE = os.environ["VSH_JOIN_CODE"]

phone = Phone(BASE, os.environ["VSH_SCREENSHOTS"])
driver, wait, text_of = phone.driver, phone.wait, phone.text_of
step, press = phone.step, phone.press

try:
    step("the join address without an account: sign up, and come back")
    driver.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["geolocation"], "origin": BASE})
    phone.place((36.1719, -115.1893))
    driver.get(BASE + "/")
    wait.until(lambda d: "Hunts" in text_of("h1"))
    check("Team day" not in text_of("main"), "the private hunt is not in the feed before joining")
    driver.get(BASE + "/join/" + CODE)
    wait.until(lambda d: "Join a private hunt" in text_of("h1"))
    check(CODE in text_of("main"), "the page names the code the player holds")
    phone.shot("join-signed-out")
    phone.click(driver.find_element(By.LINK_TEXT, "Create an account"))
    wait.until(EC.presence_of_element_located((By.ID, "username"))).send_keys("Jo Joiner")
    driver.find_element(By.ID, "email").send_keys("jo@example.org")
    driver.find_element(By.ID, "password").send_keys("a long password")
    phone.click(driver.find_element(By.CSS_SELECTOR, "form.account button[type=submit]"))

    step("joined: on the hunt's page")
    wait.until(lambda d: d.current_url.endswith("/hunts/team-day"))
    wait.until(lambda d: "Team day at the springs" in text_of("h1"))
    check("joined" in text_of("#notice"), f"the notice says so: {text_of('#notice')!r}")
    phone.shot("join-joined")

    step("the feed lists it, with a form for another code; a wrong code says so")
    driver.get(BASE + "/")
    wait.until(lambda d: "Team day at the springs" in text_of("main"))
    # The private hunt's cover, fetched with the player's token (the server shows it only to them).
    wait.until(lambda d: d.execute_script(
        "return [...document.querySelectorAll('main img')].some((i) => i.src.startsWith('blob:') && i.complete && i.naturalWidth === 1)"))
    status, _ = http("GET", "/v1/hunts/team-day/image")
    check(status == 404, f"the cover without a token: {status}")
    field = wait.until(EC.presence_of_element_located((By.ID, "join-code")))
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", field)
    field.send_keys("wrong-code")
    press("Join")
    wait.until(lambda d: "No hunt or team has the code WRONGCODE" in text_of("main"))
    phone.shot("join-wrong-code")

    step("the code is in no page the player was sent")
    for path in ["/v1/hunts", "/v1/hunts/team-day"]:
        body = driver.execute_script(
            "const s = JSON.parse(localStorage.getItem('vsh.session'));"
            "const r = new XMLHttpRequest(); r.open('GET', arguments[0], false);"
            "r.setRequestHeader('Authorization', 'Bearer ' + s.token); r.send(); return r.status + ' ' + r.responseText;", path)
        check(body.startswith("200") and "team-day" in body and CODE not in body, f"{path}: {body[:200]}")
    check(CODE not in driver.page_source.replace("/join/" + CODE, ""), "not in the page itself")
    step("an organiser's announcement appears on the open page at once, and stays listed")
    driver.get(BASE + "/leaderboard")
    wait.until(lambda d: "Live" in text_of("main"))
    status, made = http("POST", "/v1/accounts", {"username": "Olga Ortiz", "email": "olga@example.org", "password": "a long password"})
    check(status == 201, f"the organiser registers: {status}")
    role = subprocess.run([os.environ["VSH_BIN"], "player", "role", "Olga Ortiz", "organiser", "--db", os.environ["VSH_DB"]],
                          capture_output=True, text=True)
    check(role.returncode == 0, f"vsh player role: {role.stderr}")
    status, _ = http("POST", "/v1/announcements", {"text": "Lunch at the gate at 1 <b>sharp</b>", "hunt": "team-day"}, token=made["token"])
    check(status == 201, f"announced: {status}")
    wait.until(lambda d: "Lunch at the gate" in text_of("#announcements"))
    check("<b>" in text_of("#announcements") and not driver.find_elements(By.CSS_SELECTOR, "#announcements b"),
          "the organiser's text is shown as text")
    phone.shot("announcement")
    phone.click(driver.find_element(By.CSS_SELECTOR, "#announcements button"))
    wait.until(lambda d: "Lunch" not in text_of("#announcements"))
    driver.get(BASE + "/")
    wait.until(lambda d: "Team day at the springs" in text_of("main"))
    check("Lunch at the gate" in text_of(".news") and "Lunch" not in text_of("#announcements"),
          "listed with the hunts, not shown again once dismissed")
    step("the projector board at 1920 x 1080: the hunt, its top ten, the announcement; no controls")
    token = driver.execute_script("return JSON.parse(localStorage.getItem('vsh.session')).token")
    status, answer = device_checkin(token, 36.1719, -115.1893, 8, "team-day")
    check(status == 201 and answer["verdict"] == "accepted", f"Jo checks in at the springs: {status} {answer}")
    driver.set_window_size(1920, 1080)
    driver.get(BASE + "/board/team-day")
    wait.until(lambda d: "Team day at the springs" in text_of("h1"))
    wait.until(lambda d: "Jo Joiner" in text_of(".projector-board"))
    check("Lunch at the gate" in text_of(".projector-news"), "the announcement on the screen")
    check(not driver.find_element(By.CSS_SELECTOR, "nav.tabs").is_displayed(), "no controls on the screen")
    wait.until(lambda d: "Live" in text_of(".projector-head"))
    phone.shot("projector")
    driver.set_window_size(390, 844)
    console_errors(driver, allowed=[r"/v1/joins - Failed to load resource: the server responded with a status of 404"])
except Exception:
    phone.shot("join-failure")
    raise
finally:
    driver.quit()

finish("join")
