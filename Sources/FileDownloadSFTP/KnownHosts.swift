internal import CSSH2
import Crypto
import FileDownload
import Foundation

/// An OpenSSH `known_hosts` file read through libssh2's knownhost API (plain and hashed entries,
/// ed25519, ECDSA and RSA keys), for one session.
final class KnownHosts {
    /// The result of checking a host key.
    enum Verdict {
        case match
        /// The file knows another key of this type for the host; `expected` is its
        /// `SHA256:` fingerprint.
        case mismatch(expected: String)
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
    private let hosts: OpaquePointer

    /// Reads `path` into a fresh knownhost collection of `session`. A missing file is an empty
    /// one; lines libssh2 cannot parse (markers, certificate authorities, unknown key types) are
    /// skipped, as OpenSSH skips what it does not understand.
    init(path: String, session: OpaquePointer) throws {
        guard let hosts = libssh2_knownhost_init(session) else {
            throw DownloadError(.transport, "libssh2 could not allocate a known hosts collection")
        }
        self.hosts = hosts
        self.stamp = Stamp(path: path)
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix("@") { continue }
            // NUL-terminated: libssh2 1.10 reads parts of the line as C strings, past `len`.
            _ = trimmed.withCString { line in
                libssh2_knownhost_readline(hosts, line, strlen(line), LIBSSH2_KNOWNHOST_FILE_OPENSSH)
            }
        }
    }

    deinit { libssh2_knownhost_free(hosts) }

    /// The name OpenSSH files a host under: `host` on port 22, `[host]:port` otherwise.
    static func entryName(host: String, port: Int) -> String {
        port == 22 ? host : "[\(host)]:\(port)"
    }

    /// Checks `key` (the raw key blob) of type `keyType` for `host`:`port`, exactly as OpenSSH
    /// names it (no fallback from `[host]:port` to `host`).
    func check(host: String, port: Int, key: UnsafeRawBufferPointer, keyType: HostKeyType) -> Verdict {
        var external: UnsafeMutablePointer<libssh2_knownhost>?
        let name = Self.entryName(host: host, port: port)
        let typemask = LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | keyType.knownHostMask
        let rc = key.withMemoryRebound(to: CChar.self) { keyChars in
            libssh2_knownhost_checkp(hosts, name, -1, keyChars.baseAddress, keyChars.count, typemask, &external)
        }
        switch rc {
        case LIBSSH2_KNOWNHOST_CHECK_MATCH:
            return .match
        case LIBSSH2_KNOWNHOST_CHECK_MISMATCH:
            var expected = "an unreadable key"
            if let base64 = external?.pointee.key, let blob = Data(base64Encoded: String(cString: base64)) {
                expected = Self.fingerprint(blob)
            }
            return .mismatch(expected: expected)
        default:
            return .notFound
        }
    }

    /// The key types this file knows for `host`:`port`, found by checking a key that cannot
    /// match: a known type answers "mismatch", an unknown one "not found". Used to prefer the
    /// known types in the key exchange, as OpenSSH does.
    func knownTypes(host: String, port: Int) -> [HostKeyType] {
        let probe: [UInt8] = [0, 0, 0, 1, 0]
        return HostKeyType.allCases.filter { type in
            probe.withUnsafeBytes { bytes in
                if case .mismatch = check(host: host, port: port, key: bytes, keyType: type) { return true }
                return false
            }
        }
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
