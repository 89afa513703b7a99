#!/usr/bin/env python3
"""A fault-injecting HTTP(S) file server for the FileDownloadHTTP tests.

Usage: fault_server.py ROOT [--cert CERT --key KEY]

Binds 127.0.0.1 on a free port and prints "PORT <n>" on stdout once it accepts connections.
Exits when its standard input reaches end of file (the test process holds the pipe), or on SIGTERM.
Serves the files under ROOT with ETag, Last-Modified, Range (bytes=A- and bytes=A-B) and If-Range
like nginx, plus faults chosen by query parameters. Every distinct request target (path + query)
has its own request counter k (0, 1, 2, ...), so a test isolates its state with a unique query
(e.g. &t=<uuid>).

Query parameters (lists are comma-separated, item k applies to request k of the target; an empty
item leaves request k alone: status=,429 refuses only the second request):
  versions=a,b      request k serves file versions[min(k, last)] instead of the path
  sameEtag=1        the ETag and Last-Modified are those of the path whatever version is served
                    (with versions=: a CDN whose back ends are out of step, one validator for all)
  digest=repr|content|legacy|wrong   announce the SHA-256 of the file served: Repr-Digest (RFC
                    9530, every answer), Content-Digest or Digest: SHA-256= (RFC 3230; 200 only),
                    or a Repr-Digest that is wrong
  drop=N,...        request k closes the connection after file offset N (absolute)
  reset=N,...       request k resets the connection (TCP RST, not a close) after file offset N (absolute)
  short=N,...       request k announces the full length but sends N bytes fewer, then closes
  stall=N           request 0 stops sending after file offset N and waits (30 s at most)
  status=S,...      request k answers status S (if not 200) with an error page body
  retryAfter=S      add Retry-After: S to error statuses (status=429,429&retryAfter=S: the first two
                    requests of the target are told to come back in S seconds)
  ignoreRange=1     always answer 200 with the whole file
  wrongRange=1      answer a range request for s>0 with bytes from s/2 (206)
  noValidators=1    send neither ETag nor Last-Modified
  noLength=1        send no Content-Length: the body ends when the server closes the connection
  weakEtag=1        send the ETag as weak (W/"...")
  redirect=N        answer 302 to the same target with redirect=N-1 until N is 0
  location=URL      answer 302 to URL (on every request)
  auth=basic:U:P | digest:U:P | bearer:TOKEN   require credentials
  proxyAuth=U:P     act as a proxy that requires Basic Proxy-Authorization (407 otherwise)
  gzip=1,...        request k sends its body (whole file or range) gzip-compressed with
                    Content-Encoding: gzip and the compressed Content-Length; Content-Range unchanged
  lie416=1,...      request k answers a range request from s with 416 and Content-Range: bytes */s
  total=N,...       request k announces N as the total in a 206's Content-Range
  noEtag=1,...      request k sends no ETag (Last-Modified stays)
  rate=N            send the body at about N bytes per second
  endless=1         a 200 without a length (chunked) that never ends: the file's bytes over and over
                    until the client goes away (1 GiB at most)
  token=T           a signed link (see /_sign): 403 unless T was issued for this path and has not
                    expired; a response under way stops (the connection closes) when T expires

GET /_sign?path=/NAME&ttl=S issues a token for /NAME valid for S seconds (default 2) from its first
request (so a busy test machine's delay between signing and using a link does not count) and
answers {"url": "/NAME?token=T"} (a signed link; add the other query parameters after it).

GET /_stats answers {"connections": n, "requests": m, "bodyBytes": b, "ranges": [...], "targets": [...]}
(totals since start; bodyBytes counts the file bytes sent; ranges are the Range headers of file
requests, in order; targets are the targets (path + query) of file requests, in order of arrival).
GET /_echo answers {"target": request target, "headers": {...}} (to check what a client sent).
"""
from base64 import b64encode
import gzip
import hashlib
import http.server
import json
import os
import select
import signal
import socket
import socketserver
import ssl
import struct
import sys
import threading
import time
import urllib.parse
from email.utils import formatdate

ROOT = os.path.abspath(sys.argv[1])
lock = threading.Lock()
counters = {}
stats = {"connections": 0, "requests": 0, "bodyBytes": 0}
tokens = {}  # token -> (path, expiry on time.monotonic() or None before the first request, ttl)
ranges = []  # the Range header of every file request that had one, in order
targets = []  # the target of every file request, in order of arrival
NONCE = hashlib.md5(os.urandom(16)).hexdigest()


def next_index(target):
    with lock:
        k = counters.get(target, 0)
        counters[target] = k + 1
        stats["requests"] += 1
        targets.append(target)
        return k


def item(values, k):
    if not values:
        return None
    parts = values.split(",")
    return parts[k] if k < len(parts) and parts[k] != "" else None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def setup(self):
        super().setup()
        with lock:
            stats["connections"] += 1

    def send_plain(self, status, body, extra=()):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(data)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def check_auth(self, spec):
        kind, _, rest = spec.partition(":")
        header = self.headers.get("Authorization", "")
        if kind == "basic":
            import base64
            expected = "Basic " + base64.b64encode(rest.encode()).decode()
            if header == expected:
                return True
            self.send_plain(401, "<html>auth required</html>", [("WWW-Authenticate", 'Basic realm="files"')])
            return False
        if kind == "bearer":
            if header == "Bearer " + rest:
                return True
            self.send_plain(401, "<html>auth required</html>", [("WWW-Authenticate", 'Bearer realm="api"')])
            return False
        if kind == "digest":
            user, _, password = rest.partition(":")
            if header.startswith("Digest "):
                fields = {}
                for part in header[7:].split(","):
                    name, _, value = part.strip().partition("=")
                    fields[name] = value.strip('"')
                ha1 = hashlib.md5(f"{user}:digest-realm:{password}".encode()).hexdigest()
                ha2 = hashlib.md5(f"{self.command}:{fields.get('uri', '')}".encode()).hexdigest()
                want = hashlib.md5(
                    f"{ha1}:{fields.get('nonce')}:{fields.get('nc')}:{fields.get('cnonce')}:{fields.get('qop')}:{ha2}".encode()
                ).hexdigest()
                if fields.get("username") == user and fields.get("response") == want:
                    return True
            challenge = f'Digest realm="digest-realm", qop="auth", nonce="{NONCE}", algorithm=MD5'
            self.send_plain(401, "<html>auth required</html>", [("WWW-Authenticate", challenge)])
            return False
        return True

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/_stats":
            with lock:
                self.send_plain(200, json.dumps(dict(stats, ranges=ranges, targets=targets)))
            return
        if url.path == "/_echo":
            # The request line target and header fields, as JSON (proxy requests carry an absolute URL).
            self.send_plain(200, json.dumps({"target": self.path, "headers": dict(self.headers.items())}))
            return
        q = {k: v[-1] for k, v in urllib.parse.parse_qs(url.query).items()}
        if url.path == "/_sign":
            token = os.urandom(8).hex()
            with lock:
                tokens[token] = (q["path"], None, float(q.get("ttl", "2")))
            self.send_plain(200, json.dumps({"url": q["path"] + "?token=" + token}))
            return
        k = next_index(self.path)
        token_expiry = None
        if "token" in q:
            with lock:
                issued = tokens.get(q["token"])
                if issued is not None and issued[1] is None:  # first use: the clock starts
                    issued = (issued[0], time.monotonic() + issued[2], issued[2])
                    tokens[q["token"]] = issued
            if issued is None or issued[0] != url.path or time.monotonic() >= issued[1]:
                self.send_plain(403, "<html>the link expired</html>")
                return
            token_expiry = issued[1]

        if "proxyAuth" in q:
            import base64
            expected = "Basic " + base64.b64encode(q["proxyAuth"].encode()).decode()
            if self.headers.get("Proxy-Authorization", "") != expected:
                self.send_plain(407, "<html>proxy auth required</html>", [("Proxy-Authenticate", 'Basic realm="proxy"')])
                return
        if "auth" in q and not self.check_auth(q["auth"]):
            return
        if "location" in q:
            self.send_plain(302, "<html>moved</html>", [("Location", q["location"])])
            return
        if int(q.get("redirect", "0")) > 0:
            q2 = dict(q)
            q2["redirect"] = str(int(q["redirect"]) - 1)
            target = url.path + "?" + urllib.parse.urlencode(q2)
            self.send_plain(302, "<html>moved</html>", [("Location", target)])
            return
        status = item(q.get("status"), k)
        if status and status != "200":
            extra = [("Retry-After", q["retryAfter"])] if "retryAfter" in q else []
            self.send_plain(int(status), f"<html>error page {status}</html>", extra)
            return

        name = item(q.get("versions"), k) or (q["versions"].split(",")[-1] if "versions" in q else None)
        path = os.path.normpath(os.path.join(ROOT, (name or url.path).lstrip("/")))
        if not path.startswith(ROOT + os.sep) or not os.path.isfile(path):
            self.send_plain(404, "<html>not found</html>")
            return
        if q.get("endless") == "1":
            self.send_endless(path)
            return
        st = os.stat(path)
        size = st.st_size
        if q.get("sameEtag") == "1":
            named = os.path.normpath(os.path.join(ROOT, url.path.lstrip("/")))
            if named.startswith(ROOT + os.sep) and os.path.isfile(named):
                st = os.stat(named)
        etag = '"%x-%x-%x"' % (st.st_ino, st.st_mtime_ns, size)
        if q.get("weakEtag") == "1":
            etag = "W/" + etag
        last_modified = formatdate(st.st_mtime, usegmt=True)
        validators = [] if q.get("noValidators") == "1" else [("ETag", etag), ("Last-Modified", last_modified)]
        if item(q.get("noEtag"), k) == "1":
            validators = [v for v in validators if v[0] != "ETag"]

        start = 0
        stop = size  # one past the last byte sent: a range's end (bytes=A-B) is honoured
        partial = False
        rng = self.headers.get("Range")
        if rng:
            with lock:
                ranges.append(rng)
        if rng and rng.startswith("bytes=") and q.get("ignoreRange") != "1":
            first, _, last = rng[6:].partition("-")
            if first.isdigit():
                start = int(first)
                partial = True
                if last.isdigit():
                    stop = min(size, int(last) + 1)
            if_range = self.headers.get("If-Range")
            if if_range is not None and if_range not in (etag, last_modified):
                start, stop, partial = 0, size, False
            elif if_range is not None and if_range.startswith("W/"):
                start, stop, partial = 0, size, False
        if partial and start > 0 and item(q.get("lie416"), k) == "1":
            self.send_plain(416, "<html>range not satisfiable</html>", [("Content-Range", f"bytes */{start}")] + validators)
            return
        if partial and start >= size:
            self.send_plain(416, "<html>range not satisfiable</html>", [("Content-Range", f"bytes */{size}")] + validators)
            return
        if partial and q.get("wrongRange") == "1" and start > 0:
            start = start // 2

        self.send_response(206 if partial else 200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Accept-Ranges", "bytes")
        for h in validators:
            self.send_header(*h)
        digest = q.get("digest")
        if digest:
            with open(path, "rb") as f:
                value = hashlib.sha256(f.read()).digest() if digest != "wrong" else hashlib.sha256(b"another file").digest()
            encoded = b64encode(value).decode()
            if digest in ("repr", "wrong"):
                self.send_header("Repr-Digest", f"sha-256=:{encoded}:")
            elif digest == "content" and not partial:
                self.send_header("Content-Digest", f"sha-256=:{encoded}:")
            elif digest == "legacy" and not partial:
                self.send_header("Digest", f"SHA-256={encoded}")
        gzipped = None
        if item(q.get("gzip"), k) == "1":
            with open(path, "rb") as f:
                f.seek(start)
                gzipped = gzip.compress(f.read(stop - start))
            self.send_header("Content-Encoding", "gzip")
        if q.get("noLength") == "1":
            self.send_header("Connection", "close")
        else:
            self.send_header("Content-Length", str(stop - start if gzipped is None else len(gzipped)))
        if partial:
            total = item(q.get("total"), k) or str(size)
            self.send_header("Content-Range", f"bytes {start}-{stop - 1}/{total}")
        self.end_headers()
        if self.command == "HEAD":
            return
        if gzipped is not None:
            self.wfile.write(gzipped)
            return

        end = stop
        close_after = q.get("noLength") == "1"
        # drop=N and reset=N end the body at file offset N; they differ only in how the
        # connection ends (a close, or an RST below). reset wins when both name this request.
        reset = item(q.get("reset"), k) is not None
        cut = item(q.get("reset" if reset else "drop"), k)
        if cut is not None:
            end = max(start, min(stop, int(cut)))
            close_after = True
        short = item(q.get("short"), k)
        if short is not None:
            end = max(start, stop - int(short))
            close_after = True
        stall_at = int(q["stall"]) if "stall" in q and k == 0 else None
        if stall_at is not None:
            end = max(start, min(stop, stall_at))

        self.wfile.flush()
        sock = self.connection
        rate = int(q["rate"]) if "rate" in q else None
        piece = 1 << 20 if rate is None else max(1, rate // 20)
        with open(path, "rb") as f:
            offset = start
            while offset < end:
                if token_expiry is not None and time.monotonic() >= token_expiry:
                    close_after = True  # the link expired under way: the response stops here
                    break
                sent = os.sendfile(sock.fileno(), f.fileno(), offset, min(end - offset, piece)) \
                    if not isinstance(sock, ssl.SSLSocket) else self.send_tls(sock, f, offset, min(end, offset + piece))
                if sent <= 0:
                    break
                offset += sent
                with lock:
                    stats["bodyBytes"] += sent
                if rate is not None:
                    time.sleep(sent / rate)
        if stall_at is not None:
            # Wait (30 s at most) until the client goes away: it sends nothing while it waits for
            # the body, so the socket turns readable only when it closes.
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                readable, _, _ = select.select([sock], [], [], 0.05)
                if readable:
                    break
            close_after = True
        if reset:
            # SO_LINGER 0 makes close() send RST; the socket is closed here, not shut down (a FIN).
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            os.close(sock.detach())
        if close_after:
            self.close_connection = True

    def send_endless(self, path):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        with open(path, "rb") as f:
            data = f.read() or b"x"
        chunk = b"%x\r\n" % len(data) + data + b"\r\n"
        sent = 0
        try:
            while sent < (1 << 30):
                self.wfile.write(chunk)
                sent += len(data)
                with lock:
                    stats["bodyBytes"] += len(data)
        except OSError:  # the client went away (a broken pipe, a reset, a TLS error)
            pass
        self.close_connection = True

    @staticmethod
    def send_tls(sock, f, offset, end):
        f.seek(offset)
        data = f.read(min(end - offset, 1 << 18))
        sock.sendall(data)
        return len(data)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    # Exit on SIGTERM, and once standard input is closed: the test process holds the pipe, so
    # the server ends with its test, even one killed with SIGKILL.
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])

    def watch():
        sys.stdin.buffer.read()
        os._exit(0)
    threading.Thread(target=watch, daemon=True).start()
    server = Server(("127.0.0.1", 0), Handler)
    if "--cert" in sys.argv:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[sys.argv.index("--cert") + 1], sys.argv[sys.argv.index("--key") + 1])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print("PORT %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
