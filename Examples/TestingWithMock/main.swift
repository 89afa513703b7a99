import FileDownload
import FileDownloadHTTP
import Foundation

// Fetches the assets given as NAME=URL=SHA256 arguments into the current directory.
let assets = CommandLine.arguments.dropFirst().compactMap { argument -> Asset? in
    let parts = argument.split(separator: "=", maxSplits: 2).map(String.init)
    guard parts.count == 3, let url = URL(string: parts[1]) else { return nil }
    return Asset(name: parts[0], url: url, sha256: parts[2])
}
var transports = TransportRegistry()
transports.register(try HTTPTransport(), for: "http", "https")
let downloader = Downloader(transports: transports)
let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
let report = try await AssetUpdater(downloader: downloader, directory: here).update(assets)
print("ready: \(report.ready.sorted()), failed: \(report.failed), retries: \(report.retries)")
await downloader.shutdown()
