import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A fake FTP server on 127.0.0.1 (port chosen by the kernel) that greets with `220` and then
/// stops answering at a chosen point, keeping the control connection open: a server that hangs.
/// One connection at a time, on a thread of its own, until ``stop()``.
final class SilentFTPServer: @unchecked Sendable {
    /// Where the server goes silent.
    enum Silence: Sendable {
        /// After the greeting: `USER` gets no reply (the login phase).
        case afterGreeting
        /// After the login: `USER` gets `230`, `PWD` gets `257`, the next command (`MDTM`) none.
        case afterLogin
    }

    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var received: [String] = []
    private var client: Int32 = -1
    private var stopped = false
    private let finished = DispatchSemaphore(value: 0)

    init(_ silence: Silence) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard fd >= 0, bound else {
            if fd >= 0 { close(fd) }
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot listen on 127.0.0.1: errno \(errno)"])
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in
            serve(silence)
            finished.signal()
        }
        thread.start()
    }

    /// The commands received, in order.
    var commands: [String] { lock.withLock { received } }

    /// Closes the listener and the open connection, and waits (at most 5 s) for the thread.
    func stop() {
        lock.withLock {
            stopped = true
            if client >= 0 { Glibc.shutdown(client, Int32(SHUT_RDWR)) }
        }
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        _ = finished.wait(timeout: .now() + 5)
        close(listener)
    }

    private func serve(_ silence: Silence) {
        while !lock.withLock({ stopped }) {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            lock.withLock { client = fd }
            converse(fd, silence)
            lock.withLock { client = -1 }
            close(fd)
        }
    }

    private func converse(_ fd: Int32, _ silence: Silence) {
        func send(_ reply: String) { _ = reply.utf8CString.withUnsafeBytes { write(fd, $0.baseAddress, $0.count - 1) } }
        send("220 silent test server\r\n")
        var pending = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            pending += buffer[0..<count]
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[..<newline], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                pending.removeSubrange(...newline)
                lock.withLock { received.append(line) }
                guard silence == .afterLogin else { continue }
                if line.hasPrefix("USER") {
                    send("230 Login successful.\r\n")
                } else if line == "PWD" {
                    send("257 \"/\" is the current directory\r\n")
                }
            }
        }
    }
}
