import FileDownload
import Foundation
import Testing

/// Forgetting a download is an event: another observer (an agent's client, a page) learns that the
/// id is gone, after the store forgot it.
@Suite struct RemovedEventTests {
    @Test("remove announces removed(id) as the id's last event, once the store has forgotten it; a new download may take the id")
    func removeAnnouncesRemoved() async throws {
        let store = InMemoryDownloadStore()
        let h = Harness(store: store)
        h.serve("done", size: 100)
        try await h.downloader.start(id: "done", url: h.url("done"))
        await h.recorder.state("done", .completed)
        try await h.downloader.add(id: "idle", url: h.url("done"))

        try await h.downloader.remove("done")
        try await h.downloader.remove("idle")
        await h.recorder.first { if case .removed("idle") = $0 { true } else { false } }
        #expect(Array(h.recorder.names(of: "done").suffix(3)) == ["state:completed", "completed", "removed"])
        #expect(h.recorder.names(of: "idle") == ["state:notStarted", "removed"])
        #expect(await store.record(for: "done") == nil)
        #expect(await store.record(for: "idle") == nil)
        #expect(FileManager.default.fileExists(atPath: h.file("done").path), "a completed file stays")

        // The id is free again: its new life starts after the removal.
        let mark = h.recorder.count
        try await h.downloader.add(id: "done", url: h.url("done"))
        await h.recorder.first(from: mark) { if case .stateChanged("done", .notStarted) = $0 { true } else { false } }
        #expect(Array(h.recorder.names(of: "done").suffix(2)) == ["removed", "state:notStarted"])
        await h.cleanUp()
    }

    @Test("a refused remove (a download that runs) announces nothing")
    func refusedRemoveIsSilent() async throws {
        let h = Harness()
        try await h.stalled("busy")
        await expectError(.invalidState) { try await h.downloader.remove("busy") }
        try await h.downloader.cancel("busy")
        await h.recorder.state("busy", .cancelled)
        await h.downloader.settle()
        #expect(!h.recorder.names(of: "busy").contains("removed"))
        await h.cleanUp()
    }

    @Test("removed encodes as {type: removed, id} and decodes back")
    func removedCodable() throws {
        let data = try JSONEncoder().encode(DownloadEvent.removed(id: "a b?#%+é"))
        let object = try JSONSerialization.jsonObject(with: data) as? [String: String]
        #expect(object == ["type": "removed", "id": "a b?#%+é"])
        let back = try JSONDecoder().decode(DownloadEvent.self, from: data)
        guard case .removed("a b?#%+é") = back else {
            Issue.record("decoded as \(back)")
            return
        }
    }
}
