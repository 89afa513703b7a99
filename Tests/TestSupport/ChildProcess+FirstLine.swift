import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension ChildProcess {
    /// The first line the child prints on standard output (started with `output: .pipe`), without
    /// its newline; what it printed, if anything, when it closed its output before a newline.
    ///
    /// Blocks the calling thread, polling the pipe (never a blocking read), for at most `limit`.
    ///
    /// - Throws: a ``TestFailure`` when the child was not started with `output: .pipe`, or printed
    ///   no whole line within `limit` (the child is left running: the caller decides).
    public func firstLine(limit: Duration) throws -> String {
        guard let fd = standardOutput?.fileDescriptor else {
            throw TestFailure("\(executable) was not started with its standard output on a pipe")
        }
        let deadline = ContinuousClock.now + limit
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !bytes.contains(UInt8(ascii: "\n")) {
            guard ContinuousClock.now < deadline else {
                throw TestFailure("\(executable) printed no line within \(limit)")
            }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, 100)
            if polled == 0 || (polled < 0 && errno == EINTR) { continue }
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += buffer[..<n]
        }
        return String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }
}
