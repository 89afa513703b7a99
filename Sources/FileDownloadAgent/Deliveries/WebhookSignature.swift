import Crypto
import Foundation

/// The signature of a webhook: `sha256=` and the lowercase hexadecimal HMAC-SHA256, under the
/// secret, of the `Idempotency-Key` header's value, a `.`, and the body's bytes; sent as
/// `X-FDL-Signature`. A receiver computes the same over the key and the bytes it received and
/// compares in constant time; a key it has seen is a repeat (the key is signed, so it cannot be
/// changed to pass a replayed body off as new).
enum WebhookSignature {
    /// The header field's name.
    static let headerName = "X-FDL-Signature"

    /// `sha256=HEX` for the webhook with Idempotency-Key `key` and `body`: ``value(of:secret:)``
    /// of `KEY.BODY`.
    static func value(key: String, body: Data, secret: DeliverySecret) -> String {
        value(of: Data((key + ".").utf8) + body, secret: secret)
    }

    /// `sha256=HEX`: the HMAC-SHA256 of `body` under `secret`.
    static func value(of body: Data, secret: DeliverySecret) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: secret.key))
        return "sha256=" + code.map { String(format: "%02x", $0) }.joined()
    }
}
