"""The app in Spanish, as a phone whose browser asks for Spanish (Accept-Language es-ES) sees it,
against a `vsh serve --title "Trafalgar Trail"` whose Strip Classics opens on Saturday 30 November
2030 at 10:00 in Las Vegas. Run by WebAppBrowserTests.theAppSpeaksTheBrowsersLanguage, which passes:

  VSH_URL          the server
  VSH_SCREENSHOTS  where the screenshots go

Checks: the texts in Spanish and the dates in Spanish (Intl, the browser's locale), the operator's
title in the header and the window's title, a hunt's Spanish name and description from its file,
the switch to English (remembered after a reload), and back.
"""

import os
import re

from phone import check, console_errors, finish, start, text_reader
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

BASE = os.environ["VSH_URL"]
SHOTS = os.environ["VSH_SCREENSHOTS"]

driver, wait = start(language="es-ES")
text_of = text_reader(driver)
# A position of its own, so that the browser never asks a network location service.
driver.execute_cdp_cmd("Emulation.setGeolocationOverride", {"latitude": 36.0816, "longitude": -115.1727, "accuracy": 10})

try:
    print("-- the feed in Spanish, with Spanish dates and the event's title", flush=True)
    driver.get(BASE + "/")
    wait.until(lambda d: text_of("main h1") == "Búsquedas")
    languages = driver.execute_script("return navigator.languages")
    check(languages[0].startswith("es"), f"the browser asks for Spanish: {languages}")
    check(driver.execute_script("return document.documentElement.lang") == "es", "the page says it is Spanish")
    wait.until(lambda d: text_of(".schedule.upcoming"))
    opens = text_of(".schedule.upcoming")
    check(re.search(r"Abre el sáb, 30 nov, 10:00\b", opens) is not None and "AM" not in opens,
          f"the opening time in Spanish, on a 24-hour clock: {opens!r}")
    check(text_of(".brand") .strip() == "Trafalgar Trail", f"the header names the event: {text_of('.brand')!r}")
    check(driver.title == "Búsquedas · Trafalgar Trail", f"the window's title: {driver.title!r}")
    check("Perfil" in text_of(".tabs") and "Clasificación" in text_of(".tabs"), f"the tabs in Spanish: {text_of('.tabs')!r}")
    check("paradas" in text_of(".cards") and "puntos" in text_of(".cards"), f"the cards in Spanish: {text_of('.cards')[:200]!r}")
    names = driver.execute_script("return [...document.querySelectorAll('.cards h2')].map(e => e.textContent)")
    check("Clásicos del Strip" in names, f"a hunt's Spanish name from its file: {names}")
    check("Crea una cuenta" in text_of(".intro"), f"the invitation in Spanish: {text_of('.intro')!r}")
    colours = driver.execute_script(
        "return [getComputedStyle(document.querySelector('.card-art')).backgroundColor,"
        " getComputedStyle(document.querySelector('.card-art svg.map rect.ground')).fill]")
    check(colours[0] == colours[1], f"a card's map fills its box without bands: {colours}")
    driver.save_screenshot(os.path.join(SHOTS, "feed-spanish.png"))

    print("-- a stop page in Spanish", flush=True)
    driver.get(BASE + "/stops/welcome-sign")
    wait.until(lambda d: "Parada 1" in text_of("main .facts"))
    check("Abre el sáb" in text_of("main .schedule") and "cuentan desde entonces" in text_of("main .schedule"),
          f"the stop's schedule in Spanish: {text_of('main .schedule')!r}")

    print("-- the switch to English, remembered", flush=True)
    driver.get(BASE + "/")
    wait.until(lambda d: d.find_elements(By.ID, "language"))
    Select(driver.find_element(By.ID, "language")).select_by_value("en")
    wait.until(lambda d: text_of("main h1") == "Hunts")
    wait.until(lambda d: "Opens Sat" in text_of(".schedule.upcoming"))
    names = driver.execute_script("return [...document.querySelectorAll('.cards h2')].map(e => e.textContent)")
    check("Strip Classics" in names, f"the hunt's own name in English: {names}")
    driver.refresh()
    wait.until(lambda d: text_of("main h1") in ("Hunts", "Búsquedas"))
    check(text_of("main h1") == "Hunts", "the choice holds after a reload")
    check(driver.execute_script("return document.documentElement.lang") == "en", "the page says it is English")
    Select(driver.find_element(By.ID, "language")).select_by_value("es")
    wait.until(lambda d: text_of("main h1") == "Búsquedas")

    console_errors(driver)
finally:
    driver.quit()

finish("language")
