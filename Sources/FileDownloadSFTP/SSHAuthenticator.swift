internal import CSSH2
import FileDownload
import Foundation

/// Authenticates one SSH session through the core's one auth door, on the session's I/O thread.
///
/// Order: the credential the `sshUser` challenge returned, if any; the URL's password; the
/// configured identity files (asking `keyPassphrase` for protected ones); the ssh-agent; then,
/// as the server offers them, the `password` challenge and `keyboardInteractive` challenge, each
/// asked at most three times. No secret is logged, kept after the call, or put in a message.
struct SSHAuthenticator {
    let connection: SSHConnection
    let session: OpaquePointer
    let job: IOJob
    let url: URL

    private static let maximumAttempts = 3

    func authenticate(user: String, urlPassword: String?, explicit: Credential?) throws {
        let methods = try offeredMethods(user: user)
        if libssh2_userauth_authenticated(session) != 0 { return }
        var tried: [String] = []
        func offered(_ method: String) -> Bool { methods.contains(method) }

        if let explicit, try use(explicit, user: user, methods: methods, tried: &tried) { return }
        if let urlPassword, try usePassword(urlPassword, user: user, methods: methods, tried: &tried) { return }
        if offered("publickey") {
            for file in connection.configuration.identityFiles where FileManager.default.isReadableFile(atPath: file) {
                if try useKeyFile(file, passphrase: nil, user: user, tried: &tried) { return }
            }
            if connection.configuration.useAgent, try useAgent(user: user, tried: &tried) { return }
        }
        if offered("password") {
            for failures in 0..<Self.maximumAttempts {
                let challenge = AuthChallenge(kind: .password(user: user), url: url, previousFailureCount: failures)
                guard case .useCredential(let credential) = try job.ask(challenge) else { break }
                if try use(credential, user: user, methods: methods, tried: &tried) { return }
            }
        }
        if offered("keyboard-interactive") {
            for failures in 0..<Self.maximumAttempts {
                var declined = false
                tried.append("keyboard-interactive")
                let rc = try connection.keyboardInteractive(user: user, job: job) { name, instruction, prompts in
                    let kind = AuthChallenge.Kind.keyboardInteractive(name: name, instruction: instruction, prompts: prompts)
                    guard let disposition = try? job.ask(AuthChallenge(kind: kind, url: url, previousFailureCount: failures)),
                          case .useCredential(let credential) = disposition else {
                        declined = true
                        return nil
                    }
                    switch credential {
                    case .responses(let answers): return answers
                    case .password(_, let password): return prompts.map { _ in password }
                    default:
                        declined = true
                        return nil
                    }
                }
                try job.checkCancelled()
                if try succeeded(rc) { return }
                if declined { break }
            }
        }
        let list = tried.isEmpty ? "none of the offered methods (\(methods.joined(separator: ", "))) had a credential" : "tried \(tried.joined(separator: ", "))"
        throw DownloadError(.authenticationFailed,
                            "authentication as \(user) on \(connection.key.host):\(connection.key.port) failed: \(list)",
                            isRetryable: false)
    }

    private func offeredMethods(user: String) throws -> [String] {
        if let list = try connection.retryingPointer(job, { libssh2_userauth_list(session, user, UInt32(user.utf8.count)) }) {
            return String(cString: list).split(separator: ",").map(String.init)
        }
        if libssh2_userauth_authenticated(session) != 0 { return [] }
        throw connection.error(libssh2_session_last_errno(session), "the server \(connection.key.host):\(connection.key.port) did not list its authentication methods", connectPhase: true)
    }

    /// Tries one credential; `true` when the session is authenticated.
    private func use(_ credential: Credential, user: String, methods: [String], tried: inout [String]) throws -> Bool {
        switch credential {
        case .password(_, let password):
            return try usePassword(password, user: user, methods: methods, tried: &tried)
        case .privateKey(_, let file, let passphrase):
            return try useKeyFile(file, passphrase: passphrase, user: user, tried: &tried)
        case .agent:
            return try useAgent(user: user, tried: &tried)
        default:
            return false
        }
    }

    private func usePassword(_ password: String, user: String, methods: [String], tried: inout [String]) throws -> Bool {
        if methods.contains("password") {
            tried.append("password")
            return try succeeded(connection.retrying(job) { cssh2_userauth_password(session, user, password) })
        }
        if methods.contains("keyboard-interactive") {
            tried.append("keyboard-interactive")
            let rc = try connection.keyboardInteractive(user: user, job: job) { _, _, prompts in prompts.map { _ in password } }
            return try succeeded(rc)
        }
        return false
    }

    private func useKeyFile(_ file: String, passphrase: String?, user: String, tried: inout [String]) throws -> Bool {
        var passphrase = passphrase
        if passphrase == nil && PrivateKeyFile.isEncrypted(path: file) {
            let answer = try job.ask(AuthChallenge(kind: .keyPassphrase(keyFile: file), url: url))
            switch answer {
            case .useCredential(.passphrase(let secret)): passphrase = secret
            case .useCredential(.privateKey(_, _, let secret?)): passphrase = secret
            case .useCredential(.password(_, let secret)): passphrase = secret
            default: return false
            }
        }
        tried.append("publickey \(file)")
        let rc = try connection.retrying(job) {
            cssh2_userauth_publickey_fromfile(session, user, nil, file, passphrase)
        }
        return try succeeded(rc)
    }

    private func useAgent(user: String, tried: inout [String]) throws -> Bool {
        guard let socket = ProcessInfo.processInfo.environment["SSH_AUTH_SOCK"], !socket.isEmpty,
              let agent = libssh2_agent_init(session) else { return false }
        defer { libssh2_agent_free(agent) }
        guard libssh2_agent_connect(agent) == 0 else { return false }
        defer { libssh2_agent_disconnect(agent) }
        guard libssh2_agent_list_identities(agent) == 0 else { return false }
        tried.append("ssh-agent")
        var previous: UnsafeMutablePointer<libssh2_agent_publickey>?
        while true {
            try job.checkCancelled()
            var identity: UnsafeMutablePointer<libssh2_agent_publickey>?
            guard libssh2_agent_get_identity(agent, &identity, previous) == 0, let identity else { return false }
            previous = identity
            let rc = try connection.retrying(job) { libssh2_agent_userauth(agent, user, identity) }
            if try succeeded(rc) { return true }
        }
    }

    /// `true` for success, `false` for a refused credential; throws for a broken connection.
    private func succeeded(_ rc: Int32) throws -> Bool {
        switch rc {
        case 0:
            return true
        case LIBSSH2_ERROR_AUTHENTICATION_FAILED, LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED, LIBSSH2_ERROR_FILE,
             LIBSSH2_ERROR_KEYFILE_AUTH_FAILED, LIBSSH2_ERROR_PASSWORD_EXPIRED, LIBSSH2_ERROR_METHOD_NOT_SUPPORTED,
             LIBSSH2_ERROR_PUBLICKEY_PROTOCOL, LIBSSH2_ERROR_AGENT_PROTOCOL:
            return false
        default:
            throw connection.error(rc, "authenticating on \(connection.key.host):\(connection.key.port) failed", connectPhase: true)
        }
    }
}
