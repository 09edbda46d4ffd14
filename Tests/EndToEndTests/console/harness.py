#!/usr/bin/python3
"""Drives the ck console in headless Chromium through Selenium (Debian's chromium, chromium-driver, python3-selenium).

Usage: harness.py --url URL --module NAME --ck BINARY --data-dir DIR --shots DIR [--docs-shot FILE]

Loads test_<NAME>.py beside this file and runs its test_* functions in the order they are written, each given a
Harness. Prints one JSON line per test ({"test", "ok", "error"}) and exits 1 if any failed. After every test the
browser's console log is read: any SEVERE entry (an uncaught error, a failed load, a CSP refusal) fails the test.
A failed test leaves a screenshot <module>-<test>.png in --shots.
"""
import argparse, importlib.util, json, os, subprocess, sys, tempfile, time, traceback, urllib.request, urllib.error

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service as ChromeService
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait


class Harness:
    """What a console test uses: the browser, the server's URL, the ck binary on the server's store."""

    def __init__(self, driver, args):
        self.driver = driver
        self.url = args.url.rstrip("/")
        self.binary = args.ck
        self.data_dir = args.data_dir
        self.shots = args.shots
        self.docs_shot = args.docs_shot
        self.By = By
        self.Keys = Keys

    # --- the page ---
    def open(self, query=""):
        """Loads the console and waits until core.js has filled the pickers and shown the first section."""
        self.driver.get(self.url + "/" + query)
        self.wait(lambda d: d.execute_script("return document.documentElement.getAttribute('data-ready')") == "1",
                  "the console to be ready (html[data-ready])")

    def wait(self, condition, what, timeout=10):
        """Waits for condition(driver) to be truthy; fails naming `what`."""
        try:
            # A section that re-renders while a wait reads it leaves a stale element: look again, don't fail.
            return WebDriverWait(self.driver, timeout, poll_frequency=0.05,
                                 ignored_exceptions=(StaleElementReferenceException,)).until(condition)
        except Exception:
            raise AssertionError("waited %ss for %s" % (timeout, what))

    def find(self, css, timeout=10):
        """The first element matching css, once it is there and displayed."""
        def present(d):
            for e in d.find_elements(By.CSS_SELECTOR, css):
                if e.is_displayed():
                    return e
            return None
        return self.wait(present, css, timeout)

    def all(self, css):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def click(self, css):
        self.find(css).click()

    def type(self, css, text, clear=True):
        e = self.find(css)
        if clear:
            e.clear()
        e.send_keys(text)
        return e

    def select(self, css, value):
        Select(self.find(css)).select_by_value(value)

    def text(self, css):
        return self.find(css).text

    def section(self, name):
        """Shows a section by its nav button and waits for it."""
        self.click('#sections [data-section="%s"]' % name)
        return self.find("#section-" + name)

    def wait_text(self, css, needle, timeout=10):
        """Waits until an element matching css shows text containing needle; returns that text."""
        def has(d):
            for e in d.find_elements(By.CSS_SELECTOR, css):
                if needle in e.text:
                    return e.text
            return None
        return self.wait(has, "%r in %s" % (needle, css), timeout)

    def shows(self, css, needle, timeout=10):
        """Waits until an element matching css holds needle in its text; returns that text. Read in one script call,
        so an element rebuilt between two reads (a detail redrawn when its bodies arrive) is never a stale handle."""
        return self.wait(lambda d: next((t for t in self.script(
            "return Array.from(document.querySelectorAll(arguments[0])).map(e => e.textContent)", css) if needle in t), None),
            "%r in %s" % (needle, css), timeout)

    def script(self, js, *args):
        return self.driver.execute_script(js, *args)

    def shot(self, name):
        path = os.path.join(self.shots, name + ".png")
        self.driver.save_screenshot(path)
        return path

    # --- the server and the store, for set-up and for checking what the page did ---
    def ck(self, *args, ok=True):
        """Runs the ck binary on the server's store; returns stdout. Fails if it fails and ok is True."""
        env = dict(os.environ, CK_DATA_DIR=self.data_dir, NO_COLOR="1")
        p = subprocess.run([self.binary] + list(args), capture_output=True, text=True, env=env, timeout=60)
        if ok and p.returncode != 0:
            raise AssertionError("ck %s exited %d: %s" % (" ".join(args), p.returncode, p.stderr))
        return p.stdout

    def http(self, method, path, body=None, headers=None):
        """One request to the server; returns (status, parsed JSON or text)."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers or {})
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                status, raw = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, raw = e.code, e.read()
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode("utf-8", "replace")

    def console_errors(self):
        """The browser console's SEVERE entries since the last call. Chromium also logs every non-2xx answer to a
        fetch as SEVERE ("Failed to load resource"); an API answer (/database/…, /_ck/ routes) that is CloudKit's
        refusal is what a test provokes and the page shows, so those are left out — a page file, an image or
        anything else that fails to load still counts."""
        def api_refusal(e):
            m = e.get("message", "")
            if e.get("source") != "network" or "Failed to load resource: the server responded with a status of" not in m:
                return False
            url = m.split(" ", 1)[0]
            path = url[len(self.url):] if url.startswith(self.url) else ""
            return path.startswith("/database/") or (path.startswith("/_ck/") and not path.startswith("/_ck/console/"))
        return [e for e in self.driver.get_log("browser") if e.get("level") == "SEVERE" and not api_refusal(e)]


def browser(width=1280, height=800):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
              "--disable-extensions", "--window-size=%d,%d" % (width, height),
              "--user-data-dir=" + tempfile.mkdtemp(prefix="ck-console-chromium-")):
        options.add_argument(a)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = ChromeService(executable_path="/usr/bin/chromedriver")
    return webdriver.Chrome(options=options, service=service)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--module", required=True)
    ap.add_argument("--ck", required=True)
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--shots", required=True)
    ap.add_argument("--docs-shot")
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("test_" + args.module, os.path.join(here, "test_%s.py" % args.module))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tests = [(n, f) for n, f in vars(module).items() if n.startswith("test_") and callable(f)]
    tests.sort(key=lambda t: t[1].__code__.co_firstlineno)
    driver = browser()
    failed = 0
    try:
        h = Harness(driver, args)
        for name, test in tests:
            started = time.time()
            error = None
            try:
                test(h)
                errors = h.console_errors()
                if errors:
                    error = "browser console errors: " + json.dumps(errors)
            except Exception as e:  # a failed assertion or a Selenium error: report it and go on
                error = "%s: %s\n%s" % (type(e).__name__, e, traceback.format_exc())
                h.console_errors()
            if error:
                failed += 1
                try:
                    error += "\nscreenshot: " + h.shot("%s-%s" % (args.module, name))
                except Exception:
                    pass
            print(json.dumps({"test": name, "ok": error is None, "error": error,
                              "seconds": round(time.time() - started, 2)}), flush=True)
    finally:
        driver.quit()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
