import ArgumentParser
import FileDownload
@testable import FileDownloadCLI
import Foundation
import Testing

/// The options people type from curl, wget and aria2c habit become the settings (and transfer
/// options) the library gets, and bad values are refused with a message.
@Suite struct HabitOptionParsingTests {
    func settings(_ arguments: [String]) throws -> GetSettings {
        try GetCommand.parse(arguments).settings()
    }

    @Test func rateTimeoutsRetryWaitAndUserAgentReachTheTransferOptions() throws {
        let s = try settings(["http://h/a", "--limit-rate", "1.5M", "--connect-timeout", "5", "--max-time", "90",
                              "--retry-wait", "0.25", "-U", "agent/1", "-c"])
        #expect(s.transferOptions.maxBytesPerSecond == 1_572_864)
        #expect(s.transferOptions.connectTimeout == .seconds(5))
        #expect(s.transferOptions.resourceTimeout == .seconds(90))
        #expect(s.transferOptions.userAgent == "agent/1")
        #expect(s.retryPolicy.initialDelay == .milliseconds(250))
        let defaults = try settings(["http://h/a"])
        #expect(defaults.transferOptions.maxBytesPerSecond == nil)
        #expect(defaults.transferOptions.resourceTimeout == TransferOptions().resourceTimeout)
        #expect(defaults.retryPolicy == RetryPolicy(maxRetries: 5))
    }

    @Test(arguments: [("500K", Int64(512_000)), ("1M", 1_048_576), ("1.5m", 1_572_864), ("200000", 200_000),
                      ("1G", 1_073_741_824), ("0", 0), ("0.1", 1)])
    func ratesAreReadAsCurlReadsThem(text: String, bytes: Int64) {
        #expect(ByteRate.parse(text) == bytes)
    }

    @Test(arguments: ["", "K", "1MB", "-1", "1e3", "fast", "1.2.3", "99999999999G"])
    func badRatesAreRefused(text: String) throws {
        #expect(ByteRate.parse(text) == nil)
        #expect(throws: (any Error).self) { try settings(["http://h/a", "--limit-rate", text]) }
    }

    @Test(arguments: [["--connect-timeout", "0"], ["--max-time", "-1"], ["--retry-wait", "301"], ["--max-time", "nan"],
                      ["-q", "-v"], ["-q", "--json"], ["-U", "a\nb"], ["--user", ":pw"]])
    func badValuesAreUsageErrors(arguments: [String]) {
        #expect(throws: (any Error).self) { try settings(["http://h/a"] + arguments) }
    }

    @Test func userWithPasswordIsHeldAndNeverDescribed() throws {
        let s = try settings(["http://h/a", "--user", "alice:s3:cret"])
        #expect(s.credentials.login?.user == "alice")
        #expect(s.credentials.login?.password == "s3:cret")
        #expect(!"\(s.credentials)".contains("s3:cret"))
        let prompted = try settings(["http://h/a", "--user", "bob"])
        #expect(prompted.credentials.login?.user == "bob")
        #expect(prompted.credentials.login?.password == nil, "asked on the terminal when the run starts")
    }

    @Test func unknownOptionsAreNamedWithTheNearestKnownOne() {
        #expect(UnknownOptionCheck.mistake(in: ["get", "http://h/a", "--limit-rte", "1M"])
                == "unknown option '--limit-rte'; did you mean '--limit-rate'?")
        #expect(UnknownOptionCheck.mistake(in: ["get", "--user-agnet=x", "http://h/a"])
                == "unknown option '--user-agnet'; did you mean '--user-agent'?")
        #expect(UnknownOptionCheck.mistake(in: ["get", "http://h/a", "--zzzzzzzz"])?.contains("fdl get --help") == true)
        // Known options, their values (even one that looks like an option), clusters, and after `--`.
        #expect(UnknownOptionCheck.mistake(in: ["get", "-U", "--weird-agent", "-qc", "-j4", "--jobs=3", "http://h/a",
                                                "--", "--not-an-option"]) == nil)
        #expect(UnknownOptionCheck.mistake(in: ["list", "--jsn"]) == "unknown option '--jsn'; did you mean '--json'?")
        #expect(UnknownOptionCheck.mistake(in: ["--help"]) == nil)
    }

    @Test func anUnknownShortOptionIsNamedWithoutItsValue() {
        let message = UnknownOptionCheck.mistake(in: ["get", "-ualice:s3cret", "http://h/a"])
        #expect(message == "unknown option '-u'; did you mean '--user'?")
        #expect(message?.contains("s3cret") == false)
        #expect(UnknownOptionCheck.mistake(in: ["get", "-Hcookie:sid=42", "http://h/a"]) == "unknown option '-H'; did you mean '--header'?")
        #expect(UnknownOptionCheck.mistake(in: ["get", "-zsecret", "http://h/a"])?.hasPrefix("unknown option '-z';") == true)
    }
}
