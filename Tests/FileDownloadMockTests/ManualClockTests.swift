import FileDownloadMock
import Testing

@Suite("ManualClock", .timeLimit(.minutes(1)))
struct ManualClockTests {
    @Test("starts at zero with zero resolution and moves only forward")
    func nowMovesOnlyForward() {
        let clock = ManualClock()
        #expect(clock.now == .zero)
        #expect(clock.minimumResolution == .zero)
        clock.advance(by: .seconds(3))
        #expect(clock.now == ManualClock.Instant(offset: .seconds(3)))
        clock.advance(to: ManualClock.Instant(offset: .seconds(1)))
        #expect(clock.now == ManualClock.Instant(offset: .seconds(3)))
        clock.advance(by: .seconds(-2))
        #expect(clock.now == ManualClock.Instant(offset: .seconds(3)))
        #expect(clock.now.duration(to: ManualClock.Instant(offset: .seconds(5))) == .seconds(2))
    }

    @Test("a deadline that is already due returns at once without parking")
    func alreadyDue() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(10))
        try await clock.sleep(until: ManualClock.Instant(offset: .seconds(10)))
        try await clock.sleep(until: ManualClock.Instant(offset: .seconds(2)))
        try await clock.sleep(for: .zero)
        #expect(clock.sleeperCount == 0)
    }

    @Test("a sleeper stays parked until advance reaches its deadline")
    func sleeperWaitsForDeadline() async throws {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(for: .seconds(5)) }
        await clock.waitForSleepers(atLeast: 1)
        #expect(clock.sleeperCount == 1)
        #expect(clock.pendingDeadlines == [ManualClock.Instant(offset: .seconds(5))])
        clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        #expect(clock.sleeperCount == 0)
        try await task.value
    }

    @Test("advance resumes due sleepers in deadline order, ties in arrival order, and leaves later ones")
    func deadlineOrder() async throws {
        let clock = ManualClock()
        // Every sleeper resumes on one FIFO executor, so the log shows the clock's resume order.
        let executor = SerialTaskExecutor()
        let log = OrderLog()
        let plan: [(String, Int)] = [("c", 30), ("a", 10), ("late", 100), ("b1", 20), ("b2", 20)]
        var tasks: [Task<Void, any Error>] = []
        for (index, (name, seconds)) in plan.enumerated() {
            tasks.append(Task(executorPreference: executor) {
                try await clock.sleep(until: .init(offset: .seconds(seconds)))
                log.append(name)
            })
            await clock.waitForSleepers(atLeast: index + 1)
        }
        clock.advance(to: .init(offset: .seconds(50)))
        for task in tasks.prefix(2) + tasks.suffix(2) { try await task.value }
        #expect(log.order == ["a", "b1", "b2", "c"])
        #expect(clock.sleeperCount == 1)
        #expect(clock.advanceToNextDeadline() == .init(offset: .seconds(100)))
        try await tasks[2].value
        #expect(log.order.last == "late")
        #expect(clock.advanceToNextDeadline() == nil)
    }

    @Test("cancelling a sleeper throws CancellationError at once and removes it from the clock")
    func cancellation() async throws {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(for: .seconds(60)) }
        await clock.waitForSleepers(atLeast: 1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeperCount == 0)
        #expect(clock.now == .zero)
        clock.advance(by: .seconds(120))   // nothing left to resume: a double resume would trap
    }

    @Test("a task cancelled before it sleeps throws without parking")
    func cancelledBeforeSleeping() async {
        let clock = ManualClock()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test("cancelling one of several sleepers leaves the others to be woken by advance")
    func cancelOneOfMany() async throws {
        let clock = ManualClock()
        let keep = Task { try await clock.sleep(for: .seconds(5)) }
        let drop = Task { try await clock.sleep(for: .seconds(5)) }
        await clock.waitForSleepers(atLeast: 2)
        drop.cancel()
        await #expect(throws: CancellationError.self) { try await drop.value }
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(5))
        try await keep.value
    }

    @Test("waitForSleepers returns at once when enough are parked and waits for more otherwise")
    func waitForSleepers() async throws {
        let clock = ManualClock()
        await clock.waitForSleepers(atLeast: 0)
        let watcher = Task { await clock.waitForSleepers(atLeast: 3) }
        var sleepers: [Task<Void, any Error>] = []
        for n in 1...3 {
            sleepers.append(Task { try await clock.sleep(for: .seconds(n)) })
        }
        await watcher.value
        #expect(clock.sleeperCount == 3)
        await clock.waitForSleepers(atLeast: 2)
        clock.advance(by: .seconds(3))
        for sleeper in sleepers { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test("a cancelled waitForSleepers returns instead of hanging")
    func cancelledWatcher() async {
        let clock = ManualClock()
        let watcher = Task { await clock.waitForSleepers(atLeast: 1) }
        watcher.cancel()
        await watcher.value
        #expect(clock.sleeperCount == 0)
    }

    @Test("works as any Clock<Duration>")
    func existentialClock() async throws {
        let manual = ManualClock()
        let clock: any Clock<Duration> = manual
        let task = Task { try await clock.sleep(for: .milliseconds(250), tolerance: nil) }
        await manual.waitForSleepers(atLeast: 1)
        manual.advance(by: .milliseconds(250))
        try await task.value
    }
}
