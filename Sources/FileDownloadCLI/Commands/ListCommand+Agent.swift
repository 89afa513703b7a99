import ArgumentParser
import FileDownload
import FileDownloadAgentClient
import Foundation

/// `fdl list --agent`: the download agent's downloads, in the same table (or JSON lines).
extension ListCommand {
    func listAgent() async throws {
        let socketPath = agentOptions.socketPath
        let downloads: [DownloadInfo]
        do {
            downloads = try await DownloadAgentClient(socketPath: socketPath).downloads()
        } catch let error as DownloadAgentClientError {
            throw ControlCommandRunner.agentFailure(error, socketPath: socketPath)
        }
        if json {
            for d in downloads {
                var line = JSONEventLine(event: "download", id: d.id)
                line.state = d.state.rawValue
                line.url = d.url.redactingPassword
                line.destination = d.destination.path
                line.receivedBytes = d.progress.receivedBytes
                line.expectedBytes = d.progress.expectedBytes
                if let error = d.lastError { line.errorMessages = [error] }
                Terminal.write(line.encoded() + "\n")
            }
            return
        }
        guard !downloads.isEmpty else {
            Terminal.write("no downloads in the download agent at \(socketPath)\n")
            return
        }
        let rows = downloads.map { d in
            Row(id: d.id, state: d.state, done: d.progress.receivedBytes, expected: d.progress.expectedBytes,
                url: d.url, error: d.lastError)
        }
        Terminal.write(Self.table(rows).joined(separator: "\n") + "\n")
    }
}
