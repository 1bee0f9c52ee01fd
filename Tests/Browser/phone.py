"""What the browser scripts share: headless Chromium at a 390 x 844 phone viewport through Debian's
chromedriver (in a language when asked), a list of failed checks, the console's errors as failures,
the end of a script, and the text of an element as the page has it now (the app redraws `main`, so
a found element can go stale)."""

import re
import sys

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.support.ui import WebDriverWait

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message, flush=True)
    return condition


def start(language=None, arguments=(), performance=False):
    """The driver and a wait of 60 s (a busy CI machine runs the whole suite beside the script).
    `language` (as "es-ES") is the browser's own and its Accept-Language; `arguments` are more
    Chromium switches; `performance` also keeps the network log (what `requests` reads)."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=390,844",
                     "--disable-gpu", "--no-first-run", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--disable-default-apps", *arguments]:
        options.add_argument(argument)
    if language:
        options.add_argument("--lang=" + language)
        options.add_experimental_option("prefs", {"intl.accept_languages": f"{language},{language.split('-')[0]}"})
    logs = {"browser": "ALL", "performance": "ALL"} if performance else {"browser": "ALL"}
    options.set_capability("goog:loggingPrefs", logs)
    # Chromium's own folders (its profile, its single-instance socket) go in one of the test's,
    # which is removed at exit: the socket's folder outlives a browser that chromedriver stops.
    service = webdriver.ChromeService(executable_path="/usr/bin/chromedriver",
                                      env={**os.environ, "TMPDIR": scratch_folder("vsh-chromium-")})
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_window_size(390, 844)
    return driver, waiter(driver, 60)


def waiter(driver, seconds):
    """A wait whose conditions may read elements a live page replaces meanwhile (a board's rows
    drawn again): an element gone stale is read again at the next poll, as one not there yet is."""
    return WebDriverWait(driver, seconds, ignored_exceptions=(StaleElementReferenceException,))


def console_errors(driver, allowed=()):
    """Fails a check for each console error since the last call, but those matching a pattern of
    `allowed` (regular expressions: what the test itself causes, such as going offline)."""
    for entry in driver.get_log("browser"):
        if entry["level"] == "SEVERE" and not any(re.search(p, entry["message"]) for p in allowed):
            check(False, f"console error: {entry['message']}")


def finish(name):
    """Ends the script (after the browser quit): exit 1 with the count when a check failed."""
    if failures:
        print(f"{len(failures)} {name} checks failed", flush=True)
        sys.exit(1)
    print(f"all {name} checks passed", flush=True)


def text_reader(driver):
    def text_of(selector):
        return driver.execute_script(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : ''", selector)
    return text_of


class Phone:
    """A phone's browser as the scripts drive it: the driver, its wait and text reader, and the steps
    every script takes (a position emulated, signing in, pressing a button clear of the tab bar)."""

    def __init__(self, base, screenshots, **options):
        self.base, self.screenshots = base, screenshots
        self.driver, self.wait = start(**options)
        self.text_of = text_reader(self.driver)

    @staticmethod
    def step(text):
        print("--", text, flush=True)

    def shot(self, name):
        self.driver.save_screenshot(os.path.join(self.screenshots, name + ".png"))

    def place(self, position, accuracy=8):
        """The phone's position from now on (CDP's geolocation override)."""
        self.driver.execute_cdp_cmd("Emulation.setGeolocationOverride",
                                    {"latitude": position[0], "longitude": position[1], "accuracy": accuracy})

    def sign_in(self, name, password):
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support import expected_conditions as EC
        self.driver.get(self.base + "/signin")
        self.wait.until(EC.presence_of_element_located((By.ID, "username"))).send_keys(name)
        self.driver.find_element(By.ID, "password").send_keys(password)
        self.driver.find_element(By.CSS_SELECTOR, "form.account button[type=submit]").click()
        self.wait.until(lambda d: self.text_of("#who") == name)

    def click(self, element):
        """Clicks an element scrolled to the middle of the screen (clear of the tab bar)."""
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        element.click()

    def button(self, text):
        """The visible button with this text."""
        from selenium.webdriver.common.by import By
        for b in self.driver.find_elements(By.TAG_NAME, "button"):
            if b.text.strip() == text and b.is_displayed():
                return b
        raise AssertionError(f"no button {text!r}")

    def press(self, text):
        self.click(self.button(text))


# ---------------------------------------------------------------- fixtures and the API

import atexit
import json
import os
import shutil
import tempfile
import time
import urllib.error
import urllib.request
import uuid


def scratch_folder(prefix):
    """A new folder for a test's files, removed when the test's process ends, pass or fail."""
    folder = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def stripped(source, target):
    """The JPEG without its APPn segments (EXIF, XMP): what a phone browser uploads."""
    data = open(source, "rb").read()
    out = bytearray(data[:2])
    i = 2
    while i < len(data):
        marker = data[i + 1]
        if marker == 0xDA:
            out += data[i:]
            break
        length = int.from_bytes(data[i + 2:i + 4], "big")
        if not (0xE1 <= marker <= 0xEF):
            out += data[i:i + 2 + length]
        i += 2 + length
    open(target, "wb").write(out)
    return target


def http(method, path, body=None, token=None, headers=None, raw=None):
    """A call to the server in VSH_URL: (status, parsed JSON or None)."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(os.environ["VSH_URL"] + path, data=data, method=method)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    for k, v in (headers or {}).items():
        request.add_header(k, v)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            text = answer.read()
            return answer.status, json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def register(name, email, password):
    """A new player's account through the API: their token (a failed check when refused)."""
    status, answer = http("POST", "/v1/accounts", {"username": name, "email": email, "password": password})
    check(status == 201, f"{name} registers: {status} {answer}")
    return (answer or {}).get("token")


def device_checkin(token, lat, lon, accuracy, hunt, ago=0):
    """A check-in with a device fix only, taken `ago` seconds before it is sent."""
    boundary = "vsh" + uuid.uuid4().hex
    fields = {"lat": str(lat), "lon": str(lon), "accuracy_m": str(accuracy),
              "fix_time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - ago)), "hunt": hunt}
    body = b"".join(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode() for k, v in fields.items()
    ) + f"--{boundary}--\r\n".encode()
    return http("POST", "/v1/checkins", token=token, raw=body,
                headers={"Content-Type": f"multipart/form-data; boundary={boundary}", "Idempotency-Key": uuid.uuid4().hex})
