public import ArgumentParser
import FileDownloadAgent
import Foundation

/// `fdl agent`'s completion deliveries: the webhook and the command every download is delivered
/// to unless it names its own, the webhook's secret, and the bounds of the retries
/// (`DeliveryConfiguration`; docs/agent-api.md, "Completions delivered until acknowledged").
public struct AgentDeliveryOptions: ParsableArguments {
    @Option(name: .customLong("webhook"), help: ArgumentHelp(
        "POST each download's completed or failed event (JSON) to URL (http:// or https://) until it answers 2xx.",
        valueName: "URL"))
    public var webhook: String?

    @Option(name: .customLong("webhook-cacert"), help: ArgumentHelp(
        "Verify https:// webhooks with the CAs in FILE (default from CURL_CA_BUNDLE, else SSL_CERT_FILE and "
        + "SSL_CERT_DIR, else the system's); never skipped.", valueName: "FILE"))
    public var webhookCACertificate: String?

    @Option(name: .customLong("webhook-secret-file"), help: ArgumentHelp(
        "Sign webhooks with the secret in FILE (X-FDL-Signature: sha256=HMAC-SHA256 of KEY.BODY, hex, KEY the Idempotency-Key).",
        valueName: "FILE"))
    public var webhookSecretFile: String?

    @Option(name: .customLong("on-complete"), help: ArgumentHelp(
        "Run CMD (/bin/sh -c) when a download completes or fails, until it exits 0; FDL_ID, FDL_PATH, FDL_SIZE, "
        + "FDL_SHA256, FDL_STATE, FDL_SEQUENCE in its environment.", valueName: "CMD"))
    public var onComplete: String?

    @Option(name: .customLong("delivery-lifetime"), help: ArgumentHelp(
        "How long a delivery is tried before it goes to the dead letters (default 86400).", valueName: "S"))
    public var deliveryLifetime: Double = 86_400

    @Option(name: .customLong("delivery-timeout"), help: ArgumentHelp(
        "The bound of one webhook call or one run of the command, killed after it (default 30).", valueName: "S"))
    public var deliveryTimeout: Double = 30

    @Option(name: .customLong("delivery-retry-delay"), help: ArgumentHelp(
        "The wait before the second try, doubled after each (default 1).", valueName: "S"))
    public var deliveryRetryDelay: Double = 1

    @Option(name: .customLong("delivery-max-retry-delay"), help: ArgumentHelp(
        "The longest wait between two tries (default 300).", valueName: "S"))
    public var deliveryMaxRetryDelay: Double = 300

    public init() {}

    public func validate() throws {
        if let webhook, let problem = DeliveryConfiguration.problem(withWebhook: webhook) {
            throw ValidationError("--webhook: \(problem)")
        }
        if let onComplete, onComplete.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--on-complete cannot be empty")
        }
        _ = try durations()
    }

    /// The deliveries' configuration; reads the secret file.
    func configuration() throws -> DeliveryConfiguration {
        var configuration = DeliveryConfiguration(webhook: webhook.flatMap(URL.init(string:)), command: onComplete)
        if let webhookSecretFile {
            let text: String
            do {
                text = try String(contentsOfFile: webhookSecretFile, encoding: .utf8)
            } catch {
                throw ValidationError("--webhook-secret-file: cannot read \(webhookSecretFile): \(error.localizedDescription)")
            }
            let secret = text.trimmingCharacters(in: .newlines)
            guard !secret.isEmpty else { throw ValidationError("--webhook-secret-file: \(webhookSecretFile) is empty") }
            configuration.secret = DeliverySecret(secret)
        }
        let (lifetime, timeout, first, most) = try durations()
        configuration.lifetime = lifetime
        configuration.timeout = timeout
        configuration.firstRetryDelay = first
        configuration.maxRetryDelay = most
        let trust = TLSTrust.resolve(caBundle: webhookCACertificate, caDirectory: nil, insecure: false,
                                     environment: ProcessInfo.processInfo.environment)
        configuration.caBundlePath = trust.caBundlePath
        configuration.caDirectoryPath = trust.caDirectoryPath
        return configuration
    }

    private func durations() throws -> (Duration, Duration, Duration, Duration) {
        let lifetime = try GetCommand.duration(deliveryLifetime, option: "--delivery-lifetime", range: 0.001...31_536_000)
        let timeout = try GetCommand.duration(deliveryTimeout, option: "--delivery-timeout", range: 0.001...86_400)
        let first = try GetCommand.duration(deliveryRetryDelay, option: "--delivery-retry-delay", range: 0.001...86_400)
        let most = try GetCommand.duration(deliveryMaxRetryDelay, option: "--delivery-max-retry-delay", range: 0.001...86_400)
        guard most >= first else {
            throw ValidationError("--delivery-max-retry-delay must not be shorter than --delivery-retry-delay")
        }
        return (lifetime, timeout, first, most)
    }
}
