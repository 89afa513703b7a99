@testable import FileDownload
import Foundation
import Testing

/// One test per row of docs/states.md, on the value type alone (``DownloadLifecycle``): no
/// downloader, no transport, no file, no clock. Each checks the state after the trigger and the
/// actions it returns, in order (the events by their short names). `StateTransitionTests` runs
/// the same rows through the `Downloader`.
@Suite("Download lifecycle: the rows of docs/states.md without I/O")
struct DownloadLifecycleTests {
    static let data = ResumeData(id: "a", url: URL(string: "mock://files/a")!, destination: URL(fileURLWithPath: "/tmp/a"),
                                 partPath: "/tmp/a.part", bytesOnDisk: 10, validator: nil, expectedLength: nil,
                                 options: DownloadOptions())
    static let lost = DownloadError(.connectionLost, "the connection was lost", isRetryable: true)

    func at(_ state: DownloadState) -> DownloadLifecycle { DownloadLifecycle(id: "a", state: state) }

    /// Interrupted with a retry due at `due`.
    func retrying(due: Duration = .seconds(5)) -> DownloadLifecycle {
        var l = at(.downloading)
        _ = l.failureClassified(.retry(Self.lost, in: due, due: due))
        return l
    }

    /// On hold for `reason` since 1 s.
    func held(_ reason: WaitReason) -> DownloadLifecycle {
        var l = at(.downloading)
        _ = l.failureClassified(.hold(DownloadHold(reason: reason, since: .seconds(1)), Self.lost))
        return l
    }

    /// The actions as short words: events by `DownloadEvent.shortName`, the others by name.
    func names(_ actions: [DownloadAction]) -> [String] {
        actions.flatMap { action -> [String] in
            switch action {
            case .send(let events): events.map(\.shortName)
            case .enqueue: ["enqueue"]
            case .startAttempt: ["startAttempt"]
            case .stopAttempt(let reason): ["stop:\(reason)"]
            case .watch: ["watch"]
            case .unwatch: ["unwatch"]
            case .endWait: ["endWait"]
            case .wakeUp: ["wakeUp"]
            case .discardBytes: ["discardBytes"]
            case .countRetriesAnew: ["countRetriesAnew"]
            case .askForFreshURL(let request, _): ["ask:\(request.reason)"]
            case .reject(let error): ["reject:\(error.code.rawValue)"]
            }
        }
    }

    /// The events the actions send, in order.
    func events(_ actions: [DownloadAction]) -> [DownloadEvent] {
        actions.flatMap { action -> [DownloadEvent] in
            if case .send(let events) = action { return events }
            return []
        }
    }

    /// `trigger` is refused with `invalidState` and changes nothing.
    func expectRefused(_ state: DownloadState, _ trigger: (inout DownloadLifecycle) -> [DownloadAction],
                       sourceLocation: SourceLocation = #_sourceLocation) {
        var l = at(state)
        let before = l
        #expect(names(trigger(&l)) == ["reject:invalidState"], sourceLocation: sourceLocation)
        #expect(l == before, sourceLocation: sourceLocation)
    }

    @Test("row 1: add announces a not-started download")
    func row1() {
        let l = DownloadLifecycle(id: "a")
        #expect(l.state == .notStarted)
        #expect(names(l.added()) == ["state:notStarted"])
    }

    @Test("row 2: start queues a not-started download")
    func row2() {
        var l = at(.notStarted)
        #expect(names(l.start()) == ["state:waiting", "enqueue"])
        #expect(l.state == .waiting)
        expectRefused(.waiting) { $0.start() }
        expectRefused(.paused) { $0.start() }
    }

    @Test("row 3: resume of a not-started download starts it, without resumed")
    func row3() {
        var l = at(.notStarted)
        #expect(names(l.resume()) == ["state:waiting", "enqueue"])
        #expect(l.state == .waiting)
    }

    @Test("row 4: cancel of a not-started download")
    func row4() {
        var l = at(.notStarted)
        #expect(names(l.cancel()) == ["discardBytes", "state:cancelled", "cancelled"])
        #expect(l.state == .cancelled)
    }

    @Test("row 5: pause of a not-started download is refused")
    func row5() {
        expectRefused(.notStarted) { $0.pause(resumeData: Self.data) }
    }

    @Test("row 6: a slot frees up: the waiting download starts an attempt")
    func row6() {
        var l = at(.waiting)
        #expect(names(l.slotFreed(activeCount: 3)) == ["startAttempt", "state:downloading", "activity:3"])
        #expect(l.state == .downloading)
        var paused = at(.paused)
        #expect(paused.slotFreed(activeCount: 1).isEmpty)
        #expect(paused.state == .paused)
    }

    @Test("row 7: pause of a waiting download")
    func row7() {
        var l = at(.waiting)
        let actions = l.pause(resumeData: Self.data)
        #expect(names(actions) == ["state:paused", "paused"])
        guard case .paused(_, let data)? = events(actions).last else { Issue.record("no paused event"); return }
        #expect(data == Self.data)
        #expect(l.state == .paused)
    }

    @Test("row 8: cancel of a waiting download")
    func row8() {
        var l = at(.waiting)
        #expect(names(l.cancel()) == ["discardBytes", "state:cancelled", "cancelled"])
        #expect(l.state == .cancelled)
    }

    @Test("row 9: resume of a waiting (or downloading) download changes nothing")
    func row9() {
        for state in [DownloadState.waiting, .downloading] {
            var l = at(state)
            #expect(l.resume().isEmpty)
            #expect(l.state == state)
        }
    }

    @Test("row 10: transfer done, file valid: completed")
    func row10() {
        var l = at(.downloading)
        let file = URL(fileURLWithPath: "/tmp/a")
        let actions = l.attemptCompleted(file: file)
        #expect(names(actions) == ["state:completed", "completed"])
        guard case .completed(_, let got)? = events(actions).last else { Issue.record("no completed event"); return }
        #expect(got == file)
        #expect(l.state == .completed)
    }

    @Test("row 11: pause of a downloading download stops the attempt, then paused")
    func row11() {
        var l = at(.downloading)
        #expect(names(l.pause(resumeData: Self.data)) == ["stop:pause"])
        #expect(l.state == .downloading)  // until the attempt ended
        #expect(names(l.attemptStopped(.pause, resumeData: Self.data)) == ["state:paused", "paused"])
        #expect(l.state == .paused)
    }

    @Test("row 12: cancel of a downloading download stops the attempt, then cancelled")
    func row12() {
        var l = at(.downloading)
        #expect(names(l.cancel()) == ["stop:cancel"])
        #expect(l.state == .downloading)
        #expect(names(l.attemptStopped(.cancel, resumeData: Self.data)) == ["discardBytes", "state:cancelled", "cancelled"])
        #expect(l.state == .cancelled)
    }

    @Test("row 13: a failure classed retry, retries left: interrupted with a retry due")
    func row13() {
        var l = at(.downloading)
        let actions = l.failureClassified(.retry(Self.lost, in: .seconds(2), due: .seconds(12)))
        #expect(names(actions) == ["watch", "state:interrupted", "interrupted", "wakeUp"])
        guard case .interrupted(_, _, let retryIn)? = events(actions).last else { Issue.record("no interrupted event"); return }
        #expect(retryIn == .seconds(2))
        #expect(l.state == .interrupted)
        #expect(l.retryDue == .seconds(12))
        #expect(l.hold == nil)
    }

    @Test("row 14: a failure classed retry, no retries left: failed, with resume data")
    func row14() {
        var l = at(.downloading)
        let actions = l.failureClassified(.fail(Self.lost, resumeData: Self.data))
        #expect(names(actions) == ["state:failed", "failed"])
        guard case .failed(_, _, let data)? = events(actions).last else { Issue.record("no failed event"); return }
        #expect(data == Self.data)
        #expect(l.state == .failed)
    }

    @Test("row 15: a failure classed failNow: failed, no retry used")
    func row15() {
        var l = at(.downloading)
        let notFound = DownloadError(.badStatus, "404", statusCode: 404)
        let actions = l.failureClassified(.fail(notFound, resumeData: nil))
        #expect(names(actions) == ["state:failed", "failed"])
        guard case .failed(_, let error, let data)? = events(actions).last else { Issue.record("no failed event"); return }
        #expect(error.statusCode == 404)
        #expect(data == nil)
        #expect(l.retryDue == nil)
    }

    @Test("row 16: validation fails: failed, the staging file deleted")
    func row16() {
        var l = at(.downloading)
        let actions = l.attemptInvalid(DownloadError(.validationFailed, "wrong SHA-256"))
        #expect(names(actions) == ["discardBytes", "state:failed", "failed"])
        #expect(l.state == .failed)
    }

    @Test("row 17: disk full: interrupted on hold for space; without waiting for space: interrupted, no retry")
    func row17() {
        var l = at(.downloading)
        let full = DownloadError(.diskFull, "no space left")
        let hold = DownloadHold(reason: .insufficientSpace, since: .seconds(7), freeAtHold: 100)
        #expect(names(l.failureClassified(.hold(hold, full)))
            == ["watch", "state:interrupted", "interrupted", "onHold:insufficientSpace", "wakeUp"])
        #expect(l.state == .interrupted)
        #expect(l.hold == hold)
        var off = at(.downloading)
        #expect(names(off.failureClassified(.interrupt(full))) == ["state:interrupted", "interrupted"])
        #expect(off.state == .interrupted)
        #expect(off.hold == nil && off.retryDue == nil)
    }

    @Test("row 18: no byte for the request timeout: a retry like row 13")
    func row18() {
        var l = at(.downloading)
        let timedOut = DownloadError(.timedOut, "no byte for 60 s", isRetryable: true)
        #expect(names(l.failureClassified(.retry(timedOut, in: .seconds(1), due: .seconds(1))))
            == ["watch", "state:interrupted", "interrupted", "wakeUp"])
        #expect(l.retryDue == .seconds(1))
    }

    @Test("row 19: the resource timeout fails a download that runs or waits for a retry or the network")
    func row19() {
        let timeout = Downloader.resourceTimeoutError(.seconds(60))
        var running = at(.downloading)
        #expect(names(running.failureClassified(.fail(timeout, resumeData: Self.data))) == ["state:failed", "failed"])
        for var waiting in [retrying(), held(.waitingForNetwork)] {
            // The wait ends: its time counts against the resource timeout.
            #expect(names(waiting.failureClassified(.fail(timeout, resumeData: Self.data)))
                == ["unwatch", "endWait", "state:failed", "failed"])
            #expect(waiting.state == .failed)
        }
    }

    @Test("row 20: shutdown stops the attempt; interrupted, waiting for the caller")
    func row20() {
        var l = at(.downloading)
        #expect(names(l.shutdown()) == ["stop:shutdown"])
        let actions = l.attemptStopped(.shutdown, resumeData: Self.data)
        #expect(names(actions) == ["state:interrupted", "interrupted"])
        guard case .interrupted(_, let error, let retryIn)? = events(actions).last else { Issue.record("no event"); return }
        #expect(error.code == .cancelled)
        #expect(retryIn == nil)
        #expect(l.state == .interrupted)
        #expect(l.retryDue == nil && l.hold == nil)
        var waiting = at(.waiting)
        #expect(waiting.shutdown().isEmpty)
    }

    @Test("row 21: a retry due goes back to the queue, not before")
    func row21() {
        var l = retrying(due: .seconds(5))
        #expect(l.retryDue(now: .seconds(4)).isEmpty)
        #expect(l.state == .interrupted)
        #expect(names(l.retryDue(now: .seconds(5))) == ["unwatch", "endWait", "state:waiting", "enqueue"])
        #expect(l.state == .waiting)
        #expect(l.retryDue == nil)
    }

    @Test("row 22: resume of an interrupted download: resumed, then waiting; retries count anew")
    func row22() {
        var l = retrying()
        #expect(names(l.resume()) == ["unwatch", "endWait", "countRetriesAnew", "resumed", "state:waiting", "enqueue"])
        #expect(l.state == .waiting)
    }

    @Test("row 23: pause of an interrupted download calls the retry off")
    func row23() {
        var l = retrying()
        #expect(names(l.pause(resumeData: Self.data)) == ["unwatch", "state:paused", "paused"])
        #expect(l.state == .paused)
        #expect(l.retryDue == nil)
    }

    @Test("row 24: cancel of an interrupted download")
    func row24() {
        var l = held(.insufficientSpace)
        #expect(names(l.cancel()) == ["unwatch", "discardBytes", "state:cancelled", "cancelled"])
        #expect(l.state == .cancelled)
    }

    @Test("row 25: resume of a paused download")
    func row25() {
        var l = at(.paused)
        #expect(names(l.resume()) == ["countRetriesAnew", "resumed", "state:waiting", "enqueue"])
        #expect(l.state == .waiting)
    }

    @Test("row 26: cancel of a paused download")
    func row26() {
        var l = at(.paused)
        #expect(names(l.cancel()) == ["discardBytes", "state:cancelled", "cancelled"])
    }

    @Test("row 27: pause of a paused download changes nothing")
    func row27() {
        var l = at(.paused)
        #expect(l.pause(resumeData: Self.data).isEmpty)
        #expect(l.state == .paused)
    }

    @Test("row 28: resume of a failed download")
    func row28() {
        var l = at(.failed)
        #expect(names(l.resume()) == ["countRetriesAnew", "resumed", "state:waiting", "enqueue"])
        #expect(l.state == .waiting)
    }

    @Test("row 29: cancel of a failed download")
    func row29() {
        var l = at(.failed)
        #expect(names(l.cancel()) == ["discardBytes", "state:cancelled", "cancelled"])
    }

    @Test("row 30: pause of a failed download is refused")
    func row30() {
        expectRefused(.failed) { $0.pause(resumeData: Self.data) }
    }

    @Test("row 31: a completed download refuses pause, resume, cancel (and a new URL)")
    func row31() {
        expectRefused(.completed) { $0.pause(resumeData: Self.data) }
        expectRefused(.completed) { $0.resume() }
        expectRefused(.completed) { $0.cancel() }
        expectRefused(.completed) { $0.updateURL() }
        var l = at(.completed)
        #expect(l.failureClassified(.fail(Self.lost, resumeData: nil)).isEmpty)
        #expect(l.state == .completed)
    }

    @Test("row 32: a cancelled download refuses pause, resume, cancel (and a new URL)")
    func row32() {
        expectRefused(.cancelled) { $0.pause(resumeData: Self.data) }
        expectRefused(.cancelled) { $0.resume() }
        expectRefused(.cancelled) { $0.cancel() }
        expectRefused(.cancelled) { $0.updateURL() }
    }

    @Test("row 33: restore of a download stored as downloading: interrupted, then waiting")
    func row33() {
        var l = at(.downloading)
        #expect(names(l.restoredAfterCrash()) == ["state:interrupted"])
        #expect(l.state == .interrupted)
        #expect(names(l.requeued()) == ["endWait", "state:waiting", "enqueue"])
        #expect(l.state == .waiting)
    }

    @Test("row 34: restore of a completed download whose file is gone: failed")
    func row34() {
        var l = at(.completed)
        #expect(names(l.restoredAsFailed()) == ["state:failed"])
        #expect(l.state == .failed)
    }

    @Test("row 35: a waiting download whose size does not fit: on hold for space, no attempt")
    func row35() {
        var l = at(.waiting)
        let hold = DownloadHold(reason: .insufficientSpace, since: .seconds(3), neededAtHold: 1000)
        let actions = l.failureClassified(.hold(hold, DownloadError(.diskFull, "too full")))
        #expect(names(actions) == ["watch", "state:interrupted", "interrupted", "onHold:insufficientSpace", "wakeUp"])
        #expect(!names(actions).contains("startAttempt"))
        #expect(l.hold?.neededAtHold == 1000)
    }

    @Test("row 36: a tick finds room: the download on hold for space goes back to the queue")
    func row36() {
        var l = held(.insufficientSpace)
        #expect(names(l.holdEnded()) == ["unwatch", "endWait", "state:waiting", "enqueue"])
        #expect(l.state == .waiting)
        #expect(l.hold == nil)
    }

    @Test("row 37: no route: interrupted on hold for the network")
    func row37() {
        var l = at(.downloading)
        let hold = DownloadHold(reason: .waitingForNetwork, since: .seconds(2))
        #expect(names(l.failureClassified(.hold(hold, DownloadError(.connectionFailed, "no route"))))
            == ["watch", "state:interrupted", "interrupted", "onHold:waitingForNetwork", "wakeUp"])
        #expect(l.hold?.since == .seconds(2))
        #expect(l.networkWaitSince == .seconds(2))
    }

    @Test("rows 37/38/46: the stretch of waiting for the network outlives a probe, ends when the server answers or the caller resumes")
    func networkWaitStretch() {
        var l = at(.downloading)
        _ = l.failureClassified(.hold(DownloadHold(reason: .waitingForNetwork, since: .seconds(2)), Self.lost))
        _ = l.holdEnded()
        _ = l.slotFreed(activeCount: 0)
        _ = l.failureClassified(.hold(DownloadHold(reason: .waitingForNetwork, since: .seconds(9)), Self.lost))
        #expect(l.hold?.since == .seconds(9))
        #expect(l.networkWaitSince == .seconds(2), "a probe that fails again continues the stretch")
        _ = l.resume()
        #expect(l.networkWaitSince == nil, "the caller's resume starts a new stretch")
        _ = l.slotFreed(activeCount: 0)
        _ = l.failureClassified(.hold(DownloadHold(reason: .waitingForNetwork, since: .seconds(20)), Self.lost))
        #expect(l.networkWaitSince == .seconds(20))
        _ = l.holdEnded()
        _ = l.slotFreed(activeCount: 0)
        l.serverAnswered()
        #expect(l.networkWaitSince == nil, "the server answered: the way works")
        var other = held(.insufficientSpace)
        #expect(other.networkWaitSince == nil, "only a hold for the network starts a stretch")
        _ = other.holdEnded()
        #expect(other.networkWaitSince == nil)
    }

    @Test("row 38: the network came back: the download on hold for it goes back to the queue")
    func row38() {
        var l = held(.waitingForNetwork)
        #expect(names(l.holdEnded()) == ["unwatch", "endWait", "state:waiting", "enqueue"])
        #expect(l.state == .waiting)
    }

    @Test("row 39: a refusal after the download began: on hold for a fresh URL, which is asked for")
    func row39() {
        var l = at(.downloading)
        let refused = DownloadError(.badStatus, "403", statusCode: 403)
        let hold = DownloadHold(reason: .refreshingURL, since: .seconds(1))
        #expect(names(l.failureClassified(.hold(hold, refused)))
            == ["watch", "state:interrupted", "interrupted", "onHold:refreshingURL", "ask:refused (403)", "wakeUp"])
        #expect(l.hold?.reason == .refreshingURL)
        let request = DownloadLifecycle.FreshURLRequest(number: 1, reason: .refused(statusCode: 403))
        #expect(l.freshURLRequest == request, "the question in flight is data of the lifecycle")
        #expect(l.awaitsAnswer(to: request))
        #expect(!l.awaitsAnswer(to: DownloadLifecycle.FreshURLRequest(number: 0, reason: .refused(statusCode: 403))))
    }

    @Test("row 39: an answer to a refusal no longer counts once the download left the hold (paused, resumed)")
    func row39MovedOn() {
        for leave in [{ (l: inout DownloadLifecycle) in _ = l.pause(resumeData: Self.data) },
                      { (l: inout DownloadLifecycle) in _ = l.resume() },
                      { (l: inout DownloadLifecycle) in _ = l.cancel() }] {
            var l = at(.downloading)
            _ = l.failureClassified(.hold(DownloadHold(reason: .refreshingURL, since: .seconds(1)),
                                          DownloadError(.badStatus, "410", statusCode: 410)))
            let request = l.freshURLRequest!
            #expect(l.awaitsAnswer(to: request))
            leave(&l)
            #expect(!l.awaitsAnswer(to: request))
        }
    }

    @Test("row 40: a fresh URL ends the hold: back to the queue")
    func row40() {
        var l = at(.downloading)
        _ = l.failureClassified(.hold(DownloadHold(reason: .refreshingURL, since: .seconds(1)),
                                      DownloadError(.badStatus, "403", statusCode: 403)))
        let request = l.freshURLRequest!
        #expect(names(l.updateURL()) == ["unwatch", "endWait", "state:waiting", "enqueue"])
        #expect(l.state == .waiting)
        #expect(l.freshURLRequest == nil, "the URL changed: no question is in flight")
        #expect(!l.awaitsAnswer(to: request), "a second answer is ignored")
    }

    @Test("row 41: no fresh URL (or none in time): failed as the refusal would have")
    func row41() {
        var l = held(.refreshingURL)
        let refused = DownloadError(.badStatus, "403", statusCode: 403)
        l.freshURLWithheld()
        #expect(l.freshURLRequest == nil, "a later answer is ignored")
        #expect(names(l.failureClassified(.fail(refused, resumeData: Self.data)))
            == ["unwatch", "endWait", "state:failed", "failed"])
        #expect(l.state == .failed)
    }

    @Test("row 42: an expiring URL changes no state; a URL given then acts as updateURL")
    func row42() {
        var waiting = at(.waiting)
        #expect(waiting.updateURL().isEmpty)
        #expect(waiting.state == .waiting)
        var running = at(.downloading)
        #expect(names(running.updateURL()) == ["stop:switchURL"])
        for state in [DownloadState.waiting, .downloading] {
            var l = at(state)
            #expect(names(l.urlExpiresSoon()) == ["ask:expires soon"])
            #expect(l.state == state)
            let first = l.freshURLRequest!
            #expect(l.awaitsAnswer(to: first))
            _ = l.urlExpiresSoon()
            #expect(!l.awaitsAnswer(to: first), "asked again: only the newest question counts")
        }
        var paused = at(.paused)
        #expect(paused.urlExpiresSoon().isEmpty)
        #expect(paused.freshURLRequest == nil)
    }

    @Test("row 43: updateURL of a downloading download: the attempt stops, back to the queue at once")
    func row43() {
        var l = at(.downloading)
        #expect(names(l.updateURL()) == ["stop:switchURL"])
        #expect(l.state == .downloading)
        #expect(names(l.attemptStopped(.switchURL, resumeData: Self.data)) == ["state:waiting", "enqueue"])
        #expect(l.state == .waiting)
    }

    @Test("row 44: updateURL keeps the state, an interrupted download goes back to the queue")
    func row44() {
        for state in [DownloadState.notStarted, .waiting, .paused, .failed] {
            var l = at(state)
            #expect(l.updateURL().isEmpty)
            #expect(l.state == state)
        }
        var l = retrying()
        #expect(names(l.updateURL()) == ["unwatch", "endWait", "state:waiting", "enqueue"])
        #expect(l.state == .waiting)
    }

    @Test("row 45: the delegate holds the valid file back before the move: paused")
    func row45() {
        var l = at(.downloading)
        #expect(names(l.attemptStopped(.pause, resumeData: Self.data)) == ["state:paused", "paused"])
        #expect(l.state == .paused)
    }

    @Test("row 46: waited maxNetworkWait for the network: failed")
    func row46() {
        var l = held(.waitingForNetwork)
        #expect(names(l.failureClassified(.fail(Self.lost, resumeData: Self.data)))
            == ["unwatch", "endWait", "state:failed", "failed"])
        #expect(l.state == .failed)
        #expect(l.hold == nil)
        #expect(l.networkWaitSince == nil, "a resume starts a new stretch")
    }

    @Test("a segmented download whose file changed restarts from zero, or fails when restarts ran out")
    func restarts() {
        var l = at(.downloading)
        #expect(names(l.attemptRestarts(.validatorChanged, allowed: true, error: Self.lost))
            == ["discardBytes", "restarted:validatorChanged", "state:waiting", "enqueue"])
        var out = at(.downloading)
        #expect(names(out.attemptRestarts(.validatorChanged, allowed: false, error: Self.lost))
            == ["discardBytes", "state:failed", "failed"])
    }

    @Test("the state a stored record names is the state reported")
    func projection() {
        for state in DownloadState.allCases {
            #expect(at(state).state == state)
        }
        #expect(retrying().state == .interrupted)
        #expect(held(.refreshingURL).state == .interrupted)
    }
}
