import Foundation

/// A name server inside a ``NetworkNamespace`` on 127.0.0.1:53 (UDP and TCP) that answers every
/// question "no such name" (NXDOMAIN, RFC 1035 RCODE 3): what a working resolver says of a
/// mistyped host, whatever the machine's own DNS is (or whether it has any). Python 3, no
/// packages. ``stop()`` ends it.
public final class NXDomainServer: Sendable {
    private let child: ChildProcess

    static let script = #"""
import socket, struct, sys, threading
def answer(query):
    if len(query) < 12:
        return None
    ident, flags = struct.unpack("!HH", query[:4])
    # QR=1, the query's opcode and RD, RA=1, RCODE=3 (NXDOMAIN); the question is echoed.
    flags = 0x8000 | (flags & 0x7900) | 0x0080 | 3
    return struct.pack("!HHHHHH", ident, flags, 1, 0, 0, 0) + query[12:]
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
udp.bind(("127.0.0.1", 53))
tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
tcp.bind(("127.0.0.1", 53))
tcp.listen(16)
def serve_tcp():
    while True:
        conn, _ = tcp.accept()
        try:
            size = struct.unpack("!H", conn.recv(2))[0]
            data = b""
            while len(data) < size:
                data += conn.recv(size - len(data))
            reply = answer(data)
            if reply:
                conn.sendall(struct.pack("!H", len(reply)) + reply)
        except Exception:
            pass
        conn.close()
threading.Thread(target=serve_tcp, daemon=True).start()
print("ready", flush=True)
while True:
    data, peer = udp.recvfrom(4096)
    reply = answer(data)
    if reply:
        udp.sendto(reply, peer)
"""#

    /// Starts the server in `namespace` and returns once it has bound its sockets (it says
    /// "ready"); throws when it ends before that.
    public init(in namespace: NetworkNamespace) async throws {
        let command = namespace.exec + ["python3", "-c", Self.script]
        child = try ChildProcess(command[0], Array(command.dropFirst()), output: .pipe, error: .pipe)
        let output = child.standardOutput!
        let child = self.child
        let said = await Task.detached { () -> String in
            var text = ""
            while !text.contains("ready") {
                let chunk = output.availableData  // blocks; empty at the end of the pipe
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }.value
        guard said.contains("ready") else {
            let problem = String(decoding: child.standardError?.availableData ?? Data(), as: UTF8.self)
            child.kill()
            throw TestFailure("the NXDOMAIN name server did not start: \(problem)")
        }
    }

    /// Ends the server (SIGKILL) and reaps it.
    public func stop() { child.kill() }

    deinit { child.kill() }
}
