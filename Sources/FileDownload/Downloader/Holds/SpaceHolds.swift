/// The part of the ``Downloader`` that holds downloads for space, with the state it owns: the
/// file system (`statvfs` `f_fsid`) of each staging directory asked about, so the space that
/// running downloads still need is counted per file system without a system call each. It
/// decides which downloads on hold for space go back to the queue; the Downloader asks the file
/// systems (``Downloader/freeSpace(directory:)``) and carries its answer out
/// (``DownloadLifecycle/holdEnded()``). No I/O: free space and needs come as arguments.
struct SpaceHolds: Sendable {
    /// A download on hold for space, as ``releases(_:neededByRunning:)`` looks at it.
    struct Held: Sendable {
        let id: String
        /// The file system of its staging file, and the space free there now.
        let fileSystem: UInt
        let free: Int64
        /// What it still needs (its size unknown: what the hold said, else a megabyte).
        let need: Int64
        /// The free space when a write met a full disk (``DownloadHold/freeAtHold``): it goes
        /// on only once there is more; `nil` for a hold the free space explains.
        let freeAtHold: Int64?
    }

    /// The file system of each staging directory asked about.
    private var fileSystems: [String: UInt] = [:]

    /// Remembers that `directory` is on file system `id`.
    mutating func remember(directory: String, fileSystem id: UInt) {
        fileSystems[directory] = id
    }

    /// The file system of `directory`, if it was asked about.
    func fileSystem(of directory: String) -> UInt? {
        fileSystems[directory]
    }

    /// Which of `held` (in queue order: priority, then start order) go back to the queue: those
    /// whose file system has room for what they need after what the running downloads on it
    /// still need (`neededByRunning(fileSystem, id)`) and what the ones let go before them
    /// need, and more free space than when a write met a full disk. A download that does not
    /// fit keeps the later ones on its file system waiting behind it (queue order).
    static func releases(_ held: [Held], neededByRunning: (UInt, String) -> Int64) -> [String] {
        var letGo: [UInt: Int64] = [:]
        var blocked: Set<UInt> = []
        var released: [String] = []
        for h in held where !blocked.contains(h.fileSystem) {
            let others = neededByRunning(h.fileSystem, h.id).addingSaturating(letGo[h.fileSystem, default: 0])
            guard h.need.addingSaturating(others) <= h.free, h.free > h.freeAtHold ?? -1 else {
                blocked.insert(h.fileSystem)
                continue
            }
            letGo[h.fileSystem, default: 0] = letGo[h.fileSystem, default: 0].addingSaturating(h.need)
            released.append(h.id)
        }
        return released
    }
}
