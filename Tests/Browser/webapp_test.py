"""The web app in a real browser: headless Chromium at 390 x 844 (Selenium, chromium-driver),
against a real `vsh serve` on loopback. Run by WebAppBrowserTests (make test), which starts the
server and passes:

  VSH_URL          the server, http://127.0.0.1:PORT
  VSH_BIN, VSH_DB, VSH_HUNTS   the vsh binary and the league (to grant the moderator role)
  VSH_PHOTOS       a folder of JPEGs; the test strips their metadata (a phone browser does too)
  VSH_SCREENSHOTS  where each page's screenshot goes

Fails on any console error, any request to another origin, any accessibility violation found by
axe-core (the copy in the axe-selenium-python wheel) and any step that does not happen.
"""

import json
import os
import subprocess
import time
import urllib.parse
import urllib.request

from phone import check, console_errors, device_checkin, finish, http, scratch_folder, start, stripped, waiter
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

BASE = os.environ["VSH_URL"]
SHOTS = os.environ["VSH_SCREENSHOTS"]
WAIT = 20  # seconds a step may take on a busy machine before it counts as not happening
HOSTILE = "<img src=x onerror=alert(1)>"
PLAYER = "Ann O'Neil"  # an apostrophe: the one quote a name may hold
WELCOME = (36.081608, -115.172734)
FREMONT = (36.17058, -115.144265)
MOB = (36.172823, -115.141252)

def step(text):
    print("--", text, flush=True)


# ---------------------------------------------------------------- fixtures

work = scratch_folder("vsh-browser-")
PHOTOS = os.environ["VSH_PHOTOS"]
photo_a = stripped(os.path.join(PHOTOS, "sign-inside.jpg"), os.path.join(work, "a.jpg"))
photo_b = stripped(os.path.join(PHOTOS, "sphere-camera-clock.jpg"), os.path.join(work, "b.jpg"))
photo_c = stripped(os.path.join(PHOTOS, "far-away.jpg"), os.path.join(work, "c.jpg"))


# ---------------------------------------------------------------- the browser

def browser():
    driver, _ = start(arguments=["--disable-features=Translate,OptimizationHints,MediaRouter",
                                 "--disable-renderer-backgrounding", "--disable-background-timer-throttling",
                                 "--disable-backgrounding-occluded-windows"], performance=True)
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": BASE, "permissions": ["geolocation"]})
    driver.execute_cdp_cmd("Network.enable", {})
    return driver


def place(driver, position, accuracy=8):
    driver.execute_cdp_cmd("Emulation.setGeolocationOverride",
                           {"latitude": position[0], "longitude": position[1], "accuracy": accuracy})


driver = browser()
wait = waiter(driver, WAIT)
requests_seen = []
AXE = open(os.path.join(os.path.dirname(__import__("axe_selenium_python").__file__),
                        "node_modules", "axe-core", "axe.min.js")).read()


def drain(allowed=()):
    """Console errors since the last call (failing on any not matching `allowed`), and the requests made."""
    console_errors(driver, allowed)
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            url = message["params"]["request"]["url"]
            requests_seen.append(url)
            if not (url.startswith(BASE + "/") or url.startswith("data:") or url.startswith("blob:")):
                check(False, f"a request to another origin: {url}")


def shot(name):
    driver.save_screenshot(os.path.join(SHOTS, name + ".png"))


def audit(name):
    """axe-core on the page as it is: every violation fails the test."""
    driver.execute_script(AXE)
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations.map(v => "
        "({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))));")
    for violation in result:
        check(False, f"accessibility ({name}): {violation['id']} [{violation['impact']}] at {violation['nodes']}")


def open_page(path, ready, name=None):
    driver.get(BASE + path)
    element = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ready)))
    if name:
        shot(name)
        audit(name)
    return element


def click(element):
    """A click where a person would make it: the element in the middle of the screen, clear of the
    sticky header and the tab bar."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def text_of(selector):
    # A live page may draw the element again between finding it and reading it: find it again.
    for attempt in range(3):
        try:
            return driver.find_element(By.CSS_SELECTOR, selector).text
        except StaleElementReferenceException:
            if attempt == 2:
                raise


try:
    # ------------------------------------------------------------ signed out: the feed, sign-up
    step("the hunt feed, signed out")
    open_page("/", ".cards .card", "feed-signed-out")
    cards = driver.find_elements(By.CSS_SELECTOR, ".cards .card")
    check(len(cards) == 3, f"three hunts in the feed, saw {len(cards)}")
    check("Strip Classics" in driver.page_source and "10 stops" in text_of(".cards"), "the feed names Strip Classics and its 10 stops")
    check(len(driver.find_elements(By.CSS_SELECTOR, ".card-art svg path.stop")) == 17,
          "each card without an image draws its hunt's stops")
    wait.until(lambda d: d.execute_script(
        "const i = document.querySelector('.card-art img'); return i && i.complete && i.naturalWidth > 0"))
    featured = driver.find_element(By.CSS_SELECTOR, ".featured")
    check(featured.location["y"] < cards[0].location["y"], "featured stops come first in the feed")
    check(HOSTILE in featured.text and "Sponsored by <b>Sponsor</b> & Co" in featured.text,
          f"a featured stop with its sponsor line, as text: {featured.text!r}")

    step("sign up: a taken name is refused next to the field")
    status, _ = http("POST", "/v1/accounts", {"username": "Bo Chen", "email": "bo@example.org", "password": "long enough pw"})
    check(status == 201, f"Bo Chen registered over the API: {status}")
    open_page("/signup", "form.account", "signup")
    check(not driver.find_elements(By.CSS_SELECTOR, ".tabs a[aria-current]"),
          "no tab is current on the sign-up page (the Profile tab used to be)")
    for field, token in [("username", "username"), ("email", "email"), ("password", "new-password")]:
        check(driver.find_element(By.ID, field).get_attribute("autocomplete") == token, f"{field} has autocomplete={token}")
    driver.find_element(By.ID, "username").send_keys("bo chen")
    driver.find_element(By.ID, "email").send_keys("someone@example.org")
    driver.find_element(By.ID, "password").send_keys("a long password")
    click(driver.find_element(By.CSS_SELECTOR, "form.account button[type=submit]"))
    wait.until(lambda d: d.find_element(By.ID, "username-error").text)
    check("already exists" in text_of("#username-error").lower(), f"the name error is next to the name: {text_of('#username-error')!r}")
    check(driver.find_element(By.ID, "username").get_attribute("aria-invalid") == "true", "the name field is marked invalid")

    step("a name made of HTML is refused next to the field (names are letters, digits, spaces and . _ - ')")
    name_field = driver.find_element(By.ID, "username")
    name_field.clear()
    name_field.send_keys(HOSTILE)
    click(driver.find_element(By.CSS_SELECTOR, "form.account button[type=submit]"))
    wait.until(lambda d: "letters" in d.find_element(By.ID, "username-error").text)
    check(not driver.find_elements(By.CSS_SELECTOR, "img[src='x']"), "the refused name made no element")
    drain(allowed=[r"/v1/accounts .* 409", r"/v1/accounts .* 422"])

    step("sign up")
    name_field.clear()
    name_field.send_keys(PLAYER)
    click(driver.find_element(By.CSS_SELECTOR, "form.account button[type=submit]"))
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".welcome")))
    check(PLAYER in text_of(".welcome h2"), "the onboarding message greets the player by name")
    check(text_of("#who") == PLAYER, "the header shows the name")
    markup = [c for c in driver.find_elements(By.CSS_SELECTOR, ".cards .card h2") if c.text == HOSTILE]
    check(len(markup) == 1, "a hunt named with HTML (organiser text) is shown as text in the feed")
    check(not driver.find_elements(By.CSS_SELECTOR, "img[src='x']"), "no element was made from a hunt's text")
    shot("feed-welcome")
    audit("feed-welcome")
    click(driver.find_element(By.CSS_SELECTOR, ".welcome button"))
    check(not driver.find_elements(By.CSS_SELECTOR, ".welcome"), "the onboarding message goes when dismissed")
    token = json.loads(driver.execute_script("return localStorage.getItem('vsh.session')"))["token"]

    # ------------------------------------------------------------ a hunt and its map
    step("a hunt: polygons drawn, the player's position, distances")
    place(driver, WELCOME)
    open_page("/hunts/strip-classics", "svg.map path.stop")
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "svg.map g.me").get_attribute("visibility") == "visible")
    polygons = driver.find_elements(By.CSS_SELECTOR, "svg.map path.stop")
    check(len(polygons) == 10, f"10 stop polygons on the map, saw {len(polygons)}")
    check(all(len(p.get_attribute("d")) > 20 for p in polygons), "every polygon has a drawn outline")
    wait.until(lambda d: "you are here" in text_of(".stops li:first-child .distance"))
    check("km away" in text_of(".stops li:last-child .distance"), "the STRAT is kilometres away")
    shot("hunt")
    audit("hunt")

    # ------------------------------------------------------------ a check-in with a photo
    step("check in at the Welcome sign with a photo and the browser's fix")
    open_page("/stops/welcome-sign", "form.checkin")
    check(driver.find_element(By.ID, "photo").get_attribute("accept") == "image/*", "the photo input takes images")
    driver.find_element(By.ID, "photo").send_keys(photo_a)
    click(driver.find_element(By.CSS_SELECTOR, "form.checkin button[type=submit]"))
    verdict = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".verdict")))
    check("accepted" in verdict.get_attribute("class"), f"the verdict is accepted: {verdict.text}")
    check("50 for the stop" in verdict.text, f"the verdict shows the stop's points: {verdict.text}")
    rules = driver.execute_script("return document.querySelector('.verdict details.how').textContent")
    check("At the stop" in rules and "passed" in rules, f"each rule is shown in words: {rules[:200]}")
    shot("stop-accepted")
    audit("stop-accepted")

    # ------------------------------------------------------------ the live leaderboard
    step("the leaderboard in a second window moves without a reload")
    first = driver.current_window_handle
    driver.switch_to.new_window("window")
    driver.set_window_size(390, 844)
    open_page("/leaderboard", ".board table")
    wait.until(lambda d: "Live" in text_of(".live"))
    driver.execute_script("window.__sameDocument = true")
    rows = driver.find_elements(By.CSS_SELECTOR, ".board tbody tr")
    check(len(rows) == 1 and rows[0].find_element(By.CSS_SELECTOR, "th").text == PLAYER,
          "the board lists the player")
    _, bo = http("POST", "/v1/sessions", {"username": "Bo Chen", "password": "long enough pw"})
    status, answer = device_checkin(bo["token"], FREMONT[0], FREMONT[1], 6, "downtown-fremont")
    check(status == 201 and answer["verdict"] == "accepted", f"Bo checks in at Fremont Street: {status} {answer}")
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".board tbody tr")) == 2)
    check(driver.execute_script("return window.__sameDocument === true"), "the board changed without reloading the page")
    check("Bo Chen" in text_of(".board tbody"), "Bo's row appeared")
    shot("leaderboard")
    audit("leaderboard")

    step("the board moves while the league keeps changing")
    # At an event's start changes come many times a second. Di checks in again and again at Fremont
    # Street, one change every tenth of a second or so; early on, Cy checks in at the Mob Museum.
    # Cy's row must appear while Di's changes still come: a page that waited for a quiet moment
    # would not move until the crowd stopped.
    for name in ("Cy Park", "Di Ruiz"):
        status, _ = http("POST", "/v1/accounts", {"username": name, "email": name.split()[0].lower() + "@example.org",
                                                  "password": "long enough pw"})
        check(status == 201, f"{name} registered: {status}")
    _, cy = http("POST", "/v1/sessions", {"username": "Cy Park", "password": "long enough pw"})
    _, di = http("POST", "/v1/sessions", {"username": "Di Ruiz", "password": "long enough pw"})
    moved_after = None
    for change in range(50):
        status, _ = device_checkin(di["token"], FREMONT[0], FREMONT[1], 6, "downtown-fremont")
        check(200 <= status < 300, f"Di's check-in {change + 1}: {status}")
        if change == 2:
            status, answer = device_checkin(cy["token"], MOB[0], MOB[1], 6, "downtown-fremont")
            check(status == 201 and answer["verdict"] == "accepted", f"Cy checks in: {status} {answer}")
        elif change > 2 and "Cy Park" in text_of(".board tbody"):
            moved_after = change
            break
        time.sleep(0.1)
    check(moved_after is not None, "the board did not move while changes kept coming")
    print(f"  the board showed Cy's check-in after {moved_after - 2} more changes")
    check(driver.execute_script("return window.__sameDocument === true"), "the board changed without reloading the page")
    live_window = driver.current_window_handle
    driver.switch_to.window(first)

    # ------------------------------------------------------------ the profile and its picture
    step("upload a profile picture")
    open_page("/me", ".profile-head")
    driver.find_element(By.ID, "avatar").send_keys(photo_b)
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".profile-head img.avatar")))
    src = driver.find_element(By.CSS_SELECTOR, ".profile-head img.avatar").get_attribute("src")
    check("/avatar?v=" in src, f"the picture is the player's avatar: {src}")
    wait.until(lambda d: d.execute_script("const i = document.querySelector('.profile-head img.avatar'); return i.complete && i.naturalWidth === 256"))
    wait.until(lambda d: d.execute_script("const i = document.querySelector('.recent img.thumb'); return i && i.complete && i.naturalWidth === 480"))
    check(text_of(".profile-head h1") == PLAYER, "the profile's heading is the name")
    shot("me")
    audit("me")

    # ------------------------------------------------------------ offline, then back online
    step("check in offline at Fremont Street, come back online, sent once")
    place(driver, FREMONT)
    open_page("/stops/fremont-street-experience", "form.checkin")
    driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                           {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    wait.until(lambda d: d.execute_script("return navigator.onLine === false"))
    driver.find_element(By.ID, "photo").send_keys(photo_c)
    click(driver.find_element(By.CSS_SELECTOR, "form.checkin button[type=submit]"))
    wait.until(lambda d: "kept on this phone" in text_of(".result"))
    wait.until(lambda d: "1 check-in waiting" in text_of("#connection"))
    shot("stop-offline")
    # The app opens without a connection (its service worker keeps the shell, files and hunts).
    check(driver.execute_script("return navigator.serviceWorker.controller !== null"), "a service worker controls the page")
    cached = driver.execute_async_script(
        "const done = arguments[0]; Promise.all(['/', '/app/app.js', '/v1/hunts/downtown-fremont']"
        ".map(k => caches.match(k))).then(r => done(r.map(x => !!x)));")
    check(cached == [True, True, True], f"the shell, the app and the hunt are kept for offline use: {cached}")
    driver.get(BASE + "/stops/fremont-street-experience")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "main h1") and text_of("main h1") == "Fremont Street Experience")
    wait.until(lambda d: "1 check-in waiting" in text_of("#connection"))
    status, mine = http("GET", "/v1/me/checkins", token=token)
    check(len(mine) == 1, f"nothing reached the server while offline: {len(mine)} check-ins")
    driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                           {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    wait.until(lambda d: "was sent" in text_of("#notice"))
    wait.until(lambda d: "waiting" not in text_of("#connection"))
    status, mine = http("GET", "/v1/me/checkins", token=token)
    at_fremont = [c for c in mine if c["stop"] == "fremont-street-experience"]
    check(len(mine) == 2 and len(at_fremont) == 1, f"the offline check-in arrived once: {mine}")
    check(driver.execute_script("return indexedDB.databases().then(() => true)"), "IndexedDB answered")
    # Sent again (the phone lost the answer): the same key gives the first answer, nothing new.
    left = driver.execute_async_script(
        "const done = arguments[0]; import('/app/outbox.js').then(m => m.waiting()).then(w => done(w.length));")
    check(left == 0, f"the outbox is empty: {left}")
    drain(allowed=[r"ERR_INTERNET_DISCONNECTED", r"ERR_FAILED"])

    # ------------------------------------------------------------ a moderator approves
    step("a moderator approves a pending check-in")
    # Taken 15 minutes before it is sent (as from a phone that was offline): a moderator decides.
    status, answer = device_checkin(bo["token"], MOB[0], MOB[1], 6, "downtown-fremont", ago=900)
    check(status == 201 and answer["verdict"] == "pending", f"Bo's late fix waits for review: {answer}")
    status, _ = http("POST", "/v1/accounts", {"username": "Mo Derator", "email": "mo@example.org", "password": "long enough pw"})
    role = subprocess.run([os.environ["VSH_BIN"], "player", "role", "Mo Derator", "moderator",
                           "--db", os.environ["VSH_DB"], "--hunts", os.environ["VSH_HUNTS"]], capture_output=True, text=True)
    check(role.returncode == 0, f"vsh player role: {role.stderr}")
    open_page("/me", ".profile-head")
    click(driver.find_element(By.XPATH, "//button[text()='Sign out']"))
    wait.until(lambda d: text_of("#who") == "Sign in")
    open_page("/signin", "form.account", "signin")
    check(driver.find_element(By.ID, "password").get_attribute("autocomplete") == "current-password", "sign-in password autocomplete")
    driver.find_element(By.ID, "username").send_keys("Mo Derator")
    driver.find_element(By.ID, "password").send_keys("long enough pw")
    click(driver.find_element(By.CSS_SELECTOR, "form.account button[type=submit]"))
    wait.until(lambda d: text_of("#who") == "Mo Derator")
    open_page("/review", ".review")
    check(not driver.find_elements(By.CSS_SELECTOR, ".tabs a[aria-current]"), "no tab is current on the review page")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".review svg.map path.stop"))
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".review svg.map g.me").get_attribute("visibility") == "visible")
    card = driver.find_element(By.CSS_SELECTOR, ".review")
    check("Bo Chen" in card.text and "The Mob Museum" in card.text, f"the card names the player and the stop: {card.text}")
    check("before it was received" in card.text, f"the card says why it waits: {card.text}")
    check("Taken 15 minutes before it arrived" in card.text, f"the card shows how late it arrived: {card.text}")
    shot("review")
    audit("review")
    click(card.find_element(By.XPATH, ".//button[text()='Reject']"))
    check("Say why" in card.find_element(By.CSS_SELECTOR, ".field-error").text, "rejecting asks for a reason next to the field")
    click(card.find_element(By.XPATH, ".//button[text()='Approve']"))
    wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, ".review"))
    check("accepted" in text_of("#notice"), f"the decision is announced: {text_of('#notice')}")
    _, bo_profile = http("GET", "/v1/players/Bo%20Chen")
    check(bo_profile["stops_visited"] == 2, f"Bo holds both stops after the approval: {bo_profile['stops_visited']}")

    # ------------------------------------------------------------ the live board saw all of it
    driver.switch_to.window(live_window)
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".board tbody tr:first-child th").text == "Bo Chen")
    check(driver.execute_script("return window.__sameDocument === true"), "still the same page")

    # ------------------------------------------------------------ every other page, as text
    step("a public profile; the hunt and stop whose texts are HTML")
    driver.switch_to.window(first)
    open_page("/players/" + urllib.parse.quote(PLAYER, safe=""), ".profile-head h1", "player")
    check(text_of(".profile-head h1") == PLAYER, "the public profile's heading is the name")
    open_page("/leaderboard?hunt=strip-classics", ".board table")
    check(text_of(".board tbody th") == PLAYER, "the hunt's board shows the player")
    open_page("/hunts/markup", "svg.map path.stop")
    check(text_of("main h1") == HOSTILE and HOSTILE in text_of(".stops"), "the hunt page shows its HTML names as text")
    open_page("/stops/markup-stop", "main h1")
    wait.until(lambda d: d.execute_script(
        "const i = document.querySelector('img.stop-image'); return i && i.complete && i.naturalWidth > 0"))
    check(text_of("main h1") == HOSTILE and "<script>" in text_of("main"), "the stop page shows its HTML texts as text")
    check(len(driver.find_elements(By.CSS_SELECTOR, "img[src='x'], main script")) == 0, "no element was made from any text")
    open_page("/no/such/page", "main h1")
    check("Not found" in text_of("main h1"), "an unknown page says so")
    drain(allowed=[r"/no/such/page - .* 404"])
finally:
    try:
        drain()
    except Exception as error:  # the browser is gone: the failure was reported already
        print("while reading the logs:", error)
    driver.quit()

check(any(u.startswith(BASE + "/v1/events") for u in requests_seen), "the board listened to /v1/events")
print(f"{len(requests_seen)} requests, all to {BASE}", flush=True)
finish("browser")
