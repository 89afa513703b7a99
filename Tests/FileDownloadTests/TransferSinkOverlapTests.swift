import FileDownload
import Foundation
import Testing

/// A segment's sink keeps its overlap window for the comparison instead of writing it; a sink
/// without a window writes every byte, also after a restart from zero.
@Suite("TransferSink overlap windows", .timeLimit(.minutes(1)))
struct TransferSinkOverlapTests {
    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("overlap-\(UUID().uuidString).part").path
    }

    @Test("a segment's window is kept, not written; the file is compared with it")
    func window() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let neighbour = [UInt8](repeating: 7, count: 100)
        try Data(neighbour).write(to: URL(fileURLWithPath: path))
        // The range starts at 100; its request starts 16 bytes before, at 84.
        let sink = try TransferSink(segmentOf: path, offset: 84, end: 200, overlap: 16)
        try sink.begin(TransferHead(disposition: .resumed(at: 84), expectedLength: 200))
        let body = [UInt8](repeating: 9, count: 10) + [UInt8](repeating: 7, count: 6) + [UInt8](repeating: 1, count: 100)
        #expect(sink.receivedOverlap == nil)
        try body.prefix(10).withUnsafeBytes { try sink.write($0) }  // part of the window only
        #expect(sink.receivedOverlap == nil)
        try body.dropFirst(10).withUnsafeBytes { try sink.write($0) }
        let window = try #require(sink.receivedOverlap)
        #expect(window.start == 84 && window.bytes == Array(body.prefix(16)))
        // The neighbour's bytes stay; the range's own bytes follow at 100.
        let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(file == neighbour + [UInt8](repeating: 1, count: 100))
        #expect(sink.fileHolds(window.bytes, at: 84) == false)  // 9s where the neighbour has 7s
        #expect(sink.fileHolds([UInt8](repeating: 7, count: 16), at: 84) == true)
    }

    @Test("a resumed sink answered from zero writes the body from byte zero")
    func restartWritesEverything() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(repeating: 3, count: 1000).write(to: URL(fileURLWithPath: path))
        let sink = try TransferSink(path: path, requestedOffset: 1000)
        try sink.begin(TransferHead(disposition: .restarted(.rangeIgnored), expectedLength: 2000))
        let body = [UInt8](repeating: 5, count: 2000)
        try body.withUnsafeBytes { try sink.write($0) }
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == body)
        #expect(sink.receivedOverlap == nil)
    }
}
