import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Asks for a password on the controlling terminal (`/dev/tty`) with echo off, as curl does for
/// `-u USER`. The answer is returned, never written anywhere.
enum PasswordPrompt {
    /// Writes `prompt` to the terminal, reads one line with echo off, restores the terminal and
    /// returns the line without its line break.
    ///
    /// - Throws: ``CLIError`` (usage) when there is no terminal to ask on (a script, a service):
    ///   then the password must come with `--user USER:PASS` or from `--netrc`.
    static func ask(_ prompt: String) throws -> String {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            throw CLIError(.usage, "--user without a password needs a terminal to ask for it; "
                           + "give --user USER:PASS, or put it in ~/.netrc and pass --netrc")
        }
        defer { close(fd) }
        var saved = termios()
        let canSilence = tcgetattr(fd, &saved) == 0
        if canSilence {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            silent.c_lflag |= tcflag_t(ICANON)
            _ = tcsetattr(fd, TCSAFLUSH, &silent)
        }
        defer {
            if canSilence { _ = tcsetattr(fd, TCSAFLUSH, &saved) }
            _ = write(fd, "\n", 1)
        }
        _ = prompt.withCString { write(fd, $0, strlen($0)) }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = read(fd, &byte, 1)
            if n < 0, errno == EINTR { continue }
            if n <= 0 || byte == UInt8(ascii: "\n") { break }
            bytes.append(byte)
        }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}
