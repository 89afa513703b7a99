import FileDownload
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// snippet: file-transport
/// A complete ``Transport`` for `file://` URLs: copies a local file into the sink, resuming at
/// an offset when the file did not change (its size and mtime are the validator).
///
/// It follows the five steps of the `Transport` contract and runs its blocking reads on a thread
/// of its own, so the cooperative pool is never blocked; cancellation stops it between chunks.
struct FileTransport: Transport {
    /// Bytes per read.
    var chunkSize = 256 * 1024

    var capabilities: TransportCapabilities { [.resume, .validators, .expectedLength] }

    func transfer(_ request: TransferRequest, into sink: TransferSink) async throws {
        // 1. Open the resource and learn its current version.
        let path = request.url.path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Self.error(errno, path) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Self.error(errno, path) }
        let size = Int64(st.st_size)
        let validator = Validator.sizeAndModificationTime(size: size, mtime: Int64(st.st_mtim.tv_sec))

        // 3. Say what happens to the offset before the first byte: never splice a changed file.
        let disposition: ResumeDisposition
        if request.offset == 0 {
            disposition = .resumed(at: 0)
        } else if let known = request.validator, known != validator {
            disposition = .restarted(.validatorChanged)
        } else if request.offset > size {
            disposition = .restarted(.rangeMismatch)
        } else if request.offset == size {
            disposition = .complete
        } else {
            disposition = .resumed(at: request.offset)
        }
        try sink.begin(TransferHead(disposition: disposition, expectedLength: size, validator: validator))
        if case .complete = disposition { return }
        let start: Int64 = if case .resumed(let offset) = disposition { offset } else { 0 }

        // 4. Deliver the body from a thread of our own; 5. return when done, throw otherwise.
        let stop = Atomic<Bool>(false)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
                let chunk = chunkSize
                let thread = Thread {
                    done.resume(with: Result { try Self.copy(fd: fd, from: start, size: size, chunk: chunk, into: sink, stop: stop) })
                }
                thread.start()
            }
        } onCancel: {
            stop.store(true, ordering: .relaxed)
        }
    }

    /// The blocking copy loop: `pread` a chunk, hand it to the sink, until the end or a stop.
    private static func copy(fd: Int32, from start: Int64, size: Int64, chunk: Int, into sink: TransferSink,
                             stop: borrowing Atomic<Bool>) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset = start
        while offset < size {
            if stop.load(ordering: .relaxed) { throw CancellationError() }
            let n = pread(fd, buffer.baseAddress, min(chunk, Int(size - offset)), off_t(offset))
            if n < 0 {
                if errno == EINTR { continue }
                throw DownloadError.fileSystem(errno: errno, "cannot read the source file")
            }
            if n == 0 {
                throw DownloadError(.protocolViolation, "the source file shrank while it was read")
            }
            try sink.write(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            offset += Int64(n)
        }
    }

    /// Maps `open`/`stat` failures to the codes the downloader understands.
    private static func error(_ code: Int32, _ path: String) -> DownloadError {
        switch code {
        case ENOENT: DownloadError(.notFound, "no file at \(path)")
        case EACCES, EPERM: DownloadError(.permissionDenied, "no permission to read \(path)")
        default: DownloadError.fileSystem(errno: code, "cannot open \(path)")
        }
    }
}
// end-snippet
