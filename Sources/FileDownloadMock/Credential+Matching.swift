import FileDownload

extension Credential {
    /// Whether two credentials are the same answer (`Credential` is not `Equatable` on purpose:
    /// secrets are not compared by accident elsewhere).
    func matches(_ other: Credential) -> Bool {
        switch (self, other) {
        case let (.password(u1, p1), .password(u2, p2)): u1 == u2 && p1 == p2
        case let (.bearerToken(t1), .bearerToken(t2)): t1 == t2
        case let (.privateKey(u1, f1, p1), .privateKey(u2, f2, p2)): u1 == u2 && f1 == f2 && p1 == p2
        case let (.agent(u1), .agent(u2)): u1 == u2
        case let (.passphrase(p1), .passphrase(p2)): p1 == p2
        case let (.responses(r1), .responses(r2)): r1 == r2
        case let (.clientCertificate(c1, k1, p1), .clientCertificate(c2, k2, p2)): c1 == c2 && k1 == k2 && p1 == p2
        default: false
        }
    }
}
