"""Drives `fdl agent --aria2-rpc` with aria2p, as an aria2 front end would (scripts/aria2p-agent.sh).

Every step goes through aria2p's own API (aria2p.API / aria2p.Client): add with options, watch,
pause, resume, remove, purge, global statistics and options; aria2p's notification listener runs
in a thread and records what arrives. One change to aria2p: its listener opens the WebSocket with
`websocket.create_connection`, to which this script adds `Authorization: Bearer TOKEN`, because the
agent sends notifications only to a connection that has shown its token (aria2 sends them to
anyone). Prints one JSON line per check; exits 1 at the first that fails.
"""

import argparse
import hashlib
import json
import os
import sys
import threading
import time

import aria2p
import websocket
from loguru import logger

logger.remove()  # aria2p logs every call through loguru

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--files", required=True)
parser.add_argument("--out", required=True)
parser.add_argument("--small-sha256", required=True)
args = parser.parse_args()
token = os.environ["FDL_AGENT_TOKEN"]

client = aria2p.Client(host="http://127.0.0.1", port=args.port, secret=token, timeout=30)
api = aria2p.API(client)

# aria2p's listener, with the token on its upgrade request.
connected = threading.Event()
original_create_connection = websocket.create_connection


def create_connection(url, **options):
    options.setdefault("header", []).append(f"Authorization: Bearer {token}")
    connection = original_create_connection(url, **options)
    connected.set()
    return connection


websocket.create_connection = create_connection
notifications = []
arrived = threading.Condition()


def recorder(kind):
    def record(gid):
        with arrived:
            notifications.append((kind, gid))
            arrived.notify_all()
    return record


listener = threading.Thread(target=client.listen_to_notifications, daemon=True, kwargs={
    "on_download_start": recorder("start"), "on_download_pause": recorder("pause"),
    "on_download_stop": recorder("stop"), "on_download_complete": recorder("complete"),
    "on_download_error": recorder("error"), "timeout": 1, "handle_signals": False})
listener.start()


def check(name, condition, detail=""):
    print(json.dumps({"check": name, "ok": bool(condition), "detail": str(detail)}), flush=True)
    if not condition:
        client.stop_listening()
        sys.exit(1)


def wait_for(name, predicate, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    check(name, False, "not within %d s" % seconds)


def wait_for_quietly(predicate, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def notified(kind, gid, seconds=60):
    deadline = time.monotonic() + seconds
    with arrived:
        while (kind, gid) not in notifications:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            arrived.wait(left)
    return True


check("listener connected", connected.wait(30))

# Beside aria2p's listener, plain WebSocket connections: one that never shows the token (it must
# get no notification), one that shows it by a call (it gets them), one from a foreign origin
# (refused at the upgrade).
ws_url = f"ws://127.0.0.1:{args.port}/jsonrpc"
quiet = original_create_connection(ws_url, timeout=0.5)
quiet.send(json.dumps({"jsonrpc": "2.0", "id": "q", "method": "aria2.tellActive", "params": []}))
check("a WebSocket call without the token is Unauthorized", json.loads(quiet.recv())["error"]["message"] == "Unauthorized")
caller = original_create_connection(ws_url, timeout=10)
caller.send(json.dumps({"jsonrpc": "2.0", "id": "c", "method": "aria2.getVersion", "params": ["token:" + token]}))
check("a WebSocket call with the token is answered", "version" in json.loads(caller.recv())["result"])
try:
    original_create_connection(ws_url, timeout=5, origin="http://evil.example")
    check("a WebSocket upgrade from a foreign origin is refused", False)
except websocket.WebSocketBadStatusException as error:
    check("a WebSocket upgrade from a foreign origin is refused", error.status_code == 400, error.status_code)
check("getVersion", "version" in client.get_version())
check("listMethods names addUri", "aria2.addUri" in client.list_methods())

# A slow download: added with dir and out, watched until it runs, paused, resumed.
big = api.add_uris([args.files + "/big.bin"], {"dir": args.out, "out": "big.bin", "split": "2"})
check("addUri gives a 16-digit GID", len(big.gid) == 16, big.gid)
check("the download goes to dir/out", str(big.files[0].path) == os.path.join(args.out, "big.bin"), big.files[0].path)
running = wait_for("the slow download runs", lambda: (d := api.get_download(big.gid)).status == "active" and d.completed_length > 0 and d)
check("tellActive lists it", big.gid in [d.gid for d in api.get_downloads() if d.status == "active"])
check("onDownloadStart", notified("start", big.gid))
check("pause", api.pause([running]) == [True])
check("status paused", wait_for("paused", lambda: api.get_download(big.gid).status == "paused"))
check("onDownloadPause", notified("pause", big.gid))
paused = api.get_download(big.gid)
check("tellWaiting lists the paused download", big.gid in [d["gid"] for d in client.tell_waiting(0, 1000)])
check("resume", api.resume([paused]) == [True])
check("status active again", wait_for("active again", lambda: api.get_download(big.gid).status in ("active", "waiting")))
check("onDownloadStart again", wait_for("a second start", lambda: notifications.count(("start", big.gid)) >= 2))

# A small download with its SHA-256: completes, byte-exact.
digest = args.small_sha256
small = api.add_uris([args.files + "/small.bin"], {"dir": args.out, "out": "small.bin", "checksum": "sha-256=" + digest})
check("onDownloadComplete", notified("complete", small.gid))
done = api.get_download(small.gid)
check("tellStatus complete with lengths as numbers", done.status == "complete" and done.total_length == done.completed_length > 0,
      (done.status, done.total_length, done.completed_length))
with open(os.path.join(args.out, "small.bin"), "rb") as f:
    check("the file is byte-exact", hashlib.sha256(f.read()).hexdigest() == digest)
check("tellStopped lists it", small.gid in [d["gid"] for d in client.tell_stopped(0, 1000)])

# A download of a missing file: an error, announced.
missing = api.add_uris([args.files + "/missing.bin"], {"dir": args.out, "out": "missing.bin"})
check("onDownloadError", notified("error", missing.gid))
check("status error with a message", (m := api.get_download(missing.gid)).status == "error" and m.error_message, m.error_message)

# Global statistics and the overall limit.
if not wait_for_quietly(lambda: api.get_stats().num_active >= 1, 20):
    check("the slow download runs again", False, api.client.tell_status(big.gid))
stats = api.get_stats()
check("getGlobalStat counts the active download and the stopped ones", stats.num_active == 1 and stats.num_stopped == 2,
      (stats.num_active, stats.num_waiting, stats.num_stopped))
check("changeGlobalOption sets the overall limit", api.set_global_options({"max-overall-download-limit": "1M"}))
check("changeGlobalOption clears it", api.set_global_options({"max-overall-download-limit": "0"}))

# Errors as aria2 words them.
try:
    client.call("aria2.addTorrent", ["e30="])
    check("an unknown method is refused", False)
except aria2p.ClientException as error:
    check("an unknown method is aria2's No such method", error.code == 1 and "No such method" in error.message, error.message)
try:
    aria2p.Client(host="http://127.0.0.1", port=args.port, secret="0" * 64).get_version()
    check("a wrong token is refused", False)
except aria2p.ClientException as error:
    check("a wrong token is Unauthorized", error.message == "Unauthorized", error.message)

# Remove the running download (aria2p removes, then forgets the result), and purge the rest.
current = api.get_download(big.gid)
check("remove", api.remove([current]) == [True])
check("onDownloadStop", notified("stop", big.gid))
try:
    client.tell_status(big.gid)
    check("a removed and forgotten download is gone", False)
except aria2p.ClientException as error:
    check("a removed and forgotten download is gone", "not found" in error.message, error.message)
check("purge", api.purge())
check("nothing stopped is left", client.tell_stopped(0, 1000) == [])

# The connection that showed the token by a call heard the same as aria2p's listener; the other
# heard nothing.
heard = []
while len(heard) < len(notifications):
    message = json.loads(caller.recv())
    heard.append((message["method"], message["params"][0]["gid"]))
check("the WebSocket that called with the token heard every notification",
      sorted(gid for _, gid in heard) == sorted(gid for _, gid in notifications), heard)
try:
    check("the WebSocket without the token heard nothing", False, quiet.recv())
except websocket.WebSocketTimeoutException:
    check("the WebSocket without the token heard nothing", True)
quiet.close()
caller.close()

client.stop_listening()
listener.join(5)
print(json.dumps({"notifications": notifications}), flush=True)
print("aria2p drove the agent: all checks passed", flush=True)
