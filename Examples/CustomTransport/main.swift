import FileDownload
import Foundation

// snippet: register-custom-transport
// Serve file:// URLs with our own transport, next to (or instead of) the built-in ones.
var transports = TransportRegistry()
transports.register(FileTransport(), for: "file")
// end-snippet

// Copy a file given on the command line (default: this program itself) into a temporary directory.
let source = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? CommandLine.arguments[0])
let target = FileManager.default.temporaryDirectory.appendingPathComponent("custom-transport-example")
try? FileManager.default.removeItem(at: target)
try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)

let downloader = Downloader(configuration: DownloaderConfiguration(downloadsDirectory: target), transports: transports)
try await downloader.start(id: "copy", url: source)
let outcome = try await downloader.outcome(of: "copy")  // over, however it ended
await downloader.shutdown()
guard case .completed(let file) = outcome else {
    print("not copied: \(outcome)")
    exit(1)
}
print("copied \(source.path) to \(file.path)")
