public import ArgumentParser
import FileDownload
import FileDownloadAgentClient
import Foundation

/// `fdl list`: the downloads the state directory knows.
public struct ListCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the downloads kept in DIR/.fdl, those of a fdl get running on DIR as it counts them now (with --agent: the download agent's).")

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
            throw ControlCommandRunner.fail(.stateUnavailable, error.message)
        }
        stored.warnAboutRefused()
        // The downloads of a run on DIR as it sees them now (what its display shows), the others
        // as stored.
        let live = Dictionary(try await runningDownloads().map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let storedIDs = Set(stored.all.map(\.id))
        let rows = stored.all.map { live[$0.id].map(Row.init) ?? Row($0) }
            + live.values.filter { !storedIDs.contains($0.id) }.sorted { $0.id < $1.id }.map(Row.init)
        show(rows, empty: "no downloads in \(state.url.path)")
    }

    /// The downloads of the `fdl get` running on DIR, from its socket (`DownloadInfo`, the
    /// downloader's live values, which its display shows); none when no run serves it, or when it
    /// does not answer within ``runningAnswerDeadline`` (then a note on standard error says the
    /// stored rows are shown).
    func runningDownloads() async throws -> [DownloadInfo] {
        let socketPath = state.state.socketPath
        do {
            return try await DownloadAgentClient(socketPath: socketPath, answerTimeout: Self.runningAnswerDeadline).downloads()
        } catch let error as DownloadAgentClientError where error.code == .noAnswer {
            Terminal.writeError("fdl: the fdl running on \(state.url.path) did not answer within "
                                + "\(Self.runningAnswerDeadline.components.seconds) s; showing the stored rows")
            return []
        } catch let error as DownloadAgentClientError {
            if error.status == 0 { return [] }
            throw ControlCommandRunner.fail(.stateUnavailable, "the fdl running on \(state.url.path) refused: \(error.message)")
        }
    }

    /// Prints the rows as the table, or as JSON lines; `empty` when there are none.
    func show(_ rows: [Row], empty: String) {
        if json {
            for r in rows {
                var line = JSONEventLine(type: "download", id: r.id)
                line.state = r.state.rawValue
                line.url = r.url.redactingPassword
                line.destination = r.destination.path
                line.receivedBytes = r.done
                line.expectedBytes = r.expected
                if !r.errors.isEmpty { line.errorMessages = r.errors }
                Terminal.write(line.encoded() + "\n")
            }
            return
        }
        guard !rows.isEmpty else {
            Terminal.write(empty + "\n")
            return
        }
        Terminal.write(Self.table(rows).joined(separator: "\n") + "\n")
    }

    /// One row of the table.
    struct Row {
        var id: String
        var state: DownloadState
        var done: Int64
        var expected: Int64?
        var url: URL
        var destination: URL
        var errors: [String]
    }

    /// The lines of the table: ID, STATE, BYTES, URL (and the first error of a failed or
    /// interrupted download).
    static func table(_ rows: [Row]) -> [String] {
        let idWidth = max(2, rows.map(\.id.count).max() ?? 2)
        var lines = [Formatting.fit("ID", width: idWidth) + "  " + Formatting.fit("STATE", width: 11) + "  "
            + Formatting.fit("BYTES", width: 22) + "  URL"]
        for r in rows {
            let bytes = Formatting.bytes(r.done) + (r.expected.map { "/" + Formatting.bytes($0) } ?? "")
            var line = Formatting.fit(r.id, width: idWidth) + "  " + Formatting.fit(r.state.rawValue, width: 11) + "  "
                + Formatting.fit(bytes, width: 22) + "  " + r.url.redactingPassword
            if let error = r.errors.first, r.state == .failed || r.state == .interrupted { line += "  (\(error))" }
            lines.append(line)
        }
        return lines
    }
}

extension ListCommand.Row {
    /// The row of a download as a downloader reports it (a running `fdl get`, the agent).
    init(_ d: DownloadInfo) {
        self.init(id: d.id, state: d.state, done: d.progress.receivedBytes, expected: d.progress.expectedBytes,
                  url: d.url, destination: d.destination, errors: d.lastError.map { [$0] } ?? [])
    }

    /// The row of a stored download.
    init(_ r: DownloadRecord) {
        self.init(id: r.id, state: r.state, done: r.bytesDone, expected: r.expectedLength, url: r.url,
                  destination: r.destination, errors: r.errorMessages)
    }
}
