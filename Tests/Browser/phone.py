"""What the small browser scripts share (reset_test.py, schedule_test.py): headless Chromium at a
390 x 844 phone viewport through Debian's chromedriver, a list of failed checks, and the text of an
element as the page has it now (the app redraws `main`, so a found element can go stale)."""

from selenium import webdriver
from selenium.webdriver.support.ui import WebDriverWait

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message, flush=True)
    return condition


def start():
    """The driver and a wait of 60 s (a busy CI machine runs the whole suite beside the script)."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=390,844",
                     "--disable-gpu", "--no-first-run", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--disable-default-apps"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options,
                              service=webdriver.ChromeService(executable_path="/usr/bin/chromedriver"))
    driver.set_window_size(390, 844)
    return driver, WebDriverWait(driver, 60)


def text_reader(driver):
    def text_of(selector):
        return driver.execute_script(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : ''", selector)
    return text_of
