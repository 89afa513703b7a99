import FileDownload
import Foundation
import Testing

@Suite("TransferSink writes and early writeback", .timeLimit(.minutes(1)))
struct TransferSinkTests {
    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("sink-\(UUID().uuidString).part").path
    }

    /// 20 MiB of a repeating pattern in 256 KiB pieces.
    private func write(_ sink: TransferSink, megabytes: Int) throws -> [UInt8] {
        var all: [UInt8] = []
        let piece = (0..<(256 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        for _ in 0..<(megabytes * 4) {
            try piece.withUnsafeBytes { try sink.write($0) }
            all += piece
        }
        return all
    }

    @Test("with early writeback every 8 MiB is handed to the kernel and the bytes are the same")
    func writeback() throws {
        let path = temporaryPath()
        defer { unlink(path) }
        let sink = try TransferSink(path: path, requestedOffset: 0, startsWriteback: true)
        try sink.begin(TransferHead(disposition: .restarted(.resumeUnsupported), expectedLength: 20 << 20))
        let written = try write(sink, megabytes: 20)
        sink.seal()
        #expect(sink.fileLength == 20 << 20)
        #expect(sink.writebackRangesStarted == 2)  // at 8 and 16 MiB; the last 4 MiB wait for the flush
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(written))
    }

    @Test("without it nothing is handed over early")
    func noWriteback() throws {
        let path = temporaryPath()
        defer { unlink(path) }
        let sink = try TransferSink(path: path, requestedOffset: 0)
        try sink.begin(TransferHead(disposition: .restarted(.resumeUnsupported), expectedLength: nil))
        _ = try write(sink, megabytes: 9)
        sink.seal()
        #expect(sink.writebackRangesStarted == 0)
        #expect(sink.fileLength == 9 << 20)
    }

    @Test("a resumed sink counts from its offset, a restarted one from zero")
    func resumedAndRestarted() throws {
        let path = temporaryPath()
        defer { unlink(path) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(count: 6 << 20)))
        let resumed = try TransferSink(path: path, requestedOffset: 6 << 20, startsWriteback: true)
        try resumed.begin(TransferHead(disposition: .resumed(at: 6 << 20), expectedLength: nil))
        _ = try write(resumed, megabytes: 7)  // 13 MiB in the file, 7 MiB new: not yet 8
        resumed.seal()
        #expect(resumed.writebackRangesStarted == 0)
        #expect(resumed.fileLength == 13 << 20)

        let restarted = try TransferSink(path: path, requestedOffset: 6 << 20, startsWriteback: true)
        try restarted.begin(TransferHead(disposition: .restarted(.validatorChanged), expectedLength: nil))
        _ = try write(restarted, megabytes: 8)
        restarted.seal()
        #expect(restarted.writebackRangesStarted == 1)
        #expect(restarted.fileLength == 8 << 20)
    }

    /// Allocated bytes (st_blocks) and size of the file at `path`.
    private func allocation(_ path: String) -> (allocated: Int64, size: Int64) {
        var st = stat()
        guard stat(path, &st) == 0 else { return (-1, -1) }
        return (Int64(st.st_blocks) * 512, Int64(st.st_size))
    }

    @Test("an announced 20 MiB is reserved on disk at the head, the size stays the bytes written")
    func preallocation() throws {
        let path = temporaryPath()  // the temporary directory is on ext4 here, which has fallocate
        defer { unlink(path) }
        let sink = try TransferSink(path: path, requestedOffset: 0)
        try sink.begin(TransferHead(disposition: .restarted(.resumeUnsupported), expectedLength: 20 << 20))
        let reserved = allocation(path)
        #expect(reserved.size == 0)
        #expect(reserved.allocated >= 20 << 20)
        let written = try write(sink, megabytes: 20)
        sink.seal()
        #expect(allocation(path).size == 20 << 20)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(written))
    }

    @Test("small files and unknown lengths reserve nothing")
    func noPreallocation() throws {
        for expected in [Int64(64 << 10), nil] {
            let path = temporaryPath()
            defer { unlink(path) }
            let sink = try TransferSink(path: path, requestedOffset: 0)
            try sink.begin(TransferHead(disposition: .restarted(.resumeUnsupported), expectedLength: expected))
            sink.seal()
            #expect(allocation(path).allocated == 0)
        }
    }
}
