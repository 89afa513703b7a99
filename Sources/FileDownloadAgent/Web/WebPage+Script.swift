extension WebPage {
    /// The script: lists the downloads (`GET /v1/downloads`, a page of 200 at a time, more on
    /// "Show more") with the counts of `GET /v1/summary`, follows `GET /v1/events` with `fetch`
    /// and a stream reader (reconnecting after the agent restarts, with `Last-Event-ID`), adds
    /// downloads from the form (with mirrors) and sends pause, resume, cancel, retry and forget;
    /// shows the overall limit (`GET /v1/limit`, read again on every (re)connect, after
    /// journalled events and every 5 s) and sets or clears it (`PUT /v1/limit`). Rows are updated
    /// in place, so a focused button keeps its focus. Lists the dead letters of the completion
    /// deliveries (`GET /v1/deliveries/dead`, with the summary and every 5 s: a delivery dies
    /// without an event) with a Retry and a Drop button
    /// each (`POST .../retry`, `DELETE`); the section is hidden while there are none.
    ///
    /// The token comes from the URL's fragment (`#token=TOKEN`, which no browser sends to a
    /// server): the script removes it from the address bar and the history entry at once
    /// (`history.replaceState`), keeps it in the tab's `sessionStorage` (so a reload stays logged
    /// in; no other origin can read it) and sends it as `Authorization: Bearer TOKEN` on every
    /// request, the event stream's included (an `EventSource` cannot send a header). No request
    /// carries a cookie (`credentials: "omit"`). Without a valid token the page says to open the
    /// URL `fdl ui` prints.
    static let script = #"""
        "use strict";
        const downloads = new Map();
        const PAGE = 200;
        let wanted = PAGE, summary = null, summaryTimer = null;
        const list = document.getElementById("downloads");
        const connection = document.getElementById("connection");
        const message = document.getElementById("message");
        // The token from the fragment, gone from the address bar and the history at once.
        const token = (() => {
          const match = /(?:^#|&)token=([0-9a-fA-F]{64})(?:&|$)/.exec(location.hash);
          if (location.hash.includes("token")) history.replaceState(null, "", location.pathname + location.search);
          if (match) {
            const value = match[1].toLowerCase();
            try { sessionStorage.setItem("fdl-agent-token", value); } catch (e) { /* kept in memory only */ }
            return value;
          }
          try { return sessionStorage.getItem("fdl-agent-token"); } catch (e) { return null; }
        })();
        const NO_TOKEN = "This page has no valid token: open the URL that `fdl ui` prints (it ends in #token=…).";
        function unauthorized() {
          connection.textContent = "not logged in";
          connection.className = "down";
          message.textContent = NO_TOKEN;
        }
        function authorized(headers) {
          headers["Authorization"] = "Bearer " + token;
          return headers;
        }
        const active = new Set(["waiting", "downloading"]);
        const actionsFor = {
          pause: new Set(["waiting", "downloading", "interrupted"]),
          resume: new Set(["notStarted", "paused", "interrupted"]),
          retry: new Set(["failed", "cancelled"]),
          cancel: new Set(["notStarted", "waiting", "downloading", "paused", "interrupted", "failed"]),
          forget: new Set(["completed", "cancelled", "failed"]),
        };
        const stateWords = {
          notStarted: "not started", waiting: "waiting", downloading: "downloading", paused: "paused",
          completed: "completed", cancelled: "cancelled", interrupted: "interrupted, will retry", failed: "failed",
        };

        function bytes(n) {
          if (n == null) return "?";
          const units = ["B", "KiB", "MiB", "GiB", "TiB"];
          let i = 0;
          while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
          return (i === 0 ? n.toFixed(0) : n.toFixed(n < 10 ? 2 : 1)) + " " + units[i];
        }

        function duration(s) {
          if (s == null || !isFinite(s)) return "";
          s = Math.round(s);
          if (s < 60) return s + " s";
          if (s < 3600) return Math.floor(s / 60) + " min " + (s % 60) + " s";
          return Math.floor(s / 3600) + " h " + Math.floor((s % 3600) / 60) + " min";
        }

        async function api(method, path, body) {
          if (!token) throw new Error(NO_TOKEN);
          const options = { method, credentials: "omit", cache: "no-store", headers: authorized({}) };
          if (body !== undefined) {
            options.headers["Content-Type"] = "application/json";
            options.body = JSON.stringify(body);
          }
          const response = await fetch(path, options);
          if (response.status === 401) { unauthorized(); throw new Error(NO_TOKEN); }
          if (response.status === 204) return null;
          let json = null;
          try { json = await response.json(); } catch (e) { json = null; }
          if (!response.ok) {
            const error = new Error(json && json.message ? json.message : "the agent answered " + response.status);
            error.status = response.status;
            throw error;
          }
          return json;
        }

        function say(text) { message.textContent = text || ""; }

        function button(label, action) {
          const b = document.createElement("button");
          b.type = "button";
          b.textContent = label;
          b.dataset.action = action;
          b.addEventListener("click", () => act(action, b.closest("li").dataset.id));
          return b;
        }

        function row(id) {
          let li = list.querySelector('li[data-id="' + CSS.escape(id) + '"]');
          if (li) return li;
          li = document.createElement("li");
          li.className = "download";
          li.dataset.id = id;
          li.innerHTML = '<div class="head"><span class="name"></span><span class="state"></span></div>' +
            '<p class="url"></p><progress max="1"></progress>' +
            '<div class="numbers"><span class="bytes"></span><span class="speed"></span><span class="eta"></span></div>' +
            '<p class="error"></p><div class="actions"></div>';
          li.querySelector(".name").textContent = id;
          const actions = li.querySelector(".actions");
          for (const [action, label] of [["pause", "Pause"], ["resume", "Resume"], ["retry", "Retry"], ["cancel", "Cancel"], ["forget", "Forget"]]) {
            const b = button(label, action);
            b.setAttribute("aria-label", label + " " + id);
            actions.appendChild(b);
          }
          list.appendChild(li);
          return li;
        }

        function render(info) {
          const li = row(info.id);
          const p = info.progress || {};
          const hadFocus = li.contains(document.activeElement) ? document.activeElement : null;
          li.className = "download state-" + info.state;
          li.querySelector(".state").textContent = stateWords[info.state] || info.state;
          const mirrors = info.mirrors && info.mirrors.length ? "  (mirrors: " + info.mirrors.join(", ") + ")" : "";
          li.querySelector(".url").textContent = info.url + mirrors + "  →  " + info.destination;
          const bar = li.querySelector("progress");
          bar.setAttribute("aria-label", "progress of " + info.id);
          if (p.expectedBytes) {
            bar.max = p.expectedBytes;
            bar.value = Math.min(p.receivedBytes || 0, p.expectedBytes);
          } else if (info.state === "completed") {
            bar.max = 1; bar.value = 1;
          } else if (active.has(info.state)) {
            bar.removeAttribute("value");
          } else {
            bar.max = 1; bar.value = 0;
          }
          li.querySelector(".bytes").textContent = bytes(p.receivedBytes || 0) + (p.expectedBytes ? " of " + bytes(p.expectedBytes) : "");
          const running = info.state === "downloading";
          const speed = running && p.bytesPerSecond ? p.bytesPerSecond : 0;
          li.querySelector(".speed").textContent = speed ? bytes(speed) + "/s" : "";
          let eta = p.secondsRemaining;
          if (eta == null && speed && p.expectedBytes) eta = (p.expectedBytes - (p.receivedBytes || 0)) / speed;
          li.querySelector(".eta").textContent = running && eta != null ? duration(eta) + " left" : "";
          const error = li.querySelector(".error");
          const showsError = info.lastError && ["failed", "interrupted"].includes(info.state);
          error.textContent = showsError ? info.lastError : "";
          error.hidden = !showsError;
          for (const b of li.querySelectorAll(".actions button")) {
            b.hidden = !actionsFor[b.dataset.action].has(info.state);
          }
          if (hadFocus && hadFocus.hidden) {
            const next = li.querySelector(".actions button:not([hidden])");
            if (next) next.focus();
          }
        }

        function totals() {
          let received = 0, expected = 0, speed = 0, running = 0, done = 0;
          for (const info of downloads.values()) {
            const p = info.progress || {};
            received += p.receivedBytes || 0;
            expected += p.expectedBytes || 0;
            if (info.state === "downloading") { running++; speed += p.bytesPerSecond || 0; }
            if (info.state === "completed") done++;
          }
          let n = downloads.size;
          if (summary) {
            n = Math.max(n, summary.downloads);
            running = summary.states.downloading || 0;
            done = summary.states.completed || 0;
          }
          document.getElementById("empty").hidden = n > 0;
          document.getElementById("totals").textContent = n === 0 ? "" :
            n + (n === 1 ? " download" : " downloads") + " · " + running + " running · " + done + " completed · " +
            bytes(received) + (expected ? " of " + bytes(expected) : "") + (speed ? " · " + bytes(speed) + "/s" : "");
        }

        function update(info) {
          const known = downloads.get(info.id);
          if (known && known.progress && info.progress && info.state === "downloading" &&
              (info.progress.receivedBytes || 0) < (known.progress.receivedBytes || 0) && known.state === "downloading") {
            info.progress = known.progress;
          }
          downloads.set(info.id, info);
          render(info);
          totals();
        }

        function drop(id) {
          downloads.delete(id);
          const li = list.querySelector('li[data-id="' + CSS.escape(id) + '"]');
          if (li) li.remove();
          totals();
        }

        async function loadSummary() {
          summary = await api("GET", "/v1/summary");
          totals();
          await loadLimit();
          await loadDead();
        }

        // The dead letters of the completion deliveries, each with Retry and Drop.
        const deadList = document.getElementById("dead");
        async function loadDead() {
          const answer = await api("GET", "/v1/deliveries/dead");
          const items = answer.deliveries.map((d) => {
            const li = document.createElement("li");
            li.className = "dead";
            li.dataset.key = d.key;
            const text = document.createElement("span");
            text.textContent = d.id + ": " + ((d.event && d.event.type) || "event") + " (" + d.sequence + ") to the "
              + d.kind + " " + d.target + ", " + d.attempts + " tries, last: " + (d.lastError || "?");
            li.append(text, deadButton("Retry", "POST", "/retry", d.key), deadButton("Drop", "DELETE", "", d.key));
            return li;
          });
          deadList.replaceChildren(...items);
          document.getElementById("dead-section").hidden = items.length === 0;
        }

        function deadButton(label, method, suffix, key) {
          const b = document.createElement("button");
          b.type = "button";
          b.textContent = label;
          b.dataset.action = label.toLowerCase();
          b.addEventListener("click", async () => {
            say("");
            try {
              await api(method, "/v1/deliveries/dead/" + encodeURIComponent(key) + suffix);
            } catch (e) {
              say(label.toLowerCase() + " " + key + ": " + e.message);
            }
            loadDead().catch((e) => say(e.message));
          });
          return b;
        }

        // The summary again after journalled events, at most twice a second.
        function summaryLater() {
          if (summaryTimer) return;
          summaryTimer = setTimeout(() => { summaryTimer = null; loadSummary().catch((e) => say(e.message)); }, 500);
        }

        // The first `wanted` downloads, a page at a time; rows of downloads gone are dropped once
        // every page was read.
        async function loadAll() {
          const seen = new Set();
          let after = null, count = 0;
          do {
            const answer = await api("GET", "/v1/downloads?limit=" + PAGE + (after == null ? "" : "&after=" + after));
            for (const info of answer.downloads) { seen.add(info.id); update(info); }
            count += answer.downloads.length;
            after = answer.next == null ? null : answer.next;
          } while (after != null && count < wanted);
          if (after == null) for (const id of [...downloads.keys()]) if (!seen.has(id)) drop(id);
          document.getElementById("more").hidden = after == null;
          await loadSummary();
        }

        const limitNow = document.getElementById("limit-now");
        const limitRate = document.getElementById("limit-rate");

        function showLimit(answer) {
          const n = answer.bytesPerSecond;
          limitNow.textContent = n == null ? "No overall limit" : "Overall limit: " + bytes(n) + "/s";
          limitNow.dataset.bytesPerSecond = n == null ? "" : String(n);
        }

        async function loadLimit() { showLimit(await api("GET", "/v1/limit")); }

        // A rate as fdl's --limit-rate reads it: bytes per second, K, M or G (1024-based).
        function parseRate(text) {
          const m = /^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)([kKmMgG]?)\s*$/.exec(text);
          if (!m) return null;
          const power = { "": 0, k: 1, m: 2, g: 3 }[m[2].toLowerCase()];
          const value = parseFloat(m[1]) * Math.pow(1024, power);
          return value > 0 ? Math.max(1, Math.round(value)) : 0;
        }

        async function setLimit(value) {
          try {
            showLimit(await api("PUT", "/v1/limit", { bytesPerSecond: value }));
            say("");
          } catch (e) { say(e.message); }
        }

        document.getElementById("limit").addEventListener("submit", (event) => {
          event.preventDefault();
          const value = parseRate(limitRate.value);
          if (value == null) { say("'" + limitRate.value + "' is not a rate: write bytes per second, e.g. 500K or 1.5M"); return; }
          setLimit(value === 0 ? null : value);
        });
        document.getElementById("limit-clear").addEventListener("click", () => { limitRate.value = ""; setLimit(null); });
        setInterval(() => { loadLimit().catch(() => {}); loadDead().catch(() => {}); }, 5000);

        document.getElementById("more").addEventListener("click", () => {
          wanted += PAGE;
          loadAll().catch((e) => say(e.message));
        });

        async function refresh(id) {
          try {
            update(await api("GET", "/v1/downloads/" + encodeURIComponent(id)));
          } catch (e) {
            if (e.status === 404) drop(id); else say(e.message);
          }
        }

        async function act(action, id) {
          const info = downloads.get(id);
          const path = "/v1/downloads/" + encodeURIComponent(id);
          say("");
          try {
            if (action === "forget") {
              await api("DELETE", path);
              drop(id);
              return;
            }
            if (action === "retry" && info.state === "cancelled") {
              await api("DELETE", path);
              const again = { id: info.id, url: info.url, destination: info.destination };
              if (info.mirrors && info.mirrors.length) again.mirrors = info.mirrors;
              update(await api("POST", "/v1/downloads", again));
              return;
            }
            update(await api("POST", path + "/" + (action === "retry" ? "resume" : action)));
          } catch (e) {
            say(action + " " + id + ": " + e.message);
            refresh(id);
          }
        }

        function idFor(url, name, index, count) {
          let base = name.trim();
          if (!base) {
            try {
              const u = new URL(url);
              base = decodeURIComponent(u.pathname.split("/").filter(Boolean).pop() || u.hostname);
            } catch (e) { base = "download"; }
          } else if (count > 1) {
            base = base + "-" + (index + 1);
          }
          base = base.replace(/[\/\r\n\0]/g, "_").slice(0, 200) || "download";
          let id = base, n = 2;
          while (downloads.has(id)) id = base + "-" + n++;
          return id;
        }

        document.getElementById("add").addEventListener("submit", async (event) => {
          event.preventDefault();
          const result = document.getElementById("add-result");
          const urls = document.getElementById("urls").value.split(/\s+/).filter(Boolean);
          const name = document.getElementById("name").value;
          const sha256 = document.getElementById("sha256").value.trim();
          const destination = document.getElementById("destination").value.trim();
          const mirrors = document.getElementById("mirrors").value.split(/\s+/).filter(Boolean);
          if (urls.length > 1 && (sha256 || destination || mirrors.length)) {
            result.textContent = "SHA-256, Save as and mirrors apply to one URL; add the URLs one by one.";
            return;
          }
          const added = [], failed = [];
          for (const [index, url] of urls.entries()) {
            const body = { id: idFor(url, name, index, urls.length), url };
            if (sha256) body.sha256 = sha256.toLowerCase();
            if (destination) body.destination = destination;
            if (mirrors.length) body.mirrors = mirrors;
            try {
              update(await api("POST", "/v1/downloads", body));
              added.push(body.id);
            } catch (e) {
              failed.push(url + ": " + e.message);
            }
          }
          result.textContent = (added.length ? "Added " + added.join(", ") + ". " : "") + failed.join(" ");
          if (failed.length === 0) event.target.reset();
        });

        // The event stream, read with fetch so that it carries the token (an EventSource cannot
        // send a header); parsed as text/event-stream, reconnecting with Last-Event-ID.
        let stream = null, retryDelay = 1000, lastEventId = null;

        function handle(type, data) {
          if (type === "download") {
            const event = JSON.parse(data);
            const info = downloads.get(event.id);
            if (event.type === "removed") {
              drop(event.id);  // forgotten, here or by another client; a later add comes as its own events
              summaryLater();
              return;
            }
            if (info && event.type === "stateChanged") { info.state = event.state; update(info); }
            if (event.id) refresh(event.id);
            summaryLater();
          } else if (type === "progress") {
            const event = JSON.parse(data);
            const info = downloads.get(event.id);
            if (event.type === "progress" && info) { info.progress = event.progress; update(info); }
          } else if (type === "gap") {
            loadAll().catch((e) => say(e.message));
          }
        }

        async function read(response) {
          const reader = response.body.getReader();
          const decoder = new TextDecoder();
          let buffer = "", type = "", data = [], id = null;
          for (;;) {
            const { value, done } = await reader.read();
            if (done) return;
            buffer += decoder.decode(value, { stream: true });
            let end;
            while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
              if (buffer[end] === "\r" && end === buffer.length - 1) break;
              const line = buffer.slice(0, end);
              buffer = buffer.slice(end + (buffer.startsWith("\r\n", end) ? 2 : 1));
              if (line === "") {
                if (id !== null) lastEventId = id;
                if (data.length) {
                  try { handle(type || "message", data.join("\n")); } catch (e) { say(e.message); }
                }
                type = ""; data = []; id = null;
                continue;
              }
              if (line.startsWith(":")) continue;
              const colon = line.indexOf(":");
              const field = colon < 0 ? line : line.slice(0, colon);
              let text = colon < 0 ? "" : line.slice(colon + 1);
              if (text.startsWith(" ")) text = text.slice(1);
              if (field === "event") type = text;
              else if (field === "data") data.push(text);
              else if (field === "id" && !text.includes("\0")) id = text;
            }
          }
        }

        async function connect() {
          if (stream) stream.abort();
          const controller = new AbortController();
          stream = controller;
          if (!token) { unauthorized(); return; }
          try {
            const headers = authorized({ Accept: "text/event-stream" });
            if (lastEventId !== null) headers["Last-Event-ID"] = lastEventId;
            const response = await fetch("/v1/events", { headers, credentials: "omit", cache: "no-store", signal: controller.signal });
            if (response.status === 401) { unauthorized(); return; }
            if (!response.ok || !response.body) throw new Error("the agent answered " + response.status);
            retryDelay = 1000;
            connection.textContent = "live";
            connection.className = "live";
            loadAll().catch((e) => say(e.message));
            await read(response);
          } catch (e) {
            if (controller.signal.aborted) return;
          }
          if (stream !== controller) return;
          connection.textContent = "agent unreachable, reconnecting…";
          connection.className = "down";
          setTimeout(connect, retryDelay);
          retryDelay = Math.min(retryDelay * 2, 10000);
        }

        connect();

        """#
}
