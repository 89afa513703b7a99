import FileDownload
import Foundation
import Testing

/// The JSON forms that carry events and downloads out of the process (the agent's API).
@Suite("DownloadEvent: JSON form")
struct DownloadEventCodingTests {
    private func roundTrip<T: Codable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: try JSONEncoder().encode(value))
    }

    @Test("every event decodes to an equal event (resume data excepted)")
    func roundTripsEveryCase() throws {
        var error = DownloadError(.badStatus, "HTTP 503", statusCode: 503, retryAfter: .seconds(30))
        error = error.adding(context: "downloading a")
        let events: [DownloadEvent] = [
            .stateChanged(id: "a", state: .downloading),
            .progress(id: "a", DownloadProgress(receivedBytes: 10, expectedBytes: 100, bytesPerSecond: 2.5,
                                                estimatedTimeRemaining: .seconds(36))),
            .totalProgress(TotalProgress(receivedBytes: 1, expectedBytes: 2, receivedOfKnownSize: 1, bytesPerSecond: 3,
                                         estimatedTimeRemaining: nil, activeCount: 1, unknownSizeCount: 0)),
            .restarted(id: "a", reason: .validatorChanged),
            .restarted(id: "a", reason: .segmentsDisagree),
            .resumed(id: "a"),
            .paused(id: "a", resumeData: nil),
            .interrupted(id: "a", error: error, retryIn: .milliseconds(1500)),
            .completed(id: "a", file: URL(fileURLWithPath: "/tmp/dir with space/a.bin")),
            .failed(id: "a", error: DownloadError(.validationFailed, "SHA-256 differs"), resumeData: nil),
            .cancelled(id: "a"),
            .activityCountChanged(3),
            .onHold(id: "a", reason: .waitingForNetwork),
            .onHold(id: "a", reason: .insufficientSpace),
        ]
        for event in events {
            let decoded = try roundTrip(event)
            #expect(String(describing: decoded) == String(describing: event))
        }
    }

    @Test("what a failed connection says of the way to the server round-trips; an unknown value decodes as absent")
    func connectionFailure() throws {
        for kind in ConnectionFailure.allCases {
            var error = DownloadError(.connectionFailed, "cannot connect")
            error.connectionFailure = kind
            #expect(try roundTrip(error).connectionFailure == kind)
        }
        #expect(try roundTrip(DownloadError(.connectionFailed, "cannot connect")).connectionFailure == nil)
        let json = #"{"code":"connectionFailed","messages":["x"],"isRetryable":true,"connectionFailure":"eaten"}"#
        #expect(try JSONDecoder().decode(DownloadError.self, from: Data(json.utf8)).connectionFailure == nil)
    }

    @Test("resume data never leaves the process: it may hold credentials")
    func resumeDataIsDropped() throws {
        let url = URL(string: "https://user:secret@example.com/f")!
        let resume = ResumeData(id: "a", url: url, destination: URL(fileURLWithPath: "/tmp/f"), partPath: "/tmp/f.part",
                                bytesOnDisk: 5, validator: nil, expectedLength: nil, options: DownloadOptions())
        let json = String(decoding: try JSONEncoder().encode(DownloadEvent.paused(id: "a", resumeData: resume)), as: UTF8.self)
        #expect(!json.contains("secret") && !json.contains("example.com"))
        guard case .paused(let id, let data) = try roundTrip(DownloadEvent.paused(id: "a", resumeData: resume)) else {
            Issue.record("not a pause")
            return
        }
        #expect(id == "a" && data == nil)
    }

    @Test("an unknown event type is an error naming it")
    func unknownType() {
        let error = #expect(throws: DecodingError.self) {
            _ = try JSONDecoder().decode(DownloadEvent.self, from: Data(#"{"type":"exploded","id":"a"}"#.utf8))
        }
        #expect(String(describing: error).contains("exploded"))
    }

    @Test("an absurd or negative wait decodes as a bounded one instead of trapping")
    func absurdWaits() throws {
        let json = #"{"type":"interrupted","id":"a","retryInSeconds":1e300,"#
            + #""error":{"code":"connectionLost","messages":["busy"],"isRetryable":true,"retryAfterSeconds":-5}}"#
        guard case .interrupted(_, let error, let retryIn) = try JSONDecoder().decode(DownloadEvent.self, from: Data(json.utf8)) else {
            Issue.record("not an interruption")
            return
        }
        #expect(retryIn == .seconds(1_000_000_000))
        #expect(error.retryAfter == .zero)
    }

    @Test("an absurd or negative time remaining (a download's or the total's) decodes bounded instead of trapping")
    func absurdTimeRemaining() throws {
        let progress = try JSONDecoder().decode(DownloadProgress.self, from: Data(
            #"{"receivedBytes":1,"bytesPerSecond":1,"secondsRemaining":1e300}"#.utf8))
        #expect(progress.estimatedTimeRemaining == .seconds(1_000_000_000))
        let total = try JSONDecoder().decode(TotalProgress.self, from: Data(
            #"{"receivedBytes":1,"expectedBytes":2,"receivedOfKnownSize":1,"bytesPerSecond":1,"secondsRemaining":-3,"#
                .appending(#""activeCount":1,"unknownSizeCount":0}"#).utf8))
        #expect(total.estimatedTimeRemaining == .zero)
    }

    @Test("a download's description round-trips, its completion checks by name")
    func infoRoundTrip() throws {
        let info = DownloadInfo(id: "a", url: URL(string: "https://example.com/a")!, destination: URL(fileURLWithPath: "/tmp/a"),
                                state: .completed, progress: DownloadProgress(receivedBytes: 5, expectedBytes: 5),
                                lastError: nil, attempts: 1, checks: [.announcedLength, .sha256])
        #expect(try roundTrip(info) == info)
        let json = String(decoding: try JSONEncoder().encode(info), as: UTF8.self)
        #expect(json.contains(#""announcedLength""#) && json.contains(#""sha256""#))
        var byServer = info
        byServer.checks = [.announcedLength, .serverDigest]
        #expect(try roundTrip(byServer) == byServer)
        #expect(String(decoding: try JSONEncoder().encode(byServer), as: UTF8.self).contains(#""serverDigest""#))
    }
}
