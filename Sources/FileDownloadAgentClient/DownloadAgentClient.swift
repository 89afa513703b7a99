public import FileDownload
public import Foundation
import NIOHTTP1

/// A client of the download agent (`fdl agent`, or an app's own `DownloadAgent`) over its Unix
/// domain socket: the verbs of `Downloader`, answered by the agent's downloader,
/// and its events with sequence numbers.
///
/// An app moves from an in-process `Downloader` to the agent by making this object instead; the
/// downloads then go on when the app is gone. After a restart the app re-attaches with
/// ``events(since:includeProgress:)`` from the last sequence number it *handled* (kept by the app,
/// for instance in an ``AgentCursorFile``) and receives every journalled event since, once.
///
/// Every call opens one connection and closes it when answered; the object holds no connection and
/// can be shared. Errors are ``DownloadAgentClientError``: the agent's status and message, or
/// `unreachable` when no agent answers.
public struct DownloadAgentClient: Sendable {
    /// The agent's socket.
    public let socketPath: String
    /// How long a call waits for the agent's whole answer once connected (2 minutes unless the
    /// caller chose); `nil`: as long as the agent takes. (Event streams are not bounded by it.)
    public let answerTimeout: Duration?

    /// A client of the agent listening at `socketPath` (default ``AgentSocketPath/default(environment:)``).
    ///
    /// Nothing is opened or checked here: the first call connects, and throws `unreachable` when no
    /// agent listens there.
    ///
    /// - Parameters:
    ///   - socketPath: the path of the agent's Unix domain socket.
    ///   - answerTimeout: how long each call waits for the answer once connected (the connect
    ///     itself gives up after 5 s); past it the connection is closed and the call throws
    ///     `noAnswer` (status 0). The default, 2 minutes, is far above what any call takes from a
    ///     live agent (listing a million downloads at once included; ``page(states:after:limit:)``
    ///     is the way to read many) and keeps a stopped agent (SIGSTOP, a hung disk) from holding
    ///     the caller for ever; `nil` waits as long as the agent takes.
    public init(socketPath: String = AgentSocketPath.default(), answerTimeout: Duration? = .seconds(120)) {
        self.socketPath = socketPath
        self.answerTimeout = answerTimeout
    }

    // MARK: verbs

    /// Adds a download and starts it, as `Downloader.start(id:url:destination:options:)`;
    /// returns the download as the agent describes it (its destination chosen). The agent has
    /// stored it when this returns (a 201); it downloads after the call, as the agent's queue
    /// allows, and goes on when this process is gone.
    ///
    /// **Files already there are kept**: the agent applies `DestinationPolicy`, so when something
    /// is at the destination (or at its staging name) the download is saved as `NAME.1.EXT`,
    /// `NAME.2.EXT`, ... (the first free one) and the returned `DownloadInfo.destination` says
    /// which; to replace instead, send an ``AgentDownloadRequest`` with `overwrite: true` through
    /// ``submit(_:)-(AgentDownloadRequest)``.
    ///
    /// - Parameters:
    ///   - id: the download's name, unique in the agent.
    ///   - url: what to fetch; credentials in it are kept by the agent in memory only.
    ///   - destination: an absolute file URL the agent may write; `nil` (default) for the agent's
    ///     downloads directory plus the URL's file name.
    ///   - options: of these, the header fields (secret ones kept in memory only), the SHA-256, the
    ///     expected size, the priority, the mirrors and the connections go to the agent (see
    ///     ``AgentDownloadRequest/init(id:url:destination:options:start:)``); timeouts, rate
    ///     limits, retries and the other transfer options are the agent's own. `nil` (default): none.
    /// - Returns: the download as the agent stored it.
    /// - Throws: ``DownloadAgentClientError``: `unreachable` when no agent answers; the agent's
    ///   refusal otherwise, nothing stored: `duplicate-id` (409), `bad-id`, `bad-url`,
    ///   `bad-destination`, `bad-mirror`, `bad-sha256`, `bad-size`, `bad-connections`,
    ///   `bad-header` (400), `forbidden` (403) for a user other than the agent's.
    @discardableResult
    public func start(id: String, url: URL, destination: URL? = nil, options: DownloadOptions? = nil) async throws -> DownloadInfo {
        try await submit(AgentDownloadRequest(id: id, url: url, destination: destination, options: options, start: true))
    }

    /// Adds a download without starting it (`DownloadState.notStarted`): as
    /// ``start(id:url:destination:options:)`` in every other way (parameters, existing files,
    /// errors); ``start(id:)`` starts it later.
    @discardableResult
    public func add(id: String, url: URL, destination: URL? = nil, options: DownloadOptions? = nil) async throws -> DownloadInfo {
        try await submit(AgentDownloadRequest(id: id, url: url, destination: destination, options: options, start: false))
    }

    /// Sends a request as it is (`POST /v1/downloads`): for the fields the other verbs do not
    /// set (`overwrite`, `notify`, ...).
    ///
    /// - Parameter request: the download; its `start` says whether it starts (absent: it does).
    /// - Returns: the download as the agent stored it.
    /// - Throws: as ``start(id:url:destination:options:)``.
    @discardableResult
    public func submit(_ request: AgentDownloadRequest) async throws -> DownloadInfo {
        let body = try JSONEncoder().encode(request)
        return try await call(.POST, "/v1/downloads", body: body)
    }

    /// Starts a download that was added and not started.
    ///
    /// - Returns: the download as it stands after the call (waiting or downloading).
    /// - Throws: ``DownloadAgentClientError`` `unknown-id` (404), `invalid-state` (409) when it is
    ///   not `notStarted`, `unreachable`.
    @discardableResult
    public func start(id: String) async throws -> DownloadInfo { try await action("start", id) }

    /// Pauses a download; the agent keeps its bytes and resume data (they never leave the agent:
    /// ``resume(_:)`` continues it). Pausing a paused download changes nothing.
    ///
    /// - Returns: the download as it stands after the call.
    /// - Throws: ``DownloadAgentClientError`` `unknown-id` (404), `invalid-state` (409) for one
    ///   not started, completed, cancelled or failed, `unreachable`.
    @discardableResult
    public func pause(_ id: String) async throws -> DownloadInfo { try await action("pause", id) }

    /// Resumes a paused, interrupted or failed download from the bytes the agent keeps; a waiting
    /// or downloading one is left alone.
    ///
    /// - Returns: the download as it stands after the call.
    /// - Throws: ``DownloadAgentClientError`` `unknown-id` (404), `invalid-state` (409) for a
    ///   completed or cancelled one, `unreachable`.
    @discardableResult
    public func resume(_ id: String) async throws -> DownloadInfo { try await action("resume", id) }

    /// Cancels a download and discards its partial bytes; the destination is left as it was.
    ///
    /// - Returns: the download as it stands after the call (cancelled).
    /// - Throws: ``DownloadAgentClientError`` `unknown-id` (404), `invalid-state` (409) for a
    ///   completed or cancelled one, `unreachable`.
    @discardableResult
    public func cancel(_ id: String) async throws -> DownloadInfo { try await action("cancel", id) }

    /// Sends several requests in one `POST /v1/downloads` (a JSON array of at most
    /// ``maxBatchCount`` items and ``maxBatchBodySize`` bytes, so a longer list goes in several
    /// requests, one after the other). The agent adds them in order, each as a single request
    /// would, and answers once the store has every one it added; returns one result per request,
    /// in order: the download (status 201) or why it was refused. A refused item does not stop the
    /// others.
    ///
    /// - Throws: ``DownloadAgentClientError`` when a whole request is refused (a body the agent
    ///   cannot read, or one item larger than a batch may be) or no agent answers; items added by
    ///   earlier requests stay added.
    public func submit(_ requests: [AgentDownloadRequest]) async throws -> [AgentBatchResult] {
        var results: [AgentBatchResult] = []
        results.reserveCapacity(requests.count)
        let encoder = JSONEncoder()
        var batch: [Data] = [], size = 2  // the brackets
        func send() async throws {
            guard !batch.isEmpty else { return }
            var body = Data("[".utf8)
            for (index, item) in batch.enumerated() {
                if index > 0 { body.append(UInt8(ascii: ",")) }
                body.append(item)
            }
            body.append(UInt8(ascii: "]"))
            let answer: BatchAnswer = try await call(.POST, "/v1/downloads", body: body)
            results += answer.results
            batch = []
            size = 2
        }
        for request in requests {
            let item = try encoder.encode(request)
            if batch.count == Self.maxBatchCount || (!batch.isEmpty && size + 1 + item.count > Self.maxBatchBodySize) {
                try await send()
            }
            batch.append(item)
            size += item.count + 1
        }
        try await send()
        return results
    }

    /// The most requests ``submit(_:)-([AgentDownloadRequest])`` puts in one batch (the agent's
    /// limit).
    public static let maxBatchCount = 1000

    /// The largest body ``submit(_:)-([AgentDownloadRequest])`` sends in one batch (the agent's
    /// limit: 4 MiB).
    public static let maxBatchBodySize = 4 * 1024 * 1024

    /// Forgets a download that is not waiting or downloading (`DELETE /v1/downloads/{id}`), so
    /// its id can be used again. A completed file stays where it is; the staging file of an
    /// unfinished one is deleted.
    ///
    /// - Throws: ``DownloadAgentClientError`` `unknown-id` (404), `invalid-state` (409) while it
    ///   waits or downloads (pause or cancel it first), `unreachable`.
    public func remove(_ id: String) async throws {
        let (status, body) = try await AgentConnection(socketPath: socketPath, answerTimeout: answerTimeout)
            .exchange(.DELETE, "/v1/downloads/\(Self.escape(id))")
        guard status == 204 else { throw Self.refusal(status, body) }
    }

    /// Every download the agent knows (of `states`, when given), in queue order: the pages of
    /// ``page(states:after:limit:)`` read one after the other (1,000 a request). A download added
    /// meanwhile may be missed or listed; one that stays is listed once.
    ///
    /// - Throws: ``DownloadAgentClientError`` `unreachable`, or the agent's refusal.
    public func downloads(states: Set<DownloadState>? = nil) async throws -> [DownloadInfo] {
        var all: [DownloadInfo] = []
        var after: Int64?
        repeat {
            let page = try await page(states: states, after: after, limit: 1000)
            all += page.downloads
            after = page.next
        } while after != nil
        return all
    }

    /// One page of downloads in queue order (`GET /v1/downloads`): up to `limit` (1 to 1,000),
    /// after the `next` of the page before (`nil`: from the first), of `states` (`nil`: any).
    ///
    /// - Throws: ``DownloadAgentClientError`` `bad-limit` (400) for a `limit` out of range,
    ///   `bad-after` (400) for an `after` that is no page's `next`, `unreachable`.
    public func page(states: Set<DownloadState>? = nil, after: Int64? = nil, limit: Int = 100) async throws -> AgentDownloadPage {
        var query = ["limit=\(limit)"]
        if let after { query.append("after=\(after)") }
        if let states { query.append("state=" + states.map(\.rawValue).sorted().joined(separator: ",")) }
        return try await call(.GET, "/v1/downloads?" + query.joined(separator: "&"))
    }

    /// How many downloads the agent holds, by state (`GET /v1/summary`).
    ///
    /// - Throws: ``DownloadAgentClientError`` `unreachable`, or the agent's refusal.
    public func summary() async throws -> AgentSummary {
        try await call(.GET, "/v1/summary")
    }

    /// Download `id`, or `nil` when the agent knows no download with that id.
    ///
    /// - Throws: ``DownloadAgentClientError`` `unreachable`, or the agent's refusal (`bad-id` for
    ///   an id no download may have, `forbidden`).
    public func info(of id: String) async throws -> DownloadInfo? {
        do {
            return try await call(.GET, "/v1/downloads/\(Self.escape(id))")
        } catch let error as DownloadAgentClientError where error.status == 404 && error.code == .unknownID {
            return nil
        }
    }

    /// The agent's events after sequence number `since` (the journal's, then live), reconnecting
    /// with `Last-Event-ID` when the connection breaks. `since: nil` starts at the present: the
    /// journal's last sequence number when the first connection is answered, from which every
    /// reconnect goes on (so events journalled while the agent restarted are not missed).
    ///
    /// The sequence ends when the task iterating it is cancelled. It throws
    /// ``DownloadAgentClientError`` `events-missed` when journalled events after the cursor are
    /// gone (the journal keeps the last 10,000): list the downloads, then follow on from the
    /// sequence number the error's message gives; the agent's refusal (4xx); `bad-response` when an
    /// event is not one this client can decode (reconnecting would get it again).
    public func events(since: Int64? = nil, includeProgress: Bool = true) -> AgentEventStream {
        AgentEventStream(connection: AgentConnection(socketPath: socketPath), since: since, includeProgress: includeProgress)
    }

    /// The overall limit of the agent's downloader: bytes per second for all downloads
    /// together, `nil` for none (`GET /v1/limit`).
    ///
    /// - Throws: ``DownloadAgentClientError`` `unreachable`, or the agent's refusal.
    public func limit() async throws -> Int64? {
        let answer: AgentLimit = try await call(.GET, "/v1/limit")
        return answer.bytesPerSecond
    }

    /// Sets the overall limit of the agent's downloader (`PUT /v1/limit`): bytes per second for
    /// all downloads together (1 to ``AgentLimit/maxBytesPerSecond``), `nil` for none. It holds at
    /// once, also for running downloads, until changed or the agent stops; returns the limit now.
    ///
    /// - Parameter bytesPerSecond: the limit, or `nil` to remove it.
    /// - Returns: the limit the agent applies now.
    /// - Throws: ``DownloadAgentClientError`` `bad-limit` (400) for a value out of range (nothing
    ///   changes), `unreachable`.
    @discardableResult
    public func setLimit(_ bytesPerSecond: Int64?) async throws -> Int64? {
        let body = try JSONEncoder().encode(AgentLimit(bytesPerSecond: bytesPerSecond))
        let answer: AgentLimit = try await call(.PUT, "/v1/limit", body: body)
        return answer.bytesPerSecond
    }

    /// Points download `id` at `url` from now on (`PUT /v1/downloads/{id}/url`), expiring at
    /// `expiresAt` (`nil`: never): the answer to a `needsFreshURL` event, or a move to another
    /// URL at any time. The agent gives it to the download when it waits for a fresh URL, else
    /// calls `Downloader.updateURL(id:to:expiresAt:)`; the bytes continue when `url` serves the
    /// same resource. Returns the download as the agent describes it then.
    ///
    /// - Throws: ``DownloadAgentClientError`` `unknown-id` (404), `bad-url` or `bad-expires-at`
    ///   (400), `invalid-state` (409) for a completed or cancelled download.
    @discardableResult
    public func updateURL(id: String, to url: URL, expiresAt: Date? = nil) async throws -> DownloadInfo {
        let body = try JSONEncoder().encode(AgentURLUpdate(url: url, expiresAt: expiresAt))
        return try await call(.PUT, "/v1/downloads/\(Self.escape(id))/url", body: body)
    }

    // MARK: private

    private struct BatchAnswer: Decodable {
        var results: [AgentBatchResult]
    }

    private func action(_ verb: String, _ id: String) async throws -> DownloadInfo {
        try await call(.POST, "/v1/downloads/\(Self.escape(id))/\(verb)")
    }

    /// One exchange whose 2xx answer is a `T`: the agent's refusal otherwise, `bad-response`
    /// when the answer does not decode.
    func call<T: Decodable>(_ method: HTTPMethod, _ path: String, body: Data? = nil) async throws -> T {
        let (status, data) = try await AgentConnection(socketPath: socketPath, answerTimeout: answerTimeout).exchange(method, path, body: body)
        guard (200..<300).contains(status) else { throw Self.refusal(status, data) }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw DownloadAgentClientError(status: status, code: .badResponse,
                                           message: "the agent's answer to \(method) \(path) is not what this client understands: \(error)")
        }
    }

    /// The agent's error body `{"error", "message"}` as an error.
    static func refusal(_ status: Int, _ body: Data) -> DownloadAgentClientError {
        struct Body: Decodable {
            var error: AgentErrorCode
            var message: String
        }
        if let decoded = try? JSONDecoder().decode(Body.self, from: body) {
            return DownloadAgentClientError(status: status, code: decoded.error, message: decoded.message)
        }
        return DownloadAgentClientError(status: status, code: .http(status),
                                        message: String(decoding: body.prefix(500), as: UTF8.self))
    }

    /// `id` as one path segment: every byte of its UTF-8 but the unreserved characters of
    /// RFC 3986 (letters, digits, `-`, `.`, `_`, `~`) as `%XX`, so a space, `?`, `#`, `%`, `+`,
    /// `/` or an accent reach the agent as part of the id (the agent decodes the segment).
    static func escape(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: unreserved) ?? id
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
