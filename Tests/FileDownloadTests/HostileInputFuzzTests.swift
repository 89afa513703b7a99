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
        try await Self.run("resume-data", seed: 0x5EED_0001) { sandbox, _ in
            ResumeData(id: "a", url: sandbox.url, destination: sandbox.destination,
                       partPath: sandbox.destination.path + ".part", bytesOnDisk: 500, validator: .entityTag("\"v1\""),
                       expectedLength: 4_000, options: DownloadOptions(expectedSize: 4_000)).encoded()
        } check: { name, input, sandbox in
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
            return named
        }
    }

    @Test("stored records: restore() gives each a clear state and touches nothing it does not name")
    func storedRecords() async throws {
        let states: [DownloadState] = [.waiting, .downloading, .interrupted, .paused, .failed, .completed, .notStarted, .cancelled]
        try await Self.run("records", seed: 0x5EED_0002) { sandbox, index in
            try JSONEncoder().encode(DownloadRecord(
                id: "a", url: sandbox.url, destination: sandbox.destination, partPath: sandbox.destination.path + ".part",
                state: states[index % states.count], validator: .entityTag("\"v1\""), checkpointedBytes: 500,
                expectedLength: 4_000, options: DownloadOptions(expectedSize: 4_000), queueOrder: 3))
        } check: { name, input, sandbox in
            // What a store hands back is the record its decoder accepted; the rest is the store's error.
            guard let record = try? JSONDecoder().decode(DownloadRecord.self, from: input) else { return nil }
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
            return record.destination
        }
    }

    /// Runs `check` on every input of `Corpus/<kind>/`, then on `FDL_FUZZ_ITERATIONS` variants of
    /// `valid`, each in a sandbox of its own, and checks the sandbox's sentinel afterwards.
    /// `check` returns the destination the input named, if any (it may replace the sentinel).
    static func run(
        _ kind: String, seed defaultSeed: UInt64,
        valid: (Sandbox, Int) throws -> Data,
        check: (String, Data, Sandbox) async throws -> URL?
    ) async throws {
        let seed = HostileJSON.seed(default: defaultSeed)
        var generator = HostileJSON(seed: seed, pathKeys: pathKeys)
        let corpus = corpusInputs(kind)
        for index in 0..<(corpus.count + HostileJSON.iterations(default: 150)) {
            let sandbox = try Sandbox()
            defer { sandbox.remove() }
            let name: String, input: Data
            if index < corpus.count {
                (name, input) = (corpus[index].0, sandbox.rebase(corpus[index].1))
            } else {
                name = "\(kind) #\(index - corpus.count) of seed \(seed)"
                input = generator.variant(of: try valid(sandbox, index), confinedTo: sandbox.root.path, strings: sandbox.hostileStrings)
            }
            try #require(generator.isConfined(input, to: sandbox.root.path), "\(name) names a path outside its sandbox")
            keepCurrent(kind, sandbox.generic(input))
            let named = try await check(name, input, sandbox)
            sandbox.expectSentinelKept(unlessNamedBy: named, name, input)
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
    private static func keepCurrent(_ kind: String, _ data: Data) {
        try? data.write(to: FileManager.default.temporaryDirectory.appendingPathComponent("fdl-fuzz-\(kind).json"))
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
struct Sandbox {
    /// Stands for the sandbox's root in corpus files, so that they name paths of any sandbox.
    static let placeholder = "/SANDBOX"
    let root: URL
    var downloads: URL { root.appendingPathComponent("dl") }
    var sentinel: URL { root.appendingPathComponent("outside/sentinel") }
    var destination: URL { downloads.appendingPathComponent("a") }
    let url = URL(string: "mock://files/a")!
    /// Longer than any checkpoint the inputs start from, so that a cut to a checkpoint would show.
    static let sentinelBytes = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

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

    /// `data` (a corpus file) with ``placeholder`` changed to this sandbox's root.
    func rebase(_ data: Data) -> Data {
        guard let text = String(data: data, encoding: .utf8) else { return data }
        let escaped = { (path: String) in path.replacingOccurrences(of: "/", with: "\\/") }
        return Data(text.replacingOccurrences(of: Self.placeholder, with: root.path)
            .replacingOccurrences(of: escaped(Self.placeholder), with: escaped(root.path)).utf8)
    }

    /// `data` with this sandbox's paths written as ``placeholder`` (the inverse of ``rebase(_:from:)``).
    func generic(_ data: Data) -> Data {
        guard let text = String(data: data, encoding: .utf8) else { return data }
        let escaped = { (path: String) in path.replacingOccurrences(of: "/", with: "\\/") }
        return Data(text.replacingOccurrences(of: root.path, with: Self.placeholder)
            .replacingOccurrences(of: escaped(root.path), with: escaped(Self.placeholder)).utf8)
    }

    /// Checks the sentinel still has its bytes, unless `named` is it.
    func expectSentinelKept(unlessNamedBy named: URL?, _ name: String, _ input: Data) {
        let sentinelPath = sentinel.standardizedFileURL.resolvingSymlinksInPath().path
        if named?.standardizedFileURL.resolvingSymlinksInPath().path == sentinelPath { return }
        let bytes = FileManager.default.contents(atPath: sentinel.path)
        #expect(bytes == Self.sentinelBytes,
                "\(name) changed a file outside the downloads directory; input: \(String(decoding: input.prefix(2_000), as: UTF8.self))")
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}
