import FileDownload
import FileDownloadAgentClient
import Foundation
import Hummingbird
import NIOCore

/// `POST /v1/downloads`: one download (a JSON object), or a batch (a JSON array of them) answered
/// item by item.
extension AgentAPI {
    func add(_ request: Request, _ context: AgentRequestContext) async throws -> Response {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: Self.maxBatchBodySize)
        } catch {
            throw AgentAPIError(.contentTooLarge, .bodyTooLarge,
                                "the request body is larger than \(Self.maxBatchBodySize) bytes, the most for a batch (one download: \(Self.maxBodySize))")
        }
        let bytes = Data(body.readableBytesView)
        if bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "[") {
            return try await addBatch(bytes)
        }
        guard bytes.count <= Self.maxBodySize else {
            throw AgentAPIError(.contentTooLarge, .bodyTooLarge, "the request body is larger than \(Self.maxBodySize) bytes")
        }
        let decoded: AgentDownloadRequest
        do {
            decoded = try JSONDecoder().decode(AgentDownloadRequest.self, from: bytes)
        } catch let error as DecodingError {
            throw AgentAPIError(.badRequest, .badJSON, "the body is not a valid download request: \(Self.describe(error))")
        } catch {
            throw AgentAPIError(.badRequest, .badJSON, "the body is not JSON: \(error)")
        }
        let id = try await addOne(decoded)
        await downloader.settle()
        return AgentAPIError.jsonResponse(status: .created, body: try await info(of: id))
    }

    /// Adds each item of a JSON array in order, as a single request would, and answers 200 with
    /// one ``AgentBatchResult`` per item once the store has every added one.
    private func addBatch(_ bytes: Data) async throws -> Response {
        let items: [BatchItem]
        do {
            items = try JSONDecoder().decode([BatchItem].self, from: bytes)
        } catch let error as DecodingError {
            throw AgentAPIError(.badRequest, .badJSON, "the body is not a JSON array of download requests: \(Self.describe(error))")
        }
        guard items.count <= Self.maxBatchCount else {
            throw AgentAPIError(.contentTooLarge, .batchTooLarge,
                                "\(items.count) downloads in one request; send at most \(Self.maxBatchCount) at a time")
        }
        var results: [AgentBatchResult] = []
        results.reserveCapacity(items.count)
        for item in items {
            do {
                let id = try await addOne(try item.request.get())
                results.append(AgentBatchResult(id: id, status: 201))
            } catch let error as AgentAPIError {
                results.append(AgentBatchResult(id: item.id, status: Int(error.status.code), error: error.code, message: error.message))
            }
        }
        await downloader.settle()
        for index in results.indices where results[index].status == 201 {
            results[index].download = await downloader.info(of: results[index].id)
        }
        return AgentAPIError.jsonResponse(status: .ok, body: ["results": results])
    }

    /// Checks one request and adds it,
    /// started unless `start` is `false`; returns its id. Does not wait for the store.
    /// (Also the add of the aria2 RPC's `aria2.addUri`, ``Aria2RPC``, whose `max-download-limit`
    /// is `maxBytesPerSecond`: the download's own `TransferOptions.maxBytesPerSecond`.)
    func addOne(_ decoded: AgentDownloadRequest, maxBytesPerSecond: Int64? = nil) async throws -> String {
        let id = try decoded.validatedID()
        let url = try decoded.parsedURL()
        let given = try decoded.parsedDestination()
        let overwrite = decoded.overwrite ?? false
        let destination = try await chosenDestination(given, url: url, overwrite: overwrite)
        var options = try decoded.options()
        if let maxBytesPerSecond { options.transfer.maxBytesPerSecond = maxBytesPerSecond }
        // Kept before the download starts, so that its first completion finds them.
        var keptNotify: UInt64?
        if let notify = decoded.notify, let deliveries {
            try Self.checkNotify(notify)
            if await downloader.info(of: id) == nil {
                do {
                    keptNotify = try await deliveries.setTargets(notify, of: id)
                } catch {
                    throw AgentAPIError(.internalServerError, .internal, "cannot keep the download's \"notify\": \(error)")
                }
            }
        }
        do {
            return try await addChecked(decoded, id: id, url: url, given: given, destination: destination, options: options)
        } catch {
            // Only this request's setting: a concurrent add of the same id that won keeps its own.
            if let keptNotify { await deliveries?.clearTargets(of: id, setting: keptNotify) }
            throw error
        }
    }

    private func addChecked(_ decoded: AgentDownloadRequest, id: String, url: URL, given: URL?, destination: URL,
                            options: DownloadOptions) async throws -> String {
        let overwrite = decoded.overwrite ?? false
        var destination = destination
        // Another request may take the chosen name between the choice and the add (the add then
        // refuses it): choose again while that gives another name, a few times at most.
        for attempt in 1... {
            do {
                try await library(settles: false) {
                    if decoded.start ?? true {
                        _ = try await downloader.start(id: id, url: url, destination: destination, options: options)
                    } else {
                        _ = try await downloader.add(id: id, url: url, destination: destination, options: options)
                    }
                }
                return id
            } catch let error as AgentAPIError where error.code == .badDestination && !overwrite && attempt < 4 {
                let again = try await chosenDestination(given, url: url, overwrite: overwrite)
                if again == destination { throw error }
                destination = again
            }
        }
        return id
    }

    /// Where the download goes (the library's `DestinationPolicy`, ``destinations``): `given`, or
    /// the downloads directory plus the URL's file name when absent
    /// (`DestinationPolicy.proposedPath(in:for:)`, as the aria2 RPC's `dir`/`out`); a given file
    /// name with a control character or a leading dot (`DestinationPolicy.problem(withAbsolutePath:)`) and a
    /// reserved path are a 400 `bad-destination`; a file already there, or at its staging name,
    /// is kept and the download takes the next free name (`NAME.1.EXT`, ...) unless `overwrite`;
    /// so is a name an unfinished download (started or not) writes to, or stages at
    /// (`Downloader.freeDestination(for:policy:)`).
    private func chosenDestination(_ given: URL?, url: URL, overwrite: Bool) async throws -> URL {
        if let given, let problem = DestinationPolicy.problem(withAbsolutePath: given.path) {
            throw AgentAPIError(DownloadError(.invalidDestination, problem))
        }
        let proposed = given ?? URL(
            fileURLWithPath: DestinationPolicy.proposedPath(in: downloader.configuration.downloadsDirectory.path, for: url), isDirectory: false)
        var policy = destinations
        if overwrite { policy.existingFiles = .replace }
        return try await library(settles: false) { try await downloader.freeDestination(for: proposed, policy: policy) }
    }

    /// One element of a batch: the request, or why it is not one (with the id, when it has one).
    private struct BatchItem: Decodable {
        var id: String
        var request: Result<AgentDownloadRequest, AgentAPIError>

        private struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        private struct IDOnly: Decodable {
            var id: String?
        }

        /// Throws when the item is not a JSON object: the whole body is then a 400 `bad-json`
        /// (not a JSON array of objects), as documented.
        init(from decoder: any Decoder) throws {
            _ = try decoder.container(keyedBy: AnyKey.self)
            id = (try? IDOnly(from: decoder))?.id ?? ""
            do {
                request = .success(try AgentDownloadRequest(from: decoder))
            } catch let error as DecodingError {
                request = .failure(AgentAPIError(.badRequest, .badJSON, "not a valid download request: \(AgentAPI.describe(error))"))
            }
        }
    }
}
