import Foundation

extension DownloadAgentClient {
    /// Asks the agent whether it serves (`GET /v1/health`).
    ///
    /// - Throws: ``DownloadAgentClientError`` `unreachable` when no agent accepts connections at
    ///   ``socketPath``, or the agent's refusal (a 403 for another user).
    public func status() async throws -> AgentStatus {
        let (status, body) = try await AgentConnection(socketPath: socketPath, answerTimeout: answerTimeout).exchange(.GET, "/v1/health")
        guard status == 200 else { throw Self.refusal(status, body) }
        do {
            return try JSONDecoder().decode(AgentStatus.self, from: body)
        } catch {
            throw DownloadAgentClientError(status: status, code: .badResponse,
                                           message: "the agent's answer to GET /v1/health is not what this client understands: \(error)")
        }
    }
}
