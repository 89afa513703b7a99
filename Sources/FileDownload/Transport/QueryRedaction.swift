/// Hides the values of a query string: a presigned URL's signature, credential or token is a
/// secret, and a log shows only the names (`-v` in fdl, `HTTPTransport`'s exchange log).
package enum QueryRedaction {
    /// `text` (a URL or a request target) with the value of every query parameter after its
    /// first `?` shown as `[redacted]`; `text` as it is without a `?`.
    package static func redactingValues(_ text: some StringProtocol) -> String {
        guard let question = text.firstIndex(of: "?") else { return String(text) }
        let query = text[text.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
            .map { pair in pair.split(separator: "=", maxSplits: 1).first.map { "\($0)=[redacted]" } ?? "[redacted]" }
        return String(text[...question]) + query.joined(separator: "&")
    }
}
