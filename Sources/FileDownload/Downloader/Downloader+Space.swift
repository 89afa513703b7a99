import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Downloader {
    /// The room a download of unknown size needs before it continues after a full disk.
    static let unknownSizeRoom: Int64 = 1 << 20

    /// The file system and free space (what an unprivileged user may write, `f_bavail`) of
    /// `directory`; `nil` when it cannot be asked (then nothing is held for space).
    nonisolated static func freeSpace(directory: String) -> (id: UInt, free: Int64)? {
        var vfs = statvfs()
        guard statvfs(directory, &vfs) == 0 else { return nil }
        return (UInt(vfs.f_fsid), Int64(vfs.f_bavail).multipliedReportingOverflow(by: Int64(vfs.f_frsize)).partialValue)
    }

    static func directory(of e: DownloadEntry) -> String {
        DownloadPaths.directory(of: e.partPath)
    }

    /// The file system of `e`'s staging file and its free space; remembers the file system id.
    func fileSystem(of e: DownloadEntry) -> (id: UInt, free: Int64)? {
        let directory = Self.directory(of: e)
        guard let fs = Self.freeSpace(directory: directory) else { return nil }
        spaceHolds.remember(directory: directory, fileSystem: fs.id)
        return fs
    }

    /// Which of the downloads on hold for space (`held`, in queue order) go back to the queue
    /// now (``SpaceHolds/releases(_:neededByRunning:)``), their file systems asked now.
    func spaceReleases(_ held: [DownloadEntry]) -> [String] {
        let asked = held.compactMap { e -> SpaceHolds.Held? in
            guard let fs = fileSystem(of: e) else { return nil }
            return SpaceHolds.Held(id: e.id, fileSystem: fs.id, free: fs.free,
                                   need: stillNeeded(e) ?? e.neededAtHold ?? Self.unknownSizeRoom,
                                   freeAtHold: e.freeAtHold)
        }
        return SpaceHolds.releases(asked) { neededByRunning(on: $0, besides: $1) }
    }

    /// The bytes `e` still has to write: its known total minus the bytes it has; `nil` when the
    /// total is not known.
    func stillNeeded(_ e: DownloadEntry) -> Int64? {
        let sink = e.attempt?.currentSink
        guard let total = sink?.announcedLength ?? e.expectedLength ?? e.options.expectedSize else { return nil }
        return max(0, total - (sink?.fileLength ?? e.bytesOnDisk))
    }

    /// What the running downloads on file system `id` (other than `besides`) still need.
    func neededByRunning(on id: UInt, besides: String) -> Int64 {
        var sum: Int64 = 0
        for other in scheduler.running where other != besides {
            // Read in place: a copy of each running entry at every start cost more than the sum.
            let needed = entries.peek(other) { e -> Int64? in
                guard let needed = stillNeeded(e), needed > 0,
                      let fs = spaceHolds.fileSystem(of: Self.directory(of: e)), fs == id else { return nil }
                return needed
            }
            if let needed = needed ?? nil { sum = sum.addingSaturating(needed) }
        }
        return sum
    }

    /// The check before an attempt starts: when the download's remaining size is known and does
    /// not fit in the free space (after what the running downloads on the same file system still
    /// need), it is put on hold for space instead (`true`), without an attempt.
    func holdsForSpace(_ id: String) -> Bool {
        guard configuration.waitsForSpace, var e = entries[id], let need = stillNeeded(e), need > 0,
              let fs = fileSystem(of: e) else { return false }
        let others = neededByRunning(on: fs.id, besides: id)
        guard need.addingSaturating(others) > fs.free else { return false }
        let now = clock.now()
        var events: [DownloadEvent] = []
        let error = DownloadError(.diskFull, "the disk is too full: the download still needs \(need) bytes but \(fs.free) are free"
                                  + (others > 0 ? " (after \(others) bytes other downloads still need)" : ""),
                                  underlying: RoomCheck.Shortfall(need: need))
        hold(&e, .insufficientSpace, error: error, now: now, events: &events)
        entries[id] = e
        persist(e, flush: nil, events: events)
        return true
    }

    /// The head check of an attempt of `e` (``RoomCheck``), when downloads wait for space.
    func roomCheck(for e: DownloadEntry) -> RoomCheck? {
        guard configuration.waitsForSpace else { return nil }
        let directory = Self.directory(of: e)
        let fs = spaceHolds.fileSystem(of: directory) ?? fileSystem(of: e)?.id
        return RoomCheck(directory: directory, neededByOthers: fs.map { neededByRunning(on: $0, besides: e.id) } ?? 0)
    }
}
