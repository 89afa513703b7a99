@testable import FileDownload
import Testing

/// The waits for the network as a part of their own (``NetworkWaits``), without a downloader:
/// which downloads on hold for the network go back to the queue, and when (docs/states.md rows 38
/// and 46; docs/network.md). `NetworkWaitTests` runs the same through the `Downloader`.
@Suite("Network waits: one probe per server, then all once it answers")
struct NetworkWaitsTests {
    func held(_ id: String, _ host: String, since: Duration = .zero) -> NetworkWaits.Held {
        NetworkWaits.Held(id: id, host: host, since: since)
    }

    @Test("the slow probe lets one download per server go, the first in queue order")
    func slowProbe() {
        var waits = NetworkWaits(probeInterval: .seconds(30))
        waits.holdStarted(host: "a", now: .zero)
        waits.holdStarted(host: "b", now: .zero)
        let all = [held("a1", "a"), held("a2", "a"), held("b1", "b")]
        #expect(waits.releases(all, probing: [], now: .seconds(29)).isEmpty)
        #expect(waits.releases(all, probing: [], now: .seconds(30)) == ["a1", "b1"])
        // Probed again one interval later, not before.
        #expect(waits.releases([held("a2", "a")], probing: [], now: .seconds(31)).isEmpty)
        #expect(waits.releases([held("a2", "a")], probing: [], now: .seconds(60)) == ["a2"])
    }

    @Test("a server that answered lets every download waiting for it go; none while its probe runs")
    func answered() {
        var waits = NetworkWaits(probeInterval: .seconds(30))
        waits.holdStarted(host: "a", now: .zero)
        // a3 was put on hold at the moment the server answered: the answer counts for it too.
        let all = [held("a1", "a"), held("a2", "a"), held("a3", "a", since: .seconds(31))]
        #expect(waits.releases(all, probing: ["a"], now: .seconds(30)).isEmpty)  // a probe runs
        waits.serverAnswered(host: "a", now: .seconds(31))
        // Every one goes by the answer, not as a probe (another attempt to the server runs).
        #expect(waits.releases(all, probing: ["a"], now: .seconds(31)) == ["a1", "a2", "a3"])
        // An answer before a download was put on hold says nothing of its wait.
        #expect(waits.releases([held("a4", "a", since: .seconds(40))], probing: ["a"], now: .seconds(41)).isEmpty)
    }

    @Test("a network change lets one per server go once it settled, and is forgotten then")
    func change() {
        var waits = NetworkWaits(probeInterval: .seconds(300))
        waits.holdStarted(host: "a", now: .zero)
        waits.holdStarted(host: "b", now: .zero)
        let all = [held("a1", "a"), held("a2", "a"), held("b1", "b")]
        waits.mayHaveChanged(now: .seconds(10))
        waits.mayHaveChanged(now: .seconds(10.5))  // the same burst
        #expect(waits.isChangePending)
        #expect(waits.releases(all, probing: [], now: .seconds(10.9)).isEmpty)
        #expect(waits.releases(all, probing: [], now: .seconds(11)) == ["a1", "b1"])
        #expect(!waits.isChangePending)
    }

    @Test("servers no download waits for are forgotten: an answer from them changes nothing")
    func forgets() {
        var waits = NetworkWaits(probeInterval: .seconds(30))
        waits.holdStarted(host: "a", now: .zero)
        #expect(waits.isWaiting)
        _ = waits.releases([], probing: [], now: .seconds(1))
        #expect(!waits.isWaiting)
        waits.serverAnswered(host: "a", now: .seconds(2))
        waits.holdStarted(host: "a", now: .seconds(3))
        #expect(waits.releases([held("a1", "a", since: .seconds(3))], probing: ["a"], now: .seconds(4)).isEmpty)
    }
}
