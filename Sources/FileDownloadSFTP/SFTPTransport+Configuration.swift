import Foundation

extension SFTPTransport {
    /// How ``SFTPTransport`` connects, verifies servers and authenticates.
    ///
    /// Every field has a safe default: host keys are verified strictly against
    /// `~/.ssh/known_hosts`, the usual identity files and the ssh-agent are tried, at most
    /// 4 sessions are open per host.
    public struct Configuration: Sendable, Hashable {
        /// The OpenSSH `known_hosts` file the server's host key is checked against, read as
        /// OpenSSH reads it: plain and hashed names, patterns with `*`, `?` and `!`,
        /// `[host]:port`, ed25519, ECDSA and RSA keys. A key on an `@revoked` line for the host is
        /// refused (`hostKeyMismatch`) even when another line accepts it; an `@cert-authority`
        /// line never accepts a plain host key (libssh2 1.10 has no host certificates). Keys
        /// accepted with `AuthDisposition.trust(remember: true)` are appended to it.
        public var knownHostsFile: String
        /// What happens to a host key that is not in ``knownHostsFile``.
        public var hostKeyPolicy: HostKeyPolicy
        /// Private key files tried for public key authentication, in order. Files that do not
        /// exist are skipped. A file protected by a passphrase makes the transport ask an
        /// `AuthChallenge.Kind.keyPassphrase(keyFile:)` challenge.
        public var identityFiles: [String]
        /// Whether the keys of the running ssh-agent (`SSH_AUTH_SOCK`) are tried.
        public var useAgent: Bool
        /// The user for URLs that name none and whose `sshUser` challenge is not answered with a
        /// credential; `nil` means the local login name, as OpenSSH does.
        public var defaultUser: String?
        /// The most SSH sessions open at once to one host and port (all users together). A
        /// transfer that finds them all busy waits for one (first come, first served). Default 4:
        /// each session costs the server a process and a key exchange, and on the 2-core machine
        /// this was measured on, 500 small files at 8 downloads at a time finished faster over 4
        /// sessions than over 8 (see docs/benchmarks-history.md). The transfers of a download
        /// fetched in segments may open more, up to the connections it asks for
        /// (`TransferRequest.connections`, at most 16): each segment has its own session.
        public var maxSessionsPerHost: Int
        /// How long an unused session stays open for the next transfer.
        public var idleSessionTimeout: Duration
        /// When set, a download with at least this many bytes left also reads over a second session
        /// of the same host if one is free at that moment: the two sessions read alternating 16 MiB
        /// segments (each decrypted on its own thread) that are written in order, so the staging
        /// file only ever holds a contiguous prefix. libssh2 1.10 spends most of its time in
        /// per-block decryption, so one session is bound by one core; this is for machines where
        /// the client has cores to spare. Default `nil` (off): on the 2-core machine where client
        /// and sshd share the cores it was 10–25 % slower than one session (docs/benchmarks-history.md).
        /// Never used with `TransferOptions.maxBytesPerSecond` or while the writer is paced (a
        /// download's budget or the downloader's overall limit).
        public var parallelThreshold: Int64?
        /// The size of each `libssh2_sftp_read` call; libssh2 keeps up to four times this in
        /// flight. 100–256 KiB is fastest on a fast link.
        public var bufferSize: Int

        /// Creates a configuration; every argument has the default described on its property.
        public init(
            knownHostsFile: String = Configuration.defaultKnownHostsFile,
            hostKeyPolicy: HostKeyPolicy = .strict,
            identityFiles: [String] = Configuration.defaultIdentityFiles,
            useAgent: Bool = true,
            defaultUser: String? = nil,
            maxSessionsPerHost: Int = 4,
            idleSessionTimeout: Duration = .seconds(60),
            parallelThreshold: Int64? = nil,
            bufferSize: Int = 256 * 1024
        ) {
            self.parallelThreshold = parallelThreshold
            self.knownHostsFile = knownHostsFile
            self.hostKeyPolicy = hostKeyPolicy
            self.identityFiles = identityFiles
            self.useAgent = useAgent
            self.defaultUser = defaultUser
            self.maxSessionsPerHost = max(1, maxSessionsPerHost)
            self.idleSessionTimeout = idleSessionTimeout
            self.bufferSize = min(max(bufferSize, 32 * 1024), 4 * 1024 * 1024)
        }

        /// `$HOME/.ssh/known_hosts`.
        public static var defaultKnownHostsFile: String {
            homeDirectory + "/.ssh/known_hosts"
        }

        /// `$HOME/.ssh/id_ed25519`, `id_ecdsa` and `id_rsa`, in that order.
        public static var defaultIdentityFiles: [String] {
            ["id_ed25519", "id_ecdsa", "id_rsa"].map { homeDirectory + "/.ssh/" + $0 }
        }

        private static var homeDirectory: String {
            ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        }
    }

    /// What the transport does with a host key that is not in the known hosts file. A key that
    /// *differs* from the known one always fails with `DownloadError.Code.hostKeyMismatch`.
    public enum HostKeyPolicy: String, Sendable, Hashable, Codable {
        /// Ask through the one auth door (`AuthChallenge.Kind.unknownHostKey`): the delegate may
        /// trust it once, trust and remember it, or reject it. Without an answer the attempt
        /// fails with `DownloadError.Code.hostKeyUnknown`. The default.
        case strict
        /// Trust an unknown host on first use and append its key to the known hosts file
        /// (OpenSSH's `StrictHostKeyChecking accept-new`). A host the file names only in an
        /// `@cert-authority` line is not new: it is asked about as under ``strict``.
        case acceptNew
    }
}
