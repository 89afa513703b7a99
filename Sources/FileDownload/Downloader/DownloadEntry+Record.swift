extension DownloadEntry {
    /// The entry a stored record describes, before any reconciliation with the disk: what
    /// ``Downloader/restore()`` starts from, and what a query about a download left in the store
    /// describes.
    init(record: DownloadRecord) {
        self.init(id: record.id, url: record.url, destination: record.destination, partPath: record.partPath,
                  options: record.options, lifecycle: DownloadLifecycle(id: record.id, state: record.state),
                  queueOrder: record.queueOrder)
        validator = record.validator
        expectedLength = record.expectedLength
        segments = record.segments
        bytesOnDisk = record.segments.isEmpty ? record.checkpointedBytes : record.segments.bytesDone
        attempts = record.attempts
        createdAt = record.createdAt
        if let code = record.errorCode {
            var error = DownloadError(DownloadError.Code(rawValue: code), record.errorMessages.first ?? code)
            error.messages = record.errorMessages.isEmpty ? [code] : record.errorMessages
            lastError = error
        }
    }
}
