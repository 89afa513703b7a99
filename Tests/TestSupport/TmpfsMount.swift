public import Foundation

/// A small tmpfs mounted on a fresh directory (needs root, as in CI). ``unmount()`` undoes it.
public struct TmpfsMount {
    public let directory: TemporaryDirectory

    /// Mounts a tmpfs of `size` (as `mount` spells it: `512k`, `4m`).
    public init(size: String, label: String = #function) throws {
        directory = try TemporaryDirectory(label)
        do {
            try Self.mount(["-t", "tmpfs", "-o", "size=\(size),mode=0755", "tmpfs", directory.url.path])
        } catch {
            directory.remove()
            throw error
        }
    }

    public var url: URL { directory.url }
    public func path(_ name: String) -> String { directory.path(name) }

    /// Makes the file system read-only: every write fails with EROFS, even for root.
    public func remountReadOnly() throws {
        try Self.mount(["-o", "remount,ro", directory.url.path])
    }

    /// Changes the size of the mounted file system (`mount -o remount,size=…`).
    public func resize(to size: String) throws {
        try Self.mount(["-o", "remount,size=\(size)", directory.url.path])
    }

    public func unmount() {
        _ = try? ChildProcess.runChecked(["/bin/umount", "-l", directory.url.path], limit: .seconds(60))
        directory.remove()
    }

    private static func mount(_ arguments: [String]) throws {
        do {
            try ChildProcess.runChecked(["/bin/mount"] + arguments, limit: .seconds(60))
        } catch {
            throw TestFailure("cannot mount a tmpfs (these tests need root, as in CI): \(error)")
        }
    }
}
