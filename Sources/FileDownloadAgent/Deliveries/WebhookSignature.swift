import Crypto
import Foundation

/// The signature of a webhook's body: `sha256=` and the lowercase hexadecimal HMAC-SHA256 of the
/// body under the secret, sent as `X-FDL-Signature`. A receiver computes the same over the bytes
/// it received and compares in constant time.
enum WebhookSignature {
    /// The header field's name.
    static let headerName = "X-FDL-Signature"

    /// `sha256=HEX` for `body` under `secret`.
    static func value(of body: Data, secret: DeliverySecret) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: secret.key))
        return "sha256=" + code.map { String(format: "%02x", $0) }.joined()
    }
}
