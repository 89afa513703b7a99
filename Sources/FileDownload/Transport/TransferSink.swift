import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the bytes of one attempt go: a staging file written with positional writes, plus atomic
/// counters the downloader samples for progress and timeouts.
///
/// Transports never see it: they get its narrow ``TransferWriter`` (``writer``), which has the
/// head, the body writes and the pacing only. The rest (sealing, flushing, the reservation,
/// segment stops, the counters) is the downloader's, in this package; the conformance suite,
/// the benchmarks and the tests use it to drive a transport without a downloader.
///
/// The body path is `write(_:)`: one `pwrite(2)` and two relaxed atomic adds per chunk, callable
/// from any thread (the transport's I/O thread), no actor hop and no allocation.
///
/// Order of calls: ``begin(_:)`` exactly once, then ``write(_:)`` any number of times (never
/// concurrently with each other), then the owner calls ``seal()``. After `seal()` every call throws
/// and a write is counted in ``lateWriteAttempts``.
package final class TransferSink: Sendable {
    /// The offset the attempt starts from (bytes already in the file): the one asked for, or 0
    /// when the staging file was missing or could not be continued safely (see ``init(path:requestedOffset:end:startsWriteback:pacing:validateHead:)``).
    package let requestedOffset: Int64
    /// The path of the staging file.
    package let path: String

    private let fd: Int32
    private let length: Atomic<Int64>
    private let activity = Atomic<UInt64>(0)
    private let begun = Atomic<Bool>(false)
    private let sealed = Atomic<Bool>(false)
    private let complete = Atomic<Bool>(false)
    private let expected = Atomic<Int64>(-1)
    /// The most bytes the file may have (``limitLength(to:)``); -1 for no limit.
    private let lengthLimit = Atomic<Int64>(-1)
    /// Where a resumed body must end (the range's end), or -1 when any length may follow.
    private let rangeEnd: Atomic<Int64>
    private let lateWrites = Atomic<Int>(0)
    /// A segment's sink (``init(segmentOf:offset:end:overlap:startsWriteback:pacing:validateHead:)``):
    /// never cuts or reserves the file, refuses a restart.
    private let isSegment: Bool
    /// A stream's sink (``init(streamingTo:name:validateHead:)``): writes in order with
    /// `write(2)`, never cuts, reserves or reads the descriptor.
    private let streams: Bool
    /// Where the writes stop (exclusive), or -1 for no stop: see ``stop``.
    private let stopAt = Atomic<Int64>(-1)
    /// Set once a write met ``stop``.
    private let stopReached = Atomic<Bool>(false)
    /// Set once the file holds bytes of other segments past this sink's (``lowerStop(to:)`` was
    /// called): the file is never cut to this sink's length then.
    private let sharesFile = Atomic<Bool>(false)
    /// Called once ``begin(_:)`` accepted a head.
    private let headObserver = Mutex<(@Sendable () -> Void)?>(nil)
    private let receivedHead = Mutex<TransferHead?>(nil)
    private let validateHead: @Sendable (TransferHead) throws -> Void
    private let startsWriteback: Bool
    /// Where the next range handed to the kernel's writeback starts.
    private let writebackMark: Atomic<Int64>
    private let writebackRanges = Atomic<Int>(0)
    /// Whether ``begin(_:)`` reserved disk space past the bytes written.
    private let reserved = Atomic<Bool>(false)
    /// The shared limit every written byte is taken from (see ``pacingDelay``).
    private let pacing: BandwidthLimiter?
    /// Until when, on the limiter's clock (nanoseconds), the last write asks the transport to
    /// wait, and the limiter's generation then.
    private let pacedUntil = Atomic<Int64>(.min)
    private let pacedGeneration = Atomic<Int>(0)
    /// Where the overlap window of a segment's sink ends (exclusive): the bytes from
    /// ``requestedOffset`` up to it are kept in ``overlapBytes`` to be compared with the bytes the
    /// neighbouring segment wrote there, never written. `Int64.min` without one.
    private let overlapEnd: Int64
    private let overlapBytes = Mutex<[UInt8]>([])

    /// How many bytes are handed to the kernel's writeback at once (see `startsWriteback`).
    package static let writebackChunk: Int64 = 8 << 20
    /// From how many announced bytes still to come ``begin(_:)`` reserves the disk space for them.
    package static let preallocationThreshold: Int64 = 8 << 20

    /// Opens the staging file at `path` for an attempt that starts at `requestedOffset`.
    ///
    /// The file is opened as a file this process owns, never through a link planted at the name:
    /// with `requestedOffset` 0 whatever is at `path` is removed and a new file is created
    /// (`O_CREAT | O_EXCL | O_NOFOLLOW`); otherwise the file is reopened with `O_NOFOLLOW` and must
    /// be a regular file with one link, owned by the effective user. A staging file that is
    /// missing or fails that check is replaced by a new, empty one (the planted entry is unlinked,
    /// never written through) and the attempt starts at 0: read ``requestedOffset`` for the offset
    /// to ask the server for. If the kept file is longer than `requestedOffset` it is cut to that
    /// length, so the bytes that follow always continue exactly where the attempt starts.
    ///
    /// - Parameters:
    ///   - path: the staging file.
    ///   - requestedOffset: the bytes of the existing file to keep and continue after; 0 starts a
    ///     new file.
    ///   - end: the end (exclusive) of the range the attempt asks for (``TransferRequest/end``), or
    ///     `nil`. A body that continues at the offset (``ResumeDisposition/resumed(at:)``) may then
    ///     not go past it; after a restart the body is the whole resource and the end no longer
    ///     applies.
    ///   - startsWriteback: when `true`, every ``writebackChunk`` bytes written are handed to the
    ///     kernel's writeback at once (`sync_file_range(2)` with `SYNC_FILE_RANGE_WRITE`, which does
    ///     not wait), so that a later flush of the whole file finds most of it already on disk
    ///     instead of writing a gigabyte at the end. The downloader asks for it when it flushes
    ///     finished files (``DownloaderConfiguration/synchronizesFiles``). It changes no byte and
    ///     promises no durability by itself; where the call is missing it does nothing.
    ///   - pacing: a limiter shared with other transfers (the downloader's overall limit): every
    ///     byte written is taken from it, and ``pacingDelay`` tells the transport how long to wait.
    ///   - validateHead: called synchronously by ``begin(_:)`` before anything is done with the
    ///     head; throw to refuse it (a rejected status). The downloader passes its status check and
    ///     the delegate's.
    /// - Throws: ``DownloadError`` with code ``DownloadError/Code/fileSystem`` when no trustworthy
    ///   file can be opened (a directory in the way, no permission), or
    ///   ``DownloadError/Code/invalidResumeData`` when the kept file is shorter than `requestedOffset`.
    package convenience init(
        path: String,
        requestedOffset: Int64,
        end: Int64? = nil,
        startsWriteback: Bool = false,
        pacing: BandwidthLimiter? = nil,
        validateHead: @escaping @Sendable (TransferHead) throws -> Void = { _ in }
    ) throws {
        let opened = try StagingFile.open(path, keeping: requestedOffset)
        let fd = opened.descriptor
        let requestedOffset = opened.keptBytes
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let e = errno
            close(fd)
            throw DownloadError.fileSystem(errno: e, "cannot inspect the staging file \(path)")
        }
        if Int64(st.st_size) < requestedOffset {
            close(fd)
            throw DownloadError(.invalidResumeData,
                                "the staging file \(path) holds \(st.st_size) bytes, fewer than the offset \(requestedOffset)")
        }
        if Int64(st.st_size) > requestedOffset, ftruncate(fd, off_t(requestedOffset)) != 0 {
            let e = errno
            close(fd)
            throw DownloadError.fileSystem(errno: e, "cannot cut the staging file \(path) to \(requestedOffset) bytes")
        }
        self.init(descriptor: fd, path: path, offset: requestedOffset, end: end, isSegment: false,
                  startsWriteback: startsWriteback, pacing: pacing, validateHead: validateHead)
    }

    /// Opens the staging file at `path` for one segment of a download fetched over several
    /// connections: the bytes `offset ..< end`, written in place next to the other segments.
    ///
    /// Unlike ``init(path:requestedOffset:end:startsWriteback:pacing:validateHead:)`` the file is
    /// never created anew, cut or reserved: it must exist (the download's first connection made
    /// it), is reopened without following a link and checked like a resume, and the writes land
    /// at `offset` and after with `pwrite(2)`. The segment stops at its end (``stop``), which
    /// ``lowerStop(to:)`` may move down while the transfer runs (another connection takes the
    /// rest). A head that does not continue at `offset` (``ResumeDisposition/restarted(_:)`` or
    /// ``ResumeDisposition/complete``) is refused: a segment never takes the whole resource.
    ///
    /// With `overlap` the first `overlap` bytes from `offset` are the *overlap window*: they
    /// belong to the neighbouring segment below and are kept in memory
    /// (``receivedOverlap``), not written, so that the coordinator can compare them with the
    /// bytes the neighbour wrote there (``fileHolds(_:at:)``); the segment's own range starts at
    /// `offset + overlap`.
    ///
    /// - Throws: ``DownloadError`` with code ``DownloadError/Code/fileSystem`` when the staging
    ///   file is missing or fails the check.
    package convenience init(
        segmentOf path: String,
        offset: Int64,
        end: Int64,
        overlap: Int64 = 0,
        startsWriteback: Bool = false,
        pacing: BandwidthLimiter? = nil,
        validateHead: @escaping @Sendable (TransferHead) throws -> Void = { _ in }
    ) throws {
        guard let fd = StagingFile.reopen(path) else {
            throw DownloadError(.fileSystem, "the staging file \(path) of a segmented download is missing", isRetryable: true)
        }
        self.init(descriptor: fd, path: path, offset: offset, end: end, isSegment: true, overlap: max(0, min(overlap, end - offset)),
                  startsWriteback: startsWriteback, pacing: pacing, validateHead: validateHead)
        stopAt.store(end, ordering: .relaxed)
    }

    /// A sink that passes the body on as it arrives to `descriptor`, a pipe or terminal (standard
    /// output), with `write(2)`: for a caller that streams one transfer instead of downloading a
    /// file. It starts at byte zero and refuses a restart once a byte was written (nothing can be
    /// taken back); it closes `descriptor` when it goes away, so pass a `dup(2)` of one that must
    /// stay open. `name` names it in messages.
    package convenience init(streamingTo descriptor: Int32, name: String,
                             validateHead: @escaping @Sendable (TransferHead) throws -> Void = { _ in }) {
        self.init(descriptor: descriptor, path: name, offset: 0, end: nil, isSegment: false, startsWriteback: false,
                  pacing: nil, validateHead: validateHead, streams: true)
    }

    private init(descriptor fd: Int32, path: String, offset: Int64, end: Int64?, isSegment: Bool, overlap: Int64 = 0, startsWriteback: Bool,
                 pacing: BandwidthLimiter?, validateHead: @escaping @Sendable (TransferHead) throws -> Void,
                 streams: Bool = false) {
        self.streams = streams
        self.fd = fd
        self.path = path
        self.requestedOffset = offset
        self.length = Atomic(offset)
        self.rangeEnd = Atomic(end ?? -1)
        self.isSegment = isSegment
        // No window: `Int64.min`, so that no offset (also after a restart to 0) falls into one.
        self.overlapEnd = overlap > 0 ? offset + overlap : .min
        self.pacing = pacing
        self.validateHead = validateHead
        self.startsWriteback = startsWriteback && Self.syncFileRange != nil
        self.writebackMark = Atomic(offset)
    }

    deinit {
        close(fd)
    }

    /// Limits the file to `limit` bytes (`DownloadOptions.maxFileSize`); `nil` for no limit. Set
    /// before the transfer starts: ``begin(_:)`` then refuses a head that announces a larger total
    /// length, and ``write(_:)`` refuses the bytes that would take the file past the limit (none of
    /// them is written), both with ``DownloadError/Code/maxFileSizeExceeded`` (not retryable).
    package func limitLength(to limit: Int64?) {
        lengthLimit.store(limit.map { max(0, $0) } ?? -1, ordering: .relaxed)
    }

    /// The narrow writer a ``Transport`` is given for this sink (``Transport/transfer(_:into:)``).
    package var writer: TransferWriter { TransferWriter(self) }

    /// Reports the head of the attempt. Call exactly once, before the first ``write(_:)``.
    ///
    /// In order: refuses a second call or a sealed sink; runs the owner's head validation (which
    /// may throw, e.g. for a rejected status); then acts on the disposition: ``ResumeDisposition/resumed(at:)``
    /// must name ``requestedOffset`` and keeps the bytes; ``ResumeDisposition/restarted(_:)`` cuts
    /// the file to zero; ``ResumeDisposition/complete`` keeps the bytes and refuses any body.
    /// Last, when the head announces a total length and at least ``preallocationThreshold`` bytes
    /// are still to come, disk space for them is reserved (`fallocate(2)` with `FALLOC_FL_KEEP_SIZE`:
    /// the file's size stays the bytes written, so resuming works as before). The file then lies
    /// in few extents and the writes that follow spend less in the file system. The announced
    /// length is the server's word, so the reservation never takes more than the file system can
    /// spare: its free space (`fstatvfs(2)`) minus ``reservationMargin(fileSystemBytes:)``; what
    /// is not reserved is allocated by the writes as they come. The owner gives the reservation
    /// back with ``releaseReservation()`` when the attempt ends short. Best effort: where the call
    /// is missing or fails (a full disk, a file system without it) nothing changes, and a full
    /// disk is reported by the write that meets it, after the bytes that fitted.
    ///
    /// - Throws: ``DownloadError``; the transport must stop and rethrow it.
    package func begin(_ head: TransferHead) throws {
        guard !sealed.load(ordering: .acquiring) else {
            throw DownloadError(.cancelled, "the attempt is over; the head came too late")
        }
        guard !begun.load(ordering: .relaxed) else {
            throw DownloadError(.protocolViolation, "the transport reported a second head")
        }
        try validateHead(head)
        let limit = lengthLimit.load(ordering: .relaxed)
        if limit >= 0, let total = head.expectedLength, total > limit {
            throw DownloadError(.maxFileSizeExceeded, "the server announced \(total) bytes, more than the limit of "
                                + "\(limit) bytes; nothing was downloaded", isRetryable: false)
        }
        switch head.disposition {
        case .resumed(let offset):
            guard offset == requestedOffset else {
                throw DownloadError(.protocolViolation,
                                    "the transport resumed at \(offset) but \(requestedOffset) was asked for")
            }
        case .restarted where isSegment, .complete where isSegment:
            throw DownloadError(.protocolViolation, "a segment's transfer did not continue at \(requestedOffset)")
        case .restarted where streams:
            guard length.load(ordering: .relaxed) == 0 else {
                throw DownloadError(.protocolViolation, "the transfer restarted after bytes went to \(path)")
            }
        case .restarted:
            guard ftruncate(fd, 0) == 0 else {
                throw DownloadError.fileSystem(errno: errno, "cannot truncate the staging file \(path)")
            }
            length.store(0, ordering: .releasing)
            rangeEnd.store(-1, ordering: .relaxed)
            writebackMark.store(0, ordering: .relaxed)
        case .complete:
            complete.store(true, ordering: .relaxed)
        }
        if let total = head.expectedLength {
            expected.store(total, ordering: .relaxed)
            let start = length.load(ordering: .relaxed)
            if !isSegment, !streams, head.disposition != .complete, total - start >= Self.preallocationThreshold, let reserve = Self.fallocate {
                let bytes = min(total - start, spareBytes())
                if bytes >= Self.preallocationThreshold, reserve(fd, 1 /* FALLOC_FL_KEEP_SIZE */, start, bytes) == 0 {
                    reserved.store(true, ordering: .relaxed)
                }
            }
        }
        receivedHead.withLock { $0 = head }
        begun.store(true, ordering: .releasing)
        activity.add(1, ordering: .relaxed)
        headObserver.withLock { $0 }?()
    }

    /// Appends `bytes` at the current end of the attempt's data with `pwrite(2)`.
    ///
    /// - Throws: ``DownloadError`` with code ``DownloadError/Code/diskFull`` (ENOSPC),
    ///   ``DownloadError/Code/fileTooLarge`` (EFBIG), ``DownloadError/Code/fileSystem`` (other
    ///   errors), ``DownloadError/Code/protocolViolation`` (no head yet, a body after
    ///   ``ResumeDisposition/complete``, more bytes than the announced total length, or a resumed
    ///   body past the end of the range the sink was made for) or
    ///   ``DownloadError/Code/cancelled`` (the sink is sealed). Nothing is written when it throws,
    ///   except for a partial write before a disk error, which stays counted.
    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        if sealed.load(ordering: .relaxed) {
            lateWrites.add(1, ordering: .relaxed)
            throw DownloadError(.cancelled, "the attempt is over; a late write was refused")
        }
        guard begun.load(ordering: .acquiring) else {
            throw DownloadError(.protocolViolation, "the transport delivered body bytes before its head")
        }
        if bytes.isEmpty { return }
        if complete.load(ordering: .relaxed) {
            throw DownloadError(.protocolViolation, "the transport delivered a body after reporting the file complete")
        }
        var offset = length.load(ordering: .relaxed)
        var bytes = bytes
        let stop = stopAt.load(ordering: .relaxed)
        var stops = false
        if stop >= 0, offset + Int64(bytes.count) > stop {
            // The segment ends here: the bytes up to the stop are written, then the transfer is
            // told to end (another connection has the rest).
            stops = true
            bytes = UnsafeRawBufferPointer(rebasing: bytes[0..<Int(max(0, stop - offset))])
        }
        defer { if stops { stopReached.store(true, ordering: .relaxed) } }
        let limit = lengthLimit.load(ordering: .relaxed)
        if limit >= 0, offset + Int64(bytes.count) > limit {
            throw DownloadError(.maxFileSizeExceeded, "the server sent more than the limit of \(limit) bytes "
                                + "without announcing the size; the bytes are discarded", isRetryable: false)
        }
        let total = expected.load(ordering: .relaxed)
        if total >= 0, offset + Int64(bytes.count) > total {
            throw DownloadError(.protocolViolation,
                                "the server sent more than the \(total) bytes it announced")
        }
        let end = rangeEnd.load(ordering: .relaxed)
        if end >= 0, offset + Int64(bytes.count) > end {
            throw DownloadError(.protocolViolation,
                                "the transport delivered bytes past the end \(end) of the range asked for")
        }
        if offset >= requestedOffset, offset < overlapEnd {  // a restart to zero has no window
            // The overlap window before the segment's range: kept for the comparison with the
            // neighbour's bytes (``receivedOverlap``), not written.
            let n = Int(min(Int64(bytes.count), overlapEnd - offset))
            overlapBytes.withLock { $0.append(contentsOf: bytes[0..<n]) }
            offset += Int64(n)
            length.store(offset, ordering: .relaxed)
            bytes = UnsafeRawBufferPointer(rebasing: bytes[n...])
            if bytes.isEmpty, !stops {
                activity.add(1, ordering: .relaxed)
                return
            }
        }
        var remaining = bytes.count
        guard var base = bytes.baseAddress, remaining > 0 else { throw Self.stopError }
        while remaining > 0 {
            let n = streams ? Self.writeInOrder(fd, base, remaining) : pwrite(fd, base, remaining, off_t(offset))
            if n < 0 {
                let e = errno
                if e == EINTR { continue }
                throw DownloadError.fileSystem(errno: e, streams ? "cannot write to \(path)" : "cannot write to the staging file \(path)")
            }
            offset += Int64(n)
            length.store(offset, ordering: .relaxed)
            remaining -= n
            base += n
        }
        activity.add(1, ordering: .relaxed)
        if let pacing, pacing.isLimited {  // without a limit: one relaxed load, no lock
            let taken = pacing.take(bytes.count)
            pacedUntil.store(Self.nanoseconds(taken.at + taken.wait), ordering: .relaxed)
            pacedGeneration.store(taken.generation, ordering: .relaxed)
        }
        if startsWriteback {
            let mark = writebackMark.load(ordering: .relaxed)
            if offset - mark >= Self.writebackChunk, let start = Self.syncFileRange {
                // Failure is harmless: the flush at the end writes whatever is still dirty.
                _ = start(fd, mark, offset - mark, 2 /* SYNC_FILE_RANGE_WRITE */)
                writebackMark.store(offset, ordering: .relaxed)
                writebackRanges.add(1, ordering: .relaxed)
            }
        }
        if stops { throw Self.stopError }
    }

    /// `write(2)` (a stream's sink: no offset).
    private static func writeInOrder(_ fd: Int32, _ base: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(fd, base, count)
        #else
        Darwin.write(fd, base, count)
        #endif
    }

    /// What ``write(_:)`` throws once the sink's ``stop`` is reached: the transport stops and
    /// rethrows it, and the downloader counts the segment as done (``reachedStop``).
    private static var stopError: DownloadError {
        DownloadError(.cancelled, "the segment reached its end; another connection fetches the rest")
    }

    /// Where the writes of this sink stop (exclusive), or `nil` when they go on to the end of the
    /// resource. A write that reaches it writes the bytes before it, sets ``reachedStop`` and
    /// throws ``DownloadError/Code/cancelled``: the transport ends the transfer.
    package var stop: Int64? {
        let stop = stopAt.load(ordering: .relaxed)
        return stop >= 0 ? stop : nil
    }

    /// Whether a write met ``stop``: the segment is complete.
    package var reachedStop: Bool { stopReached.load(ordering: .relaxed) }

    /// Moves ``stop`` down to `end` (the bytes from `end` on go to another connection), when
    /// `end` is below the stop and above the bytes written. From then on the sink never cuts the
    /// file (``releaseReservation()`` does nothing): other connections write past its bytes.
    /// A write in flight may still put a few bytes past `end`; they are the same bytes of the
    /// same version of the file (every segment is checked against one strong validator).
    ///
    /// - Returns: whether the stop moved.
    package func lowerStop(to end: Int64) -> Bool {
        sharesFile.store(true, ordering: .relaxed)
        while true {
            let current = stopAt.load(ordering: .relaxed)
            if current >= 0, end >= current { return false }
            if end <= length.load(ordering: .relaxed) { return false }
            if stopAt.compareExchange(expected: current, desired: end, ordering: .relaxed).exchanged { return true }
        }
    }

    /// The overlap window this segment's sink received before its range, once all of it arrived:
    /// `start` is where it lies in the file (``requestedOffset``), `bytes` what the server sent
    /// for it. `nil` for a sink without a window, or before the whole window arrived.
    package var receivedOverlap: (start: Int64, bytes: [UInt8])? {
        guard overlapEnd > requestedOffset else { return nil }
        let window = Int(overlapEnd - requestedOffset)
        let bytes = overlapBytes.withLock { $0 }
        return bytes.count == window ? (requestedOffset, bytes) : nil
    }

    /// Whether the file holds exactly `expected` at `offset` (read with `pread(2)` through the
    /// open descriptor); `nil` when it cannot be read (a short or failed read).
    package func fileHolds(_ expected: [UInt8], at offset: Int64) -> Bool? {
        var found = [UInt8](repeating: 0, count: expected.count)
        var done = 0
        while done < found.count {
            let n = found.withUnsafeMutableBytes { buffer in
                pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + Int64(done)))
            }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return nil }
            done += n
        }
        return found == expected
    }

    /// Lifts ``stop``: the writes go on to the end of the resource (the other connections were
    /// given up). Only for a sink made without an end.
    package func liftStop() {
        stopAt.store(-1, ordering: .relaxed)
    }

    /// Registers `observer`, called once ``begin(_:)`` has accepted a head (on the transport's
    /// thread; it must not block).
    package func observeHead(_ observer: @escaping @Sendable () -> Void) {
        headObserver.withLock { $0 = observer }
    }

    /// The free space of the staging file's file system that a reservation may take: what an
    /// unprivileged user may still write there, minus ``reservationMargin(fileSystemBytes:)``;
    /// 0 when it cannot be read.
    private func spareBytes() -> Int64 {
        var vfs = statvfs()
        guard fstatvfs(fd, &vfs) == 0 else { return 0 }
        let unit = Int64(clamping: vfs.f_frsize)
        let (free, freeOverflow) = Int64(clamping: vfs.f_bavail).multipliedReportingOverflow(by: unit)
        let (size, sizeOverflow) = Int64(clamping: vfs.f_blocks).multipliedReportingOverflow(by: unit)
        if freeOverflow || sizeOverflow { return 0 }
        return max(0, free - Self.reservationMargin(fileSystemBytes: size))
    }

    /// The free space a reservation always leaves on a file system of `fileSystemBytes` bytes:
    /// 5 % of it, and at least 64 MiB, so that a server announcing a huge length cannot make one
    /// download take the space other files need.
    package static func reservationMargin(fileSystemBytes: Int64) -> Int64 {
        max(64 << 20, fileSystemBytes / 20)
    }

    /// Gives back the disk space ``begin(_:)`` reserved past the bytes written (`ftruncate(2)` to
    /// ``fileLength``, which frees the blocks past the end of the file and keeps every byte
    /// written). The downloader calls it when an attempt ends without a complete file: failed,
    /// paused, cancelled or shut down. Call it only once the transport has returned (no write in
    /// flight); without a reservation it does nothing.
    package func releaseReservation() {
        guard reserved.exchange(false, ordering: .relaxed), !sharesFile.load(ordering: .relaxed) else { return }
        _ = ftruncate(fd, off_t(length.load(ordering: .relaxed)))
    }

    /// The size of the open staging file, read from its descriptor (`fstat(2)`), or `nil` when it
    /// cannot be read. What validation checks, whatever the name now points to.
    package var sizeOnDisk: Int64? {
        var st = stat()
        return fstat(fd, &st) == 0 ? Int64(st.st_size) : nil
    }

    /// The device that holds the open staging file (`st_dev` of `fstat(2)` on its descriptor), or
    /// `nil` when it cannot be read: ``CompletionFlusher`` keeps one queue per device.
    package var device: UInt64? {
        var st = stat()
        return fstat(fd, &st) == 0 ? UInt64(st.st_dev) : nil
    }

    /// The lowercase hex SHA-256 of the open staging file, read through its descriptor (never by
    /// name, so a link planted at the name is not what is hashed). Blocking.
    package func sha256() throws -> String {
        try FileValidation.sha256(of: fd, name: path)
    }

    /// Whether `name` still names the open staging file (same device and inode, seen with
    /// `lstat`, which does not follow a link): checked right before the file is moved into place.
    package func isNamed(by name: String) -> Bool {
        var open = stat(), named = stat()
        guard fstat(fd, &open) == 0, lstat(name, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    /// `fallocate(2)` and `sync_file_range(2)`, looked up at run time: Swift's Glibc module does
    /// not declare them (they need `_GNU_SOURCE`). `nil` where the C library lacks them.
    private static let fallocate = cFunction("fallocate", as: (@convention(c) (Int32, Int32, Int64, Int64) -> Int32).self)
    private static let syncFileRange = cFunction("sync_file_range", as: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32).self)

    private static func cFunction<F>(_ name: String, as type: F.Type) -> F? {
        #if os(Linux)
        guard let symbol = dlsym(nil, name) else { return nil }
        return unsafeBitCast(symbol, to: type)
        #else
        return nil
        #endif
    }

    /// How many ranges were handed to the kernel's writeback (see `startsWriteback`).
    package var writebackRangesStarted: Int { writebackRanges.load(ordering: .relaxed) }

    /// Flushes the written bytes to the disk (`fdatasync(2)`). Blocking: call it off the
    /// cooperative pool or accept the cost.
    package func synchronize() throws {
        if fdatasync(fd) != 0 {
            throw DownloadError.fileSystem(errno: errno, "cannot flush the staging file \(path)")
        }
    }

    /// Hands every written byte of the file to the kernel's writeback without waiting
    /// (`sync_file_range(2)` with `SYNC_FILE_RANGE_WRITE` over the whole file), so that a flush
    /// of several files finds them written together. Best effort; does nothing where the call
    /// is missing. Used by ``CompletionFlusher`` before it flushes a group.
    package func startWriteback() {
        if let start = Self.syncFileRange { _ = start(fd, 0, 0, 2 /* SYNC_FILE_RANGE_WRITE */) }
    }

    /// Ends the attempt: from now on every call throws and late writes are counted.
    package func seal() {
        sealed.store(true, ordering: .releasing)
    }

    /// How long the transport should wait before it reads more body bytes, so that the transfers
    /// sharing the sink's limiter (the download's budget inside the downloader's overall limit)
    /// stay within it; zero without one, before the first write, or once the wait is over. A
    /// transport listing ``TransportCapabilities/rateLimit`` reads it after each write and waits
    /// that long (on its own thread or clock, never blocking another transfer).
    ///
    /// The wait is the one the sink's own last write got from the limiter
    /// (``BandwidthLimiter/consume(_:)``), so the transfers sharing it are served in turn; it
    /// counts down as the limiter's clock moves and may be asked again at any time. When the
    /// limit changed since that write, it is no longer than what the limiter asks now, so a
    /// raised limit takes effect at once.
    package var pacingDelay: Duration {
        guard let pacing else { return .zero }
        let until = pacedUntil.load(ordering: .relaxed)
        guard until != .min else { return .zero }
        let own = max(.zero, Duration.nanoseconds(until) - pacing.clockNow)
        if own > .zero, pacedGeneration.load(ordering: .relaxed) != pacing.generation {
            return min(own, pacing.delay)
        }
        return own
    }

    private static func nanoseconds(_ d: Duration) -> Int64 {
        let (seconds, attoseconds) = d.components
        // Saturating: a clamped wait of Int64.max nanoseconds after any instant stays the longest.
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds > 0 ? .max : .min }
        return whole.addingSaturating(attoseconds / 1_000_000_000)
    }

    /// The number of bytes of the resource in the file now (the offset of the next write).
    package var fileLength: Int64 { length.load(ordering: .relaxed) }

    /// Increases with every head and write; the downloader's idle timeout watches it.
    package var activityCount: UInt64 { activity.load(ordering: .relaxed) }

    /// The total length the head announced (``TransferHead/expectedLength``), read without the
    /// head's lock; `nil` before the head or when it announced none.
    package var announcedLength: Int64? {
        let total = expected.load(ordering: .relaxed)
        return total >= 0 ? total : nil
    }

    /// The head, once ``begin(_:)`` succeeded.
    package var head: TransferHead? { receivedHead.withLock { $0 } }

    /// Whether the download's own rate budget paces the writes now (an overall limit alone does
    /// not count: it is shared by every download anyway): a transport may then read over one
    /// connection only.
    package var isPaced: Bool { pacing?.isLimitedBudget ?? false }

    /// Whether ``seal()`` was called.
    package var isSealed: Bool { sealed.load(ordering: .acquiring) }

    /// Writes attempted after ``seal()``: a correct transport leaves this at 0.
    package var lateWriteAttempts: Int { lateWrites.load(ordering: .relaxed) }
}
