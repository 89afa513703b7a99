import Foundation

extension Downloader {
    /// The file names of the other downloads of this downloader in `e`'s destination directory
    /// (their destinations and staging files), for ``DownloadOptions/usesSuggestedFileName``;
    /// empty when `e` does not use it.
    func takenNames(besides e: DownloadEntry) -> Set<String> {
        guard e.options.usesSuggestedFileName else { return [] }
        let directory = e.destination.deletingLastPathComponent().standardizedFileURL.path
        var names = Set<String>()
        for other in entries.values where other.id != e.id {
            if other.destination.deletingLastPathComponent().standardizedFileURL.path == directory {
                names.insert(other.destination.lastPathComponent)
            }
            if (other.partPath as NSString).deletingLastPathComponent == directory {
                names.insert((other.partPath as NSString).lastPathComponent)
            }
        }
        return names
    }

    /// Where a file with ``DownloadOptions/usesSuggestedFileName`` goes: the sanitised name the
    /// server suggested (first seen, else this attempt's head) in the destination's directory,
    /// or the first of `NAME.1.EXT`, `NAME.2.EXT`, ... that is free: nothing at it or at its
    /// staging name, no other download's name and none of `excluding`. The destination as given
    /// when no name was suggested, or when the suggestion is the destination's own name.
    static func serverNamedDestination(_ ctx: AttemptContext, head: TransferHead, excluding: Set<String> = []) -> URL {
        guard let suggested = ctx.suggestedFileName ?? head.suggestedFilename else { return ctx.destination }
        let name = FileNameSanitizer.sanitize(suggested, fallback: ctx.destination.lastPathComponent)
        let directory = ctx.destination.deletingLastPathComponent()
        if name == ctx.destination.lastPathComponent { return ctx.destination }
        let stagingName = (ctx.partPath as NSString).lastPathComponent
        let ext = (name as NSString).pathExtension
        let stem = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
        for n in 0..<10_000 {
            let candidate = n == 0 ? name : ext.isEmpty ? "\(stem).\(n)" : "\(stem).\(n).\(ext)"
            if candidate == stagingName || ctx.takenNames.contains(candidate) || excluding.contains(candidate) { continue }
            let target = directory.appendingPathComponent(candidate)
            if FileValidation.exists(target.path) || FileValidation.exists(target.path + ctx.stagingSuffix) { continue }
            return target
        }
        return ctx.destination
    }

    /// Moves the staging file to its ``serverNamedDestination(_:head:excluding:)`` and returns
    /// where it went. The move never replaces anything: when a name that was free is taken by
    /// the time of the move (another download, of this process or another, completing under the
    /// same name at the same moment), the next free name is taken instead. Only the destination
    /// as given (no suggestion, or the suggestion is its own name) is replaced, as without the
    /// option.
    static func moveToServerName(_ ctx: AttemptContext, head: TransferHead, synchronize: Bool) throws -> URL {
        var lost = Set<String>()
        while true {
            let target = serverNamedDestination(ctx, head: head, excluding: lost)
            if target == ctx.destination {
                try FileValidation.moveAtomically(from: ctx.partPath, to: target.path, synchronize: synchronize)
                return target
            }
            if try FileValidation.moveWithoutReplacing(from: ctx.partPath, to: target.path, synchronize: synchronize) {
                return target
            }
            lost.insert(target.lastPathComponent)
            if lost.count >= 1_000 {
                throw DownloadError(.fileSystem, "every name for \(target.lastPathComponent) in "
                                    + "\(target.deletingLastPathComponent().path) was taken while the file was moved")
            }
        }
    }
}
