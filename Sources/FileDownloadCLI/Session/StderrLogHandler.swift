import FileDownload
import Foundation
public import Logging

/// A swift-log handler that writes each message as one line to standard error:
/// `fdl: [debug] FileDownload: message key=value`. Used by `fdl get -v`; the library never puts a
/// secret in a log message (URLs are logged without their password), and query values (a
/// presigned URL's signature) are redacted here.
public struct StderrLogHandler: LogHandler {
    public let label: String
    public var logLevel: Logger.Level = .debug
    public var metadata: Logger.Metadata = [:]

    public init(label: String) {
        self.label = label
    }

    /// A logger with this handler, at level debug.
    public static func logger(label: String) -> Logger {
        Logger(label: label, factory: { StderrLogHandler(label: $0) })
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        let fields = all.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        Terminal.writeError(Self.redactingQueryValues("fdl: [\(event.level)] \(label): \(event.message)\(fields)"))
    }

    /// `line` with the value of every query parameter of a URL in it (`scheme://...?...`)
    /// shown as `[redacted]`: a presigned URL's signature or token is a secret.
    static func redactingQueryValues(_ line: String) -> String {
        guard line.contains("://"), line.contains("?") else { return line }
        return line.split(separator: " ", omittingEmptySubsequences: false).map { word -> String in
            word.contains("://") ? QueryRedaction.redactingValues(word) : String(word)
        }.joined(separator: " ")
    }
}
