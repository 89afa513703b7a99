import FileDownloadCLI
import Testing

@Suite struct ExitStatusTests {
    @Test func verificationFailureOutranksOtherFailuresWhichOutrankStops() {
        #expect(ExitStatus.combining([]) == .success)
        #expect(ExitStatus.combining([.completed, .completed]) == .success)
        #expect(ExitStatus.combining([.completed, .stopped]) == .stopped)
        #expect(ExitStatus.combining([.stopped, .failed, .completed]) == .failure)
        #expect(ExitStatus.combining([.failed, .verificationFailed]) == .verificationFailed)
    }

    @Test func codesAreDistinct() {
        #expect(Set(ExitStatus.allCases.map(\.rawValue)).count == ExitStatus.allCases.count)
        #expect(ExitStatus.usage.rawValue == 64)
    }
}
