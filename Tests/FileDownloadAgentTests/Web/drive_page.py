#!/usr/bin/env python3
"""Drives the agent's web page in a headless Chromium through chromedriver (W3C WebDriver over
HTTP, Python's standard library only) the way a person would, and fails (exit 1) as soon as the
page does not do what it should.

    drive_page.py --login URL --url SLOW_URL --id NAME --missing MISSING_URL --shots DIR
    drive_page.py --login URL --id NAME --ready FILE      (reconnect mode, see reconnect())
    drive_page.py --login URL --id NAME --dead KEY --drop KEY   (dead letters, see dead_letters())

In order: opens the login URL and checks the page lost the token from its address; waits until
the event stream is live; adds the slow download through the form (URL and name) and a second one
whose file does not exist; watches the slow one's bar move (its value increases twice); takes
DIR/agent-ui-1280.png at 1280x800; pauses it with the keyboard (Enter on the focused Pause
button) and sees "paused"; resumes it with a click; sees it completed with a full bar and the
missing one failed with its error in words; takes DIR/agent-ui-400.png at 400x800 and checks
the page is not wider than the window. Every wait is bounded.
"""
import argparse
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ENTER = "\ue007"
TIMEOUT = 60.0


class Failure(Exception):
    pass


def log(text):
    print("drive_page: " + text, flush=True)


class Driver:
    def __init__(self, binary, driver, profile):
        self.driver_process = None
        self.base = None
        for _ in range(5):  # a free port may be taken between finding it and chromedriver binding it
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
            process = subprocess.Popen([driver, "--port=%d" % port, "--allowed-ips=127.0.0.1"],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.base = "http://127.0.0.1:%d" % port
            if self._wait_ready(process):
                self.driver_process = process
                break
            process.kill()
            process.wait()
        if self.driver_process is None:
            raise Failure("chromedriver did not start")
        capabilities = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": binary,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--window-size=1280,800", "--user-data-dir=" + profile, "--hide-scrollbars",
                         "--no-first-run", "--disable-extensions"],
            },
        }}}
        self.session = self.call("POST", "/session", capabilities, timeout=120)["sessionId"]

    def _wait_ready(self, process):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return False
            try:
                with urllib.request.urlopen(self.base + "/status", timeout=2) as answer:
                    if json.load(answer)["value"].get("ready"):
                        return True
            except (OSError, ValueError, KeyError):
                pass
            time.sleep(0.1)
        return False

    def call(self, method, path, body=None, timeout=TIMEOUT):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                return json.load(answer)["value"]
        except urllib.error.HTTPError as error:
            raise Failure("WebDriver %s %s: %s" % (method, path, error.read().decode(errors="replace")[:500]))

    def s(self, path, body=None, method=None):
        return self.call(method or ("GET" if body is None else "POST"), "/session/%s%s" % (self.session, path), body)

    def go(self, url):
        self.s("/url", {"url": url})

    def script(self, source, *args):
        return self.s("/execute/sync", {"script": source, "args": list(args)})

    def find(self, css):
        value = self.s("/element", {"using": "css selector", "value": css})
        return next(iter(value.values()))

    def click(self, css):
        self.s("/element/%s/click" % self.find(css), {})

    def type(self, css, text):
        self.s("/element/%s/value" % self.find(css), {"text": text})

    def resize(self, width, height):
        """Makes the page's viewport exactly `width` x `height` CSS pixels (the screenshot's size)."""
        self.s("/goog/cdp/execute", {"cmd": "Emulation.setDeviceMetricsOverride", "params": {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}})

    def screenshot(self, path):
        with open(path, "wb") as file:
            file.write(base64.b64decode(self.s("/screenshot")))
        log("screenshot " + path)

    def wait(self, what, source, *args, timeout=TIMEOUT):
        """Evaluates `source` until it returns something truthy; returns that."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            last = self.script(source, *args)
            if last:
                return last
            time.sleep(0.1)
        raise Failure("timed out waiting until %s (page: %s)" % (what, self.page_text()))

    def page_text(self):
        try:
            return self.script("return document.body.innerText;")[:2000]
        except Failure as error:
            return str(error)

    def close(self):
        try:
            self.s("", method="DELETE")
        except Exception:
            pass
        if self.driver_process:
            self.driver_process.kill()
            self.driver_process.wait()


ROW = 'return document.querySelector(\'li[data-id="\' + arguments[0] + \'"]\');'
BAR = ('function bar(id) { const li = document.querySelector(\'li[data-id="\' + id + \'"]\');'
       'if (!li) return null; const bar = li.querySelector("progress");'
       'return bar.hasAttribute("value") ? [bar.value, bar.max] : null; }')
STATE = ('const li = document.querySelector(\'li[data-id="\' + arguments[0] + \'"]\');'
         'return li && li.classList.contains("state-" + arguments[1]);')


def run(arguments):
    binary = shutil.which("chromium") or "/usr/bin/chromium"
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    profile = tempfile.mkdtemp(prefix="fdl-chromium-")
    driver = None
    try:
        driver = Driver(binary, driver_path, profile)
        driver.resize(1280, 800)
        driver.go(arguments.login)
        address = driver.s("/url")
        if "token" in address or not address.endswith("/ui/"):
            raise Failure("after the login the address is %s, not the page without the token" % address)
        driver.wait("the event stream is live", 'return document.getElementById("connection").textContent === "live";')
        log("page open and live at " + address)

        # The overall limit the test set through the API before the page opened is shown; then
        # with the keyboard only: "No limit" clears it, a rate typed and Enter sets it.
        LIMIT = 'return document.getElementById("limit-now").dataset.bytesPerSecond === arguments[0] ? document.getElementById("limit-now").textContent : null;'
        shown = driver.wait("the page shows the limit set through the API", LIMIT, arguments.limit)
        log("limit shown: " + shown)
        driver.s("/element/%s/value" % driver.find("#limit-clear"), {"text": ENTER})
        driver.wait("the limit is cleared", LIMIT, "")
        driver.type("#limit-rate", "32M" + ENTER)
        shown = driver.wait("the limit typed is set", LIMIT, str(32 * 1024 * 1024))
        log("limit set in the page: " + shown)

        # The slow file through its mirror: the first URL refuses connections (nothing listens
        # on port 9), so every byte comes from the mirror typed into the form's mirrors field.
        dead = "http://127.0.0.1:9/" + arguments.url.rstrip("/").split("/")[-1]
        driver.type("#urls", dead)
        driver.type("#mirrors", arguments.url)
        driver.type("#name", arguments.id)
        driver.click('#add button[type="submit"]')
        driver.wait("the download appears", ROW, arguments.id)
        driver.wait("its row names the mirror", 'const li = document.querySelector(\'li[data-id="\' + arguments[0] + \'"]\');'
                    'return li && li.querySelector(".url").textContent.includes(arguments[1]);', arguments.id, arguments.url)
        driver.type("#urls", arguments.missing)
        driver.click('#add button[type="submit"]')

        first = driver.wait("the bar shows bytes", BAR + 'const v = bar(arguments[0]); return v && v[0] > 0 ? v : null;', arguments.id)
        second = driver.wait("the bar moves", BAR + 'const v = bar(arguments[0]); return v && v[0] > arguments[1] ? v : null;',
                             arguments.id, first[0])
        third = driver.wait("the bar moves again", BAR + 'const v = bar(arguments[0]); return v && v[0] > arguments[1] ? v : null;',
                            arguments.id, second[0])
        log("bar values %d, %d, %d of %d" % (first[0], second[0], third[0], third[1]))
        driver.wait("the missing file's download failed", STATE, "missing.bin", "failed")
        driver.screenshot(os.path.join(arguments.shots, "agent-ui-1280.png"))

        pause = driver.find('li[data-id="%s"] button[data-action="pause"]' % arguments.id)
        driver.s("/element/%s/value" % pause, {"text": ENTER})
        driver.wait("the download is paused", STATE, arguments.id, "paused")
        paused_at = driver.script(BAR + 'return bar(arguments[0]);', arguments.id)
        log("paused at %s" % paused_at)

        driver.click('li[data-id="%s"] button[data-action="resume"]' % arguments.id)
        driver.wait("the download completed", STATE, arguments.id, "completed", timeout=120)
        done = driver.wait("the bar is full", BAR + 'const v = bar(arguments[0]); return v && v[0] === v[1] ? v : null;', arguments.id)
        log("completed, bar %d of %d" % (done[0], done[1]))
        error = driver.script('return document.querySelector(\'li[data-id="missing.bin"] .error\').textContent;')
        if not error:
            raise Failure("the failed download shows no error")
        log("the failed download says: " + error)

        driver.resize(400, 800)
        width = driver.wait("the window is 400 px wide", 'return window.innerWidth <= 400 ? [window.innerWidth, document.documentElement.scrollWidth] : null;')
        if width[1] > width[0]:
            raise Failure("at %d px the page is %d px wide (it scrolls sideways)" % (width[0], width[1]))
        driver.script("window.scrollTo(0, 0);")
        driver.screenshot(os.path.join(arguments.shots, "agent-ui-400.png"))
        return 0
    finally:
        if driver:
            driver.close()
        shutil.rmtree(profile, ignore_errors=True)


def reconnect(arguments):
    """Opens the page, waits until it is live, creates the file `--ready` (the test then restarts
    the agent on the same port and adds the download `--id`), and waits until the page is live
    again and shows that download: it can only learn of it from the restarted agent."""
    profile = tempfile.mkdtemp(prefix="fdl-chromium-")
    driver = None
    try:
        driver = Driver(shutil.which("chromium") or "/usr/bin/chromium", shutil.which("chromedriver") or "/usr/bin/chromedriver", profile)
        driver.go(arguments.login)
        driver.wait("the event stream is live", 'return document.getElementById("connection").textContent === "live";')
        open(arguments.ready, "w").close()
        log("live; the agent may restart")
        driver.wait("the download added after the restart appears", ROW, arguments.id, timeout=120)
        driver.wait("the event stream is live again", 'return document.getElementById("connection").textContent === "live";')
        log("reconnected and shows " + arguments.id)
        return 0
    finally:
        if driver:
            driver.close()
        shutil.rmtree(profile, ignore_errors=True)


def dead_letters(arguments):
    """Opens the page and waits until it lists the dead letters `--drop` and `--dead`; drops the
    first with its Drop button, retries the second with its Retry button (the test's receiver
    then acknowledges it), and waits until no dead letter is left and the section is hidden."""
    profile = tempfile.mkdtemp(prefix="fdl-chromium-")
    driver = None
    listed = ('const li = document.querySelector(\'#dead li[data-key="\' + arguments[0] + \'"]\');'
              ' return li !== null && !document.getElementById("dead-section").hidden;')
    try:
        driver = Driver(shutil.which("chromium") or "/usr/bin/chromium", shutil.which("chromedriver") or "/usr/bin/chromedriver", profile)
        driver.go(arguments.login)
        driver.wait("the event stream is live", 'return document.getElementById("connection").textContent === "live";')
        for key in (arguments.drop, arguments.dead):
            driver.wait("the dead letter %s is listed" % key, listed, key)
        driver.click('#dead li[data-key="%s"] button[data-action="drop"]' % arguments.drop)
        driver.wait("the dropped one is gone", 'return document.querySelector(\'#dead li[data-key="\' + arguments[0] + \'"]\') === null;',
                    arguments.drop)
        driver.click('#dead li[data-key="%s"] button[data-action="retry"]' % arguments.dead)
        driver.wait("no dead letter is left", 'return document.getElementById("dead-section").hidden;')
        log("dropped %s, retried %s" % (arguments.drop, arguments.dead))
        return 0
    finally:
        if driver:
            driver.close()
        shutil.rmtree(profile, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--login", required=True)
    parser.add_argument("--id", required=True)
    parser.add_argument("--ready", help="reconnect mode: the file to create once the page is live")
    parser.add_argument("--dead", help="dead-letter mode: the key to retry (and --drop: the key to drop)")
    parser.add_argument("--drop")
    for name in ("url", "missing", "shots", "limit"):
        parser.add_argument("--" + name)
    arguments = parser.parse_args()
    try:
        if arguments.ready:
            return reconnect(arguments)
        if arguments.dead and arguments.drop:
            return dead_letters(arguments)
        if not (arguments.url and arguments.missing and arguments.shots and arguments.limit):
            parser.error("--url, --missing, --shots and --limit are needed (or --ready)")
        return run(arguments)
    except Failure as failure:
        log("FAILED: %s" % failure)
        return 1


if __name__ == "__main__":
    sys.exit(main())
