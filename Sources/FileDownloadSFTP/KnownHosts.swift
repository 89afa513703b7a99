import Crypto
import FileDownload
import Foundation

/// An OpenSSH `known_hosts` file, read with OpenSSH's semantics (see ``KnownHostsLine``) for one
/// host key check: markers (`@revoked`, `@cert-authority`), hashed names, patterns with `*`, `?`
/// and `!`, `[host]:port`, comments and blank lines. libssh2's own knownhost API knows none of
/// the markers or patterns, so it is not used.
struct KnownHosts: Sendable {
    /// The result of checking a host key, in this order of precedence.
    enum Verdict: Equatable {
        /// An `@revoked` line for this host holds the key: never accepted, whatever else says so.
        case revoked
        /// A plain line for this host holds the key.
        case match
        /// The file knows another key of this type for the host; `expected` is its
        /// `SHA256:` fingerprint.
        case mismatch(expected: String)
        /// No plain line names the host, but an `@cert-authority` line does: the host is expected
        /// to present a certificate, which libssh2 1.10 cannot verify.
        case certificateAuthorityOnly
        case notFound
    }

    /// The identity of the file's contents at the time it was read: a session verified under
    /// one stamp is not reused once the file changed.
    struct Stamp: Hashable, Sendable {
        var exists: Bool
        var size: Int64
        var mtimeNanoseconds: Int64
        var inode: UInt64

        init(path: String) {
            var st = stat()
            if stat(path, &st) == 0 {
                exists = true
                size = Int64(st.st_size)
                mtimeNanoseconds = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
                inode = UInt64(st.st_ino)
            } else {
                exists = false
                size = 0
                mtimeNanoseconds = 0
                inode = 0
            }
        }
    }

    /// The file as it was when this collection read it.
    let stamp: Stamp
    private let lines: [KnownHostsLine]

    /// Reads `path`. A missing or unreadable file is an empty one; lines OpenSSH would skip
    /// (comments, blank lines, unknown markers, unreadable keys) are skipped.
    init(path: String) {
        stamp = Stamp(path: path)
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        lines = text.split(whereSeparator: \.isNewline).compactMap(KnownHostsLine.init)
    }

    /// The name OpenSSH files a host under: `host` on port 22, `[host]:port` otherwise.
    static func entryName(host: String, port: Int) -> String {
        port == 22 ? host : "[\(host)]:\(port)"
    }

    /// Checks `key` (the raw key blob) of type `keyType` for `host`:`port`, exactly as OpenSSH
    /// names it (no fallback from `[host]:port` to `host`). A revoked key wins over every line
    /// that accepts it; a matching plain line over another key of the same type.
    func check(host: String, port: Int, key: UnsafeRawBufferPointer, keyType: HostKeyType) -> Verdict {
        let name = Self.entryName(host: host, port: port)
        let blob = Data(key)
        let named = lines.filter { $0.matches(name: name) }
        if named.contains(where: { $0.marker == .revoked && $0.key == blob }) { return .revoked }
        let plain = named.filter { $0.marker == .none }
        if plain.contains(where: { $0.key == blob }) { return .match }
        if let other = plain.first(where: { $0.keyType == keyType.name }) {
            return .mismatch(expected: Self.fingerprint(other.key))
        }
        return named.contains { $0.marker == .certificateAuthority } ? .certificateAuthorityOnly : .notFound
    }

    /// The key types this file knows for `host`:`port` (plain lines). Used to
    /// prefer the known types in the key exchange, as OpenSSH does.
    func knownTypes(host: String, port: Int) -> [HostKeyType] {
        let name = Self.entryName(host: host, port: port)
        let named = Set(lines.filter { $0.marker == .none && $0.matches(name: name) }.map(\.keyType))
        return HostKeyType.allCases.filter { named.contains($0.name) }
    }

    /// Appends `host`:`port` with `key` to the file as a plain OpenSSH line, creating the file
    /// (mode 0600) and its folder (mode 0700) if needed.
    static func append(path: String, host: String, port: Int, key: UnsafeRawBufferPointer, keyType: HostKeyType) throws {
        let line = "\(entryName(host: host, port: port)) \(keyType.name) \(Data(key).base64EncodedString())\n"
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            // As OpenSSH makes ~/.ssh: readable by its owner only.
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw DownloadError.fileSystem(errno: errno, "cannot open the known hosts file \(path)")
        }
        defer { close(fd) }
        let written = line.utf8CString.withUnsafeBytes { write(fd, $0.baseAddress, $0.count - 1) }
        guard written == line.utf8.count else {
            throw DownloadError.fileSystem(errno: errno, "cannot append to the known hosts file \(path)")
        }
    }

    /// `SHA256:<base64 without padding>`, as OpenSSH prints fingerprints.
    static func fingerprint(_ blob: some DataProtocol) -> String {
        let digest = Data(SHA256.hash(data: blob)).base64EncodedString()
        return "SHA256:" + digest.replacingOccurrences(of: "=", with: "")
    }
}
