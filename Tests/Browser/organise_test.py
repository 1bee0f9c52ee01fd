"""An organiser makes a hunt on a phone (390 x 844, headless Chromium) against a real `vsh serve`. Run by
WebAppBrowserTests.anOrganiserMakesAHuntOnAPhone, which passes:

  VSH_URL, VSH_BIN, VSH_DB, VSH_HUNTS   the server, the binary and the league (to grant the role)
  VSH_SCREENSHOTS  where the screenshots go

Checks: a player is refused the console; the organiser creates a hunt; draws a stop by tapping its
corners and dragging one; makes a circle around the emulated position; walks a perimeter (a sequence
of emulated positions, one too rough and dropped) and closes it; sees the overlap warning next to the
stop it is about and an error next to an emptied field; publishes; the revision history names them;
the players' page of the hunt shows the new stops without a restart.
"""

import os
import subprocess
import urllib.request

from phone import Phone, check, console_errors, finish, http
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select

BASE = os.environ["VSH_URL"]
SHOTS = os.environ["VSH_SCREENSHOTS"]
HERE = (36.17100, -115.19000)
ORGANISER = "Olga Ortiz"
PASSWORD = "a long password"

phone = Phone(BASE, SHOTS)
driver, wait, text_of = phone.driver, phone.wait, phone.text_of
step, shot, place, sign_in, button, press = phone.step, phone.shot, phone.place, phone.sign_in, phone.button, phone.press


def stops_in_draft():
    return driver.execute_script("return document.querySelectorAll('li.stop-editor').length")


def saved():
    wait.until(lambda d: text_of(".save-state") in ("Draft saved", "Published, no changes") or "to fix" in text_of(".save-state"))


try:
    step("a player is refused the console")
    status, _ = http("POST", "/v1/accounts", {"username": "Pia Player", "email": "pia@example.org", "password": PASSWORD})
    check(status == 201, f"Pia registers: {status}")
    status, _ = http("POST", "/v1/accounts", {"username": ORGANISER, "email": "olga@example.org", "password": PASSWORD})
    check(status == 201, f"Olga registers: {status}")
    role = subprocess.run([os.environ["VSH_BIN"], "player", "role", ORGANISER, "organiser", "--db", os.environ["VSH_DB"]],
                          capture_output=True, text=True)
    check(role.returncode == 0, f"vsh player role: {role.stderr}")
    driver.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["geolocation"], "origin": BASE})
    place(HERE)
    sign_in("Pia Player", PASSWORD)
    driver.get(BASE + "/organise")
    wait.until(lambda d: "Only organisers" in text_of("main"))
    check("Only organisers" in text_of("main"), "a player sees why the console is not theirs")
    driver.execute_script("localStorage.clear()")

    step("the organiser creates a hunt")
    sign_in(ORGANISER, PASSWORD)
    driver.get(BASE + "/me")
    wait.until(lambda d: "Organise hunts" in text_of("main"))
    driver.get(BASE + "/organise")
    name = wait.until(EC.presence_of_element_located((By.ID, "new-name")))
    name.send_keys("Springs Preserve walk")
    check(driver.find_element(By.ID, "new-id").get_attribute("value") == "springs-preserve-walk", "the id follows the name")
    shot("organise-list")
    press("Create the hunt")
    wait.until(lambda d: d.current_url.endswith("/organise/springs-preserve-walk"))
    svg = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".editor-map svg")))

    step("a stop drawn by tapping its corners, one corner dragged")
    driver.execute_script("document.querySelector('.editor-map').scrollIntoView({block: 'center'})")
    for dx, dy in [(-50, -50), (50, -50), (50, 50), (-50, 50)]:
        svg = driver.find_element(By.CSS_SELECTOR, ".editor-map svg")
        ActionChains(driver).move_to_element_with_offset(svg, dx, dy).click().perform()
    wait.until(lambda d: d.execute_script("return document.querySelectorAll('.editor-map .corner').length") == 4)
    before = driver.execute_script("return document.querySelector('.editor-map .drawing').getAttribute('points')")
    corner = driver.find_element(By.CSS_SELECTOR, '.editor-map .corner[data-corner="2"]')
    ActionChains(driver).click_and_hold(corner).move_by_offset(15, 10).release().perform()
    after = driver.execute_script("return document.querySelector('.editor-map .drawing').getAttribute('points')")
    check(before != after, "dragging a corner moves it")
    press("Make it a stop")
    wait.until(lambda d: stops_in_draft() == 1)

    step("a circle around the phone")
    press("Circle")
    wait.until(lambda d: button("Around me").is_enabled())
    press("Around me")
    press("Make it a stop")
    wait.until(lambda d: stops_in_draft() == 2)
    saved()

    step("the overlap is a warning next to the circle's stop")
    wait.until(lambda d: "overlap" in text_of('li.stop-editor:nth-child(2) .problems'))
    check("overlap" in text_of('li.stop-editor:nth-child(2) .problems'), "the overlap warning by its stop")

    step("a perimeter walked: positions followed live, a rough one dropped, the ring closed")
    press("Walk")
    press("Start walking")
    east = 0.00112  # about 100 m east
    ring = [(-1, -1), (0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1)]
    for index, (i, j) in enumerate(ring):
        position = (HERE[0] + j * 0.00018, HERE[1] + east + i * 0.00022)
        place(position, accuracy=60 if index == 4 else 5)
        wait.until(lambda d, n=index + 1: "Walking:" in text_of(".tool-panel")
                   and sum(int(w) for w in text_of(".tool-panel").split() if w.isdigit()) >= n)
    panel = text_of(".tool-panel")
    check("1 too rough" in panel, f"the rough position dropped: {panel!r}")
    shot("organise-walk")
    press("Finish: close the ring")
    wait.until(lambda d: stops_in_draft() == 3)
    saved()

    driver.execute_script("document.querySelector('.editor-section h2').scrollIntoView({block: 'start'}); window.scrollBy(0, -60)")
    shot("organise-map")

    step("an emptied name is an error next to it; put back, it is saved")
    field = driver.find_element(By.ID, "stop-0-name")
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(Keys.BACKSPACE)
    wait.until(lambda d: "to fix" in text_of(".save-state"))
    check("empty" in text_of("li.stop-editor:nth-child(1) .problems"), "the error is next to the stop's name")
    check(not driver.find_element(By.CSS_SELECTOR, "button.publish").is_enabled(), "no publishing with a problem")
    field.send_keys("The old springs")
    wait.until(lambda d: text_of(".save-state") == "Draft saved")
    shot("organise-editor")

    step("a photo of the stop taken on the spot (a camera JPEG with GPS), kept without its metadata")
    picture = driver.find_element(By.ID, "stop-0-image")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", picture)
    picture.send_keys(os.path.join(os.environ["VSH_PHOTOS"], "sign-inside.jpg"))
    wait.until(lambda d: d.execute_script("return !!document.querySelector('li.stop-editor:nth-child(1) .picture-preview img')"))
    wait.until(lambda d: text_of(".save-state") == "Draft saved")

    step("the closing time is typed on the hunt's clock and kept in UTC")
    set_value = "const e = document.querySelector(arguments[0]); e.value = arguments[1]; e.dispatchEvent(new Event('input'))"
    driver.execute_script(set_value, "#hunt-timezone", "America/Los_Angeles")
    driver.execute_script(set_value, "#hunt-ends_at", "2030-11-30T10:00")
    token = driver.execute_script("return JSON.parse(localStorage.getItem('vsh.session')).token")
    # The draft on the server, once the change is saved (a busy machine may take a while).
    wait.until(lambda d: (http("GET", "/v1/hunts/springs-preserve-walk/draft", token=token)[1] or {}).get("hunt", {}).get("ends_at"))
    status, draft = http("GET", "/v1/hunts/springs-preserve-walk/draft", token=token)
    check(status == 200 and draft["hunt"].get("ends_at") == "2030-11-30T18:00:00Z", f"ends_at in the draft: {draft['hunt'].get('ends_at')}")
    image = draft["features"][0]["properties"].get("image", "")
    check(image.startswith("pictures/") and image.endswith(".jpg"), f"the stop's picture in the draft: {image!r}")

    step("publishing right after a change publishes that change, even while an earlier save is on its way")
    # The page's draft saves are held until the script lets each go (the server stays real): one
    # change is on its way, a second is made, and Publish is pressed at once.
    driver.execute_script("""
        window.held = [];
        const send = window.fetch;
        window.fetch = (url, init) => (init && init.method === 'PUT' && String(url).endsWith('/draft'))
          ? new Promise((resolve) => window.held.push(() => resolve(send(url, init)))) : send(url, init);""")
    description = driver.find_element(By.ID, "hunt-description")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", description)
    description.send_keys("Warm springs in the desert.")
    wait.until(lambda d: d.execute_script("return window.held.length") == 1)
    description.send_keys(" Bring water.")
    check(text_of(".save-state") == "Saving…", f"a change waiting to be sent shows as saving: {text_of('.save-state')!r}")
    press("Publish")
    # Each held save is let go in turn until the publication is done.
    wait.until(lambda d: d.execute_script("const go = window.held.shift(); if (go) go(); return false")
               or "Published: revision 1" in text_of("#notice"))
    status, hunt = http("GET", "/v1/hunts/springs-preserve-walk")
    check(status == 200 and hunt["hunt"]["description"] == "Warm springs in the desert. Bring water.",
          f"the published description: {hunt['hunt'].get('description')!r}")

    step("published: the history names the organiser; players see the stops")
    wait.until(lambda d: "Published: revision 1" in text_of("#notice"))
    wait.until(lambda d: "Revision 1" in text_of(".revisions"))
    check(f"from the console by {ORGANISER}" in text_of(".revisions"), f"the history: {text_of('.revisions')!r}")
    status, hunt = http("GET", "/v1/hunts/springs-preserve-walk")
    check(status == 200 and len(hunt["features"]) == 3, f"the published hunt: {status}")
    with urllib.request.urlopen(BASE + "/v1/stops/" + hunt["features"][0]["id"] + "/image") as answer:
        served = answer.read()
    check(served[:2] == b"\xff\xd8" and b"Exif" not in served[:4096] and b"Apple" not in served, "the stop's picture, served without EXIF")
    driver.get(BASE + "/hunts/springs-preserve-walk")
    wait.until(lambda d: "The old springs" in text_of("main"))
    check("Springs Preserve walk" in text_of("h1"), "the players' page of the new hunt")
    shot("organise-published")
    step("an announcement to the hunt's players, sent from the console")
    driver.get(BASE + "/organise")
    text = wait.until(EC.presence_of_element_located((By.ID, "announcement-text")))
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", text)
    text.send_keys("Meet at the visitor centre at noon")
    Select(driver.find_element(By.ID, "announcement-hunt")).select_by_value("springs-preserve-walk")
    press("Send")
    wait.until(lambda d: "Sent" in text_of("#notice"))
    status, news = http("GET", "/v1/announcements")
    check(status == 200 and news and news[0]["text"] == "Meet at the visitor centre at noon"
          and news[0]["hunt"] == "springs-preserve-walk" and news[0]["by"] == ORGANISER, f"the announcement: {news}")

    step("the event ended now, then started again: the window set and published each time")
    driver.get(BASE + "/organise/springs-preserve-walk")
    wait.until(lambda d: "Running the event" in text_of("main"))
    press("End the hunt now")
    wait.until(EC.alert_is_present()).accept()
    wait.until(lambda d: "Published: revision 2" in text_of("#notice"))
    status, hunt = http("GET", "/v1/hunts/springs-preserve-walk")
    check(hunt["state"] == "closed", f"ended: {hunt['state']} {hunt['hunt'].get('ends_at')}")
    press("Start the hunt now")
    wait.until(lambda d: "Published: revision 3" in text_of("#notice"))
    status, hunt = http("GET", "/v1/hunts/springs-preserve-walk")
    check(hunt["state"] == "open" and hunt["hunt"].get("ends_at") is None, f"started again: {hunt['state']}")

    step("played in teams of at most four: a team made ahead of the event, its code to hand out")
    play = driver.find_element(By.ID, "hunt-play")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", play)
    Select(play).select_by_value("teams")
    size = wait.until(EC.visibility_of_element_located((By.ID, "hunt-max_team_size")))
    size.send_keys("4")
    wait.until(lambda d: "Publish the hunt as played in teams" in text_of(".team-list"))
    press("Publish")
    wait.until(lambda d: "Published: revision 4" in text_of("#notice"))
    status, hunt = http("GET", "/v1/hunts/springs-preserve-walk")
    check(hunt["hunt"].get("play") == "teams" and hunt["hunt"].get("max_team_size") == 4, f"published: {hunt['hunt']}")
    name = wait.until(EC.presence_of_element_located((By.ID, "new-team")))
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", name)
    name.send_keys("Blue Herons")
    press("Make a team")
    wait.until(lambda d: "Blue Herons" in text_of(".team-list"))
    code = driver.find_element(By.CSS_SELECTOR, ".team-list tr[data-team='Blue Herons'] .join-code").text
    check(len(code) >= 6 and "nobody yet" in text_of(".team-list"), f"an empty team with its code: {text_of('.team-list')!r}")
    shot("organise-teams")

    step("ten points for the team's costume, with the reason")
    who = driver.find_element(By.ID, "adjust-who")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", who)
    who.send_keys("blue herons")
    driver.find_element(By.ID, "adjust-points").send_keys("10")
    driver.find_element(By.ID, "adjust-reason").send_keys("Best costumes")
    press("Adjust")
    wait.until(lambda d: "+10 points for Blue Herons" in text_of("#notice"))
    organiser = driver.execute_script("return JSON.parse(localStorage.getItem('vsh.session')).token")
    status, made = http("GET", "/v1/adjustments?hunt=springs-preserve-walk", token=organiser)
    check(status == 200 and made and made[-1]["team"]["name"] == "Blue Herons" and made[-1]["points"] == 10
          and made[-1]["reason"] == "Best costumes", f"the adjustment: {status} {made}")
    status, teams = http("GET", "/v1/hunts/springs-preserve-walk/teams")
    check(status == 200 and [t["name"] for t in teams["teams"]] == ["Blue Herons"] and "join_code" not in teams["teams"][0],
          f"players see the team without its code: {teams}")
    step("a player renamed and banned from the console")
    driver.get(BASE + "/organise")
    who = wait.until(EC.presence_of_element_located((By.ID, "player-name")))
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", who)
    who.send_keys("Pia Player")
    driver.find_element(By.ID, "player-rename").send_keys("Pia Plays")
    press("Rename")
    wait.until(lambda d: "Renamed: Pia Plays" in text_of("#notice"))
    status, _ = http("GET", "/v1/players/Pia%20Plays")
    check(status == 200, f"the new name: {status}")
    press("Ban")
    wait.until(lambda d: "is banned" in text_of("#notice"))
    status, _ = http("POST", "/v1/sessions", {"username": "Pia Plays", "password": PASSWORD})
    check(status == 401, f"a banned player cannot sign in: {status}")
    # The emptied name's draft was refused (422) on purpose; nothing else may fail.
    console_errors(driver, allowed=[r"/draft - Failed to load resource: the server responded with a status of 422"])
except Exception:
    shot("organise-failure")
    raise
finally:
    driver.quit()

finish("organise")
