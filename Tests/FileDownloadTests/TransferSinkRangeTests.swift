import FileDownload
import FileDownloadMock
import FileDownloadTestSupport
import Foundation
import Testing

@Suite("TransferSink with a range end and a shared limiter", .timeLimit(.minutes(1)))
struct TransferSinkRangeTests {
    private let piece = [UInt8](repeating: 7, count: 1000)

    @Test("a resumed body may fill the range but not pass its end; nothing past it is written")
    func refusesPastTheEnd() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = try dir.createFile("range.part", contents: Data(repeating: 1, count: 500))
        let sink = try TransferSink(path: path, requestedOffset: 500, end: 2500)
        try sink.begin(TransferHead(disposition: .resumed(at: 500), expectedLength: 10_000))
        try piece.withUnsafeBytes { try sink.write($0) }
        try piece.withUnsafeBytes { try sink.write($0) }
        #expect(sink.fileLength == 2500)
        #expect(throws: DownloadError.self) { try piece.prefix(1).withUnsafeBytes { try sink.write($0) } }
        sink.seal()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == 2500)
    }

    @Test("after a restart the body is the whole resource: the end no longer applies")
    func restartLiftsTheEnd() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = try dir.createFile("range.part", contents: Data(repeating: 1, count: 500))
        let sink = try TransferSink(path: path, requestedOffset: 500, end: 1000)
        try sink.begin(TransferHead(disposition: .restarted(.rangeIgnored), expectedLength: 3000))
        for _ in 0..<3 { try piece.withUnsafeBytes { try sink.write($0) } }
        sink.seal()
        #expect(sink.fileLength == 3000)
    }

    @Test("every byte written is taken from the shared limiter; each sink waits its own turn")
    func pacing() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let clock = ManualClock()
        let limiter = BandwidthLimiter(bytesPerSecond: 10_000, burst: .zero, clock: clock)
        let a = try TransferSink(path: dir.path("a.part"), requestedOffset: 0, pacing: limiter)
        let b = try TransferSink(path: dir.path("b.part"), requestedOffset: 0, pacing: limiter)
        let plain = try TransferSink(path: dir.path("c.part"), requestedOffset: 0)
        for sink in [a, b, plain] { try sink.begin(TransferHead(disposition: .resumed(at: 0))) }
        try piece.withUnsafeBytes { try a.write($0) }
        try piece.withUnsafeBytes { try b.write($0) }
        try piece.withUnsafeBytes { try plain.write($0) }
        // 1,000 bytes at 10,000 B/s each, in turn: a waits 0.1 s, b (behind it) 0.2 s; the third
        // shares nothing.
        #expect(a.pacingDelay == .milliseconds(100))
        #expect(b.pacingDelay == .milliseconds(200))
        #expect(plain.pacingDelay == .zero)
        clock.advance(by: .milliseconds(150))
        #expect(a.pacingDelay == .zero)
        #expect(b.pacingDelay == .milliseconds(50))
        // A raised limit shortens a promised wait to what the limiter asks now.
        limiter.bytesPerSecond = 1_000_000
        #expect(b.pacingDelay <= .microseconds(500))
    }
}
