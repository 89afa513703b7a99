import FileDownload
@testable import FileDownloadPostgres
import FileDownloadTestSupport
import Foundation
import Testing

/// The directories of a claimed destination inside a worker's directory: made when missing,
/// never followed through a planted symbolic link.
@Suite struct DestinationParentsTests {
    @Test func missingDirectoriesAreMadeAndExistingOnesAccepted() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = dir.url
        try DestinationParents.prepare("a/b/c/file.bin", in: root)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("a/b/c").path, isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)
        try DestinationParents.prepare("a/b/other.bin", in: root)  // already there
        try DestinationParents.prepare("top.bin", in: root)  // nothing to make
    }

    @Test func aPlantedLinkIsRefusedAndNothingIsMadeThroughIt() throws {
        let dir = try TemporaryDirectory()
        let outside = try TemporaryDirectory()
        defer { dir.remove(); outside.remove() }
        let root = dir.url
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("a"), withDestinationURL: outside.url)
        let error = try #require(throws: DownloadError.self) { try DestinationParents.prepare("a/b/file.bin", in: root) }
        #expect(error.code == .invalidDestination)
        #expect(error.message.contains("symbolic link"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.url.path).isEmpty)
        // A link deeper down, and a file where a directory should be.
        try FileManager.default.createDirectory(at: root.appendingPathComponent("x"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("x/y"), withDestinationURL: outside.url)
        #expect(throws: DownloadError.self) { try DestinationParents.prepare("x/y/z/file.bin", in: root) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.url.path).isEmpty)
        _ = try dir.createFile("plain", contents: Data("x".utf8))
        let notDirectory = try #require(throws: DownloadError.self) { try DestinationParents.prepare("plain/file.bin", in: root) }
        #expect(notDirectory.code == .invalidDestination)
    }
}
