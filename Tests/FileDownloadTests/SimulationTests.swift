@testable import FileDownload
import FileDownloadMock
import Foundation
import Synchronization
import Testing

/// Thousands of random schedules of starts, pauses, resumes, cancels, faults, remote changes and
/// time, over MockTransport, with the invariants checked after every step.
///
/// A failing schedule prints its seed; replay it alone with
/// `FDL_SIMULATION_SEED=<seed> FDL_SIMULATION_SCHEDULES=1 swift test --filter SimulationTests`.
@Suite("Seeded simulation", .timeLimit(.minutes(10)))
struct SimulationTests {
    static let allowed: Set<String> = [
        "notStarted>waiting", "notStarted>cancelled",
        "waiting>downloading", "waiting>paused", "waiting>cancelled",
        "downloading>completed", "downloading>paused", "downloading>cancelled", "downloading>interrupted",
        "downloading>failed",
        "interrupted>waiting", "interrupted>paused", "interrupted>cancelled",
        "paused>waiting", "paused>cancelled",
        "failed>waiting", "failed>cancelled",
    ]

    @Test("random schedules keep every invariant")
    func randomSchedules() async throws {
        let env = ProcessInfo.processInfo.environment
        let schedules = env["FDL_SIMULATION_SCHEDULES"].flatMap(Int.init) ?? 1500
        let base = env["FDL_SIMULATION_SEED"].flatMap(UInt64.init) ?? 20_261_121
        for i in 0..<schedules {
            let seed = base &+ UInt64(i)
            let problems = await Self.withWatchdog(seed: seed) { await Self.run(seed: seed) }
            if !problems.isEmpty {
                Issue.record("""
                    schedule with seed \(seed) broke an invariant; replay it with \
                    FDL_SIMULATION_SEED=\(seed) FDL_SIMULATION_SCHEDULES=1 swift test --filter SimulationTests
                    \(problems.joined(separator: "\n"))
                    """)
                return
            }
        }
    }

    /// Runs one schedule, or reports it as hung after 60 s of real time (a watchdog, not a wait:
    /// a healthy schedule takes milliseconds).
    static func withWatchdog(seed: UInt64, _ body: @escaping @Sendable () async -> [String]) async -> [String] {
        final class Once: Sendable { let done = Mutex(false) }
        let once = Once()
        return await withCheckedContinuation { (continuation: CheckedContinuation<[String], Never>) in
            @Sendable func finish(_ result: [String]) {
                let first = once.done.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: result) }
            }
            let work = Task { finish(await body()) }
            Task {
                try? await Task.sleep(for: .seconds(60))
                if !work.isCancelled { finish(["the schedule did not finish within 60 s (hung)"]) }
            }
        }
    }

    static func run(seed: UInt64) async -> [String] {
        var rng = SplitMix64(seed: seed)
        let limit = 1 + rng.below(3)
        let (h, counter) = Harness.counting(maxConcurrent: limit, retry: RetryPolicy(maxRetries: 2, initialDelay: .milliseconds(10), multiplier: 2, jitter: 0.5), progressInterval: .milliseconds(20))
        let counting = counter
        var problems: [String] = []
        var ids: [String] = []
        var log: [String] = []
        // Every version of every remote file, by validator: a completed file must equal the
        // version its last attempt was served from (the remote may change again afterwards).
        var versions: [Validator: MockContent] = [:]
        let steps = 15 + rng.below(25)
        let trace = ProcessInfo.processInfo.environment["FDL_SIMULATION_TRACE"] != nil
        func note(_ line: String) {
            log.append(line)
            if trace { print("seed \(seed) \(line)") }
        }

        func serve(_ id: String, seed contentSeed: UInt64, size: Int64, delay: Bool) {
            let chunk = 500 + rng.below(8000)
            let content = MockContent.seeded(seed: contentSeed, size: size)
            versions[content.defaultValidator] = content
            h.mock.serve(h.url(id), MockResource(.seeded(seed: contentSeed, size: size), chunkSize: chunk,
                                                 chunkDelay: delay ? .milliseconds(1) : nil))
        }

        for step in 0..<steps {
            let op = rng.below(10)
            switch op {
            case 0...1 where ids.count < 5:
                let id = "d\(ids.count)"
                ids.append(id)
                serve(id, seed: rng.next(), size: Int64(1 + rng.below(40_000)), delay: rng.below(3) > 0)
                note("\(step): start \(id)")
                do { try await h.downloader.start(id: id, url: h.url(id)) } catch {
                    problems.append("start \(id) threw \(error)")
                }
            case 2 where !ids.isEmpty:
                let id = rng.pick(ids)
                note("\(step): pause \(id)")
                _ = try? await h.downloader.pause(id)
            case 3 where !ids.isEmpty:
                let id = rng.pick(ids)
                note("\(step): resume \(id)")
                try? await h.downloader.resume(id)
            case 4 where !ids.isEmpty && rng.below(3) == 0:
                let id = rng.pick(ids)
                note("\(step): cancel \(id)")
                try? await h.downloader.cancel(id)
            case 5 where !ids.isEmpty:
                let id = rng.pick(ids)
                let size = h.mock.resource(at: h.url(id))?.content.size ?? 1
                let at = Int64(rng.below(Int(max(1, size))))
                let newer = MockContent.seeded(seed: rng.next(), size: Int64(1 + rng.below(40_000)))
                versions[newer.defaultValidator] = newer
                let fault: MockAttempt = rng.pick([
                    .drop(at: at), .error(at: at, DownloadError(.permissionDenied, "scripted")),
                    .status(503), .ignoreRange, .changeContent(to: newer),
                ])
                note("\(step): script \(id) \(fault)")
                h.mock.script(h.url(id), attempts: [fault])
            case 6 where !ids.isEmpty:
                let id = rng.pick(ids)
                note("\(step): remote change \(id)")
                let newer = MockContent.seeded(seed: rng.next(), size: Int64(1 + rng.below(40_000)))
                versions[newer.defaultValidator] = newer
                h.mock.changeContent(of: h.url(id), to: newer)
            default:
                let ms = 1 + rng.below(60)
                note("\(step): advance \(ms) ms")
                h.clock.advance(by: .milliseconds(ms))
                await h.downloader.refresh()
            }
            await h.downloader.settle()
            problems += await check(h, ids: ids, limit: limit, counting: counting, versions: versions)
            if !problems.isEmpty { break }
        }

        // Drive everything to an end: stop parked transfers, serve without delays, resume all.
        if problems.isEmpty {
            // Serve without delays first, so that any attempt from now on runs to its end...
            for id in ids {
                if let r = h.mock.resource(at: h.url(id)) {
                    h.mock.serve(h.url(id), MockResource(r.content, chunkSize: r.chunkSize, validator: r.validator))
                }
            }
            // ...then stop the attempts still parked on the clock with the old delays.
            for id in ids where await h.downloader.state(of: id) == .downloading {
                _ = try? await h.downloader.pause(id)
            }
            note("drive to the end")
            var rounds = 0
            while rounds < 30 {
                rounds += 1
                // Taken before the states are read: a download that ends between the read and
                // the resume still has its end event at or after this index.
                let from = h.recorder.count
                var pending: [String] = []
                for id in ids {
                    let state = await h.downloader.state(of: id)
                    if state == .completed || state == .cancelled { continue }
                    pending.append(id)
                }
                if pending.isEmpty { break }
                note("round \(rounds): resume \(pending)")
                for id in pending { try? await h.downloader.resume(id) }
                for id in pending {
                    if trace { print("seed \(seed) waiting for \(id): \(await h.downloader.info(of: id).map { "\($0.state)" } ?? "?")") }
                    await h.recorder.first(from: from) { event in
                        if case .stateChanged(id, let s) = event {
                            return [.completed, .cancelled, .failed, .interrupted, .paused].contains(s)
                        }
                        return false
                    }
                }
                await h.downloader.settle()
                problems += await check(h, ids: ids, limit: limit, counting: counting, versions: versions)
                if !problems.isEmpty { break }
            }
            for id in ids {
                let state = await h.downloader.state(of: id)
                if state != .completed && state != .cancelled {
                    problems.append("\(id) did not end: \(state.map { "\($0)" } ?? "unknown")")
                }
            }
        }
        await h.cleanUp()
        if !problems.isEmpty { problems.append("steps:\n" + log.joined(separator: "\n")) }
        return problems
    }

    static func check(_ h: Harness, ids: [String], limit: Int, counting: CountingTransport,
                      versions: [Validator: MockContent]) async -> [String] {
        var problems: [String] = []
        if counting.peak > limit { problems.append("\(counting.peak) transfers ran at once, limit \(limit)") }
        for id in ids {
            let states = h.recorder.states(of: id)
            for (a, b) in zip(states, states.dropFirst()) where !allowed.contains("\(a)>\(b)") {
                problems.append("\(id): transition \(a) -> \(b) is not in the table")
            }
            if let i = states.firstIndex(where: { $0 == .completed || $0 == .cancelled }), i != states.count - 1 {
                problems.append("\(id): state changed after \(states[i])")
            }
            var last: Int64 = -1
            for event in h.recorder.events(of: id) {
                switch event {
                case .restarted: last = -1
                case .progress(_, let p):
                    if p.receivedBytes < last { problems.append("\(id): progress went back \(last) -> \(p.receivedBytes)") }
                    if let e = p.expectedBytes, p.receivedBytes > e { problems.append("\(id): progress above 100 %") }
                    last = p.receivedBytes
                case .stateChanged(_, .waiting): last = -1
                default: break
                }
            }
            let destination = h.file(id)
            let exists = FileManager.default.fileExists(atPath: destination.path)
            let state = await h.downloader.state(of: id)
            if state == .completed {
                guard let served = h.mock.requests(for: h.url(id)).last?.head?.validator,
                      let content = versions[served] else {
                    problems.append("\(id): completed, but its last attempt named no known version")
                    continue
                }
                let data = FileManager.default.contents(atPath: destination.path)
                if data != content.data {
                    problems.append("\(id): the completed file differs from the remote version it was served from")
                }
            } else if exists, !states.contains(.completed), state != .downloading {
                // (While downloading, the file may already be in place: it is moved there, valid,
                // just before the downloader books the completion.)
                problems.append("\(id): a file is at the destination but the download is \(state.map { "\($0)" } ?? "?")")
            }
        }
        return problems
    }
}

/// The simulation's draws from the package's generator: `below` keeps its `% n` (not the standard
/// library's unbiased range) so a seed replays the same schedule.
private extension SplitMix64 {
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}
