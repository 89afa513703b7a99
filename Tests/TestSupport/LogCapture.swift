public import Logging
import Synchronization

/// A log handler that keeps every message and its metadata, for tests that check what is logged.
public final class LogCapture: Sendable {
    public struct Entry: Sendable {
        public var message: String
        public var metadata: [String: String]
    }

    private let entries = Mutex<[Entry]>([])

    public init() {}

    /// Everything logged so far, in order.
    public var all: [Entry] { entries.withLock { $0 } }

    /// A logger at debug level that writes here.
    public var logger: Logger {
        var logger = Logger(label: "test") { _ in Handler(capture: self) }
        logger.logLevel = .debug
        return logger
    }

    fileprivate func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .debug

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            capture.append(Entry(message: "\(event.message)", metadata: all.mapValues { "\($0)" }))
        }
    }
}
