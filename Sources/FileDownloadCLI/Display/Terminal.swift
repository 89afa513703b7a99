import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few facts about standard output that `fdl` needs, and unbuffered writes to it.
public enum Terminal {
    /// Whether standard output is a terminal.
    public static var isTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// The terminal's width in columns; `COLUMNS` or 80 when it cannot be asked.
    public static var width: Int { size.columns }

    /// The terminal's size as it is now (asked with `TIOCGWINSZ` at each call, so a resized window
    /// is seen at the next frame); `COLUMNS` and `LINES`, or 80 by 24, when it cannot be asked.
    public static var size: (columns: Int, lines: Int) {
        var size = winsize()
        let asked = ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0
        let environment = ProcessInfo.processInfo.environment
        func fallback(_ name: String, _ standard: Int) -> Int {
            environment[name].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? standard
        }
        return (asked && size.ws_col > 0 ? Int(size.ws_col) : fallback("COLUMNS", 80),
                asked && size.ws_row > 0 ? Int(size.ws_row) : fallback("LINES", 24))
    }

    /// Writes `text` to standard output at once.
    public static func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += n
        }
    }

    /// Writes `text` and a newline to standard error.
    public static func writeError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
