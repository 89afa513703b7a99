import FileDownload
import Foundation
import Testing

/// `fdl pause`/`cancel` with no process running apply the state machine's rule to the stored
/// record (`DownloadStore.apply(_:toStored:)`), not an edit of their own.
@Suite struct StoredControlTests {
    func stored(_ id: String, _ state: DownloadState, in directory: URL) -> DownloadRecord {
        let destination = directory.appending(path: id)
        return DownloadRecord(id: id, url: URL(string: "https://example.org/\(id)")!, destination: destination,
                              partPath: destination.path + ".part", state: state, checkpointedBytes: 5)
    }

    @Test("pause: waiting, interrupted and a downloading left by a dead process become paused with their bytes; notStarted, failed, completed and cancelled are refused unchanged")
    func pauseFollowsTheStateMachine() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "stored-control-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = InMemoryDownloadStore()
        for state in DownloadState.allCases { await store.save(stored(state.rawValue, state, in: directory)) }
        for state in [DownloadState.waiting, .interrupted, .downloading, .paused] {
            let paused = try await store.apply(.pause, toStored: state.rawValue)
            #expect(paused.state == .paused && paused.checkpointedBytes == 5, "\(state)")
            #expect(await store.record(for: state.rawValue)?.state == .paused)
        }
        for state in [DownloadState.notStarted, .failed, .completed, .cancelled] {
            await #expect(throws: DownloadError.self) { try await store.apply(.pause, toStored: state.rawValue) }
            #expect(await store.record(for: state.rawValue)?.state == state)
        }
        await #expect(throws: DownloadError.self) { try await store.apply(.pause, toStored: "nobody") }
    }

    @Test("cancel: an unfinished download becomes cancelled and its staging file is deleted; a completed one is refused and keeps its file")
    func cancelDeletesTheStagingFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "stored-control-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = InMemoryDownloadStore()
        let paused = stored("p", .paused, in: directory)
        try Data("12345".utf8).write(to: URL(fileURLWithPath: paused.partPath))
        await store.save(paused)
        let cancelled = try await store.apply(.cancel, toStored: "p")
        #expect(cancelled.state == .cancelled && cancelled.checkpointedBytes == 0)
        #expect(!FileManager.default.fileExists(atPath: paused.partPath))
        let done = stored("d", .completed, in: directory)
        try Data("12345".utf8).write(to: done.destination)
        await store.save(done)
        do {
            _ = try await store.apply(.cancel, toStored: "d")
            Issue.record("a completed download was cancelled")
        } catch let error as DownloadError {
            #expect(error.code == .invalidState)
        }
        #expect(FileManager.default.fileExists(atPath: done.destination.path))
    }

    @Test("cancel of a record whose staging path is not its destination's: refused, the file it names kept, the record unchanged")
    func cancelChecksTheStoredPaths() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "stored-control-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = InMemoryDownloadStore()
        let victim = directory.appending(path: "keep.txt")
        try Data("mine".utf8).write(to: victim)
        var forged = stored("f", .paused, in: directory)
        forged.partPath = victim.path
        await store.save(forged)
        do {
            _ = try await store.apply(.cancel, toStored: "f")
            Issue.record("a forged staging path was deleted")
        } catch let error as DownloadError {
            #expect(error.code == .invalidDestination, "\(error)")
        }
        #expect(FileManager.default.fileExists(atPath: victim.path))
        #expect(await store.record(for: "f")?.state == .paused)
    }
}
