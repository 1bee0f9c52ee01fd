"""Playing in a team on a phone (390 x 844, headless Chromium) against a real `vsh serve`. Run by
WebAppBrowserTests.aPlayerPlaysInATeam, which serves the hunt `springs-preserve` played in teams of
at most three and passes VSH_URL and VSH_SCREENSHOTS.

Checks: a hunt played in teams says so on its page and offers to make or join a team; a player makes
one and sees its code to share; a friend who joins with the code and the maker check in at two stops
and the team board shows the team once with both stops, above another team; the team's page lists its
members and who found each stop; the code is not on another player's view of the team; the board's
"Who" switch goes back to the players' board, where each player has their own points; an organiser's
bonus is listed with its reason on the player's profile.
"""

import os
import subprocess

from phone import Phone, check, console_errors, device_checkin, finish, http
from phone import register as phone_register
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

BASE = os.environ["VSH_URL"]
PASSWORD = "a long password"

phone = Phone(BASE, os.environ["VSH_SCREENSHOTS"])
driver, wait, text_of = phone.driver, phone.wait, phone.text_of
step, press = phone.step, phone.press


def register(name, email):
    return phone_register(name, email, PASSWORD)


try:
    step("the hunt says it is played in teams and offers to make or join one")
    register("Ann Lee", "ann@example.org")
    bo = register("Bo Diaz", "bo@example.org")
    cy = register("Cy Reyes", "cy@example.org")
    driver.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["geolocation"], "origin": BASE})
    phone.place((36.1719, -115.1893))
    phone.sign_in("Ann Lee", PASSWORD)
    driver.get(BASE + "/hunts/springs-preserve")
    wait.until(lambda d: "played in teams" in text_of(".team-panel"))
    check("up to 3 players" in text_of(".team-panel"), f"the team size: {text_of('.team-panel')!r}")
    phone.shot("team-none")

    step("Ann makes a team and sees its code to share")
    name = wait.until(EC.presence_of_element_located((By.ID, "team-name")))
    phone.click(name)
    name.send_keys("Desert Rats")
    press("Make it")
    wait.until(lambda d: "Desert Rats" in text_of(".team-panel .team-name"))
    code = driver.find_element(By.CSS_SELECTOR, "[data-team-code]").get_attribute("data-team-code")
    check(len(code) >= 6 and code in text_of("#notice"), f"the code in the panel and the notice: {code!r} {text_of('#notice')!r}")
    check("/join/" + code in text_of(".team-panel"), "the join address to send friends")
    phone.shot("team-made")

    step("Bo joins with the code; Cy makes another team; Ann and Bo find a stop each")
    status, joined = http("POST", "/v1/joins", {"code": code.lower()}, token=bo)
    check(status == 200 and joined["team"]["name"] == "Desert Rats", f"Bo joins: {status} {joined}")
    status, made = http("POST", "/v1/hunts/springs-preserve/teams", {"name": "Cactus Crew"}, token=cy)
    check(status == 201, f"Cy's team: {status} {made}")
    ann = driver.execute_script("return JSON.parse(localStorage.getItem('vsh.session')).token")
    for who, token, where in [("Ann", ann, (36.1719, -115.1893)), ("Bo", bo, (36.1721, -115.1886)),
                              ("Cy", cy, (36.1719, -115.1893))]:
        status, answer = device_checkin(token, where[0], where[1], 40, "springs-preserve")
        check(status == 201 and answer["verdict"] == "accepted", f"{who} checks in: {status} {answer}")

    step("the team board: the Desert Rats with both stops, above the Cactus Crew")
    driver.get(BASE + "/hunts/springs-preserve")
    wait.until(lambda d: "Bo Diaz" in text_of(".team-panel"))
    phone.click(driver.find_element(By.LINK_TEXT, "Team board"))
    wait.until(lambda d: "Desert Rats" in text_of(".board"))
    rows = driver.find_elements(By.CSS_SELECTOR, ".team-board tbody tr")
    check([r.get_attribute("data-team") for r in rows] == ["Desert Rats", "Cactus Crew"], "the teams in order")
    first = rows[0].text
    check("Ann Lee" in first and "Bo Diaz" in first and "me" in rows[0].get_attribute("class"),
          f"Ann's team, its members, marked as hers: {first!r}")
    check(rows[0].find_elements(By.CSS_SELECTOR, "td")[2].text == "2", f"two stops: {first!r}")
    wait.until(lambda d: "Live" in text_of("main"))
    phone.shot("team-board")

    step("the team's page: members, and who found each stop")
    phone.click(driver.find_element(By.LINK_TEXT, "Desert Rats"))
    wait.until(lambda d: "Desert Rats" in text_of("h1"))
    wait.until(lambda d: "Bo Diaz" in text_of("ul.members"))
    stops = text_of("ol.stops")
    check("Ann Lee" in stops and "Bo Diaz" in stops, f"who found which stop: {stops!r}")
    check(code in text_of("main"), "a member sees the team's code")
    phone.shot("team-page")
    team_path = driver.current_url[len(BASE):]
    status, seen = http("GET", "/v1" + team_path, token=cy)
    check(status == 200 and "join_code" not in seen, f"another team's player sees no code: {seen}")

    step("the players' board: each player their own points")
    driver.get(BASE + "/leaderboard?hunt=springs-preserve&by=team")
    wait.until(lambda d: "Desert Rats" in text_of(".board"))
    select = driver.find_element(By.ID, "board-by")
    phone.click(select)
    select.find_element(By.CSS_SELECTOR, "option[value=player]").click()
    wait.until(lambda d: "Players by points" in text_of(".board caption"))
    players = [r.get_attribute("data-player") for r in driver.find_elements(By.CSS_SELECTOR, ".board tbody tr")]
    check(sorted(players) == ["Ann Lee", "Bo Diaz", "Cy Reyes"], f"the players: {players}")

    step("an organiser's bonus for Ann, with its reason, on her profile")
    mo = register("Mo Kent", "mo@example.org")
    role = subprocess.run([os.environ["VSH_BIN"], "player", "role", "Mo Kent", "organiser", "--db", os.environ["VSH_DB"]],
                          capture_output=True, text=True)
    check(role.returncode == 0, f"vsh player role: {role.stderr}")
    status, made = http("POST", "/v1/adjustments", {"player": "Ann Lee", "hunt": "springs-preserve", "points": 5,
                                                     "reason": "The best team name"}, token=mo)
    check(status == 201, f"the bonus: {status} {made}")
    driver.get(BASE + "/players/Ann%20Lee")
    wait.until(lambda d: "From the organisers" in text_of("main"))
    check("+5 The best team name" in text_of(".adjustments"), f"the bonus listed: {text_of('.adjustments')!r}")
    phone.shot("adjustment")

    step("Ann deletes her account: her name is gone, the team board is as it was")
    status, teams_before = http("GET", "/v1/leaderboard?hunt=springs-preserve&by=team")
    driver.get(BASE + "/me")
    summary = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "details.erase summary")))
    phone.click(summary)
    field = wait.until(EC.visibility_of_element_located((By.ID, "erase-password")))
    field.send_keys("not my password")
    phone.click(driver.find_element(By.CSS_SELECTOR, "details.erase button"))
    wait.until(EC.alert_is_present()).accept()
    wait.until(lambda d: "nothing was deleted" in text_of("details.erase"))
    field.clear()
    field.send_keys(PASSWORD)
    phone.click(driver.find_element(By.CSS_SELECTOR, "details.erase button"))
    wait.until(EC.alert_is_present()).accept()
    wait.until(lambda d: "deleted" in text_of("#notice") and d.current_url.rstrip("/") == BASE)
    check(driver.execute_script("return localStorage.getItem('vsh.session')") is None, "signed out")
    status, teams_after = http("GET", "/v1/leaderboard?hunt=springs-preserve&by=team")
    check([(r["team"], r["points"]) for r in teams_after] == [(r["team"], r["points"]) for r in teams_before],
          f"the team board: {teams_before} then {teams_after}")
    status, board = http("GET", "/v1/leaderboard")
    check(status == 200 and "Ann Lee" not in str(board) and any(r["player"].startswith("Erased player #") for r in board),
          f"the board: {board}")
    console_errors(driver, allowed=[r"/v1/me - Failed to load resource: the server responded with a status of 403"])
except Exception:
    phone.shot("team-failure")
    raise
finally:
    driver.quit()

finish("team")
