package import Foundation

extension Downloader {
    /// The destination `policy` chooses for `proposed` (`DestinationPolicy.destination(for:isTaken:)`
    /// with this downloader's staging suffix), where a name is also taken when an unfinished
    /// download of this downloader writes to it or to its staging name, in memory or (when the
    /// downloader pages) left in its store. So a front end that keeps users' files
    /// (`NAME.1.EXT`) gives two downloads added one after the other with one file name two
    /// names, not the second a refusal from `add`.
    ///
    /// Nothing is claimed: a download added between this answer and the caller's `add` may take
    /// the name, and that `add` then throws ``DownloadError/Code/invalidDestination`` as before;
    /// the caller may ask again.
    ///
    /// - Throws: ``DownloadError/Code/invalidDestination`` for a reserved path,
    ///   ``DownloadError/Code/store`` when the store cannot tell.
    package func freeDestination(for proposed: URL, policy: DestinationPolicy) async throws -> URL {
        var policy = policy
        policy.stagingSuffix = configuration.stagingSuffix
        var takenInStore: Set<String> = []
        for _ in 0..<100 {
            let chosen = try policy.destination(for: proposed) { path in
                takenInStore.contains(path) || isClaimedByUnfinished(path)
            }
            guard policy.existingFiles == .keep, scheduler.pages.isActive, scheduler.pages.mayHoldWaiting else { return chosen }
            let owner = try await persistence.unfinishedOwner(destination: chosen.path,
                                                              partPath: chosen.path + configuration.stagingSuffix)
            guard let owner, entries[owner] == nil else { return chosen }
            takenInStore.insert(chosen.path)
        }
        return try policy.destination(for: proposed) { takenInStore.contains($0) || isClaimedByUnfinished($0) }
    }

    /// Whether an unfinished download in memory claims `path` (as its destination or its staging file).
    func isClaimedByUnfinished(_ path: String) -> Bool {
        guard let id = claimedPaths[path], let other = entries[id] else { return false }
        return !other.state.isTerminal
    }
}
