import Foundation

/// The free-space check an attempt makes when its head announces the length: the bytes still to
/// come, plus what the other running downloads on the same file system still need, must fit in
/// the file system's free space; otherwise the head is refused with ``DownloadError/Code/diskFull``
/// before any body byte is written (and the download waits for space).
struct RoomCheck: Sendable {
    /// The ``DownloadError/underlying`` of a refusal the free space explains (this check's, or the
    /// one before an attempt): the download continues as soon as the free space holds what it
    /// needs, not only once there is more than when it was held.
    struct Shortfall: Error {
        /// The bytes the download still needs (its size may be known from nothing else, as for a
        /// head refused before the downloader saw it).
        let need: Int64
    }

    /// The staging file's directory.
    let directory: String
    /// What the other running downloads on that file system still need, when the attempt started.
    let neededByOthers: Int64

    func check(_ head: TransferHead, requestedOffset: Int64) throws {
        guard head.disposition != .complete, let total = head.expectedLength else { return }
        let need = total - requestedOffset
        guard need > 0, let free = Downloader.freeSpace(directory: directory)?.free else { return }
        if need.addingSaturating(neededByOthers) > free {
            let others = neededByOthers > 0 ? " (after \(neededByOthers) bytes other downloads still need)" : ""
            throw DownloadError(.diskFull, "the disk is too full: \(need) bytes are still to come but \(free) are free\(others)",
                                underlying: Shortfall(need: need))
        }
    }
}
