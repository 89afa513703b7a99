import FileDownload
import FileDownloadMock
import FileDownloadTestSupport
import Foundation
import Testing

/// A seeded fuzz run over what the library reads from outside: resume data
/// (``ResumeData/init(decoding:)`` then ``Downloader/start(id:resumeData:)``) and stored records
/// (``Downloader/restore()``). Each input must end in a clear ``DownloadError`` or in a download
/// that runs to a settled state, without a trap, a hang, or a write to a file outside the
/// downloads directory that the input did not name as its destination.
///
/// The inputs of `Corpus/` (some once crashed the library) run first, then `FDL_FUZZ_ITERATIONS`
/// generated variants (default 150 of each kind) from `FDL_FUZZ_SEED`. A failure names the input.
@Suite("Fuzz: resume data and stored records", .timeLimit(.minutes(5)))
struct HostileInputFuzzTests {
    /// The fields the library takes as paths: generated inputs keep them inside the sandbox.
    static let pathKeys: Set<String> = ["destination", "partPath"]
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Corpus")

    @Test("resume data: a clear error, or a download that stays where it was told")
    func resumeData() async throws {
        let base = try Sandbox()
        defer { base.remove() }
        let valid = ResumeData(id: "a", url: base.url, destination: base.destination, partPath: base.destination.path + ".part",
                               bytesOnDisk: 500, validator: .entityTag("\"v1\""), expectedLength: 4_000,
                               options: DownloadOptions(expectedSize: 4_000)).encoded()
        var inputs = Self.corpusInputs("resume-data")
        var generator = HostileJSON(seed: HostileJSON.seed(default: 0x5EED_0001), confinedTo: base.root.path,
                                    pathKeys: Self.pathKeys, hostileStrings: base.hostileStrings)
        for index in 0..<HostileJSON.iterations(default: 150) {
            inputs.append(("generated #\(index)", generator.variant(of: valid)))
        }
        for (name, data) in inputs {
            let sandbox = try Sandbox()
            defer { sandbox.remove() }
            let input = sandbox.rebase(data, from: base)
            try #require(generator.confines(input, to: sandbox), "\(name) names a path outside its sandbox")
            Self.keepCurrent("resume-data", data, generatedIn: base)
            let h = sandbox.harness()
            var named: URL?
            do {
                let decoded = try ResumeData(decoding: input)
                named = decoded.destination
                try await h.downloader.start(id: decoded.id, resumeData: decoded)
                await Self.settle(h, ids: [decoded.id])
            } catch let error as DownloadError {
                #expect(!error.message.isEmpty, "\(name): an error without a message")
            } catch {
                Issue.record("\(name): not a DownloadError: \(error)")
            }
            await h.downloader.shutdown()
            sandbox.expectSentinelKept(unlessNamedBy: [named], name, input)
        }
    }

    @Test("stored records: restore() gives each a clear state and touches nothing it does not name")
    func storedRecords() async throws {
        let base = try Sandbox()
        defer { base.remove() }
        let encoder = JSONEncoder()
        var inputs = Self.corpusInputs("records")
        var generator = HostileJSON(seed: HostileJSON.seed(default: 0x5EED_0002), confinedTo: base.root.path,
                                    pathKeys: Self.pathKeys, hostileStrings: base.hostileStrings)
        let states: [DownloadState] = [.waiting, .downloading, .interrupted, .paused, .failed, .completed, .notStarted, .cancelled]
        for index in 0..<HostileJSON.iterations(default: 150) {
            let record = DownloadRecord(
                id: "a", url: base.url, destination: base.destination, partPath: base.destination.path + ".part",
                state: states[index % states.count], validator: .entityTag("\"v1\""), checkpointedBytes: 500,
                expectedLength: 4_000, options: DownloadOptions(expectedSize: 4_000), queueOrder: 3)
            inputs.append(("generated #\(index)", generator.variant(of: try encoder.encode(record))))
        }
        for (name, data) in inputs {
            let sandbox = try Sandbox()
            defer { sandbox.remove() }
            let input = sandbox.rebase(data, from: base)
            try #require(generator.confines(input, to: sandbox), "\(name) names a path outside its sandbox")
            Self.keepCurrent("records", data, generatedIn: base)
            // What a store hands back is the record its decoder accepted; the rest is the store's error.
            guard let record = try? JSONDecoder().decode(DownloadRecord.self, from: input) else { continue }
            let h = sandbox.harness(store: InMemoryDownloadStore(records: [record]))
            do {
                try await h.downloader.restore()
                let queued = await h.downloader.downloads().filter { $0.state == .waiting || $0.state == .downloading }
                await Self.settle(h, ids: queued.map(\.id))
            } catch let error as DownloadError {
                #expect(!error.message.isEmpty, "\(name): an error without a message")
            } catch {
                Issue.record("\(name): not a DownloadError: \(error)")
            }
            await h.downloader.shutdown()
            sandbox.expectSentinelKept(unlessNamedBy: [record.destination], name, input)
        }
    }

    /// Waits until each of `ids` has reached a state in which nothing runs.
    static func settle(_ h: Harness, ids: [String]) async {
        for id in ids {
            await h.recorder.first { event in
                guard case .stateChanged(id, let state) = event else { return false }
                return [.completed, .failed, .interrupted, .paused, .cancelled].contains(state)
            }
        }
    }

    /// Writes the input about to run to `$TMPDIR/fdl-fuzz-<kind>.json` (paths as the placeholder
    /// `/SANDBOX`): when it traps the process, that file is the input to add to `Corpus/<kind>/`.
    private static func keepCurrent(_ kind: String, _ data: Data, generatedIn base: Sandbox) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fdl-fuzz-\(kind).json")
        try? base.generic(data).write(to: file)
    }

    /// The files of `Corpus/<kind>/`, in name order.
    static func corpusInputs(_ kind: String) -> [(String, Data)] {
        let folder = corpus.appendingPathComponent(kind)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
        return names.compactMap { name in
            FileManager.default.contents(atPath: folder.appendingPathComponent(name).path).map { ("Corpus/\(kind)/\(name)", $0) }
        }
    }
}

/// A downloads directory with a served file, and a sentinel file outside it that no input may
/// change unless it names the sentinel as its destination.
private struct Sandbox {
    /// Stands for the sandbox's root in corpus files, so that they name paths of any sandbox.
    static let placeholder = "/SANDBOX"
    let root: URL
    var downloads: URL { root.appendingPathComponent("dl") }
    var sentinel: URL { root.appendingPathComponent("outside/sentinel") }
    var destination: URL { downloads.appendingPathComponent("a") }
    let url = URL(string: "mock://files/a")!
    static let sentinelBytes = Data("keep me".utf8)

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("fdl-fuzz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: sentinel.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Self.sentinelBytes.write(to: sentinel)
        try Data(repeating: 7, count: 500).write(to: URL(fileURLWithPath: destination.path + ".part"))
    }

    /// Paths worth trying as hostile strings: the sentinel, its staging name, ways around it, all
    /// inside the sandbox.
    var hostileStrings: [String] {
        [sentinel.path, sentinel.path + ".part", sentinel.absoluteString, downloads.path + "/../outside/sentinel",
         downloads.path + "/../outside/sentinel.part", downloads.path, downloads.path + "/", root.path,
         downloads.path + "/a/../../outside/sentinel", "file://" + downloads.path + "/../outside/sentinel"]
    }

    func harness(store: InMemoryDownloadStore? = nil) -> Harness {
        let h = Harness(store: store, directory: downloads)
        h.serve("a", size: 4_000, chunkSize: 1_000)
        return h
    }

    /// `data` with the paths of `base` (where it was generated) changed to this sandbox's.
    func rebase(_ data: Data, from base: Sandbox) -> Data {
        guard let text = String(data: data, encoding: .utf8) else { return data }
        let escaped = { (path: String) in path.replacingOccurrences(of: "/", with: "\\/") }
        var result = text
        for (old, new) in [(base.root.path, root.path), (escaped(base.root.path), escaped(root.path)),
                           (Self.placeholder, root.path), (escaped(Self.placeholder), escaped(root.path))] {
            result = result.replacingOccurrences(of: old, with: new)
        }
        return Data(result.utf8)
    }

    /// `data` with this sandbox's paths written as ``placeholder`` (the inverse of ``rebase(_:from:)``).
    func generic(_ data: Data) -> Data {
        guard let text = String(data: data, encoding: .utf8) else { return data }
        let escaped = { (path: String) in path.replacingOccurrences(of: "/", with: "\\/") }
        return Data(text.replacingOccurrences(of: root.path, with: Self.placeholder)
            .replacingOccurrences(of: escaped(root.path), with: escaped(Self.placeholder)).utf8)
    }

    /// Checks the sentinel still has its bytes, unless one of `named` is it.
    func expectSentinelKept(unlessNamedBy named: [URL?], _ name: String, _ input: Data) {
        let sentinelPath = sentinel.standardizedFileURL.resolvingSymlinksInPath().path
        if named.contains(where: { $0?.standardizedFileURL.resolvingSymlinksInPath().path == sentinelPath }) { return }
        let bytes = FileManager.default.contents(atPath: sentinel.path)
        #expect(bytes == Self.sentinelBytes,
                "\(name) changed a file outside the downloads directory; input: \(String(decoding: input.prefix(2_000), as: UTF8.self))")
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}

private extension HostileJSON {
    /// ``HostileJSON/isConfined(_:)`` for the sandbox an input runs in.
    func confines(_ input: Data, to sandbox: Sandbox) -> Bool {
        HostileJSON(seed: 0, confinedTo: sandbox.root.path, pathKeys: HostileInputFuzzTests.pathKeys).isConfined(input)
    }
}
