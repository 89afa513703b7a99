/// Human-readable numbers for the progress display and the log lines. Pure functions.
public enum Formatting {
    /// Bytes in binary units with one decimal above 1 KiB: `512 B`, `1.5 KiB`, `20.0 MiB`.
    public static func bytes(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
        var value = Double(max(0, count))
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(max(0, count)) B" }
        return oneDecimal(value) + " " + units[unit]
    }

    /// A rate in bytes per second: `3.2 MiB/s`; `-` when unknown (zero or negative).
    public static func rate(_ bytesPerSecond: Double) -> String {
        guard bytesPerSecond > 0, bytesPerSecond.isFinite else { return "-" }
        return bytes(Int64(bytesPerSecond.rounded())) + "/s"
    }

    /// A duration as `m:ss`, or `h:mm:ss` from one hour on; `--:--` when unknown.
    public static func eta(_ duration: Duration?) -> String {
        guard let duration, duration >= .zero else { return "--:--" }
        let total = Int64(duration.components.seconds) + (duration.components.attoseconds > 0 ? 1 : 0)
        let h = total / 3600, m = (total % 3600) / 60, s = total % 60
        if h > 0 { return "\(h):\(pad2(m)):\(pad2(s))" }
        return "\(m):\(pad2(s))"
    }

    /// A percentage of `fraction` (0...1), rounded down: `42%`.
    public static func percent(_ fraction: Double) -> String {
        "\(Int((min(1, max(0, fraction)) * 100 + 1e-9).rounded(.down)))%"
    }

    /// A bar of `width` cells between brackets, `#` for done and `.` for the rest:
    /// `[#####.....]`. With an unknown size (`fraction == nil`) the cells are `?`.
    public static func bar(_ fraction: Double?, width: Int) -> String {
        let cells = max(1, width)
        guard let fraction else { return "[" + String(repeating: "?", count: cells) + "]" }
        let done = Int((min(1, max(0, fraction)) * Double(cells)).rounded(.down))
        return "[" + String(repeating: "#", count: done) + String(repeating: ".", count: cells - done) + "]"
    }

    /// `text` cut to `width` characters (the last one an ellipsis) or padded with spaces.
    public static func fit(_ text: String, width: Int) -> String {
        guard width > 0 else { return "" }
        if text.count > width { return String(text.prefix(width - 1)) + "…" }
        return text + String(repeating: " ", count: width - text.count)
    }

    /// The columns `text` takes on a terminal: 2 for each East Asian wide or fullwidth character
    /// and emoji, 1 for any other character (a character with combining marks counts once).
    public static func columns(_ text: String) -> Int {
        text.reduce(0) { $0 + columns(of: $1) }
    }

    static func columns(of character: Character) -> Int {
        character.unicodeScalars.contains(where: isWide) ? 2 : 1
    }

    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.properties.isEmojiPresentation { return true }
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// The longest start of `text` that takes at most `width` columns.
    private static func prefix(_ text: String, columns width: Int) -> String {
        var result = "", used = 0
        for character in text {
            used += columns(of: character)
            if used > width { break }
            result.append(character)
        }
        return result
    }

    /// `text` shortened to `width` columns with an ellipsis in the middle (so a file name keeps
    /// its start and its extension: `debian-12.…netinst.iso`), or padded with spaces to `width`.
    public static func fitMiddle(_ text: String, width: Int) -> String {
        guard width > 0 else { return "" }
        let used = columns(text)
        guard used > width else { return text + String(repeating: " ", count: width - used) }
        let head = prefix(text, columns: width / 2)
        let tail = String(String(prefix(String(text.reversed()), columns: width - 1 - columns(head))).reversed())
        let shortened = head + "…" + tail
        return shortened + String(repeating: " ", count: max(0, width - columns(shortened)))
    }

    /// `text` shortened to at most `width` columns by dropping whole words from its end (and
    /// adding an ellipsis), so that no number is ever cut in two; as it is when it fits.
    public static func fitWords(_ text: String, width: Int) -> String {
        guard columns(text) > width else { return text }
        guard width > 0 else { return "" }
        var kept = ""
        for word in text.split(separator: " ") {
            let next = kept.isEmpty ? String(word) : kept + " " + word
            if columns(next) + 1 > width { break }
            kept = next
        }
        return kept.isEmpty ? "…" : kept + "…"
    }

    private static func oneDecimal(_ value: Double) -> String {
        let tenths = Int64((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    private static func pad2(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
