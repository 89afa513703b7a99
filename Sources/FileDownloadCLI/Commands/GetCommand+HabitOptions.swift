import ArgumentParser
import FileDownload
import Foundation

extension GetCommand {
    /// The seconds `--max-time` accepts: one millisecond to a year.
    static let maxTimeRange = 0.001...31_536_000.0
    /// The seconds `--retry-wait` accepts: no wait up to the longest backoff, 5 minutes.
    static let retryWaitRange = 0.0...300.0
    /// The seconds `--fresh-url-timeout` accepts: one millisecond to a day.
    static let freshURLTimeoutRange = 0.001...86_400.0
    /// The connections `-x` accepts per download.
    static let maxConnectionsRange = 1...16

    /// Puts the options people type from curl, wget and aria2c habit into `settings`: rate,
    /// timeouts, retry wait, user agent, credentials, quiet and verbose.
    ///
    /// The netrc file is read here; a password missing from `--user` is asked later, by
    /// ``CredentialSource/askForMissingPassword()``, so that a mistake elsewhere on the command
    /// line is reported before anyone is asked anything.
    ///
    /// - Throws: `ValidationError` with a message that says what to fix.
    func applyHabitOptions(to settings: inout GetSettings) throws {
        if let limitRate = connections.limitRate {
            settings.maxBytesPerSecond = try ByteRate.option("--limit-rate", limitRate)
        }
        if let maxFileSize = downloading.maxFileSize {
            guard let bytes = ByteRate.parse(maxFileSize) else {
                throw ValidationError("--max-filesize '\(maxFileSize)' is not a size; write bytes with an optional "
                                      + "K, M or G suffix, e.g. 500K or 2G")
            }
            settings.maxFileSize = bytes > 0 ? bytes : nil
        }
        if let limitRateTotal = connections.limitRateTotal {
            settings.overallBytesPerSecond = try ByteRate.option("--limit-rate-total", limitRateTotal)
        }
        if let maxConnections = connections.maxConnections {
            guard Self.maxConnectionsRange.contains(maxConnections) else {
                throw ValidationError("-x/--max-connections must be between 1 and \(Self.maxConnectionsRange.upperBound), not \(maxConnections)")
            }
            settings.maxConnections = maxConnections
        }
        if let freshURLTimeout = downloading.freshURLTimeout {
            settings.freshURLTimeout = try Self.duration(freshURLTimeout, option: "--fresh-url-timeout", range: Self.freshURLTimeoutRange)
        }
        if let connectTimeout = network.connectTimeout {
            settings.connectTimeout = try Self.duration(connectTimeout, option: "--connect-timeout", range: Self.timeoutRange)
        }
        if let maxTime = downloading.maxTime {
            settings.maxTime = try Self.duration(maxTime, option: "--max-time", range: Self.maxTimeRange)
        }
        if let maxNetworkWait = network.maxNetworkWait {
            settings.maxNetworkWait = try Self.duration(maxNetworkWait, option: "--max-network-wait", range: Self.maxTimeRange)
        }
        if let retryWait = downloading.retryWait {
            settings.retryWait = try Self.duration(retryWait, option: "--retry-wait", range: Self.retryWaitRange)
        }
        if let userAgent = network.userAgent {
            // The rule of every header field's value (InputValidation): no control character but tab.
            settings.userAgent = try Self.checked(option: "-U/--user-agent") {
                try InputValidation.header(name: "User-Agent", value: userAgent)
            }.value
        }
        guard !(printing.quiet && printing.verbose) else { throw ValidationError("-q (print nothing but errors) and -v contradict each other; give one") }
        guard !(printing.quiet && printing.json) else { throw ValidationError("-q and --json contradict each other; give one") }
        settings.quiet = printing.quiet
        settings.verbose = printing.verbose
        settings.credentials = try credentialSource()
    }

    /// `--user` and the netrc file, read.
    func credentialSource() throws -> CredentialSource {
        var source = CredentialSource()
        if let user = authentication.user {
            let parts = user.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard !parts[0].isEmpty else { throw ValidationError("--user needs a user name: --user USER or --user USER:PASS") }
            source.login = (String(parts[0]), parts.count > 1 ? String(parts[1]) : nil)
        }
        if authentication.netrc || authentication.netrcFile != nil {
            let path = authentication.netrcFile ?? (ProcessInfo.processInfo.environment["HOME"].map { $0 + "/.netrc" } ?? "")
            do {
                source.netrc = try Netrc.load(path: path)
            } catch let error as CLIError {
                throw ValidationError(error.message)
            }
        }
        return source
    }

    /// `seconds` as a duration, once it is known to be in `range` (a huge or odd number would
    /// trap in the conversion).
    static func duration(_ seconds: Double, option: String, range: ClosedRange<Double>) throws -> Duration {
        guard range.contains(seconds) else {
            throw ValidationError("\(option) must be between \(range.lowerBound) and \(Int(range.upperBound)) seconds, not \(seconds)")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
