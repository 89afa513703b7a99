import ArgumentParser
@testable import FileDownloadCLI
import Foundation
import Testing

/// `--limit-rate-total` of `fdl get` and `fdl agent` (the overall limit) and `fdl url`'s arguments:
/// the same RATE syntax as `--limit-rate`, bad values refused with a message naming the option.
@Suite struct OverallLimitParsingTests {
    @Test func getReadsTheOverallLimitNextToThePerDownloadOne() throws {
        let s = try GetCommand.parse(["http://h/a", "--limit-rate", "500K", "--limit-rate-total", "1.5M"]).settings()
        #expect(s.transferOptions.maxBytesPerSecond == 512_000)
        #expect(s.overallBytesPerSecond == 1_572_864)
        #expect(try GetCommand.parse(["http://h/a", "--limit-rate-total", "0"]).settings().overallBytesPerSecond == nil)
        #expect(try GetCommand.parse(["http://h/a"]).settings().overallBytesPerSecond == nil)
        #expect(BackgroundSubmission.refusedOptions(s, dryRun: false).contains("--limit-rate-total"))
    }

    @Test(arguments: ["", "1MB", "-1", "fast"])
    func badOverallRatesAreRefusedNamingTheOption(text: String) throws {
        let error = #expect(throws: (any Error).self) {
            try GetCommand.parse(["http://h/a", "--limit-rate-total", text]).settings()
        }
        #expect(GetCommand.message(for: error!).contains("--limit-rate-total"))
        #expect(throws: (any Error).self) { try AgentCommand.parse(["--limit-rate-total", text]) }
    }

    @Test func agentTakesTheOverallLimitAndTheFreshURLTimeout() throws {
        let agent = try AgentCommand.parse(["--limit-rate-total", "2M", "--fresh-url-timeout", "30"])
        #expect(agent.limitRateTotal == "2M" && agent.freshURLTimeout == 30)
        #expect(try AgentCommand.parse([]).freshURLTimeout == 600)
        for bad in ["0", "-1", "86401", "nan"] {
            #expect(throws: (any Error).self, "\(bad)") { try AgentCommand.parse(["--fresh-url-timeout", bad]) }
        }
    }

    @Test func getWaitsForAFreshURLOnlyWhenAsked() throws {
        #expect(try GetCommand.parse(["http://h/a"]).settings().freshURLTimeout == nil)
        let s = try GetCommand.parse(["http://h/a", "--fresh-url-timeout", "90"]).settings()
        #expect(s.freshURLTimeout == .seconds(90))
        #expect(BackgroundSubmission.refusedOptions(s, dryRun: false).contains("--fresh-url-timeout"))
        #expect(throws: (any Error).self) { try GetCommand.parse(["http://h/a", "--fresh-url-timeout", "0"]).settings() }
    }

    @Test func urlTakesAnIdANewURLAndAnExpiry() throws {
        let command = try URLCommand.parse(["big", "https://h/f?token=2", "--expires-at", "2026-11-23T06:00:00Z", "--agent"])
        #expect(command.update.url.absoluteString == "https://h/f?token=2")
        #expect(command.update.expiresAt == Date(timeIntervalSince1970: 1_795_413_600))
        #expect(command.agentOptions.usesAgent)
        #expect(try URLCommand.parse(["big", "sftp://h/f", "-d", "/tmp"]).update.expiresAt == nil)
        for bad in [["big", "not a url"], ["big"], ["big", "https://h/f", "--expires-at", "tomorrow"]] {
            #expect(throws: (any Error).self, "\(bad)") { try URLCommand.parse(bad) }
        }
    }
}
