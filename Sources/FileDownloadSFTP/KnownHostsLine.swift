import Crypto
import Foundation

/// One entry of an OpenSSH `known_hosts` file, read as `sshd(8)` describes it (section
/// SSH_KNOWN_HOSTS FILE FORMAT): `[@marker] hostpatterns keytype base64-key [comment]`.
///
/// Host patterns are a comma-separated list of names in which `*` matches any run of characters,
/// `?` one character and a leading `!` negates (a host that matches a negated pattern is never
/// matched by the line, whatever else matches); a name with a port other than 22 is written
/// `[host]:port`, and patterns apply to that whole text. A hashed entry (`|1|salt|hash`, as
/// `ssh-keygen -H` writes) matches a name whose HMAC-SHA1 under the salt is the hash. Names and
/// patterns compare case-insensitively.
struct KnownHostsLine: Sendable {
    /// The line's marker.
    enum Marker: Sendable {
        /// A plain host key.
        case none
        /// `@cert-authority`: a certificate authority's key, accepted only for host certificates
        /// signed by it (never as a plain host key).
        case certificateAuthority
        /// `@revoked`: a key that must never be accepted.
        case revoked
    }

    let marker: Marker
    /// The host patterns field as written.
    let hosts: String
    /// The key blob (SSH wire format).
    let key: Data
    /// The key type named inside the blob (`ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`, ...).
    let keyType: String

    /// Parses one line; `nil` for comments, blank lines, unknown markers and lines without a
    /// readable key, which OpenSSH skips too.
    init?(_ line: Substring) {
        var fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).makeIterator()
        guard var first = fields.next(), !first.hasPrefix("#") else { return nil }
        switch first {
        case "@cert-authority": marker = .certificateAuthority
        case "@revoked": marker = .revoked
        default:
            if first.hasPrefix("@") { return nil }
            marker = .none
        }
        if marker != .none {
            guard let next = fields.next() else { return nil }
            first = next
        }
        guard let type = fields.next(), let encoded = fields.next(), let blob = Data(base64Encoded: String(encoded)),
              let embedded = Self.embeddedType(blob), embedded == type else { return nil }
        hosts = String(first)
        key = blob
        keyType = embedded
    }

    /// Whether the line names `name` (`host`, or `[host]:port` for a port other than 22).
    func matches(name: String) -> Bool {
        let name = Array(name.lowercased().utf8)
        if hosts.hasPrefix("|") { return Self.hashedMatch(hosts, name: name) }
        var positive = false
        for pattern in hosts.lowercased().split(separator: ",", omittingEmptySubsequences: true) {
            let negated = pattern.hasPrefix("!")
            let bytes = Array(pattern.utf8.dropFirst(negated ? 1 : 0))
            guard Self.glob(name[...], bytes[...]) else { continue }
            if negated { return false }
            positive = true
        }
        return positive
    }

    /// `|1|base64(salt)|base64(HMAC-SHA1(salt, name))`.
    private static func hashedMatch(_ field: String, name: [UInt8]) -> Bool {
        let parts = field.split(separator: "|", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].isEmpty, parts[1] == "1",
              let salt = Data(base64Encoded: String(parts[2])), let hash = Data(base64Encoded: String(parts[3])) else {
            return false
        }
        let mac = HMAC<Insecure.SHA1>.authenticationCode(for: name, using: SymmetricKey(data: salt))
        return Data(mac) == hash
    }

    /// OpenSSH's `match_pattern`: `*` any run of bytes, `?` one byte, anything else itself.
    static func glob(_ text: ArraySlice<UInt8>, _ pattern: ArraySlice<UInt8>) -> Bool {
        var t = text.startIndex, p = pattern.startIndex
        var starAt: Int?, resumeText = t
        while t < text.endIndex {
            if p < pattern.endIndex, pattern[p] == UInt8(ascii: "*") {
                starAt = p
                p += 1
                resumeText = t
            } else if p < pattern.endIndex, pattern[p] == UInt8(ascii: "?") || pattern[p] == text[t] {
                p += 1
                t += 1
            } else if let star = starAt {
                p = star + 1
                resumeText += 1
                t = resumeText
            } else {
                return false
            }
        }
        while p < pattern.endIndex, pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.endIndex
    }

    /// The type name a key blob starts with (a 32-bit big-endian length and the name).
    private static func embeddedType(_ blob: Data) -> String? {
        let bytes = [UInt8](blob.prefix(4))
        guard bytes.count == 4 else { return nil }
        let length = bytes.reduce(0) { $0 << 8 | Int($1) }
        guard length > 0, length <= 64, blob.count >= 4 + length else { return nil }
        return String(bytes: blob.dropFirst(4).prefix(length), encoding: .utf8)
    }
}
