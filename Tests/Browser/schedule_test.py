"""Hunts that say when they open, seen as a player on a phone (390 x 844, headless Chromium): the
feed, the hunt page and a stop page of a hunt that has not opened (no check-in form; when it opens,
in the hunt's own time zone, and a countdown), and of one that has closed. Run by
WebAppBrowserTests.huntsSayWhenTheyOpenAndOfferNoCheckInBefore, which passes:

  VSH_URL          the server
  VSH_SCREENSHOTS  where the screenshots go
  VSH_OPENS        how the opening time must read ("Sat, Nov 30, 10:00 AM")
"""

import os

from phone import check, console_errors, finish, start, text_reader
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

BASE = os.environ["VSH_URL"]
SHOTS = os.environ["VSH_SCREENSHOTS"]
OPENS = os.environ["VSH_OPENS"]
driver, wait = start()
text_of = text_reader(driver)


try:
    print("-- sign up, so that a check-in form would be offered", flush=True)
    driver.get(BASE + "/signup")
    wait.until(EC.presence_of_element_located((By.ID, "username"))).send_keys("Early Bird")
    driver.find_element(By.ID, "email").send_keys("early@example.org")
    driver.find_element(By.ID, "password").send_keys("a long password")
    driver.find_element(By.CSS_SELECTOR, "form.account button[type=submit]").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".welcome")))

    print("-- the feed says which hunt opens when and which has closed", flush=True)
    wait.until(lambda d: text_of(".schedule.upcoming"))
    check(f"Opens {OPENS}" in text_of(".schedule.upcoming"), f"the feed's card: {text_of('.schedule.upcoming')!r}")
    check("Closed" in text_of(".schedule.closed"), f"the closed hunt's card: {text_of('.schedule.closed')!r}")

    print("-- the hunt page of the upcoming hunt counts down", flush=True)
    driver.get(BASE + "/hunts/strip-classics")
    wait.until(lambda d: text_of("main .schedule.upcoming"))
    note = text_of("main .schedule.upcoming")
    check(f"Opens {OPENS}" in note and " · in " in note and "Check-ins count from then" in note, f"the hunt page: {note!r}")
    driver.save_screenshot(os.path.join(SHOTS, "hunt-upcoming.png"))

    print("-- its stop page offers no check-in before it opens", flush=True)
    driver.get(BASE + "/stops/welcome-sign")
    wait.until(lambda d: text_of("main .schedule.upcoming"))
    check(not driver.find_elements(By.ID, "photo"), "no photo input on a stop of a hunt that has not opened")
    check(not driver.find_elements(By.CSS_SELECTOR, "form.checkin, main form"), "no check-in form at all")
    driver.save_screenshot(os.path.join(SHOTS, "stop-upcoming.png"))

    print("-- the closed hunt says so", flush=True)
    driver.get(BASE + "/hunts/downtown-fremont")
    wait.until(lambda d: text_of("main .schedule.closed"))
    check("Check-ins no longer count" in text_of("main .schedule.closed"), text_of("main .schedule.closed"))
    print("-- a rectangular stop's marker sits at its centre (the closing corner counted once)", flush=True)
    centre = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import('/app/dom.js').then((m) => done(m.centre(
            {type: 'Polygon', coordinates: [[[0, 0], [4, 0], [4, 2], [0, 2], [0, 0]]]})));""")
    check(centre == {"lat": 1, "lon": 2}, f"the centre of a 4 x 2 rectangle: {centre!r}")
    # Chromium's own geolocation provider has no network here: not the app's error.
    console_errors(driver, allowed=["Network location provider"])
finally:
    driver.quit()

finish("schedule")
