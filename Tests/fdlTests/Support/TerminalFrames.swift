/// The frames of `fdl`'s live display, rebuilt from what it wrote to a terminal.
///
/// `fdl` draws a frame as lines that each start with `CR ESC[2K` (go to the line's start, clear
/// it) and end with a newline; the next frame first moves the cursor up over the previous one
/// (`ESC[nA`); the terminal turns each newline into CR LF. Log lines come between frames, after `ESC[nA CR ESC[J` or as plain text. This
/// splits the output at newlines, strips the escape sequences of each piece, and groups
/// consecutive frame lines into frames, each with the offset (in UTF-8 bytes) where it starts.
struct TerminalFrames {
    struct Frame {
        var offset: Int
        var lines: [String]
    }

    private(set) var frames: [Frame] = []
    /// The lines that were not part of a frame (log lines), escape sequences removed.
    private(set) var logLines: [String] = []

    init(_ output: String) {
        var offset = 0
        var previousWasFrameLine = false
        // Split the bytes, not the Characters: a terminal turns "\n" into "\r\n", one Character.
        for piece in output.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast() {
            let start = offset
            offset += piece.count + 1
            let (text, escapes) = Self.strip(String(decoding: piece, as: UTF8.self))
            guard escapes.contains("2K") else {
                logLines.append(text)
                previousWasFrameLine = false
                continue
            }
            if !previousWasFrameLine || escapes.contains(where: { $0.hasSuffix("A") }) || frames.isEmpty {
                frames.append(Frame(offset: start, lines: []))
            }
            frames[frames.count - 1].lines.append(text)
            previousWasFrameLine = true
        }
    }

    /// `piece` without carriage returns and `ESC [ parameters letter` sequences, and the sequences
    /// (without `ESC [`) it had.
    static func strip(_ piece: String) -> (text: String, escapes: [String]) {
        var text = "", escapes: [String] = []
        var scalars = piece.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            if scalar == "\r" { continue }
            guard scalar == "\u{1B}" else {
                text.unicodeScalars.append(scalar)
                continue
            }
            guard scalars.next() == "[" else { continue }
            var sequence = ""
            while let next = scalars.next() {
                sequence.unicodeScalars.append(next)
                if next.properties.isAlphabetic { break }
            }
            escapes.append(sequence)
        }
        return (text, escapes)
    }

    /// What is wrong with the frames that start at or after `offset` (all by default) for a
    /// terminal `columns` wide and `rows` high: a line longer than the width, or a frame that does
    /// not leave the cursor's line on the screen.
    func problems(columns: Int, rows: Int, from offset: Int = 0, before end: Int = .max) -> [String] {
        frames.filter { $0.offset >= offset && $0.offset < end }.flatMap { frame -> [String] in
            var found = frame.lines.filter { $0.count > columns }.map { "a line of \($0.count) > \(columns) columns: \($0)" }
            if frame.lines.count >= rows {
                found.append("a frame of \(frame.lines.count) lines in \(rows) rows: \(frame.lines.joined(separator: " | "))")
            }
            return found
        }
    }

    /// Whether `frame` fits a terminal `columns` wide and `rows` high.
    static func fits(_ frame: Frame, columns: Int, rows: Int) -> Bool {
        frame.lines.count < rows && frame.lines.allSatisfy { $0.count <= columns }
    }
}
