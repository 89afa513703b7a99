import FileDownload
import Foundation
import Testing

/// The byte-level path checks every download's paths pass (`DownloadPaths`), and the directory
/// they name.
@Suite("Download paths")
struct DownloadPathsTests {
    @Test("the directory of a path is what NSString answers", arguments: [
        "/a/b/c.part", "/c.part", "/a/b", "/dir with space/é.bin.part", "/a/b/.hidden.part",
    ])
    func directory(_ path: String) {
        #expect(DownloadPaths.directory(of: path) == (path as NSString).deletingLastPathComponent)
    }

    @Test("a standardized absolute path passes; '.', '..', empty components and relative paths do not", arguments: [
        ("/a/b.bin", true), ("/a/./b.bin", false), ("/a/../b.bin", false), ("/a//b.bin", false),
        ("/a/b/", false), ("a/b.bin", false), ("/", false), ("/a/..b.bin", true), ("/a/.b", true),
    ])
    func standardized(_ path: String, _ expected: Bool) {
        #expect(DownloadPaths.isStandardized(path) == expected)
    }

    @Test("the staging path must be the destination's bytes plus the suffix, not another spelling of them")
    func stagingBytes() {
        let composed = "/d/caf\u{E9}.bin", decomposed = "/d/cafe\u{301}.bin"
        #expect(composed == decomposed)  // equal as Swift strings, two different names on disk
        let destination = URL(fileURLWithPath: composed)
        #expect(DownloadPaths.problem(destination: destination, partPath: composed + ".part", stagingSuffix: ".part") == nil)
        let problem = DownloadPaths.problem(destination: destination, partPath: decomposed + ".part", stagingSuffix: ".part")
        #expect(problem?.contains("is not the destination") == true, "\(problem ?? "nil")")
        #expect(DownloadPaths.problem(destination: URL(fileURLWithPath: "/d/a\u{0}b"), partPath: "/d/a\u{0}b.part",
                                      stagingSuffix: ".part")?.contains("NUL") == true)
    }
}
