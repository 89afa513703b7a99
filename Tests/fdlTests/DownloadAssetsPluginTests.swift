import FileDownloadTestSupport
import Foundation
import Testing

/// `swift package download-assets` run in a package that depends on this one, against nginx on
/// 127.0.0.1: it fetches what is missing or wrong, verifies it, and leaves what is right alone.
///
/// The test package builds this package's `fdl` in a scratch directory under `.build/`, kept
/// between runs so that only the first run pays for the build.
@Suite(.timeLimit(.minutes(20)))
struct DownloadAssetsPluginTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Runs `swift package ... download-assets` in `package` and returns its status and output.
    func runPlugin(in package: URL) async throws -> (status: Int32, output: String) {
        let swift = ProcessInfo.processInfo.environment["SWIFT_EXEC_FOR_TESTS"] ?? "swift"
        let run = try await ChildProcess.run(
            ["/usr/bin/env", swift, "package", "--package-path", package.path,
             "--scratch-path", Self.root.appendingPathComponent(".build/plugin-test-package").path,
             "--allow-network-connections", "all", "--allow-writing-to-package-directory", "download-assets"],
            limit: .seconds(1_080))
        return (run.status, run.stdout + run.stderr)
    }

    @Test func thePluginFetchesMissingAndWrongAssetsAndSkipsGoodOnes() async throws {
        let server = try await NginxServer()
        let package = try TemporaryDirectory("assets-user")
        defer {
            server.stop()
            package.remove()
        }
        let model = try server.serve("model.bin", sampleBytes(200_000, seed: 21))
        let table = try server.serve("tables/table.csv", Data("a,b\n1,2\n".utf8))
        try """
            // swift-tools-version:6.1
            import PackageDescription

            let package = Package(
                name: "AssetsUser",
                dependencies: [.package(path: "\(Self.root.path)")],
                targets: [.target(name: "AssetsUser")]
            )
            """.write(to: package.file("Package.swift"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: package.file("Sources/AssetsUser"), withIntermediateDirectories: true)
        try "public let assetsUser = 1\n".write(to: package.file("Sources/AssetsUser/AssetsUser.swift"), atomically: true, encoding: .utf8)
        let manifest: [String: Any] = ["assets": [
            ["url": server.url("model.bin"), "sha256": sha256Hex(model), "path": "Resources/model.bin"],
            ["url": server.url("tables/table.csv"), "sha256": sha256Hex(table), "path": "Resources/data/table.csv"],
        ]]
        try JSONSerialization.data(withJSONObject: manifest).write(to: package.file("assets.json"))
        // A wrong copy of the model is already there: it must be replaced.
        try FileManager.default.createDirectory(at: package.file("Resources/data"), withIntermediateDirectories: true)
        try Data("stale".utf8).write(to: package.file("Resources/model.bin"))

        let first = try await runPlugin(in: package.url)
        #expect(first.status == 0, "\(first.output)")
        #expect(FileManager.default.contents(atPath: package.file("Resources/model.bin").path) == model, "\(first.output)")
        #expect(FileManager.default.contents(atPath: package.file("Resources/data/table.csv").path) == table)
        #expect(first.output.contains("2 asset(s) in place and verified"))
        #expect(!FileManager.default.fileExists(atPath: package.file("Resources/.fdl").path), "no fdl state in the package")

        let requestsBefore = server.accessLog.count
        let second = try await runPlugin(in: package.url)
        #expect(second.status == 0, "\(second.output)")
        #expect(second.output.contains("already complete"))
        #expect(server.accessLog.count == requestsBefore, "nothing was downloaded again")
    }
}
