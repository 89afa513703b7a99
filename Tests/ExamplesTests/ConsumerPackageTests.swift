import Foundation
import Testing

/// docs/consumers.md: a new package that uses `FileDownload` and `FileDownloadHTTP` with
/// `traits: []` resolves only what those need. The consumer is made in a temporary directory (the
/// README's quick start as its `main.swift`) and depends on this checkout by path; its own
/// `swift package resolve` runs with its own `.build`, so it waits for no lock of this build.
@Suite struct ConsumerPackageTests {
    /// This checkout's root (the directory of Package.swift).
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("the quick start with traits: [] resolves swift-crypto, swift-asn1 and swift-log and nothing else")
    func coreAndHTTPOnly() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "fdl-consumer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sources = directory.appending(path: "Sources/QuickStart")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.root.appending(path: "Examples/QuickStart/main.swift"),
                                         to: sources.appending(path: "main.swift"))
        let package = Self.root.lastPathComponent
        try """
        // swift-tools-version:6.1
        import PackageDescription
        let package = Package(
            name: "consumer",
            platforms: [.macOS(.v15)],
            dependencies: [.package(path: "\(Self.root.path)", traits: [])],
            targets: [.executableTarget(name: "QuickStart", dependencies: [
                .product(name: "FileDownload", package: "\(package)"),
                .product(name: "FileDownloadHTTP", package: "\(package)")])]
        )
        """.write(to: directory.appending(path: "Package.swift"), atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["swift", "package", "resolve"]
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(printed)")

        let resolved = try String(contentsOf: directory.appending(path: "Package.resolved"), encoding: .utf8)
        let identities = resolved.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("\"identity\"") else { return nil }
            return line.split(separator: "\"").dropFirst(3).first.map(String.init)
        }
        #expect(identities.sorted() == ["swift-asn1", "swift-crypto", "swift-log"], "\(resolved)")
    }
}
