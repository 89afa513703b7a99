import ArgumentParser
import Foundation

/// A transfer rate written as curl's `--limit-rate` takes it: bytes per second, with an optional
/// suffix `K`, `M` or `G` (1024, 1024², 1024³; either case) and an optional fraction: `500K`,
/// `1M`, `1.5M`, `200000`.
enum ByteRate {
    /// The bytes per second `text` stands for; `0` means no limit, as in curl.
    ///
    /// - Returns: `nil` when `text` is not such a rate, or exceeds a billion GiB/s.
    static func parse(_ text: String) -> Int64? {
        var number = Substring(text.trimmingCharacters(in: .whitespaces))
        var multiplier = 1.0
        if let last = number.last, let power = ["k": 1.0, "m": 2.0, "g": 3.0][last.lowercased()] {
            multiplier = pow(1024, power)
            number = number.dropLast()
        }
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              let value = Double(number), value.isFinite else { return nil }
        let bytes = (value * multiplier).rounded()
        guard bytes <= 1e18 else { return nil }
        // A fraction of a byte per second rounds up to 1, never to "no limit".
        return value > 0 ? max(1, Int64(bytes)) : 0
    }

    /// The value of option `name` (`--limit-rate`, `--limit-rate-total`): the bytes per second,
    /// `nil` for `0` (no limit).
    ///
    /// - Throws: `ValidationError` saying how to write a rate.
    static func option(_ name: String, _ text: String) throws -> Int64? {
        guard let rate = parse(text) else {
            throw ValidationError("\(name) '\(text)' is not a rate; write bytes per second with an optional "
                                  + "K, M or G suffix, e.g. 500K or 1.5M")
        }
        return rate > 0 ? rate : nil
    }
}
