import FileDownload
import Foundation
import Testing

/// `TransferWriter` is all a transport sees of an attempt: these are the promises of its DocC.
@Suite("TransferWriter, the transport's side of an attempt", .timeLimit(.minutes(1)))
struct TransferWriterTests {
    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("writer-\(UUID().uuidString).part").path
    }

    @Test("the head is nil until begin accepts one; writes land after the offset; copies write to the same file")
    func headAndWrites() throws {
        let path = temporaryPath()
        defer { unlink(path) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data("abc".utf8)))
        let sink = try TransferSink(path: path, requestedOffset: 3)
        let writer = sink.writer
        #expect(writer.head == nil)
        #expect(writer.pacingDelay == .zero)
        #expect(throws: DownloadError.self) { try Data("x".utf8).withUnsafeBytes { try writer.write($0) } }

        try writer.begin(TransferHead(disposition: .resumed(at: 3), expectedLength: 7))
        #expect(writer.head?.disposition == .resumed(at: 3))
        try Data("de".utf8).withUnsafeBytes { try writer.write($0) }
        let copy = writer
        try Data("fg".utf8).withUnsafeBytes { try copy.write($0) }
        #expect(throws: DownloadError.self) { try writer.begin(TransferHead(disposition: .resumed(at: 3))) }
        sink.seal()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "abcdefg")
    }

    @Test("once the attempt is over a write throws cancelled, changes nothing and is counted")
    func lateWrite() throws {
        let path = temporaryPath()
        defer { unlink(path) }
        let sink = try TransferSink(path: path, requestedOffset: 0)
        let writer = sink.writer
        try writer.begin(TransferHead(disposition: .resumed(at: 0), expectedLength: nil))
        try Data("abc".utf8).withUnsafeBytes { try writer.write($0) }
        sink.seal()
        let error = #expect(throws: DownloadError.self) { try Data("zzz".utf8).withUnsafeBytes { try writer.write($0) } }
        #expect(error?.code == .cancelled)
        #expect(sink.lateWriteAttempts == 1)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "abc")
    }

    @Test("a head the downloader's check refuses is rethrown and nothing is written")
    func refusedHead() throws {
        let path = temporaryPath()
        defer { unlink(path) }
        let sink = try TransferSink(path: path, requestedOffset: 0) { head in
            if head.statusCode == 404 { throw DownloadError(.notFound, "refused by the check") }
        }
        let writer = sink.writer
        let error = #expect(throws: DownloadError.self) {
            try writer.begin(TransferHead(disposition: .resumed(at: 0), statusCode: 404, expectedLength: 9))
        }
        #expect(error?.code == .notFound)
        #expect(writer.head == nil)
        #expect(throws: DownloadError.self) { try Data("error page".utf8).withUnsafeBytes { try writer.write($0) } }
        sink.seal()
        #expect(sink.fileLength == 0)
    }
}
