import FileDownload

extension AuthChallenge.Kind {
    /// TLS server trust and SSH host keys: questions of trust, not credentials.
    var isTrustQuestion: Bool {
        switch self {
        case .serverTrust, .unknownHostKey: true
        default: false
        }
    }
}
