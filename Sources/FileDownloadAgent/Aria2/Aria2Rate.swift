import Foundation

/// aria2's speed values (`max-overall-download-limit`, `max-download-limit`): bytes per second as
/// a whole number with an optional `K` (×1024) or `M` (×1024²) suffix; `0` is no limit.
enum Aria2Rate {
    static func parse(_ text: String) throws(Aria2Error) -> Int64 {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var digits = Substring(trimmed)
        var factor: Int64 = 1
        switch trimmed.last {
        case "k", "K": factor = 1024; digits = digits.dropLast()
        case "m", "M": factor = 1024 * 1024; digits = digits.dropLast()
        default: break
        }
        guard let value = Int64(digits), value >= 0 else {
            throw Aria2Error("\(text) is not a speed (bytes per second, with K or M)")
        }
        let (product, overflow) = value.multipliedReportingOverflow(by: factor)
        guard !overflow else { throw Aria2Error("\(text) is too large") }
        return product
    }
}
