"""Questions at a stop in a browser against a real `vsh serve`. Run by
WebAppBrowserTests.aStopAsksItsQuestion, which serves the hunt `fountain-walk` (a stop whose question
takes a typed answer, worth 20 points; another whose answer is required; a third with choices and one
try) and passes VSH_URL, VSH_SCREENSHOTS, VSH_PHOTOS, VSH_BIN and VSH_DB.

Checks, on a 390 x 844 phone standing at the stops: the hunt's page says which stops ask a question;
the stop's page shows the question with its points and tries, never its answer; a wrong answer still
checks in, says how many tries are left and leaves the question open; the right answer, typed in
capitals with an accent, earns the question's points; at the stop with choices the player picks one.
The console's stop editor shows the question with its answers to the organiser.
"""

import os
import subprocess
import time

from phone import Phone, check, console_errors, finish, register, stripped
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

BASE = os.environ["VSH_URL"]
PHOTOS = os.environ["VSH_PHOTOS"]
work = os.environ.get("HOME", "/tmp")
photo_a = stripped(os.path.join(PHOTOS, "sign-inside.jpg"), os.path.join(work, "qa.jpg"))
photo_b = stripped(os.path.join(PHOTOS, "sphere-camera-clock.jpg"), os.path.join(work, "qb.jpg"))
photo_c = stripped(os.path.join(PHOTOS, "far-away.jpg"), os.path.join(work, "qc.jpg"))

phone = Phone(BASE, os.environ["VSH_SCREENSHOTS"])
driver, wait, text_of = phone.driver, phone.wait, phone.text_of
step, press = phone.step, phone.press


def check_in(photo):
    driver.execute_script("document.querySelector('.result').textContent = ''")
    driver.find_element(By.ID, "photo").send_keys(photo)
    wait.until(lambda d: "ready" in text_of(".fix-state"))
    press("Check in here")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".result .verdict"))
    return text_of(".result .verdict")


try:
    register("Quinn Asker", "quinn@example.org", "a long password")
    register("Rae Picker", "rae@example.org", "a long password")
    organiser = register("Olga Ortiz", "olga@example.org", "a long password")
    role = subprocess.run([os.environ["VSH_BIN"], "player", "role", "Olga Ortiz", "organiser", "--db", os.environ["VSH_DB"]],
                          capture_output=True, text=True)
    check(role.returncode == 0, f"Olga is an organiser: {role.stderr}")
    phone.sign_in("Quinn Asker", "a long password")

    step("the hunt's page says which stops ask a question")
    driver.get(BASE + "/hunts/fountain-walk")
    wait.until(lambda d: "Fountain walk" in text_of("h1"))
    rows = driver.execute_script("return [...document.querySelectorAll('ol.stops li')].map((li) => li.textContent)")
    check(len(rows) == 3 and "question: +20 points" in " ".join(rows), f"the stops with a question say so: {rows}")

    step("a wrong answer checks in, says the tries left, and leaves the question open")
    phone.place((36.1126, -115.1767))
    driver.get(BASE + "/stops/water-show")
    wait.until(lambda d: "The water show" in text_of("h1"))
    box = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "fieldset.stop-question")))
    check("Which hotel's lake is this?" in box.text, f"the question is shown: {box.text!r}")
    check("20 points for the right answer" in box.text and "3 tries" in box.text, f"with its points and tries: {box.text!r}")
    check("Bellagio" not in driver.page_source, "the answer is not in the page")
    answer = driver.find_element(By.ID, "answer")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", answer)
    answer.send_keys("Caesars Palace")
    phone.shot("question-typed")
    verdict = check_in(photo_a)
    check("The water show" in verdict and "points" in verdict, f"the stop counts: {verdict!r}")
    wait.until(lambda d: "Tries left: 2" in text_of(".verdict .answer-outcome"))
    check(driver.find_element(By.ID, "answer").is_displayed(), "the question stays open for another try")
    check(driver.find_element(By.ID, "answer").get_attribute("value") == "", "the field is cleared")

    step("the right answer, in capitals with an accent, earns the question's points")
    driver.find_element(By.ID, "answer").send_keys("BELLAGÍO")
    verdict = check_in(photo_b)
    wait.until(lambda d: "Right answer!" in text_of(".verdict .answer-outcome"))
    check("+20 points" in text_of(".result .verdict"), f"the answer's points: {text_of('.result .verdict')!r}")
    time.sleep(1)  # the verdict's entrance animation, for the picture
    phone.shot("stop-question-right")

    step("a stop with choices: another player, there already, picks one")
    driver.execute_script("localStorage.clear()")
    phone.sign_in("Rae Picker", "a long password")
    phone.place((36.1155, -115.1767))
    driver.get(BASE + "/stops/cirque")
    wait.until(lambda d: "The theatre" in text_of("h1"))
    choices = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "fieldset.stop-question input[type=radio]"))
    check([c.get_attribute("value") for c in choices] == ["O", "Mystère", "KÀ"], "the three choices")
    check("One try" in text_of("fieldset.stop-question"), "one try, said")
    phone.click(driver.find_element(By.CSS_SELECTOR, "label[for='answer-0']"))
    driver.execute_script("document.querySelector('fieldset.stop-question').scrollIntoView({block: 'start'})")
    phone.shot("stop-question-choices")
    verdict = check_in(photo_c)
    wait.until(lambda d: "Right answer!" in text_of(".verdict .answer-outcome"))

    step("the console's stop editor shows the question and its answers to the organiser")
    driver.execute_script("localStorage.clear()")
    phone.sign_in("Olga Ortiz", "a long password")
    driver.get(BASE + "/organise/fountain-walk")
    editor = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "li[data-stop='water-show'] fieldset.stop-question-editor")))
    question = driver.find_element(By.CSS_SELECTOR, "li[data-stop='water-show'] fieldset.stop-question-editor input")
    check(question.get_attribute("value") == "Which hotel's lake is this?", "the question")
    answers = driver.find_element(By.CSS_SELECTOR, "li[data-stop='water-show'] fieldset.stop-question-editor textarea")
    check(answers.get_attribute("value") == "Bellagio", f"its answer, for the organiser: {answers.get_attribute('value')!r}")
    check(driver.find_element(By.CSS_SELECTOR, "li[data-stop='jet-count'] input[name='proof-answer']").is_selected(),
          "the jets' stop asks for its answer")
    driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", editor)
    phone.shot("console-stop-question")
    console_errors(driver, allowed=[r"Network location provider"])
except Exception:
    phone.shot("question-failure")
    raise
finally:
    driver.quit()

finish("question")
