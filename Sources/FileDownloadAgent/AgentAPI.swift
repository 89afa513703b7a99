import FileDownload
import FileDownloadAgentClient
import Foundation
import Hummingbird
import HTTPTypes
import NIOCore

/// The routes of the agent's HTTP API, version 1 (`docs/agent-api.md`).
struct AgentAPI: Sendable {
    /// The largest body of one download request (64 KiB); a larger one is a 413.
    static let maxBodySize = 64 * 1024
    /// The largest body of a batch add (an array; 4 MiB); a larger one is a 413.
    static let maxBatchBodySize = 4 * 1024 * 1024
    /// The most downloads one batch add may hold; more is a 413 `batch-too-large`.
    static let maxBatchCount = 1000
    /// The page size of `GET /v1/downloads` without `limit`.
    static let defaultPageSize = 100
    /// The largest `limit` of `GET /v1/downloads`; more is a 400 `bad-limit`.
    static let maxPageSize = 1000

    let downloader: Downloader
    let log: AgentEventLog
    /// Takes the URLs of `PUT /v1/downloads/{id}/url` for downloads that wait for one (the
    /// agent's); `nil` (a running `fdl get`): such a URL goes to `Downloader.updateURL` only.
    var refresher: AgentURLRefresher? = nil
    /// Where an added download may write (`DestinationPolicy`): a file already at the destination
    /// is kept (the download gets `NAME.1.EXT`) unless the request says `overwrite`, and the
    /// paths the front end keeps for itself (its socket, its state) are refused.
    var destinations = DestinationPolicy()
    /// The agent's completion deliveries (`notify` of an added download, the dead-letter routes);
    /// `nil` (a running `fdl get`): none.
    var deliveries: AgentDeliveries? = nil

    /// The routes for the Unix socket: every request's peer is checked with `SO_PEERCRED`.
    func router() -> Router<AgentRequestContext> {
        router(guardedBy: PeerCheckMiddleware())
    }

    /// The routes, each request checked by `access` (after errors are turned into JSON answers).
    func router(guardedBy access: some RouterMiddleware<AgentRequestContext>) -> Router<AgentRequestContext> {
        // The routes once without middleware, for the table of the methods each path answers.
        let plan = Router(context: AgentRequestContext.self)
        addRoutes(to: plan.group("v1"))
        let router = Router(context: AgentRequestContext.self)
        router.middlewares.add(AgentErrorMiddleware(allowed: AgentAllowedMethods(plan.routes)))
        router.middlewares.add(access)
        addRoutes(to: router.group("v1"))
        return router
    }

    /// Every route of version 1, under `v1`.
    private func addRoutes(to v1: RouterGroup<AgentRequestContext>) {
        v1.get("health") { _, _ in
            AgentAPIError.jsonResponse(status: .ok, body: AgentHealth(
                status: "ok", api: "v1", lastEventSequence: await log.lastSequence,
                eventStreams: await log.subscriberCount, downloads: await downloader.downloadCount))
        }
        v1.get("summary") { _, _ in
            let counts = await downloader.countsByState()
            return AgentAPIError.jsonResponse(status: .ok, body: AgentSummary(
                downloads: counts.values.reduce(0, +),
                states: Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) })))
        }
        v1.post("downloads") { request, context in try await add(request, context) }
        v1.get("downloads") { request, _ in try await list(request) }
        v1.get("downloads/:id") { _, context in
            AgentAPIError.jsonResponse(status: .ok, body: try await info(of: try id(context)))
        }
        v1.delete("downloads/:id") { _, context in
            try await forget(try id(context))
            return Response(status: .noContent)
        }
        v1.post("downloads/:id/pause") { _, context in
            let id = try id(context)
            _ = try await library { try await downloader.pause(id) }
            return AgentAPIError.jsonResponse(status: .ok, body: try await info(of: id))
        }
        v1.post("downloads/:id/resume") { _, context in
            let id = try id(context)
            try await library { try await downloader.resume(id) }
            return AgentAPIError.jsonResponse(status: .ok, body: try await info(of: id))
        }
        v1.post("downloads/:id/start") { _, context in
            let id = try id(context)
            try await library { try await downloader.start(id: id) }
            return AgentAPIError.jsonResponse(status: .ok, body: try await info(of: id))
        }
        v1.post("downloads/:id/cancel") { _, context in
            let id = try id(context)
            try await library { try await downloader.cancel(id) }
            return AgentAPIError.jsonResponse(status: .ok, body: try await info(of: id))
        }
        v1.get("events") { request, _ in try await events(request) }
        addLimitRoutes(to: v1)
        if let deliveries { addDeliveryRoutes(to: v1, deliveries) }
    }

    // MARK: handlers

    private func events(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        // Each one given is checked (a bad ?since= is a 400 even beside a good Last-Event-ID);
        // the header wins when both are there, as an EventSource reconnecting sends it.
        func sequence(_ given: String?) throws -> Int64? {
            guard let given else { return nil }
            guard let value = Int64(given.trimmingCharacters(in: .whitespaces)), value >= 0 else {
                throw AgentAPIError(.badRequest, .badSince,
                                    "the event sequence number \"\(given)\" (Last-Event-ID or ?since=) is not a whole number ≥ 0")
            }
            return value
        }
        let header = try sequence(request.headers[HTTPField.Name("Last-Event-ID")!])
        let since = try sequence(query["since"].map(String.init))
        let cursor: Int64
        if let given = header ?? since {
            cursor = given
        } else {
            cursor = await log.lastSequence
        }
        var progress = true
        if let given = query["progress"] {
            guard given == "true" || given == "false" else {
                throw AgentAPIError(.badRequest, .badProgress, "\"progress\" must be true or false, not \"\(given)\"")
            }
            progress = given == "true"
        }
        let stream = EventStream(log: log, cursor: cursor, includesProgress: progress)
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
            body: ResponseBody { writer in try await stream.write(to: &writer) })
    }

    // MARK: helpers

    /// The `{id}` path segment, percent-decoded: clients escape an id as one segment (a space,
    /// `?`, `#`, `%`, an accent's UTF-8 bytes), so the id is what the escapes spell. A segment
    /// whose escapes are not UTF-8 (or are malformed) is a 400 `bad-id`.
    func id(_ context: AgentRequestContext) throws -> String {
        let segment = try context.parameters.require("id")
        guard let id = segment.removingPercentEncoding else {
            throw AgentAPIError(.badRequest, .badID,
                                "the id in the path \"\(segment)\" has a malformed %-escape; escape an id as one path segment (UTF-8, %XX)")
        }
        return id
    }

    func info(of id: String) async throws -> DownloadInfo {
        guard let info = await downloader.info(of: id) else {
            throw AgentAPIError(.notFound, .unknownID, "no download has the id '\(id)'")
        }
        return info
    }

    /// Runs a library call, turning its ``DownloadError`` into the matching API error; when it
    /// succeeds and `settles`, waits until the downloader has written what it changed to the
    /// store, so that an answer 2xx means the change survives a SIGKILL of the agent.
    func library<T>(settles: Bool = true, _ body: () async throws -> T) async throws -> T {
        do {
            let result = try await body()
            if settles { await downloader.settle() }
            return result
        } catch let error as AgentAPIError {
            throw error
        } catch {
            throw AgentAPIError(DownloadError.wrapping(error))
        }
    }

    /// A decoding error in words: which field, and what is wrong with it.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let names = context.codingPath.map(\.stringValue).joined(separator: ".")
            return names.isEmpty ? "" : " at \"\(names)\""
        }
        switch error {
        case .keyNotFound(let key, _): return "\"\(key.stringValue)\" is missing"
        case .typeMismatch(let type, let context): return "expected \(type)\(path(context))"
        case .valueNotFound(let type, let context): return "expected \(type)\(path(context)), found null"
        case .dataCorrupted(let context): return "malformed JSON\(path(context))"
        @unknown default: return "\(error)"
        }
    }

    /// Forgets a stopped download (`DELETE /v1/downloads/{id}`, aria2's `removeDownloadResult`
    /// and `purgeDownloadResult`): the downloader removes it, then its events leave the journal
    /// and the webhook and command it named are forgotten, so a later download with the same id
    /// starts with none of them.
    func forget(_ id: String) async throws {
        try await library { try await downloader.remove(id) }
        try await log.forget(id)
        await deliveries?.clearTargets(of: id)
    }
}
