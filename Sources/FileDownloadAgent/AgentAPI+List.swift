import FileDownload
import FileDownloadAgentClient
import Foundation
import Hummingbird

/// `GET /v1/downloads?state=S,S&limit=N&after=P`: one page of downloads in queue order.
extension AgentAPI {
    func list(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        var limit = Self.defaultPageSize
        if let given = query["limit"] {
            guard let value = Int(given), (1...Self.maxPageSize).contains(value) else {
                throw AgentAPIError(.badRequest, .badLimit, "\"limit\" must be a whole number from 1 to \(Self.maxPageSize), not \"\(given)\"")
            }
            limit = value
        }
        var after: Int64?
        if let given = query["after"] {
            guard let value = Int64(given) else {
                throw AgentAPIError(.badRequest, .badAfter, "\"after\" must be the \"next\" of the page before (a whole number), not \"\(given)\"")
            }
            after = value
        }
        var states: Set<DownloadState>?
        if let given = query["state"] {
            // Empty: no state, so no download; an empty name among others ("paused,,failed") is refused.
            states = try Set((given.isEmpty ? [] : given.split(separator: ",", omittingEmptySubsequences: false)).map { name in
                guard let state = DownloadState(rawValue: String(name)) else {
                    throw AgentAPIError(.badRequest, .badState, "\"\(name)\" is not a state; the states are "
                                        + DownloadState.allCases.map(\.rawValue).joined(separator: ", "))
                }
                return state
            })
        }
        let page = await downloader.downloads(in: states, after: after, limit: limit)
        return AgentAPIError.jsonResponse(status: .ok, body: AgentDownloadPage(downloads: page.downloads, next: page.next))
    }
}
