import FileDownload
import FileDownloadMock
import Foundation
import Testing

/// The files the library opens, cuts, moves and deletes (issue 11, "Files and paths"): never
/// through a link someone planted, never at a path a store record or resume data made up, never
/// another download's file, and what is validated is what is moved into place.
@Suite("File handling: planted links, untrusted paths, collisions, validated file", .timeLimit(.minutes(1)))
struct FileHandlingTests {
    /// A file outside the downloads directory that no download may change.
    struct Victim {
        static let bytes = Data(repeating: 0x41, count: 10_000)
        let directory: URL
        var url: URL { directory.appendingPathComponent("victim") }

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("fdl-outside-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Self.bytes.write(to: url)
        }

        var untouched: Bool { (try? Data(contentsOf: url)) == Self.bytes }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    /// How the staging file of download `a` was prepared by someone else.
    enum Plant: String, CaseIterable, CustomTestStringConvertible {
        /// A symbolic link to the victim, met by a fresh start.
        case symlinkFresh
        /// A symbolic link to the victim, met by a resume.
        case symlinkResume
        /// A hard link to the victim, met by a resume.
        case hardLinkResume
        var testDescription: String { rawValue }
    }

    @Test("a link planted at the staging file is never written through; the download starts from zero",
          arguments: Plant.allCases)
    func plantedLink(_ plant: Plant) async throws {
        let victim = try Victim()
        let h = Harness()
        let content = h.serve("a", size: 10_000, chunkSize: 1000)
        let part = h.file("a").path + ".part"
        if plant == .hardLinkResume {
            #expect(link(victim.url.path, part) == 0)
        } else {
            #expect(symlink(victim.url.path, part) == 0)
        }
        if plant == .symlinkFresh {
            try await h.downloader.start(id: "a", url: h.url("a"))
        } else {
            let data = ResumeData(id: "a", url: h.url("a"), destination: h.file("a"), partPath: part, bytesOnDisk: 4000,
                                  validator: content.defaultValidator, expectedLength: 10_000, options: DownloadOptions())
            try await h.downloader.start(id: "a", resumeData: data)
        }
        await h.recorder.state("a", .completed)
        #expect(victim.untouched)
        #expect(h.contents(h.file("a")) == content.data)
        #expect(h.mock.requests(for: h.url("a")).map(\.offset) == [0])
        var st = stat()
        #expect(lstat(h.file("a").path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG && st.st_nlink == 1)
        await h.cleanUp()
        victim.remove()
    }

    @Test("restore never cuts a file through a link planted at the staging file")
    func restoreThroughLink() async throws {
        let victim = try Victim()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fdl-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let destination = directory.appendingPathComponent("a")
        #expect(symlink(victim.url.path, destination.path + ".part") == 0)
        let record = DownloadRecord(id: "a", url: URL(string: "mock://files/a")!, destination: destination,
                                    partPath: destination.path + ".part", state: .paused, validator: nil,
                                    checkpointedBytes: 5, expectedLength: nil, queueOrder: 0)
        let h = Harness(store: InMemoryDownloadStore(records: [record]), directory: directory)
        let report = try await h.downloader.restore()
        #expect(victim.untouched)
        #expect(report.restartedFromZero == ["a"])
        #expect(await h.downloader.resumeData(for: "a")?.bytesOnDisk == 0)
        await h.cleanUp()
        victim.remove()
    }

    /// A store record whose paths a process of this library never writes, made for a downloads
    /// directory (which has a subdirectory `sub`) and a victim.
    struct Forged: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let record: @Sendable (_ directory: URL, _ victim: Victim) -> DownloadRecord

        static let all = [
            Forged(testDescription: "a staging path outside, not the destination's") { directory, victim in
                DownloadRecord(id: "a", url: URL(string: "mock://files/a")!, destination: directory.appendingPathComponent("a"),
                               partPath: victim.url.path, state: .paused, validator: nil,
                               checkpointedBytes: 5, expectedLength: nil, queueOrder: 0)
            },
            Forged(testDescription: "a destination that climbs out with '..'") { directory, victim in
                let climbing = directory.path + "/sub/../../" + victim.directory.lastPathComponent + "/victim"
                return DownloadRecord(id: "a", url: URL(string: "mock://files/a")!, destination: URL(fileURLWithPath: climbing),
                                      partPath: climbing + ".part", state: .waiting, validator: nil,
                                      checkpointedBytes: 0, expectedLength: nil, queueOrder: 0)
            },
        ]
    }

    @Test("a store record whose paths fail the check becomes failed and nothing is touched, also by cancel",
          arguments: Forged.all)
    func forgedRecord(_ forged: Forged) async throws {
        let victim = try Victim()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fdl-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let record = forged.record(directory, victim)
        let h = Harness(store: InMemoryDownloadStore(records: [record]), directory: directory)
        h.serve("a", size: 1000)
        _ = try await h.downloader.restore()
        await h.downloader.settle()
        #expect(await h.downloader.state(of: "a") == .failed)
        #expect(await h.downloader.info(of: "a")?.lastErrorCode == .invalidDestination)
        try? await h.downloader.resume("a")  // refused at the start of the attempt, before any file
        await h.downloader.settle()
        #expect(await h.downloader.state(of: "a") == .failed)
        try? await h.downloader.cancel("a")
        await h.downloader.settle()
        #expect(h.mock.allRequests.isEmpty)
        #expect(victim.untouched)
        await h.cleanUp()
        victim.remove()
    }

    @Test("x and x.part cannot be two downloads' destinations, in either order and through resume data",
          arguments: [false, true])
    func collidingNames(_ partFirst: Bool) async throws {
        let h = Harness()
        let names = partFirst ? ["x.part", "x"] : ["x", "x.part"]
        h.serve("x", size: 1000)
        try await h.downloader.add(id: "first", url: h.url("x"), destination: h.file(names[0]))
        do {
            try await h.downloader.add(id: "second", url: h.url("x"), destination: h.file(names[1]))
            Issue.record("a destination colliding with another download's staging file was accepted")
        } catch let error as DownloadError {
            #expect(error.code == .invalidDestination, "\(error)")
        }
        let data = ResumeData(id: "third", url: h.url("x"), destination: h.file(names[1]),
                              partPath: h.file(names[1]).path + ".part", bytesOnDisk: 0, validator: nil,
                              expectedLength: nil, options: DownloadOptions())
        do {
            try await h.downloader.start(id: "third", resumeData: data)
            Issue.record("resume data colliding with another download's files was accepted")
        } catch let error as DownloadError {
            #expect(error.code == .invalidDestination, "\(error)")
        }
        #expect(await h.downloader.downloads().map(\.id) == ["first"])
        await h.cleanUp()
    }

    /// Puts other bytes in place of the staging file while the delegate is asked about it.
    struct Swapper: DownloaderDelegate {
        let replacement: Data
        func validateFile(at file: URL, id: String) async -> Bool {
            let other = file.deletingLastPathComponent().appendingPathComponent("other-\(UUID().uuidString)")
            try? replacement.write(to: other)
            return rename(other.path, file.path) == 0
        }
    }

    @Test("a staging file replaced after its checks is not moved into place")
    func replacedAfterValidation() async throws {
        let replacement = Data(repeating: 0x42, count: 10_000)
        let h = Harness(retry: .none, delegate: Swapper(replacement: replacement))
        let content = h.serve("a", size: 10_000)
        try await h.downloader.start(id: "a", url: h.url("a"),
                                     options: DownloadOptions(expectedSize: 10_000, sha256: content.sha256))
        let end = await h.recorder.first { event in
            switch event {
            case .completed("a", _), .failed("a", _, _): true
            default: false
            }
        }
        if case .failed(_, let error, _) = end {
            #expect(error.code == .validationFailed, "\(error)")
        } else {
            Issue.record("the replaced file was moved into place: \(end)")
        }
        #expect(h.contents(h.file("a")) == nil)
        await h.cleanUp()
    }
}
