import FileDownload
import FileDownloadTestSupport
import Foundation
import Testing
@testable import FileDownloadSQLite

/// The content coding of the bytes on disk (`Validator.contentEncoding`) is part of what a record
/// keeps: a resume after a restart compares it (docs/http.md, "Content codings").
@Suite("SQLiteDownloadStore: the validator's content coding")
struct SQLiteValidatorEncodingTests {
    @Test("a saved and a checkpointed validator keep their coding across a reopen; identity stays nil")
    func codingKept() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let gzip = Validator.entityTag("\"49424-661477043fc43\"").encoded("gzip")
        var record = DownloadRecord.sample(id: "a")
        record.validator = gzip
        let store = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        try await store.save(record)
        #expect(try await store.loadAll().first?.validator == gzip)
        // A checkpoint under an identity validator clears it; another under gzip sets it again.
        try await store.checkpoint(id: "a", bytes: 10, validator: .entityTag("\"x\""))
        #expect(try await store.loadAll().first?.validator == .entityTag("\"x\""))
        try await store.checkpoint(id: "a", bytes: 20, validator: gzip)
        await store.close()
        let reopened = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        let loaded = try #require(try await reopened.loadAll().first?.validator)
        #expect(loaded == gzip && loaded.contentEncoding == "gzip")
    }
}
