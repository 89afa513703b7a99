@testable import FileDownloadHTTP
import FileDownload
import Foundation
import Testing

/// The gathering of libcurl's 16 KiB pieces into large writes, without a server: pieces are fed
/// as libcurl's write callback would, and the staging files and the sinks' write counts show what
/// reached the disk and when.
@Suite("BodyGatherer")
struct BodyGathererTests {
    /// A transfer (no request is ever made) writing into a begun sink on a fresh staging file.
    final class Fixture {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gather-\(UUID().uuidString)").path
        let sink: TransferSink
        let transfer: CurlTransfer

        init(expected: Int64? = nil) throws {
            sink = try TransferSink(path: path, requestedOffset: 0)
            try sink.begin(TransferHead(disposition: .restarted(.resumeUnsupported), expectedLength: expected))
            transfer = try CurlTransfer(writer: sink.writer, context: .init(
                offset: 0, validator: nil, sentRange: false, restartReason: .resumeUnsupported,
                requestURL: "http://127.0.0.1/x", initialURL: "http://127.0.0.1/x", allowsHTTPSToHTTPRedirects: false,
                followsRedirects: true, withholdsSecretsFromOtherOrigins: false))
        }

        deinit { unlink(path) }

        var writes: UInt64 { sink.activityCount - 1 }  // begin counts once
        var bytes: [UInt8] { (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) ?? [] }
    }

    private func piece(_ size: Int, _ seed: UInt8) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: Int(seed) &* 131 &+ $0) }
    }

    @Test("full pieces wait, a short piece ends the read: one write, bytes in order")
    func oneRead() throws {
        let f = try Fixture()
        let gatherer = BodyGatherer(largestPiece: 16384)
        var sent: [UInt8] = []
        for i in 0..<5 {
            let p = piece(16384, UInt8(i))
            sent += p
            #expect(p.withUnsafeBytes { gatherer.append($0, for: f.transfer) })
            #expect(f.writes == 0)
        }
        let last = piece(1000, 9)
        sent += last
        #expect(last.withUnsafeBytes { gatherer.append($0, for: f.transfer) })
        #expect(f.writes == 1)
        #expect(f.bytes == sent)
        #expect(!gatherer.holds(f.transfer))
    }

    @Test("a full buffer is written at once; flush() writes the rest")
    func capacity() throws {
        let f = try Fixture()
        let gatherer = BodyGatherer(largestPiece: 16384, capacity: 65536)
        var sent: [UInt8] = []
        for i in 0..<6 {
            let p = piece(16384, UInt8(i))
            sent += p
            #expect(p.withUnsafeBytes { gatherer.append($0, for: f.transfer) })
        }
        #expect(f.writes == 1)
        #expect(f.sink.fileLength == 65536)
        #expect(gatherer.flush())
        #expect(f.writes == 2)
        #expect(f.bytes == sent)
    }

    @Test("a piece of another transfer writes the first one's bytes before it takes the buffer")
    func twoTransfers() throws {
        let a = try Fixture(), b = try Fixture()
        let gatherer = BodyGatherer(largestPiece: 16384)
        let pa = piece(16384, 1), pb = piece(16384, 2)
        #expect(pa.withUnsafeBytes { gatherer.append($0, for: a.transfer) })
        #expect(pb.withUnsafeBytes { gatherer.append($0, for: b.transfer) })
        #expect(a.bytes == pa)
        #expect(b.writes == 0)
        #expect(gatherer.holds(b.transfer))
        #expect(gatherer.flush(for: a.transfer))  // not the owner: nothing happens
        #expect(b.writes == 0)
        #expect(gatherer.flush(for: b.transfer))
        #expect(b.bytes == pb)
    }

    @Test("a refused write is the transfer's failure and stops it")
    func refused() throws {
        let f = try Fixture(expected: 20000)  // more than announced is a protocol violation
        let gatherer = BodyGatherer(largestPiece: 16384)
        #expect(piece(16384, 1).withUnsafeBytes { gatherer.append($0, for: f.transfer) })
        #expect(piece(16384, 2).withUnsafeBytes { gatherer.append($0, for: f.transfer) })  // gathered, not yet written
        #expect(!piece(100, 3).withUnsafeBytes { gatherer.append($0, for: f.transfer) })   // the write of 32,868 bytes
        #expect(f.transfer.failure?.code == .protocolViolation)
        #expect(f.sink.fileLength == 0)
        #expect(!gatherer.holds(f.transfer))
    }
}
