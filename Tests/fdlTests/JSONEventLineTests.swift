import FileDownload
import FileDownloadCLI
import Foundation
import Testing

@Suite struct JSONEventLineTests {
    @Test func progressLinesCarryBytesRateAndETAWithSortedKeys() {
        let line = JSONEventLine(.progress(id: "a.bin", DownloadProgress(
            receivedBytes: 10, expectedBytes: 40, bytesPerSecond: 5.4, estimatedTimeRemaining: .milliseconds(6_000))))
        #expect(line?.encoded()
            == #"{"bytesPerSecond":5,"etaSeconds":6,"event":"progress","expectedBytes":40,"id":"a.bin","receivedBytes":10}"#)
    }

    @Test func unknownFieldsAreLeftOutNotNull() {
        let line = JSONEventLine(.progress(id: "a", DownloadProgress(receivedBytes: 1, expectedBytes: nil)))
        #expect(line?.encoded().contains("null") == false)
        #expect(line?.encoded().contains("expectedBytes") == false)
    }

    @Test func failuresCarryTheCodeAndMessageStack() throws {
        let error = DownloadError(.validationFailed, "the SHA-256 does not match").adding(context: "a.bin")
        let line = try #require(JSONEventLine(.failed(id: "a.bin", error: error, resumeData: nil)))
        #expect(line.event == "failed")
        #expect(line.errorCode == "validationFailed")
        #expect(line.errorMessages == ["a.bin", "the SHA-256 does not match"])
        let decoded = try JSONDecoder().decode(JSONEventLine.self, from: Data(line.encoded().utf8))
        #expect(decoded == line)
    }

    @Test func completedLinesNameTheFileAndActivityCountsAreNotReported() {
        let line = JSONEventLine(.completed(id: "a", file: URL(fileURLWithPath: "/tmp/x/a")))
        #expect(line?.encoded() == #"{"event":"completed","file":"/tmp/x/a","id":"a"}"#)
        #expect(JSONEventLine(.activityCountChanged(2)) == nil)
    }
}
