/// Turns display snapshots into terminal text. Pure: the same snapshot and width always give the
/// same text, so every frame can be tested without a terminal.
///
/// A frame is one line per row and a total line:
/// ```
/// big.iso     [########............]  41%  8.2 MiB/20.0 MiB  2.0 MiB/s  ETA 0:06
/// total       [#######.............]  38%  9.1 MiB/24.0 MiB  2.4 MiB/s  ETA 0:07  1 active, 1 done
/// ```
public enum ProgressRenderer {
    /// Widths of the columns after the name.
    static let barCells = 20
    static let minNameWidth = 8
    static let maxNameWidth = 24

    /// The lines of one frame for a terminal `width` columns wide; every line is at most `width`
    /// characters long.
    public static func lines(for snapshot: DisplaySnapshot, width: Int) -> [String] {
        let longest = (snapshot.rows.map(\.name.count) + [5]).max() ?? 5
        let nameWidth = min(maxNameWidth, max(minNameWidth, longest))
        var lines = snapshot.rows.map { line(for: $0, nameWidth: nameWidth, width: width) }
        var summary = "\(snapshot.rows.filter { $0.state == "downloading" }.count) active"
        if snapshot.completedCount > 0 { summary += ", \(snapshot.completedCount) done" }
        if snapshot.failedCount > 0 { summary += ", \(snapshot.failedCount) failed" }
        lines.append(line(for: snapshot.total, nameWidth: nameWidth, width: width, suffix: summary))
        return lines
    }

    /// One row: name, bar, percentage, bytes, speed and ETA, or the state for rows not downloading.
    public static func line(for row: DisplayRow, nameWidth: Int, width: Int, suffix: String? = nil) -> String {
        var parts = [Formatting.fit(row.name, width: nameWidth), Formatting.bar(row.fraction, width: barCells)]
        parts.append(row.fraction.map { Formatting.fit(Formatting.percent($0), width: 4) } ?? "  ? ")
        let size = row.expectedBytes.map { "/" + Formatting.bytes($0) } ?? ""
        parts.append(Formatting.bytes(row.receivedBytes) + size)
        switch row.state {
        case "downloading", "total":
            parts.append(Formatting.rate(row.bytesPerSecond))
            parts.append("ETA " + Formatting.eta(row.estimatedTimeRemaining))
        default:
            parts.append(row.state)
        }
        if let suffix { parts.append(suffix) }
        let text = parts.joined(separator: "  ")
        return text.count > width ? String(text.prefix(max(0, width))) : text
    }

    /// The escape sequence that replaces a frame of `previousLineCount` lines (cursor at the start
    /// of the line below it) with `lines`, leaving the cursor below the new frame. Lines of the old
    /// frame beyond the new one are cleared.
    public static func redraw(previousLineCount: Int, lines: [String]) -> String {
        var out = previousLineCount > 0 ? "\u{1B}[\(previousLineCount)A" : ""
        for line in lines { out += "\r\u{1B}[2K" + line + "\n" }
        if previousLineCount > lines.count {
            out += "\u{1B}[J"
        }
        return out
    }

    /// The escape sequence that removes a frame of `lineCount` lines, leaving the cursor where it
    /// started, so a log line can be printed above the next frame.
    public static func clear(lineCount: Int) -> String {
        guard lineCount > 0 else { return "" }
        return "\u{1B}[\(lineCount)A\r\u{1B}[J"
    }
}
