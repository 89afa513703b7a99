import FileDownload
import FileDownloadSQLite
import FileDownloadTestSupport
import Foundation
import Testing

@Suite("SQLiteDownloadStore: secrets never reach the file")
struct SQLiteDownloadStoreSecretsTests {
    /// Every secret the record carries; none may appear in any byte of the database files.
    private let secrets = ["urlPa55word", "Bearer-T0KEN-xyz", "proxyPa55", "session=C00KIE", "PrOxYaUtH"]

    private func expectNoSecrets(in directory: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        #expect(!files.isEmpty, sourceLocation: sourceLocation)
        for file in files {
            let bytes = try Data(contentsOf: file)
            for secret in secrets {
                #expect(bytes.range(of: Data(secret.utf8)) == nil,
                        "\(secret) found in \(file.lastPathComponent)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test("URL and proxy passwords and sensitive headers are not in the database, its WAL, or after close")
    func secretsStripped() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var record = DownloadRecord.sample(id: "s")
        // Set after init, which strips: the store must strip again.
        record.url = URL(string: "https://alice:urlPa55word@example.com/private.bin")!
        record.options.transfer.headers = [
            HeaderField(name: "authorization", value: "Bearer-T0KEN-xyz"),
            HeaderField(name: "Cookie", value: "session=C00KIE"),
            HeaderField(name: "Proxy-Authorization", value: "PrOxYaUtH"),
            HeaderField(name: "Accept", value: "*/*"),
        ]
        record.options.transfer.proxy = URL(string: "http://bob:proxyPa55@proxy.local:3128")!

        let store = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        try await store.save(record)
        try expectNoSecrets(in: dir.url) // main file and -wal as they are while open
        let loaded = try #require(try await store.loadAll().first)
        #expect(loaded.url.absoluteString == "https://alice@example.com/private.bin")
        #expect(loaded.options.transfer.headers == [HeaderField(name: "Accept", value: "*/*")])
        #expect(loaded.options.transfer.proxy?.absoluteString == "http://bob@proxy.local:3128")
        await store.close()
        try expectNoSecrets(in: dir.url)
    }
}
