"""The venue's board page (`vsh leaderboard --format html`) on a 390 x 844 phone, as someone in
the crowd opens it. Run by WebAppBrowserTests.theVenuesBoardFitsAPhone, which passes:

  VSH_BOARD        the page's file
  VSH_SCREENSHOTS  where the screenshot goes

Checks: every column in the phone's width (nothing to scroll sideways), a row a player with the
top three marked, the names as written, and when it was updated on the hunt's
clock (Las Vegas).
"""

import os
import re

from phone import check, console_errors, finish, start, text_reader
from selenium.webdriver.common.by import By

BOARD = os.environ["VSH_BOARD"]
SHOTS = os.environ["VSH_SCREENSHOTS"]

driver, wait = start()
text_of = text_reader(driver)
try:
    driver.get("file://" + BOARD)
    wait.until(lambda d: text_of("h1"))
    widths = driver.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    check(widths[0] <= widths[1], f"every column fits the phone's width: {widths}")
    headers = [th.text for th in driver.find_elements(By.CSS_SELECTOR, "thead th")]
    check(headers == ["Rank", "Player", "Points", "Hunts", "Stops", "Badges"], f"the columns: {headers}")
    for th in driver.find_elements(By.CSS_SELECTOR, "thead th"):
        box = th.rect
        check(box["x"] >= 0 and box["x"] + box["width"] <= widths[1], f"{th.text} is on the screen: {box}")
    rows = driver.find_elements(By.CSS_SELECTOR, "tbody tr.r")
    check(len(rows) == 4, f"a row a player: {len(rows)}")
    check("gold" in rows[0].get_attribute("class"), "the leader is marked gold")
    players = [text_of(f"tbody tr.r:nth-child({i}) td.player") for i in range(1, 5)]
    check("Zoë O'Brien-Núñez" in players, f"a name as written: {players}")
    updated = text_of("p.when")
    check(re.fullmatch(r"Updated \d{4}-\d{2}-\d{2} \d{2}:\d{2} P[SD]T", updated) is not None,
          f"updated on the hunt's clock: {updated!r}")
    driver.save_screenshot(os.path.join(SHOTS, "board-phone.png"))
    console_errors(driver)
finally:
    driver.quit()
finish("board")
