import Foundation

extension ResponseHead {
    /// The SHA-256 of the whole resource that the response announces, as lowercase hex; `nil`
    /// when it announces none (other algorithms are ignored) or a malformed one.
    ///
    /// In order: `Repr-Digest: sha-256=:BASE64:` (RFC 9530), the digest of the selected
    /// representation, whatever the status (a 206 carries the digest of the whole file too);
    /// then, only in a 200 whose body is not content-coded, `Content-Digest: sha-256=:BASE64:`
    /// (RFC 9530: the digest of this message's content, which is then the whole file) and the
    /// older `Digest: SHA-256=BASE64` (RFC 3230 with RFC 5843). A `Content-Digest` of a 206 is
    /// the digest of the part, never of the file.
    var announcedSHA256: String? {
        if let digest = Self.structuredSHA256(values("repr-digest")) { return digest }
        guard statusCode == 200, contentCoding == nil else { return nil }
        return Self.structuredSHA256(values("content-digest")) ?? Self.legacySHA256(values("digest"))
    }

    /// The `sha-256` member of RFC 9530 dictionary fields (`sha-256=:BASE64:`, members separated
    /// by commas, parameters after `;` ignored).
    static func structuredSHA256(_ fields: [String]) -> String? {
        for member in fields.flatMap({ $0.split(separator: ",") }) {
            let parts = member.split(separator: "=", maxSplits: 1)
            guard parts.count == 2,
                  parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "sha-256" else { continue }
            let value = parts[1].split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard value.count >= 2, value.hasPrefix(":"), value.hasSuffix(":") else { return nil }
            return sha256Hex(base64: String(value.dropFirst().dropLast()))
        }
        return nil
    }

    /// The `SHA-256` instance digest of RFC 3230 `Digest` fields (`SHA-256=BASE64`, the algorithm
    /// in any case).
    static func legacySHA256(_ fields: [String]) -> String? {
        for member in fields.flatMap({ $0.split(separator: ",") }) {
            let parts = member.split(separator: "=", maxSplits: 1)
            guard parts.count == 2,
                  parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "sha-256" else { continue }
            return sha256Hex(base64: parts[1].trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// The hex of a base64 SHA-256 (32 bytes), or `nil` when it is not one.
    private static func sha256Hex(base64: String) -> String? {
        guard let bytes = Data(base64Encoded: base64), bytes.count == 32 else { return nil }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }
}
