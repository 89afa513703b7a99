import FileDownload
import FileDownloadSQLite
import FileDownloadTestSupport
import Foundation
import Testing

/// Stores on file systems that refuse writes. Uses tmpfs mounts, so it needs root (as CI has).
@Suite("SQLiteDownloadStore: read-only and full file systems", .serialized)
struct SQLiteDownloadStoreFileSystemTests {
    @Test("a new store in a directory nobody may write to is a clear error")
    func unwritableDirectory() async throws {
        let mount = try TmpfsMount(size: "1m")
        defer { mount.unmount() }
        try mount.remountReadOnly()
        let error = await #expect(throws: DownloadError.self) {
            _ = try await SQLiteDownloadStore(path: mount.path("s.sqlite"))
        }
        #expect(error?.code == .store)
        #expect(error?.description.contains("cannot be opened or created") == true, "\(String(describing: error))")
    }

    @Test("an existing store on a read-only file system is a clear error and stays as it was")
    func readOnlyStore() async throws {
        let mount = try TmpfsMount(size: "1m")
        defer { mount.unmount() }
        let path = mount.path("s.sqlite")
        try await SQLiteDownloadStore.writeFixture(at: path, ids: ["a"])
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        try mount.remountReadOnly()
        let error = await #expect(throws: DownloadError.self) { _ = try await SQLiteDownloadStore(path: path) }
        #expect(error?.code == .store)
        #expect(error?.description.contains("read-only") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("a full disk fails the save with a store error; earlier records stay readable")
    func diskFull() async throws {
        let mount = try TmpfsMount(size: "256k")
        defer { mount.unmount() }
        let path = mount.path("s.sqlite")
        let store = try await SQLiteDownloadStore(path: path)
        try await store.save(.sample(id: "first"))
        var failure: DownloadError?
        var saved = 1
        var big = DownloadRecord.sample(id: "x")
        big.errorMessages = [String(repeating: "m", count: 16_000)]
        for i in 0..<200 {
            big.id = "big\(i)"
            do {
                try await store.save(big)
                saved += 1
            } catch let error as DownloadError {
                failure = error
                break
            }
        }
        let error = try #require(failure, "256 KiB must fill up before 200 records of 16 KB")
        #expect(error.code == .store)
        #expect(error.description.contains("disk is full"), "\(error)")
        #expect(try await store.loadAll().count == saved)
    }
}
