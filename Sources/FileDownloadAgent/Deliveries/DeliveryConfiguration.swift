public import Foundation

/// How the agent delivers completions (`docs/agent-api.md`, "Completions delivered until
/// acknowledged"): the defaults every download gets, the webhook's secret, and the bounds of
/// every wait.
///
/// A delivery is made for each `completed` and `failed` event the agent journals, to the
/// download's webhook and command (its own, given with `"notify"` when it was added, else these
/// defaults). It is tried until acknowledged (a 2xx answer; exit status 0), waiting
/// ``firstRetryDelay``, then twice that, ... up to ``maxRetryDelay`` between tries (each wait
/// drawn at random between half of it and all of it), for at most ``lifetime`` from when the delivery was made;
/// then it goes to the dead letters, which the API lists and can retry or drop.
public struct DeliveryConfiguration: Sendable {
    /// The webhook every download is delivered to unless it names its own: an `http://` or
    /// `https://` URL.
    public var webhook: URL?
    /// The command every download runs unless it names its own (run with `/bin/sh -c`).
    public var command: String?
    /// The key of the webhook's signature (`X-FDL-Signature: sha256=HEX`, HMAC-SHA256 over the
    /// body); `nil`: webhooks are sent unsigned. Never logged.
    public var secret: DeliverySecret?
    /// How long a delivery is tried, from the moment the agent made it (when it looked at the
    /// journalled event, just after it was journalled or at the next start; or when it was
    /// retried from the dead letters), not from the event itself; default 24 h.
    public var lifetime: Duration = .seconds(86_400)
    /// The bound of one try: the whole webhook call (connect, send, answer), or one run of the
    /// command, which is killed (SIGKILL, its process group) when it runs longer (default 30 s).
    public var timeout: Duration = .seconds(30)
    /// The bound of connecting to the webhook's server, within ``timeout`` (default 5 s).
    public var connectTimeout: Duration = .seconds(5)
    /// A PEM file of CA certificates to verify `https://` webhooks with, instead of the system's
    /// bundle. Verification (the chain and the host name) cannot be turned off: a certificate not
    /// verified is a failed try, retried like a refused connection.
    public var caBundlePath: String?
    /// A directory of hashed CA certificates (`openssl rehash`) to verify `https://` webhooks
    /// with, beside ``caBundlePath`` (or the system's bundle).
    public var caDirectoryPath: String?
    /// The wait before the second try (default 1 s); it doubles with each try after.
    public var firstRetryDelay: Duration = .seconds(1)
    /// The longest wait between two tries (default 5 minutes).
    public var maxRetryDelay: Duration = .seconds(300)
    /// How many tries run at once, over all downloads and both kinds (default 8; at least 1): a
    /// thousand completions at once run at most this many commands and webhook calls, the others
    /// wait their turn (each download's own still in sequence order).
    public var maxConcurrentTries: Int = 8
    /// The most dead letters kept (default 1,000; at least 1): one more forgets the oldest, with a
    /// warning in the log. `STATE/deliveries.json` is rewritten whole (and flushed) at every
    /// change, so its size, and the cost of each change, stays bounded by this and the pending.
    public var maxDeadLetters: Int = 1000

    public init(webhook: URL? = nil, command: String? = nil, secret: DeliverySecret? = nil) {
        self.webhook = webhook
        self.command = command
        self.secret = secret
    }

    /// Why `url` cannot be a webhook, or `nil` when it can: an absolute `http://` or `https://`
    /// URL with a host.
    public static func problem(withWebhook url: String) -> String? {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), parsed.host?.isEmpty == false else {
            return "the webhook \"\(url)\" is not an absolute URL with a host"
        }
        guard scheme == "http" || scheme == "https" else {
            return "the webhook \"\(url)\" is not an http:// or https:// URL"
        }
        if let port = parsed.port, !(1...65535).contains(port) {
            return "the webhook \"\(url)\" has a port outside 1...65535"
        }
        return nil
    }
}
