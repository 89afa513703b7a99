#!/usr/bin/env python3
"""A shaping TCP proxy for benchmarks: a simulated WAN on loopback.

This VM's kernel has no netem (only tbf), so latency and a per-connection rate cap are added in
user space. Every connection accepted on 127.0.0.1:LISTEN is forwarded to TARGET, and in each
direction every byte is held DELAY_MS before it is passed on (one-way latency: the round trip is
twice that) and passed on at no more than RATE bytes per second per connection and direction
(what a CDN's per-connection throttle or a long fat pipe leaves one TCP stream). The first bytes of
a connection wait one extra round trip, standing in for the TCP handshake over the WAN (the
loopback connect itself is instant), so a request's first byte arrives 2 round trips after
connect, as over a real link.

The proxy reads only as many bytes as the link holds (rate x delay, plus a few chunks), however
small the pieces the sender writes: a faster sender meets TCP back-pressure, as it would on the
real link.

    python3 Benchmarks/shaping_proxy.py --target 127.0.0.1:8080 --delay-ms 20 --rate 20000000
    -> prints "listening PORT" once it accepts (PORT from --listen, default a free one)

Stop it with SIGTERM or SIGINT. Used by Benchmarks/lib.sh (start_shaping_proxy) and
Benchmarks/wan-check.sh; see docs/benchmarks.md, "Simulated WAN".
"""
import argparse
import asyncio
import collections
import os
import signal
import socket

CHUNK = 64 * 1024


async def pump(reader, writer, delay, rate, start_at):
    """Copies reader to writer, each chunk held until it arrived + delay, paced to rate."""
    loop = asyncio.get_running_loop()
    # Bytes in flight: what the link holds (rate x delay) and a few chunks more; 4 MiB without a
    # cap. Counted in bytes, not reads: a sender that writes small pieces (SSH) gets the same
    # window as one that writes 64 KiB at a time (nginx's sendfile).
    window = int(rate * delay) + 4 * CHUNK if rate > 0 else 64 * CHUNK
    pending = collections.deque()  # (due, data), in arrival order; (None, None) at the end
    arrived = asyncio.Event()
    in_flight = 0
    room = asyncio.Event()
    room.set()

    async def receive():
        nonlocal in_flight
        try:
            while True:
                while in_flight >= window:
                    room.clear()
                    await room.wait()
                data = await reader.read(CHUNK)
                if not data:
                    break
                in_flight += len(data)
                # Nothing crosses the link before the simulated handshake is over.
                pending.append((max(loop.time(), start_at) + delay, data))
                arrived.set()
        except (ConnectionError, OSError):
            pass
        pending.append((None, None))
        arrived.set()

    receiving = asyncio.ensure_future(receive())
    free_at = start_at  # when the link is free for the next byte
    try:
        while True:
            while not pending:
                arrived.clear()
                await arrived.wait()
            due, data = pending.popleft()
            if data is None:
                break
            send_at = max(due, free_at)
            wait = send_at - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            # What else is due by now goes out in the same write (one timer and one write for
            # many small reads, as SSH's), charged to the link like one chunk.
            parts = [data]
            size = len(data)
            now = loop.time()
            while pending and pending[0][1] is not None and pending[0][0] <= now and size < 4 * CHUNK:
                more = pending.popleft()[1]
                parts.append(more)
                size += len(more)
            data = b"".join(parts) if len(parts) > 1 else data
            writer.write(data)
            await writer.drain()
            in_flight -= len(data)
            room.set()
            free_at = send_at + (len(data) / rate if rate > 0 else 0)
        if writer.can_write_eof():
            writer.write_eof()
    except (ConnectionError, OSError):
        pass
    finally:
        receiving.cancel()


async def handle(client_reader, client_writer, target, delay, rate):
    host, port = target
    try:
        server_reader, server_writer = await asyncio.open_connection(host, port)
    except OSError:
        client_writer.close()
        return
    # One round trip for the handshake the loopback connect did not take.
    start_at = asyncio.get_running_loop().time() + 2 * delay
    await asyncio.gather(
        pump(client_reader, server_writer, delay, rate, start_at),
        pump(server_reader, client_writer, delay, rate, start_at),
    )
    for w in (client_writer, server_writer):
        try:
            w.close()
        except OSError:
            pass


async def serve(sock, target, delay, rate):
    """Accepts on the shared listening socket until SIGTERM or SIGINT."""
    server = await asyncio.start_server(lambda r, w: handle(r, w, target, delay, rate), sock=sock)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    async with server:
        await stop.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target", required=True, help="HOST:PORT to forward to")
    parser.add_argument("--listen", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--delay-ms", type=float, default=20.0, help="one-way latency, each direction")
    parser.add_argument("--rate", type=float, default=20e6,
                        help="bytes per second per connection and direction (0: no cap)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="processes sharing the listening socket (default: one per core)")
    args = parser.parse_args()
    host, _, port = args.target.rpartition(":")
    target = (host or "127.0.0.1", int(port))
    delay = args.delay_ms / 1000.0

    sock = socket.create_server(("127.0.0.1", args.listen), backlog=1024)
    sock.setblocking(False)
    children = []
    for _ in range(max(1, args.workers) - 1):
        pid = os.fork()
        if pid == 0:
            children = None
            break
        children.append(pid)
    if children is not None:
        print("listening %d" % sock.getsockname()[1], flush=True)
    try:
        asyncio.run(serve(sock, target, delay, args.rate))
    except KeyboardInterrupt:
        pass
    # The parent passes its stop on to the workers and waits for them.
    for child in children or []:
        try:
            os.kill(child, signal.SIGTERM)
            os.waitpid(child, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


if __name__ == "__main__":
    main()
