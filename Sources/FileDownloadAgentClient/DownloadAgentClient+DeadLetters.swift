import FileDownload
import Foundation

extension DownloadAgentClient {
    /// The agent's dead letters, oldest first (`GET /v1/deliveries/dead`): the completions and
    /// failures whose webhook or command did not acknowledge them within the agent's delivery
    /// lifetime. Reading them changes nothing.
    ///
    /// - Throws: ``DownloadAgentClientError`` `unreachable` when no agent answers, `bad-response`
    ///   when the answer is not a list this client reads, or the agent's refusal (`forbidden`).
    public func deadLetters() async throws -> [AgentDeadLetter] {
        struct Answer: Decodable {
            var deliveries: [AgentDeadLetter]
        }
        let answer: Answer = try await call(.GET, "/v1/deliveries/dead")
        return answer.deliveries
    }

    /// Puts the dead letter `key` back (`POST /v1/deliveries/dead/{key}/retry`): the agent tries
    /// it again at once, with a new lifetime and no tries counted, in order with the download's
    /// other deliveries of its kind, and persists that before it answers. Returns the delivery as
    /// it is now (``AgentDeadLetter/deadAt`` `nil`, ``AgentDeadLetter/attempts`` 0); it is no
    /// longer in ``deadLetters()``, and comes back there only if this lifetime ends too.
    ///
    /// - Parameter key: an ``AgentDeadLetter/key`` from ``deadLetters()``.
    /// - Throws: ``DownloadAgentClientError`` `unknown-delivery` (404) when no dead letter has
    ///   that key (already retried or dropped), `unreachable`, or the agent's refusal.
    @discardableResult
    public func retryDeadLetter(_ key: String) async throws -> AgentDeadLetter {
        try await call(.POST, "/v1/deliveries/dead/\(Self.escape(key))/retry")
    }

    /// Forgets the dead letter `key` for good (`DELETE /v1/deliveries/dead/{key}`): it is never
    /// delivered. The download and its file are not touched.
    ///
    /// - Parameter key: an ``AgentDeadLetter/key`` from ``deadLetters()``.
    /// - Throws: ``DownloadAgentClientError`` `unknown-delivery` (404) when no dead letter has
    ///   that key (already retried or dropped), `unreachable`, or the agent's refusal.
    public func dropDeadLetter(_ key: String) async throws {
        let (status, body) = try await AgentConnection(socketPath: socketPath, answerTimeout: answerTimeout)
            .exchange(.DELETE, "/v1/deliveries/dead/\(Self.escape(key))")
        guard status == 204 else { throw Self.refusal(status, body) }
    }
}
