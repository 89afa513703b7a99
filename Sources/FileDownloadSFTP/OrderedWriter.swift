import FileDownload
import Foundation

/// Writes the segments that several I/O threads read, to one `TransferWriter`, strictly in segment
/// order, so the file only ever holds a contiguous prefix (a failure leaves nothing spliced).
final class OrderedWriter: @unchecked Sendable {
    private let output: TransferWriter
    private let condition = NSCondition()
    private var next = 0
    private var failure: (any Error)?

    init(output: TransferWriter) {
        self.output = output
    }

    /// Waits until every segment before `segment` was written, then writes `bytes`.
    /// - Throws: the first failure of any reader (reported with ``fail(_:)``), or the writer's error
    ///   (which the reader reports with ``fail(_:)`` as any other failure).
    func write(segment: Int, _ bytes: UnsafeRawBufferPointer) throws {
        condition.lock()
        while next != segment && failure == nil { condition.wait() }
        if let failure {
            condition.unlock()
            throw failure
        }
        condition.unlock()
        try output.write(bytes)
        condition.lock()
        next += 1
        condition.broadcast()
        condition.unlock()
    }

    /// The writer's `TransferWriter.pacingDelay`: how long a reader waits before reading more.
    var pacingDelay: Duration { output.pacingDelay }

    /// Stops every reader waiting for its turn, with `error` (the first failure wins).
    func fail(_ error: any Error) {
        condition.lock()
        if failure == nil { failure = error }
        condition.broadcast()
        condition.unlock()
    }
}
