import FileDownload
import FileDownloadMock
import FileDownloadTestSupport
import Foundation
import Testing

/// `Downloader.downloads(in:after:limit:)`, `countsByState()` and `downloadCount`: what the agent's
/// paged list and summary are made of.
@Suite("Listing in pages", .timeLimit(.minutes(1)))
struct ListingTests {
    @Test("pages follow the queue order, filter by state, and survive a removal between pages")
    func pages() async throws {
        let h = Harness()
        let ids = (0..<25).map { String(format: "p%02d", $0) }
        for id in ids { try await h.downloader.add(id: id, url: h.url(id)) }
        try await h.downloader.cancel("p03")
        try await h.downloader.cancel("p17")

        var seen: [String] = []
        var after: Int64?
        var pages = 0
        repeat {
            let page = await h.downloader.downloads(after: after, limit: 10)
            #expect(page.downloads.count <= 10)
            seen += page.downloads.map(\.id)
            after = page.next
            pages += 1
            if pages == 1 { try await h.downloader.remove("p12") }   // forgotten between pages
        } while after != nil
        #expect(seen == ids.filter { $0 != "p12" })
        #expect(pages == 3)

        let cancelled = await h.downloader.downloads(in: [.cancelled], limit: 10)
        #expect(cancelled.downloads.map(\.id) == ["p03", "p17"] && cancelled.next == nil)
        let exact = await h.downloader.downloads(in: [.notStarted], limit: 22)
        #expect(exact.downloads.count == 22 && exact.next == nil, "a last page that is full has no next")
        #expect(await h.downloader.countsByState() == [.notStarted: 22, .cancelled: 2])
        #expect(await h.downloader.downloadCount == 24)
        await h.cleanUp()
    }
}
