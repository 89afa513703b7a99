import FileDownload

extension CheckpointReportingStore {
    var pagesWaitingDownloads: Bool { base.pagesWaitingDownloads }

    func loadAll(excluding states: Set<DownloadState>) async throws -> [DownloadRecord] {
        try await base.loadAll(excluding: states)
    }

    func nextWaiting(limit: Int) async throws -> [DownloadRecord] { try await base.nextWaiting(limit: limit) }

    func record(id: String) async throws -> DownloadRecord? { try await base.record(id: id) }

    func countsByState() async throws -> [DownloadState: Int] { try await base.countsByState() }

    func page(in states: Set<DownloadState>?, after position: Int64?, limit: Int) async throws -> [DownloadRecord] {
        try await base.page(in: states, after: position, limit: limit)
    }

    func lastQueueOrder() async throws -> Int64? { try await base.lastQueueOrder() }

    func waitingPartPaths() async throws -> Set<String> { try await base.waitingPartPaths() }
    func unfinishedOwner(destination: String, partPath: String) async throws -> String? {
        try await base.unfinishedOwner(destination: destination, partPath: partPath)
    }
}
