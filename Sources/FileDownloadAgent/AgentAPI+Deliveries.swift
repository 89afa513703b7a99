import FileDownload
import FileDownloadAgentClient
import Foundation
import Hummingbird

/// The dead letters of the deliveries (`docs/agent-api.md`, "Completions delivered until
/// acknowledged"): `GET /v1/deliveries/dead`, `POST /v1/deliveries/dead/{key}/retry`,
/// `DELETE /v1/deliveries/dead/{key}`.
extension AgentAPI {
    func addDeliveryRoutes(to v1: RouterGroup<AgentRequestContext>, _ deliveries: AgentDeliveries) {
        v1.get("deliveries/dead") { _, _ in
            AgentAPIError.jsonResponse(status: .ok, body: ["deliveries": await deliveries.dead.map(DeliveryDescription.init)])
        }
        v1.post("deliveries/dead/:key/retry") { _, context in
            let key = try context.parameters.require("key")
            guard let delivery = await deliveries.retry(key) else { throw Self.unknownDelivery(key) }
            return AgentAPIError.jsonResponse(status: .ok, body: DeliveryDescription(delivery))
        }
        v1.delete("deliveries/dead/:key") { _, context in
            let key = try context.parameters.require("key")
            guard await deliveries.drop(key) else { throw Self.unknownDelivery(key) }
            return Response(status: .noContent)
        }
    }

    private static func unknownDelivery(_ key: String) -> AgentAPIError {
        AgentAPIError(.notFound, .unknownDelivery, "no dead delivery has the key '\(key)' (GET /v1/deliveries/dead lists them)")
    }

    /// Checks a download's `"notify"`: its webhook an `http://` or `https://` URL, its command not empty.
    static func checkNotify(_ notify: AgentNotify) throws {
        if let webhook = notify.webhook, let problem = DeliveryConfiguration.problem(withWebhook: webhook) {
            throw AgentAPIError(.badRequest, .badNotify, problem)
        }
        if let command = notify.command, command.trimmingCharacters(in: .whitespaces).isEmpty || command.contains("\0") {
            throw AgentAPIError(.badRequest, .badNotify, "the command of \"notify\" is empty or holds a NUL")
        }
    }
}

/// A delivery as the API describes it.
struct DeliveryDescription: Encodable {
    var key: String
    var sequence: Int64
    var id: String
    var kind: String
    var target: String
    var event: DownloadEvent?
    var attempts: Int
    var lastError: String?
    var createdAt: String
    var deadAt: String?

    init(_ delivery: Delivery) {
        key = delivery.key
        sequence = delivery.sequence
        id = delivery.downloadID
        kind = delivery.kind.rawValue
        target = delivery.target
        event = try? JSONDecoder().decode(DownloadEvent.self, from: Data(delivery.event.utf8))
        attempts = delivery.attempts
        lastError = delivery.lastError
        createdAt = delivery.createdAt.formatted(.iso8601)
        deadAt = delivery.deadAt?.formatted(.iso8601)
    }
}
