@testable import FileDownload
import Testing

/// The holds for space on their own: which downloads on hold go back to the queue, by the free
/// space of their file system, what running downloads still need there, and queue order.
@Suite("Space holds: who goes back to the queue when room appears")
struct SpaceHoldsTests {
    func held(_ id: String, fs: UInt = 1, free: Int64, need: Int64, freeAtHold: Int64? = nil) -> SpaceHolds.Held {
        SpaceHolds.Held(id: id, fileSystem: fs, free: free, need: need, freeAtHold: freeAtHold)
    }

    @Test("downloads that fit go, counting those let go before them; one that does not fit keeps the later ones waiting")
    func queueOrderPerFileSystem() {
        let free: Int64 = 100
        let released = SpaceHolds.releases([
            held("a", free: free, need: 60),
            held("b", free: free, need: 50),  // 60 + 50 > 100: waits, and so does c behind it
            held("c", free: free, need: 10),
            held("other", fs: 2, free: 20, need: 20),
        ]) { _, _ in 0 }
        #expect(released == ["a", "other"])
    }

    @Test("what running downloads on the same file system still need counts")
    func runningNeedsCount() {
        let released = SpaceHolds.releases([held("a", free: 100, need: 60)]) { fs, id in
            #expect(id == "a")
            return fs == 1 ? 50 : 0
        }
        #expect(released.isEmpty)
    }

    @Test("after a write met a full disk, only more free space than then lets it go (a quota statvfs does not show)")
    func freeAtHold() {
        #expect(SpaceHolds.releases([held("a", free: 100, need: 10, freeAtHold: 100)]) { _, _ in 0 }.isEmpty)
        #expect(SpaceHolds.releases([held("a", free: 101, need: 10, freeAtHold: 100)]) { _, _ in 0 } == ["a"])
    }

    @Test("the file system of a directory asked about is remembered")
    func remembers() {
        var holds = SpaceHolds()
        #expect(holds.fileSystem(of: "/d") == nil)
        holds.remember(directory: "/d", fileSystem: 7)
        #expect(holds.fileSystem(of: "/d") == 7)
    }
}
