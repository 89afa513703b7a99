import FileDownload
import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Secret files (a password file, the agent's token) are read through one descriptor that was
/// checked: a link, a FIFO or a directory is refused without being followed or blocking the reader.
@Suite("Reading a private file")
struct PrivateFileTests {
    @Test("a regular file is read with its owner and mode; anything else is refused without following or blocking")
    func outcomes() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let secret = try dir.createFile("secret", contents: Data("hunter2\n".utf8))
        chmod(secret, 0o600)
        #expect(PrivateFile.read(secret) == .read(Array("hunter2\n".utf8), owner: geteuid(), mode: 0o600))
        #expect(PrivateFile.read(dir.path("nothing")) == .missing)
        #expect(symlink(secret, dir.path("link")) == 0)
        #expect(PrivateFile.read(dir.path("link")) == .notRegular)
        #expect(mkfifo(dir.path("fifo"), 0o600) == 0)
        #expect(PrivateFile.read(dir.path("fifo")) == .notRegular)  // returns: nobody writes to it
        #expect(PrivateFile.read(dir.path("")) == .notRegular)      // the directory itself
        let large = try dir.createFile("large", contents: Data(count: 5000))
        #expect(PrivateFile.read(large, limit: 4096) == .tooLarge)
    }

    @Test("tightening makes a file of this user that others may read mode 0600; without it the mode is reported as it is")
    func tightening() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let token = try dir.createFile("token", contents: Data("t".utf8))
        chmod(token, 0o644)
        #expect(PrivateFile.read(token) == .read(Array("t".utf8), owner: geteuid(), mode: 0o644))
        #expect(PrivateFile.read(token, tightening: true) == .read(Array("t".utf8), owner: geteuid(), mode: 0o600))
        var info = stat()
        #expect(stat(token, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }
}
