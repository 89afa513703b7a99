@testable import FileDownload
import Testing

/// The fresh-URL part on its own: when an expiring URL is asked for again, when a hold for a
/// fresh URL gives up, and how many refusals in a row may ask.
@Suite("Fresh URL holds: when to ask, when to give up")
struct FreshURLHoldsTests {
    @Test("an expiring URL is asked for within the lead of its expiry, or in the last quarter of a short life")
    func beforeExpiry() {
        // A long life: the lead (60 s) decides.
        #expect(!FreshURLHolds.asksBeforeExpiry(.seconds(1000), lifetime: .seconds(1000), lead: .seconds(60), now: .seconds(939)))
        #expect(FreshURLHolds.asksBeforeExpiry(.seconds(1000), lifetime: .seconds(1000), lead: .seconds(60), now: .seconds(940)))
        // A short life (40 s): its last quarter (10 s) decides.
        #expect(!FreshURLHolds.asksBeforeExpiry(.seconds(40), lifetime: .seconds(40), lead: .seconds(60), now: .seconds(29)))
        #expect(FreshURLHolds.asksBeforeExpiry(.seconds(40), lifetime: .seconds(40), lead: .seconds(60), now: .seconds(30)))
    }

    @Test("a hold for a fresh URL is overdue after the timeout")
    func overdue() {
        #expect(!FreshURLHolds.isOverdue(since: .seconds(10), now: .seconds(39), timeout: .seconds(30)))
        #expect(FreshURLHolds.isOverdue(since: .seconds(10), now: .seconds(40), timeout: .seconds(30)))
        #expect(!FreshURLHolds.isOverdue(since: nil, now: .seconds(1000), timeout: .seconds(30)))
    }

    @Test("refusals ask three times in a row without a byte gained, then no more; bytes gained count anew")
    func refusals() {
        var r = FreshURLHolds.Refusals()
        let asked = [100, 100, 100, 100, 101].map { r.mayAsk(bytesOnDisk: $0) }
        #expect(asked == [true, true, true, false, true], "bytes gained since the third: counted anew")
    }

    @Test("the downloads whose URL expires are watched until forgotten")
    func watched() {
        var holds = FreshURLHolds()
        holds.watchExpiry(of: "a")
        holds.watchExpiry(of: "a")
        #expect(holds.expiring == ["a"])
        holds.forget("a")
        #expect(holds.expiring.isEmpty)
    }
}
