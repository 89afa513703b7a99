import FileDownload
import FileDownloadMock
import Foundation
import Testing

/// The library's destination rules (`DestinationPolicy`, `DestinationParents`): names, existing
/// files, reserved paths, staging families, and the directories below the download directory.
@Suite("Destination policy", .timeLimit(.minutes(1)))
struct DestinationPolicyTests {
    @Test("a name the user gives is refused with a control character, a leading dot or a path", arguments: [
        "a\nb", "a\tb", "a\u{1B}[2Jb", ".hidden", "..", ".", "a/b", "", " a", "a\u{0}b",
    ])
    func refusedNames(_ name: String) {
        let problem = DestinationPolicy.problem(withName: name)
        #expect(problem != nil, "\(name.debugDescription)")
        // A message never carries the control character itself (it could move the cursor).
        #expect(problem?.unicodeScalars.contains { $0.properties.generalCategory == .control } == false)
    }

    @Test("plain names, accents and spaces inside are accepted", arguments: ["file.iso", "é t.bin", "a.b.c", "a.part"])
    func acceptedNames(_ name: String) {
        #expect(DestinationPolicy.problem(withName: name) == nil)
    }

    @Test("a relative path is checked component by component")
    func relativePaths() {
        #expect(DestinationPolicy.problem(withRelativePath: "sub/dir/file.bin") == nil)
        for bad in ["/abs", "a//b", "a/../b", "a/.hidden", "sub/a\nb", "sub/", "a\tb/c"] {
            #expect(DestinationPolicy.problem(withRelativePath: bad) != nil, "\(bad.debugDescription)")
        }
    }

    @Test("an absolute path the user gives: its file name is a plain name, its directories hold no control character")
    func absolutePaths() {
        #expect(DestinationPolicy.problem(withAbsolutePath: "/home/me/.cache/file.bin") == nil, "a dot directory is fine")
        #expect(DestinationPolicy.problem(withAbsolutePath: "/home/me/é t.bin") == nil)
        for bad in ["/home/me/.bashrc", "/home/me/a\nb", "/home/a\u{1B}x/file", "relative/file", "/"] {
            #expect(DestinationPolicy.problem(withAbsolutePath: bad) != nil, "\(bad.debugDescription)")
        }
    }

    @Test("candidates put the number before the extension, as aria2c does")
    func candidates() {
        #expect(Array(DestinationPolicy.candidates("file.iso").prefix(3)) == ["file.iso", "file.1.iso", "file.2.iso"])
        #expect(Array(DestinationPolicy.candidates("README").prefix(3)) == ["README", "README.1", "README.2"])
        #expect(Array(DestinationPolicy.candidates("a.tar.gz").prefix(2)) == ["a.tar.gz", "a.tar.1.gz"])
    }

    @Test("a and a.part are one staging family; a.b is not")
    func stagingFamilies() {
        #expect(DestinationPolicy.stagingFamily(of: "a") == "a")
        #expect(DestinationPolicy.stagingFamily(of: "a.part") == "a")
        #expect(DestinationPolicy.stagingFamily(of: "sub/a.part.part") == "sub/a")
        #expect(DestinationPolicy.stagingFamily(of: "a.partial") == "a.partial")
        #expect(DestinationPolicy.stagingFamily(of: "x.tmp", stagingSuffix: ".tmp") == "x")
    }

    @Test("an existing file, directory, link or staging file is kept: the download gets NAME.1.EXT; replace uses the name")
    func existingFilesKept() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let policy = DestinationPolicy()
        let proposed = dir.appendingPathComponent("file.iso")
        #expect(try policy.destination(for: proposed).path == proposed.path, "free: as given")
        try Data("mine".utf8).write(to: proposed)
        #expect(try policy.destination(for: proposed).lastPathComponent == "file.1.iso")
        try Data().write(to: dir.appendingPathComponent("file.1.iso.part"))  // a staging name is taken too
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("file.2.iso").path, withDestinationPath: "/nonexistent")
        #expect(try policy.destination(for: proposed).lastPathComponent == "file.3.iso")
        #expect(try policy.destination(for: proposed, isTaken: { $0.hasSuffix("file.3.iso") }).lastPathComponent == "file.4.iso")
        let replacing = DestinationPolicy(existingFiles: .replace)
        #expect(try replacing.destination(for: proposed).path == proposed.path)
        #expect(try Data(contentsOf: proposed) == Data("mine".utf8), "asking never changes the file")
    }

    @Test("a reserved path, a path below it, or one whose staging file is it, is refused, also through a link")
    func reservedPaths() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("state"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createSymbolicLink(at: dir.appendingPathComponent("alias"), withDestinationURL: dir.appendingPathComponent("state"))
        let policy = DestinationPolicy(reservedPaths: [dir.path + "/agent.sock", dir.path + "/state"])
        for path in ["agent.sock", "state/agent.lock", "state/agent.sqlite-wal", "alias/agent.lock", "state/../agent.sock"] {
            let error = #expect(throws: DownloadError.self, "\(path)") { try policy.destination(for: dir.appendingPathComponent(path)) }
            #expect(error?.code == .invalidDestination)
        }
        #expect(policy.reservedPath(hitBy: URL(fileURLWithPath: dir.path + "/agent")) == nil, "agent.part is not agent.sock")
        #expect(DestinationPolicy(reservedPaths: [dir.path + "/x.part"]).reservedPath(hitBy: URL(fileURLWithPath: dir.path + "/x")) != nil)
        #expect(policy.reservedPath(hitBy: URL(fileURLWithPath: dir.path + "/statefile")) == nil)
    }

    @Test("parents below the download directory are made; a planted link or a file among them is refused and nothing is made through it")
    func parents() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parents-\(UUID().uuidString)")
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("outside-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir); try? FileManager.default.removeItem(at: outside) }
        try DestinationParents.prepare("a/b/file.bin", in: dir)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: dir.path + "/a/b", isDirectory: &isDirectory) && isDirectory.boolValue)
        try FileManager.default.createSymbolicLink(at: dir.appendingPathComponent("l"), withDestinationURL: outside)
        let error = #expect(throws: DownloadError.self) { try DestinationParents.prepare("l/sub/file.bin", in: dir) }
        #expect(error?.code == .invalidDestination && error?.message.contains("symbolic link") == true)
        #expect(!FileManager.default.fileExists(atPath: outside.path + "/sub"), "nothing made through the link")
    }

    @Test("the downloader does not follow a link planted at a subdirectory between add and start")
    func downloaderRefusesAPlantedLink() async throws {
        let h = Harness()
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("outside-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: outside) }
        _ = h.serve("x", size: 10_000)
        let sub = h.directory.appendingPathComponent("sub-\(UUID().uuidString)")
        try await h.downloader.add(id: "x", url: h.url("x"), destination: sub.appendingPathComponent("x.bin"))
        try FileManager.default.createSymbolicLink(at: sub, withDestinationURL: outside)
        defer { try? FileManager.default.removeItem(at: sub) }
        try await h.downloader.start(id: "x")
        await h.recorder.state("x", .failed)
        #expect(await h.downloader.info(of: "x")?.lastErrorCode == .invalidDestination)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty, "nothing written through the link")
        await h.cleanUp()
    }

    @Test("a link the application already has below the download directory is followed: the download is stored, announced and completed at its real path")
    func downloaderFollowsAnExistingLink() async throws {
        let h = Harness()
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("disk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: outside.appendingPathComponent("deep"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: outside) }
        let content = h.serve("x", size: 10_000)
        // ~/Downloads -> /mnt/disk, with the downloads directory the home directory.
        let link = h.directory.appendingPathComponent("Downloads")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)
        let given = link.appendingPathComponent("deep/new/x.bin")
        let stored = try await h.downloader.add(id: "x", url: h.url("x"), destination: given)
        let real = outside.resolvingSymlinksInPath().appendingPathComponent("deep/new/x.bin")
        #expect(stored.path == real.path, "the destination is returned with the link resolved, missing directories kept")
        #expect(await h.downloader.info(of: "x")?.destination.path == real.path)
        try await h.downloader.start(id: "x")
        await h.recorder.state("x", .completed)
        #expect(try Data(contentsOf: real) == content.data)
        await h.cleanUp()
    }

    @Test("with followsExistingLinks off (the agent, the fleet) a link already there is refused as one planted later")
    func downloaderRefusesAnExistingLinkWhenTold() async throws {
        let h = Harness(configure: { $0.followsExistingLinks = false })
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("outside-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: outside) }
        _ = h.serve("x", size: 10_000)
        let link = h.directory.appendingPathComponent("sub")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)
        let stored = try await h.downloader.add(id: "x", url: h.url("x"), destination: link.appendingPathComponent("x.bin"))
        #expect(stored.path == link.path + "/x.bin", "stored as given")
        try await h.downloader.start(id: "x")
        await h.recorder.state("x", .failed)
        #expect(await h.downloader.info(of: "x")?.lastErrorCode == .invalidDestination)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty, "nothing written through the link")
        await h.cleanUp()
    }

    @Test("resolvingLinks: nil without a link, directly in the directory or outside it; the real path with missing parts appended")
    func resolvingLinks() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("resolve-\(UUID().uuidString)").path
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("target-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "/plain", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside + "/in", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir); try? FileManager.default.removeItem(atPath: outside) }
        try FileManager.default.createSymbolicLink(atPath: dir + "/plain/l", withDestinationPath: outside)
        #expect(DestinationParents.resolvingLinks(in: dir + "/plain/missing/f", below: dir) == nil)
        #expect(DestinationParents.resolvingLinks(in: dir + "/f", below: dir) == nil)
        #expect(DestinationParents.resolvingLinks(in: outside + "/in/f", below: dir) == nil)
        #expect(DestinationParents.resolvingLinks(in: dir + "/plain/l", below: dir) == nil, "the link is the file name, not a directory")
        let real = URL(fileURLWithPath: outside).resolvingSymlinksInPath().path
        #expect(DestinationParents.resolvingLinks(in: dir + "/plain/l/in/a/b/f", below: dir) == real + "/in/a/b/f")
        #expect(DestinationParents.resolvingLinks(in: dir + "/plain/l/f", below: dir + "/") == real + "/f")
        #expect(DestinationParents.resolvingLinks(in: dir + "/plain/l\u{0}x/f", below: dir) == nil,
                "a NUL is left for the path checks to refuse, not cut by lstat")
        try FileManager.default.createDirectory(atPath: outside + "/\u{0600}", withIntermediateDirectories: true)
        #expect(DestinationParents.resolvingLinks(in: dir + "/plain/l/\u{0600}/f", below: dir) == real + "/\u{0600}/f",
                "cut by bytes: a name ending in a prefix mark keeps its separator")
    }
}
