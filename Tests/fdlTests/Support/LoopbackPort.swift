import FileDownloadTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension LoopbackPort {
    /// Polls `accepts(port)` every 50 ms for at most `limit`; throws a clear error when the server
    /// never came up (the only bounded poll the tests use: waiting for a server process).
    static func waitUntilAccepting(_ port: Int, server: String, limit: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + limit
        while !accepts(port) {
            guard ContinuousClock.now < deadline else {
                throw TestFailure("\(server) did not accept connections on 127.0.0.1:\(port) within \(limit)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// A test set-up failure with a message that says what is wrong.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
