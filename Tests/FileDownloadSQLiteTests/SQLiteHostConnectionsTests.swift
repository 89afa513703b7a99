import FileDownload
import FileDownloadTestSupport
import Foundation
import Testing
@testable import FileDownloadSQLite

/// The connection count remembered per origin (automatic connections, docs/connections.md):
/// what the next download to that origin starts at, kept across a restart.
@Suite("SQLiteDownloadStore: connections remembered per origin")
struct SQLiteHostConnectionsTests {
    @Test("a remembered count replaces the earlier one for its origin, survives a reopen, and is read through the protocol")
    func rememberedAcrossReopen() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        #expect(try await store.rememberedConnections().isEmpty)
        let any: any DownloadStore = store  // as the downloader calls it: not the default that remembers nothing
        try await any.rememberConnections(4, forOrigin: "https://files.example.org:443")
        try await any.rememberConnections(8, forOrigin: "https://files.example.org:443")
        try await any.rememberConnections(2, forOrigin: "http://mirror.example.net:8080")
        await store.close()
        let reopened: any DownloadStore = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        #expect(try await reopened.rememberedConnections()
                == ["https://files.example.org:443": 8, "http://mirror.example.net:8080": 2])
    }
}
