public import Foundation

/// Turns names that come from URLs or servers into safe file names.
///
/// The result is one path component: never empty, never `.` or `..`, no `/` or `\`, no NUL or other
/// control characters, no leading dots (no hidden files), at most 200 UTF-8 bytes.
public enum FileNameSanitizer {
    /// A safe file name for `name`, or `fallback` when nothing usable is left.
    public static func sanitize(_ name: String, fallback: String = "download") -> String {
        if isPlain(name) { return name }
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            switch scalar {
            case "/", "\\", ":": scalars.append("_")
            case _ where scalar.properties.generalCategory == .control: continue
            case _ where scalar.properties.generalCategory == .format: continue
            default: scalars.append(scalar)
            }
        }
        var result = String(scalars).trimmingCharacters(in: .whitespaces)
        while result.hasPrefix(".") { result.removeFirst() }
        while result.utf8.count > 200 { result.removeLast() }
        if result.isEmpty { return fallback }
        return result
    }

    /// The sanitised, percent-decoded last path component of `url`; the host (or `fallback`) when
    /// the path has none.
    public static func fileName(for url: URL, fallback: String = "download") -> String {
        let last = url.lastPathComponent
        if !last.isEmpty, last != "/" {
            let decoded = last.utf8.contains(UInt8(ascii: "%")) ? last.removingPercentEncoding ?? last : last
            return sanitize(decoded, fallback: fallback)
        }
        return sanitize(url.host ?? fallback, fallback: fallback)
    }

    /// Whether `name` is already safe as it is (the common case, checked byte by byte without
    /// Unicode properties): 1 to 200 bytes of printable ASCII without a space, `/`, `\` or `:`,
    /// not starting with a dot. ``sanitize(_:fallback:)`` returns such a name unchanged.
    static func isPlain(_ name: String) -> Bool {
        let bytes = name.utf8
        guard let first = bytes.first, first != UInt8(ascii: "."), bytes.count <= 200 else { return false }
        return bytes.allSatisfy { byte in
            byte > 0x20 && byte < 0x7F
                && byte != UInt8(ascii: "/") && byte != UInt8(ascii: "\\") && byte != UInt8(ascii: ":")
        }
    }
}
