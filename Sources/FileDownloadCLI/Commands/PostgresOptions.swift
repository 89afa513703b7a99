public import ArgumentParser
import FileDownload
import FileDownloadPostgres
import Foundation

/// `--postgres URL` and `--postgres-password-file PATH`: where the fleet's shared queue is and
/// the password to log in with. The password comes from the file, else from `PGPASSWORD`; never
/// from the URL or the command line, and it is never printed.
public struct PostgresOptions: ParsableArguments {
    @Option(name: .customLong("postgres"), help: ArgumentHelp(
        "The shared queue: postgres://USER@HOST[:PORT]/DATABASE (no password in it; ?sslmode=disable|verify-full).",
        valueName: "URL"))
    public var url: String

    @Option(name: .customLong("postgres-password-file"), help: ArgumentHelp(
        "Read the password from PATH (its first line; the file must be yours and mode 0600 or stricter). Default: $PGPASSWORD.",
        valueName: "PATH"))
    public var passwordFile: String?

    public init() {}

    /// The settings, with the password from the file or `PGPASSWORD`.
    ///
    /// - Throws: ``CLIError`` (usage) for a URL that is not a PostgreSQL URL or carries a password,
    ///   or a password file that cannot be read, is not the user's, or others may read.
    func settings(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> PostgresQueueSettings {
        guard let parsed = URL(string: url) else {
            throw CLIError(.usage, "--postgres: cannot read the URL")
        }
        let password = try passwordFile.map(Self.readPassword) ?? environment["PGPASSWORD"]
        do {
            return try PostgresQueueSettings(url: parsed, password: password)
        } catch let error as DownloadError {
            throw CLIError(.usage, "--postgres: \(error.message)")
        }
    }

    static func readPassword(from path: String) throws -> String {
        let data: [UInt8]
        switch PrivateFile.read(path) {
        case .missing:
            throw CLIError(.usage, "--postgres-password-file: cannot read \(path): no such file")
        case .notRegular:
            throw CLIError(.usage, "--postgres-password-file: \(path) is not a regular file")
        case .tooLarge:
            throw CLIError(.usage, "--postgres-password-file: \(path) is larger than a password file can be (64 KiB)")
        case .failed(let reason):
            throw CLIError(.usage, "--postgres-password-file: cannot read \(path): \(reason)")
        case .read(let bytes, let owner, let mode):
            guard owner == geteuid() else {
                throw CLIError(.usage, "--postgres-password-file: \(path) belongs to another user; it must be yours")
            }
            guard mode & 0o077 == 0 else {
                throw CLIError(.usage, "--postgres-password-file: other users may read \(path) (mode \(String(mode, radix: 8))); chmod 600 it")
            }
            data = bytes
        }
        let text = String(decoding: data, as: UTF8.self)
        return String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }
}
