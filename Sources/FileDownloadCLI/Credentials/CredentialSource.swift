public import Foundation

/// Where `fdl` finds a user name and password for a server that asks (HTTP 401, SSH password
/// authentication): `--user USER[:PASS]` first, then the URL's own `user:password@`, then the
/// netrc file (`--netrc`, `--netrc-file`). Held in memory only: never stored, never printed.
public struct CredentialSource: Sendable, CustomStringConvertible {
    /// `--user`: the user and the password; `nil` until asked on the terminal
    /// (``askForMissingPassword()``) when `--user` gave none.
    public var login: (user: String, password: String?)?
    /// The parsed netrc file, when `--netrc` or `--netrc-file` was given.
    public var netrc: Netrc?

    public init(login: (user: String, password: String?)? = nil, netrc: Netrc? = nil) {
        self.login = login
        self.netrc = netrc
    }

    /// Whether anything was given: a 401 is then "refused", not "no credentials given".
    public var isEmpty: Bool { login == nil && netrc == nil }

    /// The user name and password to answer a challenge for `url` with; `nil` when the URL's own
    /// credentials (or none) should be used.
    ///
    /// Order: `--user`, when `includingLogin` (the caller passes `false` when `url` is not on the
    /// origin of the download's first URL: as curl, `--user` goes to the first host only, so a
    /// mirror never gets it); the URL's `user:password@` (`nil` here: the transport uses them);
    /// the netrc entry for the URL's host (with the URL's user as login, when it names one).
    public func credential(for url: URL, includingLogin: Bool = true) -> (user: String, password: String)? {
        if includingLogin, let login { return (login.user, login.password ?? "") }
        if url.password(percentEncoded: false) != nil { return nil }
        guard let host = url.host, let netrc else { return nil }
        return netrc.login(for: host, user: url.user(percentEncoded: false))
    }

    /// Asks for the password of `--user USER` on the terminal, with echo off, when it was not
    /// given; does nothing otherwise.
    ///
    /// - Throws: ``CLIError`` (usage) when there is no terminal to ask on.
    public mutating func askForMissingPassword() throws {
        guard let login, login.password == nil else { return }
        self.login = (login.user, try PasswordPrompt.ask("Enter password for user '\(login.user)': "))
    }

    public var description: String {
        "credentials: " + [login.map { "--user \($0.user) (password redacted)" }, netrc?.description]
            .compactMap { $0 }.joined(separator: ", ")
    }
}
