import FileDownload
import FileDownloadAgent
import FileDownloadAgentClient
import Foundation
import Logging
import ServiceLifecycle

/// The Swift samples of docs/agent-api.md and the agent's DocC catalogs, compiled here (see
/// `DocumentationSnippetTests`); `AgentDocumentationTests` runs the client's.
enum AgentArticleSamples {
    /// An app runs its own agent inside its service (compiled, not run: it installs signal handlers).
    static func embed(socket: String, state: String, logger: Logger) async throws {
        // snippet: embed-agent
        let agent = DownloadAgent(configuration: .init(socketPath: socket, stateDirectory: state))
        let group = ServiceGroup(services: [agent], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        try await group.run()
        // end-snippet
    }

    /// An app starts a download through the agent and follows the events from its saved cursor
    /// until that download completed.
    static func client(socket: String, appState: String, isoURL: URL, target: URL) async throws {
        // snippet: agent-client
        let agent = DownloadAgentClient(socketPath: socket)
        let cursor = AgentCursorFile(path: appState + "/agent-cursor")
        try await agent.start(id: "iso", url: isoURL, destination: target)
        for try await item in agent.events(since: try cursor.load() ?? 0) {
            if case .completed(let id, let file) = item.event { print("\(id) is at \(file.path)") }
            if let sequence = item.sequence { try cursor.save(sequence) }   // after handling it
            if case .completed("iso", _) = item.event { break }
        }
        // end-snippet
    }
}
