"""A forgotten password, followed as a player would on a phone (390 x 844, headless Chromium):
ask for a link on the sign-in page, open the link from the e-mail that reached a real SMTP sink
(aiosmtpd's maildir), choose a new password on /reset-password, sign in with it. Run by
WebAppBrowserTests.aForgottenPasswordIsResetInTheBrowser, which passes:

  VSH_URL          the server (started with --smtp to the sink)
  VSH_MAILDIR      the sink's maildir
  VSH_SCREENSHOTS  where the screenshots go
"""

import email
import email.policy
import os
import re
import time

from phone import check, console_errors, finish, start, text_reader
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

BASE = os.environ["VSH_URL"]
MAILDIR = os.path.join(os.environ["VSH_MAILDIR"], "new")
SHOTS = os.environ["VSH_SCREENSHOTS"]
driver, wait = start()
text_of = text_reader(driver)


try:
    print("-- the sign-in page: forgot the password", flush=True)
    driver.get(BASE + "/signin")
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "details.reset summary"))).click()
    driver.find_element(By.ID, "reset-email").send_keys("ann@example.org")
    driver.find_element(By.CSS_SELECTOR, "details.reset button").click()
    wait.until(lambda d: "on its way" in text_of("#reset-status"))

    print("-- the e-mail", flush=True)
    names = []
    for _ in range(400):
        names = os.listdir(MAILDIR) if os.path.isdir(MAILDIR) else []
        if names:
            break
        time.sleep(0.05)
    check(len(names) == 1, f"one message, saw {len(names)}")
    message = email.message_from_binary_file(open(os.path.join(MAILDIR, names[0]), "rb"), policy=email.policy.default)
    text = message.get_body(preferencelist=("plain",)).get_content()
    link = re.search(r"(http://\S+/reset-password\?token=[0-9a-f]{64})", text)
    check(link is not None, "the message carries a link to the reset page")

    print("-- the link, opened on the phone", flush=True)
    driver.get(link.group(1))
    field = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "input#password[autocomplete='new-password']")))
    check("token" not in driver.current_url, f"the token left the address bar: {driver.current_url}")
    check(text_of("main h1") == "Choose a new password", "the page says what it is for")
    driver.save_screenshot(os.path.join(SHOTS, "reset-password.png"))
    field.send_keys("a brand new password")
    driver.find_element(By.CSS_SELECTOR, "form.account button[type=submit]").click()
    wait.until(lambda d: text_of("main h1") == "Password changed")
    driver.save_screenshot(os.path.join(SHOTS, "reset-done.png"))

    print("-- signing in with the new password, and the e-mail address instead of the name", flush=True)
    driver.find_element(By.CSS_SELECTOR, "main a[href='/signin']").click()
    field = wait.until(EC.presence_of_element_located((By.ID, "username")))
    label = driver.find_element(By.CSS_SELECTOR, "label[for='username']").text
    check("e-mail" in label, f"the sign-in field says it takes an e-mail address: {label!r}")
    field.send_keys("ann@example.org")
    driver.find_element(By.ID, "password").send_keys("a brand new password")
    driver.find_element(By.CSS_SELECTOR, "form.account button[type=submit]").click()
    wait.until(lambda d: d.current_url.rstrip("/") == BASE)

    print("-- the link a second time: used", flush=True)
    driver.get(link.group(1))
    wait.until(EC.presence_of_element_located((By.ID, "password"))).send_keys("yet another password")
    driver.find_element(By.CSS_SELECTOR, "form.account button[type=submit]").click()
    wait.until(lambda d: "used already or has expired" in text_of("main"))
    console_errors(driver, allowed=["404"])
finally:
    driver.quit()

finish("reset")
