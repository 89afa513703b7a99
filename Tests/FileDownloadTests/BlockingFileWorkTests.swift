@testable import FileDownload
import Foundation
import Synchronization
import Testing

@Suite("BlockingFileWork runs blocking calls side by side, off the cooperative pool", .timeLimit(.minutes(1)))
struct BlockingFileWorkTests {
    /// Counts arrivals; every job blocks until `parties` jobs arrived (a barrier of plain threads).
    final class Barrier: @unchecked Sendable {
        private let condition = NSCondition()
        private var arrived = 0
        let parties: Int
        init(parties: Int) { self.parties = parties }

        /// `false` when the others did not arrive within 10 s (the jobs did not run side by side).
        func arriveAndWait() -> Bool {
            condition.lock()
            defer { condition.unlock() }
            arrived += 1
            condition.broadcast()
            let deadline = Date(timeIntervalSinceNow: 10)
            while arrived < parties {
                if !condition.wait(until: deadline) { return false }
            }
            return true
        }
    }

    /// Jobs running now and the most seen at once.
    final class Counts: Sendable {
        private let state = Mutex((running: 0, peak: 0))
        func enter() { state.withLock { $0.running += 1; $0.peak = max($0.peak, $0.running) } }
        func leave() { state.withLock { $0.running -= 1 } }
        var peak: Int { state.withLock { $0.peak } }
    }

    @Test("as many jobs as threads block at once and all of them finish")
    func sideBySide() async throws {
        let pool = BlockingFileWork(maxThreads: 6, idleSeconds: 1)
        let barrier = Barrier(parties: 6)
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<6 { group.addTask { try await pool.run { barrier.arriveAndWait() } } }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 6))
    }

    @Test("more jobs than threads queue and run in turn; results and errors come back to their caller")
    func queueing() async throws {
        struct Boom: Error, Equatable { let n: Int }
        let pool = BlockingFileWork(maxThreads: 2, idleSeconds: 1)
        let counts = Counts()
        let outcomes = await withTaskGroup(of: (Int, Result<Int, Boom>).self) { group in
            for n in 0..<40 {
                group.addTask {
                    do {
                        let value = try await pool.run { () throws(Boom) -> Int in
                            counts.enter()
                            defer { counts.leave() }
                            if n % 7 == 0 { throw Boom(n: n) }
                            return n * n
                        }
                        return (n, .success(value))
                    } catch {
                        return (n, .failure(error as! Boom))
                    }
                }
            }
            return await group.reduce(into: [Int: Result<Int, Boom>]()) { $0[$1.0] = $1.1 }
        }
        #expect(outcomes.count == 40)
        for (n, outcome) in outcomes {
            #expect(outcome == (n % 7 == 0 ? .failure(Boom(n: n)) : .success(n * n)))
        }
        #expect(counts.peak <= 2)
    }
}
