import FileDownload
import FileDownloadCLI
import Foundation
import Testing

/// `fdl --json` writes a downloader event in the one JSON form of events, the agent's
/// (`DownloadEvent`'s `Codable`), with fdl's own fields beside it.
@Suite struct JSONEventLineTests {
    @Test("a downloader event's line is its JSON form, as the agent's stream sends it, keys sorted")
    func linesAreTheAgentsForm() throws {
        let events: [DownloadEvent] = [
            .progress(id: "a.bin", DownloadProgress(receivedBytes: 10, expectedBytes: 40, bytesPerSecond: 5.5,
                                                    estimatedTimeRemaining: .milliseconds(6_000))),
            .stateChanged(id: "a.bin", state: .downloading),
            .interrupted(id: "a.bin", error: DownloadError(.connectionLost, "the connection broke"), retryIn: .seconds(2)),
            .needsFreshURL(id: "a.bin", reason: .refused(statusCode: 403)),
            .removed(id: "a b?#%+é"),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for event in events {
            let line = try #require(JSONEventLine(event))
            #expect(line.encoded() == String(decoding: try encoder.encode(event), as: UTF8.self))
            #expect(line.type == event.wireType)
        }
        #expect(JSONEventLine(events[0])?.encoded()
            == #"{"id":"a.bin","progress":{"bytesPerSecond":5.5,"expectedBytes":40,"receivedBytes":10,"secondsRemaining":6},"type":"progress"}"#)
    }

    @Test func unknownFieldsAreLeftOutNotNull() {
        let line = JSONEventLine(.progress(id: "a", DownloadProgress(receivedBytes: 1, expectedBytes: nil)))
        #expect(line?.encoded().contains("null") == false)
        #expect(line?.encoded().contains("expectedBytes") == false)
    }

    @Test("a failure carries the error object: code and message stack, outermost first; the line decodes back")
    func failuresCarryTheCodeAndMessageStack() throws {
        let error = DownloadError(.validationFailed, "the SHA-256 does not match").adding(context: "a.bin")
        let line = try #require(JSONEventLine(.failed(id: "a.bin", error: error, resumeData: nil)))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.encoded().utf8)) as? [String: Any])
        #expect(object["type"] as? String == "failed")
        let wireError = try #require(object["error"] as? [String: Any])
        #expect(wireError["code"] as? String == "validationFailed")
        #expect(wireError["messages"] as? [String] == ["a.bin", "the SHA-256 does not match"])
        let decoded = try JSONDecoder().decode(JSONEventLine.self, from: Data(line.encoded().utf8))
        #expect(decoded.encoded() == line.encoded())
        guard case .failed("a.bin", let back, _) = decoded.event else {
            Issue.record("decoded as \(String(describing: decoded.event))")
            return
        }
        #expect(back.code == .validationFailed)
    }

    @Test("completed names the file, with fdl's verified beside it; activity counts are not reported")
    func completedLinesNameTheFileAndActivityCountsAreNotReported() throws {
        var line = try #require(JSONEventLine(.completed(id: "a", file: URL(fileURLWithPath: "/tmp/x/a"))))
        #expect(line.encoded() == #"{"file":"/tmp/x/a","id":"a","type":"completed"}"#)
        line.verified = true
        line.verifiedBy = "sha256"
        #expect(line.encoded() == #"{"file":"/tmp/x/a","id":"a","type":"completed","verified":true,"verifiedBy":"sha256"}"#)
        #expect(JSONEventLine(.activityCountChanged(2)) == nil)
    }

    @Test("fdl's own lines carry type and their fields")
    func ownLines() {
        var line = JSONEventLine(type: "checkpoint", id: "a")
        line.bytes = 4096
        #expect(line.encoded() == #"{"bytes":4096,"id":"a","type":"checkpoint"}"#)
    }
}
