import FileDownload
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// snippet: file-transport
/// A complete ``Transport`` for `file://` URLs: copies a local file into the writer, resuming at
/// an offset when the file did not change (its size and mtime are the validator). A named pipe
/// is streamed until its writer closes it (no size, no validator, no resume).
///
/// It follows the five steps of the `Transport` contract on a thread of its own, so blocking
/// calls never block Swift's cooperative pool; cancellation stops it within 50 ms.
struct FileTransport: Transport {
    /// Bytes per read.
    var chunkSize = 256 * 1024

    var capabilities: TransportCapabilities { [.resume, .validators, .expectedLength] }

    func transfer(_ request: TransferRequest, into writer: TransferWriter) async throws {
        let stop = Atomic<Bool>(false)
        let chunk = chunkSize
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
                Thread {
                    done.resume(with: Result { try Self.copy(request, into: writer, chunk: chunk, stop: stop) })
                }.start()
            }
        } onCancel: {
            stop.store(true, ordering: .relaxed)
        }
    }

    /// One attempt, on the transport's thread.
    private static func copy(_ request: TransferRequest, into writer: TransferWriter, chunk: Int,
                             stop: borrowing Atomic<Bool>) throws {
        // 1. Open the resource and learn its current version.
        let path = request.url.path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw error(errno, path) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw error(errno, path) }
        let isRegular = (st.st_mode & S_IFMT) == S_IFREG
        let size: Int64? = isRegular ? Int64(st.st_size) : nil
        let validator: Validator? = size.map { .sizeAndModificationTime(size: $0, mtime: Int64(st.st_mtim.tv_sec)) }

        // 3. Say what happens to the offset before the first byte: never splice a changed file.
        let disposition: ResumeDisposition
        if request.offset == 0 {
            disposition = .resumed(at: 0)
        } else if let size, request.validator == validator {
            disposition = request.offset == size ? .complete
                : request.offset < size ? .resumed(at: request.offset) : .restarted(.rangeMismatch)
        } else {
            disposition = .restarted(size == nil ? .resumeUnsupported : .validatorChanged)
        }
        try writer.begin(TransferHead(disposition: disposition, expectedLength: size, validator: validator))
        if case .complete = disposition { return }
        var offset: Int64 = if case .resumed(let at) = disposition { at } else { 0 }

        // 4. Deliver the body chunk by chunk; 5. return at the end, throw otherwise.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        while size.map({ offset < $0 }) ?? true {
            if stop.load(ordering: .relaxed) { throw CancellationError() }
            let n: Int
            if isRegular {
                n = pread(fd, buffer.baseAddress, chunk, off_t(offset))  // a file is always ready
            } else {
                var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&ready, 1, 50) == 0 { continue }  // nothing yet: look at the stop flag again
                n = read(fd, buffer.baseAddress, chunk)
                if n == 0 { return }  // a pipe ends when its writer closes it
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw DownloadError.fileSystem(errno: errno, "cannot read \(path)")
            }
            if n == 0 { throw DownloadError(.protocolViolation, "\(path) shrank while it was read") }
            try writer.write(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
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
