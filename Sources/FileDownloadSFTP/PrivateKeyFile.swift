import Foundation

/// Facts about an SSH private key file read without libssh2, so that a passphrase is asked for
/// only when the key needs one.
enum PrivateKeyFile {
    /// Whether the file at `path` is protected by a passphrase: an OpenSSH-format key whose
    /// cipher is not `none`, or a PEM key with `Proc-Type: 4,ENCRYPTED` or in encrypted PKCS#8.
    static func isEncrypted(path: String) -> Bool {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return false }
        if text.contains("ENCRYPTED") { return true }
        guard text.contains("BEGIN OPENSSH PRIVATE KEY") else { return false }
        let body = text.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
        guard let blob = Data(base64Encoded: body) else { return false }
        let magic = Array("openssh-key-v1\0".utf8)
        let bytes = [UInt8](blob)
        guard bytes.count > magic.count + 4, Array(bytes[0..<magic.count]) == magic else { return false }
        let lengthStart = magic.count
        let length = bytes[lengthStart..<lengthStart + 4].reduce(0) { $0 << 8 | Int($1) }
        let nameStart = lengthStart + 4
        guard length > 0, nameStart + length <= bytes.count else { return false }
        return String(decoding: bytes[nameStart..<nameStart + length], as: UTF8.self) != "none"
    }
}
