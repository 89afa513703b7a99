import FileDownload
import Foundation

extension GetSession {
    /// `-N`: asks the server whether the file of a completed download changed
    /// (``FileDownload/RemoteFileCheck``). Unchanged: the plan stays complete, marked up to date.
    /// Changed: the plan becomes a fresh download to the same file (replaced only once the new
    /// one is complete and verified). A check that cannot be made: the error, the file is kept.
    /// A file matched only by `--sha256`, without a stored download, has nothing to compare with
    /// and stays complete.
    func checkingWithServer(_ plan: PlannedDownload) async -> (PlannedDownload, DownloadError?) {
        guard let record = plan.completedRecord else { return (plan, nil) }
        var plan = plan
        // The server is asked as the download would be: a 401 gets --user or the netrc entry.
        let delegate = CLIDelegate(headers: settings.headers, credentials: settings.credentials, origins: origins)
        let id = plan.id
        do {
            let outcome = try await RemoteFileCheck.check(
                url: plan.url, length: record.expectedLength ?? record.checkpointedBytes, validator: record.validator,
                options: settings.transferOptions, transport: try transports.transport(for: plan.url),
                scratchDirectory: URL(fileURLWithPath: state.path),
                authenticate: { await delegate.download(id, didReceive: $0) })
            switch outcome {
            case .unchanged:
                plan.upToDate = true
            case .changed:
                printer.log("\(plan.id): the server's file changed; fetching it again "
                            + "(\(plan.destination.path) is replaced once the new one is complete)")
                plan.alreadyComplete = false
                plan.resume = nil
            }
            return (plan, nil)
        } catch {
            let cause = DownloadError.wrapping(error)
            return (plan, DownloadError(cause.code, "cannot check \(plan.url.redactingPassword) against the server "
                                        + "(-N): \(cause.message); \(plan.destination.path) is kept", isRetryable: false))
        }
    }

    /// The options of one planned download: the command's, with its mirrors (`--mirror`, `-i`)
    /// and `--content-disposition`. A file fetched again by `-N` keeps the name it has.
    func netOptions(_ options: DownloadOptions, for plan: PlannedDownload) -> DownloadOptions {
        var own = options
        // Only the first URLs have mirrors: looking for the URL among those alone (not all of
        // them, for every URL) keeps 2,000 URLs from costing 2 million URL comparisons.
        if let index = settings.urls.prefix(settings.mirrors.count).firstIndex(of: plan.url) {
            own.mirrors = settings.mirrors[index]
        }
        own.usesSuggestedFileName = settings.usesServerFileName && plan.completedRecord == nil
        return own
    }
}
