import FileDownload
import FileDownloadMock
import Foundation
import Testing

/// A download's transfer options laid over the downloader's defaults (`TransferOptions.merged(over:)`,
/// `DownloadOptions.resolved(with:)`): every field the download leaves unset takes the default,
/// every field it sets wins, and setting `sha256` changes nothing else.
@Suite("Options compose: unset fields take the configuration's defaults", .timeLimit(.minutes(1)))
struct TransferOptionsMergeTests {
    /// Defaults with every field set.
    static let defaults = TransferOptions(
        headers: [HeaderField(name: "X-Team", value: "default"), HeaderField(name: "Accept", value: "*/*")],
        userAgent: "default-agent/1", requestTimeout: .seconds(11), resourceTimeout: .seconds(3333),
        connectTimeout: .seconds(7), maxBytesPerSecond: 64_000, proxy: URL(string: "http://proxy.example:3128")!,
        extra: ["mode": "default", "other": "kept"])

    /// Options that set only `field`, to a value unlike the default's.
    static func only(_ field: TransferOptions.Field) -> TransferOptions {
        var o = TransferOptions()
        switch field {
        case .headers: o.headers = [HeaderField(name: "x-team", value: "own")]
        case .userAgent: o.userAgent = "own-agent/2"
        case .requestTimeout: o.requestTimeout = .seconds(5)
        case .resourceTimeout: o.resourceTimeout = .seconds(99)
        case .connectTimeout: o.connectTimeout = .seconds(2)
        case .maxBytesPerSecond: o.maxBytesPerSecond = 8_000
        case .proxy: o.proxy = URL(string: "http://other.example:8080")!
        case .extra: o.extra = ["mode": "own"]
        }
        return o
    }

    /// The value of `field` in `o`, for comparison.
    static func value(_ field: TransferOptions.Field, _ o: TransferOptions) -> String {
        switch field {
        case .headers: "\(o.headers.map { "\($0.name)=\($0.value)" })"
        case .userAgent: "\(o.userAgent ?? "-")"
        case .requestTimeout: "\(o.requestTimeout)"
        case .resourceTimeout: "\(o.resourceTimeout)"
        case .connectTimeout: "\(o.connectTimeout)"
        case .maxBytesPerSecond: "\(o.maxBytesPerSecond.map(String.init) ?? "-")"
        case .proxy: "\(o.proxy?.absoluteString ?? "-")"
        case .extra: "\(o.extra.sorted { $0.key < $1.key })"
        }
    }

    /// What `field` is after `only(field)` is laid over ``defaults``.
    static func expectedOwn(_ field: TransferOptions.Field) -> String {
        switch field {
        // The default's fields first; the download's field of the same name replaces the default's.
        case .headers: "[\"Accept=*/*\", \"x-team=own\"]"
        case .extra: "\(["mode": "own", "other": "kept"].sorted { $0.key < $1.key })"
        default: value(field, only(field))
        }
    }

    @Test("every stored property of TransferOptions is a Field that merged(over:) merges")
    func everyPropertyIsAField() {
        let stored = Mirror(reflecting: TransferOptions()).children.compactMap(\.label)
            .map { $0.hasSuffix("Setting") ? String($0.dropLast("Setting".count)) : $0 }
        #expect(Set(stored) == Set(TransferOptions.Field.allCases.map(\.rawValue)),
                "a field added to TransferOptions must be added to TransferOptions.Field and merged")
        #expect(stored.count == TransferOptions.Field.allCases.count)
    }

    @Test("a field the download sets wins; every field it leaves unset is the default's", arguments: TransferOptions.Field.allCases)
    func fieldMerges(_ field: TransferOptions.Field) {
        let own = Self.only(field)
        #expect(TransferOptions.Field.allCases.filter { own.isSet($0) } == [field])
        let merged = own.merged(over: Self.defaults)
        for other in TransferOptions.Field.allCases {
            let want = other == field ? Self.expectedOwn(field) : Self.value(other, Self.defaults)
            #expect(Self.value(other, merged) == want, "\(other) after setting only \(field)")
            #expect(merged.isSet(other), "\(other) is set after the merge")
        }
        // Merging is done once: again over the same defaults, nothing changes.
        #expect(merged.merged(over: Self.defaults) == merged)
    }

    @Test("options with nothing set merge to the defaults; defaults with nothing set leave the options as they are")
    func unsetOverDefaults() {
        #expect(TransferOptions().merged(over: Self.defaults) == Self.defaults)
        #expect(Self.defaults.merged(over: TransferOptions()) == Self.defaults)
        #expect(TransferOptions().merged(over: TransferOptions()).requestTimeout == TransferOptions.defaultRequestTimeout)
    }

    @Test("a rate limit of 0 lifts the default's for the download")
    func zeroLiftsDefaultLimit() {
        var own = TransferOptions()
        own.maxBytesPerSecond = 0
        #expect(own.merged(over: Self.defaults).maxBytesPerSecond == 0)
    }

    @Test("DownloadOptions(sha256:) keeps every default; its own fields stay as given")
    func sha256ChangesNothingElse() {
        var configuration = DownloaderConfiguration()
        configuration.defaultTransferOptions = Self.defaults
        let digest = String(repeating: "ab", count: 32)
        let resolved = DownloadOptions(sha256: digest, priority: 3).resolved(with: configuration)
        #expect(resolved.transfer == Self.defaults)
        #expect(resolved.sha256 == digest && resolved.priority == 3 && resolved.retryPolicy == nil)
        #expect(resolved.resolved(with: configuration) == resolved)
    }

    @Test("a record stored before fields could be unset decodes with its timeouts set; unset fields stay unset through a round trip")
    func codableCompatible() throws {
        // The form records had (Tests/FileDownloadTests/Corpus/records): every timeout encoded
        // (a Duration's two 64-bit halves of attoseconds: 30 s, 60 s, 7 days).
        let old = Data(#"""
        {"expectedSize": 4000, "priority": 0, "transfer": {"connectTimeout": [1, 11553255926290448384], "extra": {},
         "headers": [], "requestTimeout": [3, 4659767778871345152], "resourceTimeout": [32786, 5048799358640717824],
         "maxBytesPerSecond": 5000}}
        """#.utf8)
        let decoded = try JSONDecoder().decode(DownloadOptions.self, from: old)
        #expect(decoded.transfer.requestTimeout == .seconds(60) && decoded.transfer.isSet(.requestTimeout))
        #expect(decoded.transfer.connectTimeout == .seconds(30) && decoded.transfer.resourceTimeout == .seconds(7 * 24 * 3600))
        #expect(decoded.transfer.maxBytesPerSecond == 5000)
        let merged = decoded.transfer.merged(over: Self.defaults)
        #expect(merged.requestTimeout == .seconds(60), "a stored record keeps the timeouts it was started with")

        let unset = DownloadOptions(sha256: "ab")
        let again = try JSONDecoder().decode(DownloadOptions.self, from: JSONEncoder().encode(unset))
        #expect(again == unset)
        #expect(TransferOptions.Field.allCases.allSatisfy { !again.transfer.isSet($0) })
    }

    /// Records the transfer options each attempt starts with.
    final class Recording: DownloaderDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [String: TransferOptions] = [:]
        func customizeTransfer(_ options: TransferOptions, id: String, url: URL) async -> TransferOptions {
            lock.withLock { seen[id] = options }
            return options
        }
        func options(_ id: String) -> TransferOptions? { lock.withLock { seen[id] } }
    }

    @Test("through the Downloader: a download given only sha256, or no options, runs with the configuration's default options")
    func downloaderResolves() async throws {
        let recording = Recording()
        let store = InMemoryDownloadStore()
        let h = Harness(transfer: Self.defaults, delegate: recording, store: store)
        let content = h.serve("a", size: 10_000)
        h.serve("b", size: 10_000)
        h.serve("c", size: 10_000)
        var own = TransferOptions()
        own.headers = [HeaderField(name: "Accept", value: "text/plain")]
        try await h.downloader.start(id: "a", url: h.url("a"), options: DownloadOptions(sha256: content.sha256))
        try await h.downloader.start(id: "b", url: h.url("b"))
        try await h.downloader.start(id: "c", url: h.url("c"), options: DownloadOptions(transfer: own))
        let pump = SegmentTests.pump(h)  // the default rate limit paces them on the manual clock
        for id in ["a", "b", "c"] { await h.recorder.state(id, .completed) }
        pump.cancel()
        #expect(recording.options("a") == Self.defaults)
        #expect(recording.options("b") == Self.defaults)
        let c = try #require(recording.options("c"))
        #expect(c.headers.map(\.value) == ["default", "text/plain"])
        #expect(c.userAgent == Self.defaults.userAgent && c.requestTimeout == .seconds(11) && c.proxy == Self.defaults.proxy)
        // What is stored is what ran (no secret in these options).
        #expect(await store.record(for: "a")?.options.transfer == Self.defaults)
        // The mock saw the merged header fields.
        #expect(h.mock.requests(for: h.url("a")).first?.headers == Self.defaults.headers)
        await h.cleanUp()
    }
}
