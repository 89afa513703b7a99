import FileDownload
import FileDownloadAgentClient
import Foundation
import Hummingbird
import NIOCore

/// `GET`/`PUT /v1/limit` (the overall limit of the downloader) and `PUT /v1/downloads/{id}/url`
/// (a fresh URL).
extension AgentAPI {
    func addLimitRoutes(to v1: RouterGroup<AgentRequestContext>) {
        v1.get("limit") { _, _ in
            AgentAPIError.jsonResponse(status: .ok, body: AgentLimit(bytesPerSecond: downloader.bandwidthLimit))
        }
        v1.put("limit") { request, _ in
            let limit: LimitBody = try await decodeSmallBody(request, what: #"{"bytesPerSecond": N or null}"#)
            if let value = limit.bytesPerSecond, !(1...AgentLimit.maxBytesPerSecond).contains(value) {
                throw AgentAPIError(.badRequest, .badLimit,
                                    "bytesPerSecond \(value) is not between 1 and \(AgentLimit.maxBytesPerSecond); send null for no limit")
            }
            await downloader.setBandwidthLimit(limit.bytesPerSecond)
            return AgentAPIError.jsonResponse(status: .ok, body: AgentLimit(bytesPerSecond: downloader.bandwidthLimit))
        }
        v1.put("downloads/:id/url") { request, context in
            let id = try id(context)
            let update: AgentURLUpdate = try await decodeSmallBody(request, what: #"{"url": "...", "expiresAt": "RFC 3339"}"#)
            let url = try AgentDownloadRequest.checked { try InputValidation.url(update.url) }
            var expiresAt: Date?
            if let text = update.expiresAt {
                guard let date = AgentURLUpdate.parseDate(text) else {
                    throw AgentAPIError(.badRequest, .badExpiresAt, "expiresAt '\(text)' is not an RFC 3339 date such as 2026-11-23T06:00:00Z")
                }
                expiresAt = date
            }
            _ = try await info(of: id)
            // Checked and applied by the library whether or not a needsFreshURL question waits:
            // the question is then withdrawn (its answer would come after the re-pointing).
            try await library { try await downloader.updateURL(id: id, to: url, expiresAt: expiresAt) }
            await refresher?.withdraw(id)
            return AgentAPIError.jsonResponse(status: .ok, body: try await info(of: id))
        }
    }

    /// The body of `PUT /v1/limit`: `bytesPerSecond` must be there, a number or `null` (which
    /// clears the limit); `{}` is a 400, not a clearing.
    private struct LimitBody: Decodable {
        var bytesPerSecond: Int64?

        private enum CodingKeys: String, CodingKey {
            case bytesPerSecond
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            guard container.contains(.bytesPerSecond) else {
                throw DecodingError.keyNotFound(CodingKeys.bytesPerSecond, .init(
                    codingPath: [], debugDescription: "bytesPerSecond is missing (null clears the limit)"))
            }
            bytesPerSecond = try container.decode(Int64?.self, forKey: .bytesPerSecond)
        }
    }

    /// The body of `request` (at most ``maxBodySize``) decoded as `T`; a 400 `bad-json` saying
    /// `what` is expected otherwise.
    func decodeSmallBody<T: Decodable>(_ request: Request, what: String) async throws -> T {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: Self.maxBodySize)
        } catch {
            throw AgentAPIError(.contentTooLarge, .bodyTooLarge, "the request body is larger than \(Self.maxBodySize) bytes")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(body.readableBytesView))
        } catch let error as DecodingError {
            throw AgentAPIError(.badRequest, .badJSON, "the body is not \(what): \(Self.describe(error))")
        }
    }
}
