"""A player joins a private hunt by its code on a phone (390 x 844, headless Chromium) against a real
`vsh serve`. Run by WebAppBrowserTests.aPlayerJoinsAPrivateHuntByItsCode, which serves a private hunt
`team-day` with the join code in VSH_JOIN_CODE and passes VSH_URL and VSH_SCREENSHOTS.

Checks: the join address (what the QR code holds) opened without an account asks to sign up and
comes back; after signing up the player has joined and lands on the hunt; the feed lists it, with a
form for another code; a wrong code says so; the code is nowhere in the pages the player is sent.
"""

import os

from phone import Phone, check, console_errors, finish
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
    field = wait.until(EC.presence_of_element_located((By.ID, "join-code")))
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", field)
    field.send_keys("wrong-code")
    press("Join")
    wait.until(lambda d: "No hunt has the code WRONGCODE" in text_of("main"))
    phone.shot("join-wrong-code")

    step("the code is in no page the player was sent")
    for path in ["/v1/hunts", "/v1/hunts/team-day"]:
        body = driver.execute_script(
            "const s = JSON.parse(localStorage.getItem('vsh.session'));"
            "const r = new XMLHttpRequest(); r.open('GET', arguments[0], false);"
            "r.setRequestHeader('Authorization', 'Bearer ' + s.token); r.send(); return r.status + ' ' + r.responseText;", path)
        check(body.startswith("200") and "team-day" in body and CODE not in body, f"{path}: {body[:200]}")
    check(CODE not in driver.page_source.replace("/join/" + CODE, ""), "not in the page itself")
    console_errors(driver, allowed=[r"/v1/joins - Failed to load resource: the server responded with a status of 404"])
except Exception:
    phone.shot("join-failure")
    raise
finally:
    driver.quit()

finish("join")
