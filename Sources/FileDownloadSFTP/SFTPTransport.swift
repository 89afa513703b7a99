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

    /// Resume with a size + mtime validator, authentication, the total length in the head, and
    /// `TransferOptions.maxBytesPerSecond`.
    public var capabilities: TransportCapabilities { [.resume, .validators, .authentication, .expectedLength, .rateLimit] }

    /// How many SSH sessions this transport has opened since it was created: a measure of reuse.
    public var sessionsOpened: Int { pool.connectionsMade }

    /// Performs one attempt; see ``Transport`` for the contract and this type's overview for
    /// what SFTP adds.
    public func transfer(_ request: TransferRequest, into sink: TransferSink) async throws {
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
        let authenticate: @Sendable (AuthChallenge) async -> AuthDisposition = { await request.authenticate($0) }
        var replacedStaleSession = false
        while true {
            try Task.checkCancellation()
            let connection = try await pool.checkout(key)
            let reused = connection.isReady
            do {
                try await IOJob.run(on: connection.thread,
                                    idleTimeout: reused ? options.requestTimeout : options.connectTimeout,
                                    totalTimeout: options.resourceTimeout,
                                    authenticate: authenticate) { job in
                    if !connection.isReady {
                        try connection.connect(target: target, explicit: credential, job: job, url: request.url)
                        job.setIdleTimeout(options.requestTimeout)
                    }
                    try connection.download(path: target.path, request: request, sink: sink, job: job)
                }
                pool.checkin(connection)
                return
            } catch {
                let failure = DownloadError.wrapping(error)
                if failure.code == .notFound || failure.code == .permissionDenied {
                    // An SFTP status: the session itself is fine.
                    pool.checkin(connection)
                    throw failure
                }
                pool.discard(connection)
                if reused, !replacedStaleSession, sink.head == nil, failure.code == .connectionLost {
                    replacedStaleSession = true
                    continue
                }
                throw failure
            }
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
