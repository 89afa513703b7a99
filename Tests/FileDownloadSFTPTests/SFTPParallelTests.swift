import FileDownload
@testable import FileDownloadSFTP
import FileDownloadTestSupport
import Foundation
import Testing

/// Large files read over two sessions in alternating segments, written in order.
@Suite("SFTPTransport reads large files over two sessions", .serialized)
struct SFTPParallelTests {
    static let size = 40 * 1024 * 1024 + 12_345

    static func randomFile(_ server: SSHServer) throws -> [UInt8] {
        let handle = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        let content = [UInt8](handle.readData(ofLength: size))
        try server.serve("large.bin", content)
        return content
    }

    static func transport(_ server: SSHServer) -> SFTPTransport {
        SFTPTransport(configuration: .init(knownHostsFile: server.knownHosts, identityFiles: [server.clientKey],
                                           useAgent: false, parallelThreshold: 1024 * 1024))
    }

    @Test("a whole file and a resumed one arrive byte-identical over two sessions")
    func wholeAndResumed() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        let content = try Self.randomFile(server)
        let transport = Self.transport(server)
        let whole = try await Fixtures.fetch(transport, server.url("large.bin"))
        #expect(whole.bytes == content)
        #expect(transport.sessionsOpened == 2)
        let validator = try #require(whole.head?.validator)

        let kept = Array(content[0..<(5 * 1024 * 1024 + 7)])
        let resumed = try await Fixtures.fetch(transport, server.url("large.bin"), existing: kept, validator: validator)
        #expect(resumed.head?.disposition == .resumed(at: Int64(kept.count)))
        #expect(resumed.bytes == content)
        #expect(transport.sessionsOpened == 2)
        await transport.shutdown()
    }

    @Test("sessions killed mid-transfer leave a contiguous prefix; the resume completes the file")
    func killedLeavesPrefix() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        let content = try Self.randomFile(server)
        let transport = Self.transport(server)
        let running = try await Fixtures.start(transport, server.url("large.bin"), options: TransferOptions())
        defer { try? FileManager.default.removeItem(at: running.folder) }
        server.killChildren()
        let error = await #expect(throws: DownloadError.self) { try await running.task.value }
        #expect(error?.isRetryable == true)
        running.sink.seal()
        let kept = [UInt8](try Data(contentsOf: URL(fileURLWithPath: running.path)))
        #expect(kept.count < content.count && kept == Array(content[0..<kept.count]))
        let validator = try #require(running.sink.head?.validator)
        let resumed = try await Fixtures.fetch(transport, server.url("large.bin"), existing: kept, validator: validator)
        #expect(resumed.bytes == content)
        await transport.shutdown()
    }

    @Test("cancel stops both sessions; nothing is written afterwards")
    func cancel() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        _ = try Self.randomFile(server)
        let transport = Self.transport(server)
        let running = try await Fixtures.start(transport, server.url("large.bin"), options: TransferOptions())
        defer { try? FileManager.default.removeItem(at: running.folder) }
        running.task.cancel()
        let error = await #expect(throws: (any Error).self) { try await running.task.value }
        #expect(DownloadError.wrapping(error!).code == .cancelled)
        let length = running.sink.fileLength
        running.sink.seal()
        let onDisk = try Data(contentsOf: URL(fileURLWithPath: running.path)).count
        #expect(Int64(onDisk) == length)
        #expect(running.sink.lateWriteAttempts == 0)
        await transport.shutdown()
    }
}
