public import ArgumentParser
import FileDownload
import Foundation

/// `fdl list`: the downloads the state directory knows.
public struct ListCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the downloads kept in DIR/.fdl (with --agent: the download agent's).")

    @OptionGroup public var state: StateOptions

    @OptionGroup public var agentOptions: AgentOptions

    @Flag(help: "One JSON object per download and line.")
    public var json = false

    public init() {}

    public func run() async throws {
        if agentOptions.usesAgent { return try await listAgent() }
        let stored: StoredRecords
        do {
            stored = try await state.state.loadRecords()
        } catch let error as DownloadError {
            Terminal.writeError("fdl: \(error.message)")
            throw ExitCode(ExitStatus.stateUnavailable.rawValue)
        }
        stored.warnAboutRefused()
        let records = stored.all
        if json {
            for r in records {
                var line = JSONEventLine(event: "download", id: r.id)
                line.state = r.state.rawValue
                line.url = r.url.absoluteString
                line.destination = r.destination.path
                line.receivedBytes = r.bytesDone
                line.expectedBytes = r.expectedLength
                if !r.errorMessages.isEmpty { line.errorMessages = r.errorMessages }
                Terminal.write(line.encoded() + "\n")
            }
            return
        }
        guard !records.isEmpty else {
            Terminal.write("no downloads in \(state.url.path)\n")
            return
        }
        Terminal.write(Self.table(records).joined(separator: "\n") + "\n")
    }

    /// The rows of the table: ID, STATE, BYTES, URL.
    static func table(_ records: [DownloadRecord]) -> [String] {
        table(records.map { r in
            Row(id: r.id, state: r.state, done: r.bytesDone, expected: r.expectedLength, url: r.url,
                error: r.errorMessages.first)
        })
    }

    /// One row of the table.
    struct Row {
        var id: String
        var state: DownloadState
        var done: Int64
        var expected: Int64?
        var url: URL
        var error: String?
    }

    static func table(_ rows: [Row]) -> [String] {
        let idWidth = max(2, rows.map(\.id.count).max() ?? 2)
        var lines = [Formatting.fit("ID", width: idWidth) + "  " + Formatting.fit("STATE", width: 11) + "  "
            + Formatting.fit("BYTES", width: 22) + "  URL"]
        for r in rows {
            let bytes = Formatting.bytes(r.done) + (r.expected.map { "/" + Formatting.bytes($0) } ?? "")
            var line = Formatting.fit(r.id, width: idWidth) + "  " + Formatting.fit(r.state.rawValue, width: 11) + "  "
                + Formatting.fit(bytes, width: 22) + "  " + r.url.redactingPassword
            if let error = r.error, r.state == .failed || r.state == .interrupted { line += "  (\(error))" }
            lines.append(line)
        }
        return lines
    }
}
