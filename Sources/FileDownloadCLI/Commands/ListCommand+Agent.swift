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
        show(downloads.map(Row.init), empty: "no downloads in the download agent at \(socketPath)")
    }
}
