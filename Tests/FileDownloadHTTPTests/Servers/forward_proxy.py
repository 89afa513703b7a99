#!/usr/bin/env python3
"""A small forward HTTP proxy for the proxy tests (Python 3 stdlib only).

Usage: forward_proxy.py LOG [--auth USER:PASS]

Binds 127.0.0.1 on a free port and prints "PORT <n>" on stdout once it accepts connections.
Exits when its standard input reaches end of file (the test process holds the pipe: the proxy
ends with its test, even one killed with SIGKILL), or on SIGTERM.
- `GET http://host:port/path` (absolute form) is forwarded to the origin with HTTP/1.0 semantics
  (one request per upstream connection) and the answer is relayed as it comes;
- `CONNECT host:port` opens a tunnel: bytes are copied both ways, so TLS stays end to end
  between the client and the origin (the proxy never sees a certificate).
Every request is appended to LOG as one line before it is handled: "METHOD TARGET", followed by
" auth" when it carried a Proxy-Authorization header (never its value).
With --auth, a request without `Proxy-Authorization: Basic base64(USER:PASS)` gets 407 with
`Proxy-Authenticate: Basic realm="proxy"`.
"""
import base64
import http.server
import os
import select
import socket
import socketserver
import sys
import threading
import urllib.parse

LOG = sys.argv[1]
AUTH = None
if "--auth" in sys.argv:
    AUTH = "Basic " + base64.b64encode(sys.argv[sys.argv.index("--auth") + 1].encode()).decode()
lock = threading.Lock()


def record(line):
    with lock:
        with open(LOG, "a") as log:
            log.write(line + "\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def admitted(self):
        given = self.headers.get("Proxy-Authorization")
        record(f"{self.command} {self.path}" + (" auth" if given else ""))
        if AUTH is None or given == AUTH:
            return True
        body = b"proxy authentication required"
        self.send_response(407)
        self.send_header("Proxy-Authenticate", 'Basic realm="proxy"')
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return False

    def do_CONNECT(self):
        if not self.admitted():
            return
        host, _, port = self.path.rpartition(":")
        try:
            upstream = socket.create_connection((host.strip("[]"), int(port)), timeout=30)
        except OSError:
            self.send_error(502)
            return
        self.send_response(200, "Connection established")
        self.end_headers()
        self.close_connection = True
        pipe(self.connection, upstream)

    def forward(self):
        if not self.admitted():
            return
        target = urllib.parse.urlsplit(self.path)
        if target.scheme != "http" or not target.hostname:
            self.send_error(400, "absolute http URL expected")
            return
        path = target.path or "/"
        if target.query:
            path += "?" + target.query
        try:
            upstream = socket.create_connection((target.hostname, target.port or 80), timeout=30)
        except OSError:
            self.send_error(502)
            return
        lines = [f"{self.command} {path} HTTP/1.0"]
        for name, value in self.headers.items():
            if name.lower() not in ("proxy-authorization", "proxy-connection", "connection", "keep-alive"):
                lines.append(f"{name}: {value}")
        lines.append("Connection: close")
        upstream.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        # The answer is relayed until the origin closes: the client sees HTTP/1.0 framing.
        self.close_connection = True
        try:
            while True:
                data = upstream.recv(65536)
                if not data:
                    break
                self.wfile.write(data)
        except OSError:
            pass
        finally:
            upstream.close()

    do_GET = forward
    do_HEAD = forward


def pipe(a, b):
    sockets = [a, b]
    try:
        while True:
            ready, _, _ = select.select(sockets, [], [], 30)
            if not ready:
                return
            for s in ready:
                data = s.recv(65536)
                if not data:
                    return
                (b if s is a else a).sendall(data)
    except OSError:
        pass
    finally:
        b.close()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def exit_at_end_of_input():
    """Exits the process once standard input is closed (see the module's documentation)."""
    def watch():
        sys.stdin.buffer.read()
        os._exit(0)
    threading.Thread(target=watch, daemon=True).start()


def main():
    exit_at_end_of_input()
    server = Server(("127.0.0.1", 0), Handler)
    print("PORT %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
