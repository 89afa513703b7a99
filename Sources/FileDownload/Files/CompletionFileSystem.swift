import Foundation

/// The file-system calls that make a finished download durable and put it in place, as the
/// ``CompletionFlusher`` makes them: a seam, so that a test can record their order (and make one
/// fail) while the real calls still run.
///
/// Every call blocks; the flusher makes them on its own thread, never on Swift's cooperative pool.
package protocol CompletionFileSystem: Sendable {
    /// The device that holds the sink's file (`st_dev` of `fstat(2)` on its descriptor), or `nil`
    /// when it cannot be read: the flusher keeps one queue per device, so a device that hangs
    /// holds only its own completions.
    func device(of sink: TransferSink) -> UInt64?

    /// Hands the sink's written bytes to the kernel's writeback without waiting for them
    /// (`sync_file_range(2)` with `SYNC_FILE_RANGE_WRITE`): issued for every file of a group
    /// before the first flush, so the disk writes them together. Best effort; promises nothing.
    func startWriteback(of sink: TransferSink)

    /// Flushes the sink's bytes and size to the disk (`fdatasync(2)`); throws when it cannot.
    func flushData(of sink: TransferSink) throws

    /// Moves `from` to `to` in one step (same file system): replacing what is at `to` when
    /// `replacing`, else only when nothing is there (`renameat2` with `RENAME_NOREPLACE`), returning
    /// `false` and moving nothing when something is. The directory is not flushed.
    func move(from: String, to: String, replacing: Bool) throws -> Bool

    /// Flushes the directory at `path` (`fsync(2)`), so that the entries moved into it survive a
    /// power loss; throws when the directory cannot be opened or the flush fails (EIO, or EINVAL
    /// on a file system that cannot flush directories). The flusher fails no download for it (its
    /// files are already in place, whole): it hands the error to each download moved there, which
    /// logs a warning and completes.
    func flushDirectory(at path: String) throws
}
