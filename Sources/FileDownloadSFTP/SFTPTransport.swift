import Crypto
public import FileDownload
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Downloads `sftp://[user[:password]@]host[:port]/path` URLs over SSH with libssh2.
///
/// ```swift
/// var transports = TransportRegistry()
/// transports.register(SFTPTransport(), for: "sftp")
/// ```
///
/// ## Paths
/// The URL path is percent-decoded (spaces and UTF-8 are fine) and used as an absolute path;
/// `sftp://host/~/file` names `file` in the login directory, as OpenSSH's `sftp` does.
///
/// ## Sessions
/// SSH sessions are reused for later transfers with the same host, port, user and credential
/// identity, at most ``Configuration/maxSessionsPerHost`` at once per host and port. Each session
/// has its own I/O thread that makes every libssh2 call of that session; Swift's cooperative
/// pool never blocks. A session found broken when reused is replaced once, before any byte is
/// reported.
///
/// ## Host keys
/// Verified against ``Configuration/knownHostsFile`` before authentication. An unknown key asks
/// the one auth door (`AuthChallenge.Kind.unknownHostKey`) under ``HostKeyPolicy/strict``; a
/// changed key fails with `DownloadError.Code.hostKeyMismatch` (not retryable) before any byte is
/// written.
///
/// ## Resume
/// The validator is `Validator.sizeAndModificationTime` from `fstat` of the open file. A request
/// with an offset resumes (`seek` + read) only when its validator equals the current one;
/// otherwise the head says `.restarted(.validatorChanged)` and the bytes start at zero. An
/// offset equal to the size with a matching validator reports `.complete`.
///
/// ## Ranges
/// A request with `TransferRequest.end` seeks to the offset and reads up to the end (or the end
/// of the file): `.resumed(at:)` when the validator matches (checked at every offset; an offset
/// above zero without a validator restarts, as a resume does), `.restarted(.validatorChanged)`
/// with the whole file otherwise, and `DownloadError.Code.rangeNotSatisfiable` (not retryable,
/// nothing written) for a range that starts at or past the end of the file.
///
/// ## Errors
/// Connection refused or lost, timeouts: retryable. Authentication failure, host key unknown or
/// changed, no such file (`.notFound`), permission denied (`.permissionDenied`): not retryable.
public final class SFTPTransport: Transport {
    private let pool: SessionPool

    /// Creates a transport; no connection is made until the first transfer.
    public init(configuration: Configuration = Configuration()) {
        pool = SessionPool(configuration: configuration)
    }

    /// The configuration for the next sessions. Setting a different one closes idle sessions
    /// now and busy ones when their transfer ends, so that no later transfer runs on a session
    /// checked under the old host key rules or credentials.
    public var configuration: Configuration {
        get { pool.configuration }
        set { pool.update(newValue) }
    }

    /// Resume with a size + mtime validator, authentication, the total length in the head,
    /// `TransferOptions.maxBytesPerSecond` and ranges.
    public var capabilities: TransportCapabilities {
        [.resume, .validators, .authentication, .expectedLength, .rateLimit, .ranges]
    }

    /// How many SSH sessions this transport has opened since it was created: a measure of reuse.
    public var sessionsOpened: Int { pool.connectionsMade }

    /// The most SSH sessions that were open at once to one host since this transport was
    /// created: at most `Configuration.maxSessionsPerHost`, or what a segmented download asked
    /// for (`TransferRequest.connections`, at most 16).
    public var mostSessionsAtOnce: Int { pool.peakOpen }

    /// Performs one attempt; see `Transport` for the contract and this type's overview for
    /// what SFTP adds.
    public func transfer(_ request: TransferRequest, into output: TransferWriter) async throws {
        let target = try SFTPTarget(url: request.url)
        var user = target.user
        var explicit: Credential?
        var identity = target.password.map { "password:" + Self.digest($0) } ?? ""
        if user == nil {
            if case .useCredential(let credential) = await request.authenticate(AuthChallenge(kind: .sshUser, url: request.url)) {
                switch credential {
                case .password(let name, let password):
                    (user, explicit, identity) = (name, credential, "password:" + Self.digest(password))
                case .privateKey(let name, let file, _):
                    (user, explicit, identity) = (name, credential, "key:" + file)
                case .agent(let name):
                    (user, explicit, identity) = (name, credential, "agent")
                default:
                    break
                }
            }
        }
        let key = SessionKey(host: target.host, port: target.port,
                             user: user ?? configuration.defaultUser ?? Self.localUser, credentialIdentity: identity)
        let options = request.options
        let credential = explicit
        // A second session needs a threshold and no rate limit (of its own or the writer's: a
        // download's budget paces through the writer); without one, one job does it all.
        let threshold = (options.maxBytesPerSecond ?? 0) <= 0 && !output.isPaced ? configuration.parallelThreshold : nil
        var replacedStaleSession = false
        while true {
            try Task.checkCancellation()
            let connection = try await pool.checkout(key, connections: request.connections)
            let reused = connection.isReady
            let file: SSHConnection.OpenedFile?
            do {
                file = try await connectIfNeeded(connection, target: target, credential: credential, request: request) { job in
                    guard threshold != nil else {
                        try connection.download(path: target.path, request: request, output: output, job: job)
                        return nil
                    }
                    return try connection.prepare(path: target.path, request: request, output: output, job: job)
                }
            } catch {
                let failure = release(connection, after: error)
                if reused, !replacedStaleSession, output.head == nil, failure.code == .connectionLost {
                    replacedStaleSession = true
                    continue
                }
                throw failure
            }
            guard let file else {
                pool.checkin(connection)
                return
            }
            let second = secondSession(for: file, key: key, threshold: threshold)
            do {
                if let second {
                    try await streamInParallel(file, on: [connection, second], target: target, request: request,
                                               credential: credential, output: output)
                    pool.checkin(second)
                } else {
                    try await connectIfNeeded(connection, target: target, credential: credential, request: request) { job in
                        try connection.stream(file, path: target.path, request: request, output: output, job: job)
                    }
                }
                pool.checkin(connection)
                return
            } catch {
                if let second { pool.discard(second) }
                throw release(connection, after: error)
            }
        }
    }

    /// Runs `body` on `connection`'s thread, connecting the session first when it is not yet:
    /// the connect timeout is the idle limit until then, the request timeout afterwards.
    private func connectIfNeeded<T: Sendable>(_ connection: SSHConnection, target: SFTPTarget, credential: Credential?,
                                              request: TransferRequest,
                                              _ body: @escaping @Sendable (IOJob) throws -> T) async throws -> T {
        let options = request.options
        return try await IOJob.run(on: connection.thread,
                                   idleTimeout: connection.isReady ? options.requestTimeout : options.connectTimeout,
                                   totalTimeout: options.resourceTimeout,
                                   authenticate: { await request.authenticate($0) }) { job in
            if !connection.isReady {
                try connection.connect(target: target, explicit: credential, job: job, url: request.url)
                job.setIdleTimeout(options.requestTimeout)
            }
            return try body(job)
        }
    }

    /// Hands `connection` back after a failed job: kept for SFTP status errors and a range past
    /// the end (the session is fine), closed otherwise. Returns the error as a `DownloadError`.
    private func release(_ connection: SSHConnection, after error: any Error) -> DownloadError {
        let failure = DownloadError.wrapping(error)
        if failure.code == .notFound || failure.code == .permissionDenied || failure.code == .rangeNotSatisfiable {
            pool.checkin(connection)
        } else {
            pool.discard(connection)
        }
        return failure
    }

    /// A second session for a file of at least `threshold` bytes left, when one is free now.
    private func secondSession(for file: SSHConnection.OpenedFile, key: SessionKey, threshold: Int64?) -> SSHConnection? {
        guard let start = file.start, let threshold, file.end - start >= threshold else { return nil }
        return pool.checkoutIfFree(key)
    }

    /// Streams `file` over `connections` (the first one has the file open, the others open it
    /// again): segment `i` is read on connection `i % count`, and the segments are written in
    /// order. The first failure stops them all; the writer then holds a contiguous prefix.
    private func streamInParallel(_ file: SSHConnection.OpenedFile, on connections: [SSHConnection],
                                  target: SFTPTarget, request: TransferRequest, credential: Credential?,
                                  output: TransferWriter) async throws {
        let writer = OrderedWriter(output: output)
        let segmentSize: Int64 = 16 * 1024 * 1024
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (parity, connection) in connections.enumerated() {
                group.addTask {
                    do {
                        try await self.connectIfNeeded(connection, target: target, credential: credential, request: request) { job in
                            try connection.streamSegments(file, handle: parity == 0 ? file.handle : nil, path: target.path,
                                                          parity: parity, of: connections.count, segmentSize: segmentSize,
                                                          writer: writer, job: job)
                        }
                    } catch {
                        // Wakes the other readers waiting for their turn, cancelled or not.
                        writer.fail(error)
                        throw error
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// Closes every pooled session and returns once they have released libssh2 and ended their
    /// threads. Transfers still running fail or finish; their sessions are closed when handed back.
    public func shutdown() async {
        await pool.shutdown()
    }

    private static func digest(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
    }

    private static var localUser: String {
        if let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return ProcessInfo.processInfo.environment["USER"] ?? "root"
    }
}
