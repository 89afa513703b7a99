internal import CSSH2

/// The host key types libssh2 1.10 verifies.
enum HostKeyType: CaseIterable {
    case ed25519, ecdsa256, ecdsa384, ecdsa521, rsa

    /// From `libssh2_session_hostkey`'s type.
    init?(libssh2Type: Int32) {
        switch libssh2Type {
        case LIBSSH2_HOSTKEY_TYPE_ED25519: self = .ed25519
        case LIBSSH2_HOSTKEY_TYPE_ECDSA_256: self = .ecdsa256
        case LIBSSH2_HOSTKEY_TYPE_ECDSA_384: self = .ecdsa384
        case LIBSSH2_HOSTKEY_TYPE_ECDSA_521: self = .ecdsa521
        case LIBSSH2_HOSTKEY_TYPE_RSA: self = .rsa
        default: return nil
        }
    }

    /// The name in a known_hosts line.
    var name: String {
        switch self {
        case .ed25519: "ssh-ed25519"
        case .ecdsa256: "ecdsa-sha2-nistp256"
        case .ecdsa384: "ecdsa-sha2-nistp384"
        case .ecdsa521: "ecdsa-sha2-nistp521"
        case .rsa: "ssh-rsa"
        }
    }

    /// The host key algorithms of this type, for `libssh2_session_method_pref`.
    var algorithms: [String] {
        switch self {
        case .rsa: ["rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"]
        default: [name]
        }
    }
}
