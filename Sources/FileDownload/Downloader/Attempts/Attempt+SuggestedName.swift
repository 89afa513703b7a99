import Foundation

extension Attempt {
    /// Where a file with ``DownloadOptions/usesSuggestedFileName`` goes: the sanitised name the
    /// server suggested (first seen, else this attempt's head) in the destination's directory,
    /// or the first of `NAME.1.EXT`, `NAME.2.EXT`, ... that is free: nothing at it or at its
    /// staging name, no other download's name (``takenNames``) and none of `excluding`. The
    /// destination as given when no name was suggested, or when the suggestion is the
    /// destination's own name.
    func serverNamedDestination(head: TransferHead, excluding: Set<String> = []) -> URL {
        guard let suggested = suggestedFileName ?? head.suggestedFilename else { return destination }
        let name = FileNameSanitizer.sanitize(suggested, fallback: destination.lastPathComponent)
        let directory = destination.deletingLastPathComponent()
        if name == destination.lastPathComponent { return destination }
        let stagingName = (partPath as NSString).lastPathComponent
        let ext = (name as NSString).pathExtension
        let stem = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
        for n in 0..<10_000 {
            let candidate = n == 0 ? name : ext.isEmpty ? "\(stem).\(n)" : "\(stem).\(n).\(ext)"
            if candidate == stagingName || takenNames.contains(candidate) || excluding.contains(candidate) { continue }
            let target = directory.appendingPathComponent(candidate)
            if FileValidation.exists(target.path) || FileValidation.exists(target.path + stagingSuffix) { continue }
            return target
        }
        return destination
    }

    /// Moves the staging file to its ``serverNamedDestination(head:excluding:)`` and returns
    /// where it went. The move never replaces anything: when a name that was free is taken by
    /// the time of the move (another download, of this process or another, completing under the
    /// same name at the same moment), the next free name is taken instead. Only the destination
    /// as given (no suggestion, or the suggestion is its own name) is replaced, as without the
    /// option.
    /// The moves go through `fileSystem`, which does not flush the directory.
    func moveToServerName(head: TransferHead, fileSystem: any CompletionFileSystem) throws -> URL {
        var lost = Set<String>()
        while true {
            let target = serverNamedDestination(head: head, excluding: lost)
            if target == destination {
                _ = try fileSystem.move(from: partPath, to: target.path, replacing: true)
                return target
            }
            if try fileSystem.move(from: partPath, to: target.path, replacing: false) {
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
