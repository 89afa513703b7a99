import FileDownload
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// ENOSPC in the middle of a transfer, because another file took the space the download was
/// counting on: the download waits for space with its bytes (no failure, no retry used) and
/// continues by itself, from those bytes, when the space is freed. A real tmpfs (root, as in CI)
/// and the fault server sending at a bounded rate; every wait is on the downloader's events,
/// bounded by the suite's time limit.
@Suite("A disk filled by another file mid-way", .serialized, .timeLimit(.minutes(3)))
struct MidwayDiskFullTests {
    @Test("ENOSPC mid-way: the download waits for space keeping its bytes, and continues from them when the space is freed")
    func waitsThenContinues() async throws {
        let tmpfs = try TmpfsMount(size: "16m")
        defer { tmpfs.unmount() }
        try await HTTPFixture.with(fault: true) { fx in
            let size = 12 << 20
            let sha = try TestFiles.write(fx.served.appendingPathComponent("mid.bin"), size: size, seed: 11)
            var transports = TransportRegistry()
            transports.register(try HTTPTransport(configuration: .init(proxy: .none)), for: "http")
            // No retry at all: a full disk must not need one.
            let downloader = Downloader(
                configuration: DownloaderConfiguration(
                    retryPolicy: RetryPolicy(maxRetries: 0), progressInterval: .milliseconds(50),
                    downloadsDirectory: tmpfs.url, synchronizesFiles: false),
                transports: transports)
            let (events, feed) = AsyncStream.makeStream(of: DownloadEvent.self)
            downloader.observe { feed.yield($0) }
            var next = events.makeAsyncIterator()
            let file = tmpfs.url.appending(path: "mid.bin")
            try await downloader.start(id: "m", url: fx.fault.url("mid.bin", "rate=2000000"), destination: file)

            // 1 MiB in (about half a second at 2 MB/s), another file takes all the free space
            // (written until ENOSPC, so the download's own writes meanwhile do not matter): the
            // next writes of the download meet ENOSPC.
            while let event = await next.next() {
                if case .progress("m", let p) = event, p.receivedBytes >= 1 << 20 { break }
            }
            let filler = tmpfs.url.appending(path: "filler")
            try Self.fill(filler)
            while let event = await next.next() {
                if case .onHold("m", .insufficientSpace) = event { break }
                if case .failed("m", let error, _) = event { Issue.record("failed: \(error)"); break }
            }
            let held = try #require(await downloader.info(of: "m"))
            #expect(held.state == .interrupted && held.waitReason == .insufficientSpace, "\(held)")
            #expect(held.lastErrorCode == .diskFull)
            let part = try FileManager.default.attributesOfItem(atPath: tmpfs.path("mid.bin.part"))
            let kept = (part[.size] as? NSNumber)?.int64Value ?? 0
            #expect(kept >= 1 << 20, "the bytes written before the disk filled are kept: \(kept)")

            // The other file goes: the downloader's tick sees the room and continues by itself.
            try FileManager.default.removeItem(at: filler)
            while let event = await next.next() {
                if case .completed("m", _) = event { break }
                if case .failed("m", let error, _) = event { Issue.record("failed: \(error)"); break }
            }
            #expect(try TestFiles.sha256(file) == sha)
            // One request continued the kept bytes (from at least the 1 MiB seen), and little was
            // sent twice: at most what was in flight when the disk filled.
            let ranges = try fx.fault.stats().ranges
            let from = ranges.first.flatMap { Int64($0.dropFirst("bytes=".count).prefix { $0.isNumber }) } ?? 0
            #expect(ranges.count == 1 && from >= 1 << 20, "\(ranges)")
            #expect(try fx.fault.bodyBytesSent() <= Int64(size + (1 << 20)))
            await downloader.shutdown()
            feed.finish()
        }
    }

    /// Creates `file` and writes zeros to it until its file system is full (ENOSPC): bounded by
    /// the size of that file system.
    static func fill(_ file: URL) throws {
        let fd = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw TestFailure("cannot create \(file.path): errno \(errno)") }
        defer { close(fd) }
        let block = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            if write(fd, block, block.count) >= 0 { continue }
            if errno == EINTR { continue }
            if errno == ENOSPC { return }
            throw TestFailure("cannot write \(file.path): errno \(errno)")
        }
    }
}
