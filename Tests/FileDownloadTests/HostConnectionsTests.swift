@testable import FileDownload
import Foundation
import Testing

/// The host governor alone: times are points on the downloader's clock, given by the test.
@Suite("Host connections: cap, adaptive target, throttles")
struct HostConnectionsTests {
    let origin = "https://files.example.org:443"

    /// Opens `n` connections to `origin` (`measured` `false`: of a download that asked for its
    /// number of connections, or is rate-limited).
    func open(_ hosts: inout HostConnections, _ n: Int, origin: String? = nil, measured: Bool = true) {
        for _ in 0..<n { hosts.opened(origin: origin ?? self.origin, measured: measured) }
    }

    /// Feeds `seconds` of traffic at `rate` bytes per second in 250 ms samples from `start`;
    /// returns the time after.
    @discardableResult
    func traffic(_ hosts: inout HostConnections, rate: Int64, from start: Duration, seconds: Int) -> Duration {
        var now = start
        for _ in 0..<(seconds * 4) {
            now += .milliseconds(250)
            hosts.record(origin: origin, bytes: rate / 4, now: now)
        }
        return now
    }

    /// Opens connections up to the target of `origin` and feeds `seconds` of traffic at `rate`
    /// from `start`; returns the time after.
    @discardableResult
    func fill(_ hosts: inout HostConnections, rate: Int64, from start: Duration, seconds: Int = 1, measured: Bool = true) -> Duration {
        open(&hosts, hosts.target(of: origin) - hosts.openCount(of: origin), measured: measured)
        return traffic(&hosts, rate: rate, from: start, seconds: seconds)
    }

    @Test("the target starts at 2 and doubles, like TCP's slow start, while the rate grows with the connections")
    func doublesWhileThroughputScales() {
        var hosts = HostConnections(cap: 16)
        #expect(hosts.extraAllowed(origin: origin, now: .zero) == 2)
        var now = fill(&hosts, rate: 2_000_000, from: .zero)
        #expect(hosts.target(of: origin) == 4)
        now = fill(&hosts, rate: 4_000_000, from: now)
        #expect(hosts.target(of: origin) == 8)
        now = fill(&hosts, rate: 6_000_000, from: now)  // 1.5 x for twice the connections: still worth it
        #expect(hosts.target(of: origin) == 16)
        #expect(hosts.extraAllowed(origin: origin, now: now) == 8)
        #expect(hosts.takeLearned() == [origin: 8])  // the most a window showed to scale, not the unmeasured 16
        #expect(hosts.takeLearned().isEmpty)
    }

    @Test("what is remembered was measured: nothing from a first window, which only sets the base, so a server one connection fills is not ratcheted upward download after download")
    func remembersOnlyWhatAWindowMeasured() {
        var remembered: [String: Int] = [:]
        for _ in 0..<3 {  // three downloads in turn, each of one window, to a server one connection fills
            var hosts = HostConnections(cap: 16)
            hosts.remember(remembered)
            fill(&hosts, rate: 10_000_000, from: .zero)
            remembered.merge(hosts.takeLearned()) { $1 }
        }
        #expect(remembered.isEmpty)  // each started at 2: its first window set the base and doubled, unremembered

        var hosts = HostConnections(cap: 16)
        hosts.remember([origin: 8])
        var now = fill(&hosts, rate: 10_000_000, from: .zero)  // the base at 8; doubles to 16
        #expect(hosts.target(of: origin) == 16 && hosts.takeLearned().isEmpty)
        now = fill(&hosts, rate: 10_000_000, from: now)  // 16 bring nothing: back to 8
        #expect(hosts.target(of: origin) == 8)

        var lan = HostConnections(cap: 16)
        now = fill(&lan, rate: 10_000_000, from: .zero)
        now = fill(&lan, rate: 10_000_000, from: now)  // 4 bring nothing over 2: settles at 2
        #expect(lan.target(of: origin) == 2 && lan.takeLearned() == [origin: 2])
    }

    @Test("connections of a download that asked for its number (or is rate-limited) teach nothing: the target grows, the remembered count stays")
    func unmeasuredConnectionsTeachNothing() {
        var hosts = HostConnections(cap: 16)
        var now = fill(&hosts, rate: 2_000_000, from: .zero)
        open(&hosts, 1, measured: false)  // a download with -x 1 beside
        now = fill(&hosts, rate: 5_000_000, from: now)
        #expect(hosts.target(of: origin) > 4)  // the target still follows the rate
        now = fill(&hosts, rate: 5_100_000, from: now)  // and settles
        #expect(hosts.takeLearned().isEmpty)

        var fixed = HostConnections(cap: 16)
        open(&fixed, 16, measured: false)  // -x 16 to a server not remembered
        fixed.throttled(origin: origin, retryAfter: nil, now: now)
        #expect(fixed.target(of: origin) == 8 && fixed.takeLearned().isEmpty)
        var known = HostConnections(cap: 16)
        known.remember([origin: 4])
        open(&known, 16, measured: false)
        known.throttled(origin: origin, retryAfter: nil, now: now)
        #expect(known.takeLearned().isEmpty)  // 8 is more than the 4 remembered
        for _ in 0..<14 { known.closed(origin: origin, measured: false) }
        known.throttled(origin: origin, retryAfter: nil, now: now + .seconds(2))
        #expect(known.target(of: origin) == 4 && known.takeLearned().isEmpty)  // no lower than the 4 remembered
        known.throttled(origin: origin, retryAfter: nil, now: now + .seconds(4))
        #expect(known.takeLearned() == [origin: 2])  // a throttle that lowers the remembered count is remembered
    }

    @Test("nothing read from the store is trusted: a count above the cap starts at the cap and halves from it; one above 16 counts as 16; 0 or less is ignored")
    func rememberedCountsAreClamped() {
        var hosts = HostConnections(cap: 8)
        let zero = "https://zero.example.org:443", negative = "https://negative.example.org:443"
        hosts.remember([origin: 1000, zero: 0, negative: -3])
        #expect(hosts.target(of: origin) == 8)
        #expect(hosts.extraAllowed(origin: origin, now: .zero) == 8)
        #expect(hosts.target(of: zero) == 2 && hosts.target(of: negative) == 2)
        open(&hosts, 8)
        hosts.throttled(origin: origin, retryAfter: nil, now: .zero)
        #expect(hosts.target(of: origin) == 4)  // halved from the cap, not from 1000
        #expect(hosts.takeLearned() == [origin: 4])
        for _ in 0..<8 { hosts.closed(origin: origin) }
        for seconds in stride(from: 2, through: 8, by: 2) {  // grows back one per 2 s while used
            hosts.wanted(origin: origin)
            hosts.recover(now: .seconds(seconds))
        }
        #expect(hosts.target(of: origin) == 8)
        open(&hosts, 8)
        #expect(!hosts.mayOpen(origin: origin, now: .seconds(8)))

        var wide = HostConnections(cap: 64)
        wide.remember([origin: 1000])
        #expect(wide.target(of: origin) == Downloader.automaticConnections)

        var lowered = HostConnections(cap: 16)  // 16 open at a target of 16 ...
        lowered.remember([origin: 16])
        let now = fill(&lowered, rate: 2_000_000, from: .zero)
        #expect(lowered.openCount(of: origin) == 16)
        lowered.setCap(8, forHost: "files.example.org")  // ... when the cap is lowered to 8
        lowered.throttled(origin: origin, retryAfter: nil, now: now)
        #expect(lowered.target(of: origin) == 4)  // halved from the cap
    }

    @Test("a doubling that brings nothing backs off to the count with the best rate and settles; one that brings less than half its share settles there")
    func settlesWhenFlat() {
        var hosts = HostConnections(cap: 16)
        var now = fill(&hosts, rate: 2_000_000, from: .zero)
        now = fill(&hosts, rate: 4_000_000, from: now)
        now = fill(&hosts, rate: 4_200_000, from: now)  // 8 connections, +5 %: flat
        #expect(hosts.target(of: origin) == 4)
        #expect(hosts.takeLearned() == [origin: 4])
        now = traffic(&hosts, rate: 9_000_000, from: now, seconds: 10)  // settled: no probing on
        #expect(hosts.target(of: origin) == 4)

        var other = HostConnections(cap: 16)
        now = fill(&other, rate: 2_000_000, from: .zero)
        now = fill(&other, rate: 2_800_000, from: now)  // 4 connections, +40 %: better, not worth doubling again
        #expect(other.target(of: origin) == 4)
        now = traffic(&other, rate: 9_000_000, from: now, seconds: 10)
        #expect(other.target(of: origin) == 4)
        #expect(other.extraAllowed(origin: origin, now: now) == 0)
    }

    @Test("never above the cap, however the throughput grows")
    func neverAboveCap() {
        var hosts = HostConnections(cap: 3)
        var now = fill(&hosts, rate: 2_000_000, from: .zero)
        now = fill(&hosts, rate: 6_000_000, from: now)
        #expect(hosts.target(of: origin) == 3)
        #expect(hosts.extraAllowed(origin: origin, now: now) == 0)
        #expect(!hosts.mayOpen(origin: origin, now: now))
    }

    @Test("a remembered count is where a new origin starts; others start at 2")
    func startsAtTheRememberedCount() {
        var hosts = HostConnections(cap: 16)
        hosts.remember([origin: 8])
        #expect(hosts.target(of: origin) == 8)
        #expect(hosts.extraAllowed(origin: origin, now: .zero) == 8)
        #expect(hosts.target(of: "https://other.example.org:443") == 2)
        fill(&hosts, rate: 8_000_000, from: .zero)
        #expect(hosts.target(of: origin) == 16)  // it still probes from there
        #expect(hosts.takeLearned().isEmpty)  // a first window only sets the base: 16 is not remembered
    }

    @Test("an origin is remembered by scheme, host and port only: no credentials, path or query, the host lowercased")
    func originOnly() throws {
        let url = try #require(URL(string: "https://u:p@Files.Example.org:443/p?q"))
        #expect(Downloader.connectionOrigin(of: url) == "https://files.example.org:443")
        #expect(Downloader.connectionOrigin(of: try #require(URL(string: "https://Host/p?q"))) == "https://host:443")
    }

    @Test("a throttle halves the target, stops the doubling and is remembered")
    func throttleBacksOff() {
        var hosts = HostConnections(cap: 16)
        hosts.remember([origin: 16])
        let now = fill(&hosts, rate: 16_000_000, from: .zero)
        #expect(hosts.target(of: origin) == 16 && hosts.takeLearned().isEmpty)
        hosts.throttled(origin: origin, retryAfter: nil, now: now)
        #expect(hosts.target(of: origin) == 8)
        #expect(hosts.takeLearned() == [origin: 8])
        for _ in 0..<8 { hosts.closed(origin: origin) }
        traffic(&hosts, rate: 40_000_000, from: now, seconds: 5)  // however fast: no doubling after a throttle
        #expect(hosts.target(of: origin) == 8)
    }

    @Test("a 429 halves the target and holds new connections until its Retry-After, not a moment earlier")
    func halvesAndHolds() {
        var hosts = HostConnections(cap: 8)
        open(&hosts, 6)
        hosts.throttled(origin: origin, retryAfter: .seconds(30), now: .seconds(10))
        #expect(hosts.target(of: origin) == 3)
        hosts.closed(origin: origin)  // the refused connection
        #expect(!hosts.mayOpen(origin: origin, now: .seconds(10)))
        #expect(!hosts.mayOpen(origin: origin, now: .milliseconds(39_999)))
        #expect(hosts.extraAllowed(origin: origin, now: .milliseconds(39_999)) == 0)
        #expect(hosts.holdEnd(of: origin, now: .seconds(10)) == .seconds(40))
        // After the hold, the halved target bounds first connections too: 5 open, target 3.
        #expect(!hosts.mayOpen(origin: origin, now: .seconds(40)))
        for _ in 0..<3 { hosts.closed(origin: origin) }
        #expect(hosts.mayOpen(origin: origin, now: .seconds(40)))
        #expect(hosts.extraAllowed(origin: origin, now: .seconds(40)) == 1)
    }

    @Test("connections refused together halve the target once; a later throttle halves again")
    func oneDecreasePerWindow() {
        var hosts = HostConnections(cap: 8)
        open(&hosts, 8)
        for _ in 0..<4 { hosts.throttled(origin: origin, retryAfter: nil, now: .seconds(1)) }
        #expect(hosts.target(of: origin) == 4)
        hosts.throttled(origin: origin, retryAfter: nil, now: .seconds(4))
        #expect(hosts.target(of: origin) == 4)  // max(target, open) / 2 = 8 / 2: 8 still open
        for _ in 0..<6 { hosts.closed(origin: origin) }
        hosts.throttled(origin: origin, retryAfter: nil, now: .seconds(7))
        #expect(hosts.target(of: origin) == 2)
        hosts.throttled(origin: origin, retryAfter: nil, now: .seconds(10))
        #expect(hosts.target(of: origin) == 1)
        hosts.throttled(origin: origin, retryAfter: nil, now: .seconds(13))
        #expect(hosts.target(of: origin) == 1)
        #expect(hosts.mayOpen(origin: origin, now: .seconds(13)) == false)  // 2 open, target 1
    }

    @Test("a Retry-After of a day holds one hour at most")
    func boundedHold() {
        var hosts = HostConnections(cap: 8)
        hosts.throttled(origin: origin, retryAfter: .seconds(86_400), now: .zero)
        #expect(hosts.holdEnd(of: origin, now: .zero) == HostConnections.longestHold)
        #expect(hosts.mayOpen(origin: origin, now: HostConnections.longestHold))
    }

    @Test("the cap counts connections of every download to the origin, and only to it")
    func capAcrossDownloads() {
        var hosts = HostConnections(cap: 4)
        let other = "https://mirror.example.net:443"
        for _ in 0..<4 {
            #expect(hosts.mayOpen(origin: origin, now: .zero))
            hosts.opened(origin: origin)  // four downloads, one connection each
        }
        #expect(!hosts.mayOpen(origin: origin, now: .zero))
        #expect(hosts.mayOpen(origin: "http://files.example.org:80", now: .zero))  // another origin
        open(&hosts, 4, origin: other)
        #expect(!hosts.mayOpen(origin: other, now: .zero))
        hosts.closed(origin: origin)
        #expect(hosts.mayOpen(origin: origin, now: .zero))
    }

    @Test("an override per host replaces the cap for every origin of the host, and goes away with nil")
    func override() {
        var hosts = HostConnections(cap: 2)
        open(&hosts, 2)
        #expect(!hosts.mayOpen(origin: origin, now: .zero))
        hosts.setCap(5, forHost: "Files.Example.org")
        #expect(hosts.cap(of: origin) == 5)
        #expect(hosts.cap(of: "http://files.example.org:8080") == 5)
        #expect(hosts.mayOpen(origin: origin, now: .zero))
        hosts.setCap(1, forHost: "files.example.org")
        #expect(!hosts.mayOpen(origin: origin, now: .zero))  // 2 open stay; none more
        hosts.setCap(nil, forHost: "files.example.org")
        #expect(hosts.cap(of: origin) == 2)
    }

    @Test("an origin idle for a minute is forgotten: it starts afresh, unthrottled, at its remembered target")
    func forgetsIdle() {
        var hosts = HostConnections(cap: 8)
        open(&hosts, 6)
        hosts.throttled(origin: origin, retryAfter: .seconds(5), now: .zero)
        for _ in 0..<6 { hosts.closed(origin: origin) }
        hosts.forgetIdle(now: .seconds(10))
        hosts.forgetIdle(now: .seconds(69))
        #expect(hosts.target(of: origin) == 3)
        hosts.forgetIdle(now: .seconds(70))
        #expect(hosts.hosts[origin] == nil)
        #expect(hosts.target(of: origin) == 3)  // the halved target is remembered
        #expect(hosts.mayOpen(origin: origin, now: .seconds(70)))
        open(&hosts, 6)
        #expect(hosts.mayOpen(origin: origin, now: .seconds(70)))  // unthrottled: the cap (8) bounds first connections
    }

    @Test("one lost connection is a blip, not a throttle; a second within 10 s is one")
    func lossesCountWhenRepeated() {
        var hosts = HostConnections(cap: 8)
        open(&hosts, 4)
        let losses = [1, 20, 25].map { hosts.lost(origin: origin, now: .seconds($0)) }
        #expect(losses == [false, false, true])  // 19 s apart: again a first loss; then 5 s apart
    }

    @Test("after a throttle the target grows back by one per 2 s window the origin uses all of it, up to the cap; then first connections need only the cap")
    func recoversAfterThrottle() {
        var hosts = HostConnections(cap: 8)
        open(&hosts, 2)
        hosts.throttled(origin: origin, retryAfter: nil, now: .zero)
        #expect(hosts.target(of: origin) == 1)
        hosts.closed(origin: origin)
        hosts.recover(now: .seconds(2))  // nothing opened or waited since the throttle
        #expect(hosts.target(of: origin) == 1)
        var now = Duration.zero
        for expected in 2...8 {
            #expect(!hosts.mayOpen(origin: origin, now: now))
            hosts.wanted(origin: origin)  // a download waits for the host
            hosts.recover(now: now + .milliseconds(1_999))
            #expect(hosts.target(of: origin) == expected - 1)
            now += .seconds(2)
            hosts.recover(now: now)
            #expect(hosts.target(of: origin) == expected)
            hosts.opened(origin: origin)  // the waiting download starts: the target is used
        }
        #expect(hosts.openCount(of: origin) == 8)
        for _ in 0..<8 { hosts.closed(origin: origin) }
        open(&hosts, 8)
        #expect(!hosts.mayOpen(origin: origin, now: now))  // the cap, no longer a throttled target
        hosts.closed(origin: origin)
        #expect(hosts.mayOpen(origin: origin, now: now))
    }
}
