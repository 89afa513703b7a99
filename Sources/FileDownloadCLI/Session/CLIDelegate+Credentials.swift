import FileDownload
import Foundation

extension CLIDelegate {
    /// Answers a server that asks for a password (HTTP 401, SSH password or keyboard-interactive
    /// authentication, the SSH user of a URL that names none, the FTP login) with ``credentials``, once per
    /// attempt; everything else, and a challenge the credentials do not cover, gets the library's
    /// default handling (the URL's own `user:password@`, SSH keys, strict trust). `--user` is
    /// given only to the origin of the download's first URL (``origins``).
    func download(_ id: String, didReceive challenge: AuthChallenge) async -> AuthDisposition {
        switch challenge.kind {
        case .httpServer, .password, .sshUser:
            break
        case .keyboardInteractive(_, _, let prompts) where prompts.count == 1:
            break
        default:
            return .performDefaultHandling
        }
        let loginApplies = origins.isFirstOrigin(challenge.url, of: id)
        guard challenge.previousFailureCount == 0,
              let login = credentials.credential(for: challenge.url, includingLogin: loginApplies) else {
            return .performDefaultHandling
        }
        // An FTP URL without a user asks for `anonymous`: --user or the netrc file may name anyone.
        let anonymousFTP = ["ftp", "ftps"].contains(challenge.url.scheme?.lowercased() ?? "")
            && challenge.url.user == nil
        if case .password(let user) = challenge.kind, user != login.user, !anonymousFTP { return .performDefaultHandling }
        let origin = loginApplies && credentials.login != nil ? "--user" : "the netrc file"
        logger.debug("\(id): answering \(challenge.kind) with the password of \(login.user) from \(origin)")
        return .useCredential(.password(user: login.user, password: login.password))
    }
}
