/// A parsed `Content-Range: bytes FIRST-LAST/TOTAL` or `bytes */TOTAL` value.
struct ContentRange: Sendable, Hashable {
    /// The first byte of the body, `nil` for the unsatisfied form `*/TOTAL`.
    var first: Int64?
    /// The last byte of the body (inclusive), `nil` for the unsatisfied form.
    var last: Int64?
    /// The length of the whole resource, `nil` when the server sent `*`.
    var total: Int64?

    /// How many bytes the range covers, `nil` for the unsatisfied form.
    var count: Int64? {
        guard let first, let last else { return nil }
        return last - first + 1
    }

    init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        if halves[1] == "*" {
            total = nil
        } else {
            guard let t = Int64(halves[1]), t >= 0 else { return nil }
            total = t
        }
        if halves[0] == "*" {
            guard total != nil else { return nil }
            first = nil
            last = nil
        } else {
            let ends = halves[0].split(separator: "-", maxSplits: 1)
            // The byte count (last - first + 1) must be a number too: a range ending at Int64.max is
            // refused, so no arithmetic on a parsed range can overflow.
            guard ends.count == 2, let f = Int64(ends[0]), let l = Int64(ends[1]), f >= 0, l >= f, l < .max else { return nil }
            if let total, l >= total { return nil }
            first = f
            last = l
        }
    }
}
