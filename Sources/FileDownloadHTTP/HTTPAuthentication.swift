internal import CCurl
import FileDownload

/// A credential in the form libcurl takes it. Lives in memory for one attempt only; its
/// description never shows the secret.
struct HTTPAuthentication: Sendable, CustomStringConvertible {
    private enum Secret: Sendable {
        case password(user: String, password: String, methods: UInt)
        case bearer(String)
    }

    private let secret: Secret

    /// Converts a `Credential` for the challenge's `scheme`; `nil` for credentials HTTP cannot use.
    /// A password answers Digest with Digest and anything else with Basic; a token answers Bearer.
    init?(_ credential: Credential, scheme: String) {
        switch credential {
        case .password(let user, let password):
            let methods = scheme.lowercased() == "digest" ? ccurl_auth_digest() : ccurl_auth_basic()
            secret = .password(user: user, password: password, methods: methods)
        case .bearerToken(let token):
            secret = .bearer(token)
        default:
            return nil
        }
    }

    /// Sets the credential on the transfer, for the server or for the proxy.
    func apply(to transfer: CurlTransfer, proxy: Bool) throws {
        switch secret {
        case .password(let user, let password, let methods):
            transfer.set(proxy ? CURLOPT_PROXYAUTH : CURLOPT_HTTPAUTH, Int(methods))
            try transfer.set(proxy ? CURLOPT_PROXYUSERNAME : CURLOPT_USERNAME, user)
            try transfer.set(proxy ? CURLOPT_PROXYPASSWORD : CURLOPT_PASSWORD, password)
        case .bearer(let token):
            transfer.set(proxy ? CURLOPT_PROXYAUTH : CURLOPT_HTTPAUTH, Int(ccurl_auth_bearer()))
            try transfer.set(CURLOPT_XOAUTH2_BEARER, token)
        }
    }

    var description: String {
        switch secret {
        case .password(let user, _, _): "password for \(user) (redacted)"
        case .bearer: "bearer token (redacted)"
        }
    }
}
