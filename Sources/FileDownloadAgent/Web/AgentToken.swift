import FileDownload
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The bearer token of the agent's TCP listener: 256 random bits as 64 hexadecimal digits, kept
/// in `STATE/agent.token` (mode 0600), so that only the agent's user can read it.
///
/// The token survives restarts (an open page, which holds the token, reconnects after the agent
/// restarts); delete the file and restart the agent to make a new one. Its `description` never
/// shows the value, so logging a token by mistake reveals nothing.
public struct AgentToken: Sendable, CustomStringConvertible {
    /// The token's 64 hexadecimal digits.
    public let value: String

    public var description: String { "<agent token>" }

    /// The token file of a state directory: `STATE/agent.token`.
    public static func path(in stateDirectory: String) -> String { stateDirectory + "/agent.token" }

    /// Reads the token of `stateDirectory`, or makes one when there is none.
    ///
    /// In order: an existing `agent.token` must be a regular file of this user (not a symbolic
    /// link) holding 64 hexadecimal digits; its mode is set to 0600 and its token returned. When
    /// there is no file, 32 bytes come from the system's secure generator (`getrandom`) and are
    /// written to a new file created with mode 0600 (`O_EXCL`, so a file that appears meanwhile is
    /// not overwritten).
    ///
    /// - Throws: ``AgentStartError`` saying what is wrong with the file.
    public static func loadOrCreate(in stateDirectory: String) throws -> AgentToken {
        let path = path(in: stateDirectory)
        if let existing = try load(from: path) { return existing }
        var generator = SystemRandomNumberGenerator()
        let value = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw AgentStartError("cannot create the token file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let bytes = Array((value + "\n").utf8)
        guard write(fd, bytes, bytes.count) == bytes.count, fsync(fd) == 0 else {
            unlink(path)
            throw AgentStartError("cannot write the token file \(path): \(String(cString: strerror(errno)))")
        }
        return AgentToken(value: value)
    }

    /// The token in the file at `path`, or `nil` when there is no file.
    ///
    /// - Throws: ``AgentStartError`` when the file is not a regular file of this user or does not
    ///   hold a token.
    public static func load(from path: String) throws -> AgentToken? {
        let data: [UInt8]
        switch PrivateFile.read(path, limit: 4096, tightening: true) {
        case .missing:
            return nil
        case .failed(let reason):
            throw AgentStartError("cannot read the token file \(path): \(reason)")
        case .notRegular, .tooLarge:
            throw AgentStartError("the token file \(path) is not a regular file of this user holding a token; remove it and start the agent again")
        case .read(let bytes, let owner, let mode):
            guard owner == getuid() else {
                throw AgentStartError("the token file \(path) is not a regular file of this user; remove it and start the agent again")
            }
            guard mode & 0o077 == 0 else {
                throw AgentStartError("cannot make the token file \(path) private (mode 0600)")
            }
            data = bytes
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.count == 64, text.allSatisfy(\.isHexDigit) else {
            throw AgentStartError("the token file \(path) does not hold a token (64 hexadecimal digits); remove it and start the agent again")
        }
        return AgentToken(value: text.lowercased())
    }

    /// Whether `candidate` is this token, compared in constant time (the time taken does not tell
    /// how many leading characters were right).
    public func matches(_ candidate: some StringProtocol) -> Bool {
        let expected = Array(value.utf8)
        let given = Array(candidate.utf8)
        guard given.count == expected.count else { return false }
        var difference: UInt8 = 0
        for index in expected.indices { difference |= expected[index] ^ given[index] }
        return difference == 0
    }
}
