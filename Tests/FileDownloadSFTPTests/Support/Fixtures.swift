import FileDownload
@testable import FileDownloadSFTP
import FileDownloadTestSupport
import Foundation
import Synchronization

/// Helpers shared by the SFTP tests.
enum Fixtures {
    /// `count` pseudo-random bytes from `seed` (reproducible).
    static func bytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
        var state = seed &+ 0x9E37_79B9_7F4A_7C15
        var result = [UInt8]()
        result.reserveCapacity(count)
        while result.count < count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            var word = state
            for _ in 0..<8 where result.count < count {
                result.append(UInt8(truncatingIfNeeded: word >> 56))
                word <<= 8
            }
        }
        return result
    }

    static func sha256(_ bytes: some DataProtocol) -> String { sha256Hex(bytes) }

    static func sha256(file: URL) throws -> String { try sha256Hex(fileAt: file) }

    /// A transport that trusts exactly `server`'s known hosts and key.
    static func transport(_ server: SSHServer, identityFiles: [String]? = nil, maxSessionsPerHost: Int = 8) -> SFTPTransport {
        SFTPTransport(configuration: .init(knownHostsFile: server.knownHosts,
                                           identityFiles: identityFiles ?? [server.clientKey],
                                           useAgent: false,
                                           maxSessionsPerHost: maxSessionsPerHost))
    }

    /// The result of one transfer into a fresh staging file.
    struct Fetched {
        var head: TransferHead?
        var bytes: [UInt8]
        var lateWrites: Int
    }

    /// Runs one attempt of `transport` for `url` into a staging file that holds `existing`.
    static func fetch(_ transport: SFTPTransport, _ url: URL, existing: [UInt8] = [], validator: Validator? = nil,
                      options: TransferOptions = TransferOptions(),
                      authenticate: @escaping @Sendable (AuthChallenge) async -> AuthDisposition = { _ in .performDefaultHandling })
        async throws -> Fetched {
        let folder = try TemporaryDirectory("sftp-test").url
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("staging.part").path
        try Data(existing).write(to: URL(fileURLWithPath: path))
        let sink = try TransferSink(path: path, requestedOffset: Int64(existing.count))
        let request = TransferRequest(downloadID: "test", url: url, offset: Int64(existing.count), validator: validator,
                                      options: options, authenticate: authenticate)
        do {
            try await transport.transfer(request, into: sink)
        } catch {
            sink.seal()
            throw error
        }
        sink.seal()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        return Fetched(head: sink.head, bytes: bytes, lateWrites: sink.lateWriteAttempts)
    }
}

/// A transfer running in a task, started by ``Fixtures/start(_:_:options:)``.
struct RunningTransfer {
    let task: Task<Void, any Error>
    let sink: TransferSink
    let path: String
    let folder: URL
}

extension Fixtures {
    /// Starts `url`'s transfer into a fresh staging file and returns once its head arrived (or
    /// the transfer ended without one). Remove `folder` when done.
    static func start(_ transport: SFTPTransport, _ url: URL, options: TransferOptions) async throws -> RunningTransfer {
        let folder = try TemporaryDirectory("sftp-test").url
        let path = folder.appendingPathComponent("running.part").path
        let headArrived = Signal()
        let sink = try TransferSink(path: path, requestedOffset: 0) { _ in headArrived.fire() }
        let request = TransferRequest(downloadID: "running", url: url, options: options)
        let task = Task {
            defer { headArrived.fire() }
            try await transport.transfer(request, into: sink)
        }
        await headArrived.wait()
        return RunningTransfer(task: task, sink: sink, path: path, folder: folder)
    }
}

/// A one-time event that any number of tasks can await; firing it twice is harmless.
final class Signal: Sendable {
    private let state = Mutex<(fired: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func fire() {
        let waiters = state.withLock { s in
            s.fired = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let fired = state.withLock { s in
                if !s.fired { s.waiters.append(continuation) }
                return s.fired
            }
            if fired { continuation.resume() }
        }
    }
}

/// Records the challenges a test's auth handler saw.
final class ChallengeLog: Sendable {
    private let kinds = Mutex<[AuthChallenge.Kind]>([])
    func record(_ challenge: AuthChallenge) { kinds.withLock { $0.append(challenge.kind) } }
    var all: [AuthChallenge.Kind] { kinds.withLock { $0 } }
}
