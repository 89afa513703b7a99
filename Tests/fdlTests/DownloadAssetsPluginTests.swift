import FileDownloadTestSupport
import Foundation
import Testing

/// `swift package download-assets` run in this package, against nginx on 127.0.0.1: it fetches
/// what is missing or wrong, verifies it, and leaves what is right alone.
///
/// The plugin runs on this package's own build directory (`.build`), where the test build has
/// already built the `fdl` the plugin asks SwiftPM for, so SwiftPM only checks that it is up to
/// date; the assets and the manifest live in a fresh directory under `.build/`, inside the package
/// as the plugin requires. `--ignore-lock`: the `swift test` that runs this test holds the build
/// directory's lock, and builds nothing while tests run. (A package that depends on this one would
/// build its own `fdl` from scratch: minutes of both cores.)
@Suite(.timeLimit(.minutes(20)))
struct DownloadAssetsPluginTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Runs `swift package ... download-assets --manifest manifest` in this package and returns its
    /// status and output.
    func runPlugin(manifest: String) async throws -> (status: Int32, output: String) {
        let swift = ProcessInfo.processInfo.environment["SWIFT_EXEC_FOR_TESTS"] ?? "swift"
        let run = try await ChildProcess.run(
            ["/usr/bin/env", swift, "package", "--package-path", Self.root.path, "--ignore-lock",
             "--allow-network-connections", "all", "--allow-writing-to-package-directory",
             "download-assets", "--manifest", manifest],
            limit: .seconds(1_080))
        return (run.status, run.stdout + run.stderr)
    }

    @Test func thePluginFetchesMissingAndWrongAssetsAndSkipsGoodOnes() async throws {
        let server = try await NginxServer()
        let name = "plugin-test-\(UUID().uuidString.prefix(8))"
        let work = Self.root.appending(path: ".build/\(name)")
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: work)
        }
        let model = try server.serve("model.bin", sampleBytes(200_000, seed: 21))
        let table = try server.serve("tables/table.csv", Data("a,b\n1,2\n".utf8))
        let resources = ".build/\(name)/Resources"
        let manifest: [String: Any] = ["assets": [
            ["url": server.url("model.bin"), "sha256": sha256Hex(model), "path": "\(resources)/model.bin"],
            ["url": server.url("tables/table.csv"), "sha256": sha256Hex(table), "path": "\(resources)/data/table.csv"],
        ]]
        try FileManager.default.createDirectory(at: work.appending(path: "Resources/data"), withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: manifest).write(to: work.appending(path: "assets.json"))
        // A wrong copy of the model is already there: it must be replaced.
        try Data("stale".utf8).write(to: work.appending(path: "Resources/model.bin"))

        let first = try await runPlugin(manifest: ".build/\(name)/assets.json")
        #expect(first.status == 0, "\(first.output)")
        #expect(FileManager.default.contents(atPath: work.appending(path: "Resources/model.bin").path) == model, "\(first.output)")
        #expect(FileManager.default.contents(atPath: work.appending(path: "Resources/data/table.csv").path) == table)
        #expect(first.output.contains("2 asset(s) in place and verified"))
        #expect(!FileManager.default.fileExists(atPath: work.appending(path: "Resources/.fdl").path), "no fdl state beside the assets")

        let requestsBefore = server.accessLog.count
        let second = try await runPlugin(manifest: ".build/\(name)/assets.json")
        #expect(second.status == 0, "\(second.output)")
        #expect(second.output.contains("already complete"))
        #expect(server.accessLog.count == requestsBefore, "nothing was downloaded again")
    }
}
