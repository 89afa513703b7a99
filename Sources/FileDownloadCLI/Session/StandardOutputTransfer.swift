import FileDownload
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `fdl get URL -o -`: the body of one URL to standard output as it arrives, as curl does by
/// default and wget with `-O -`.
///
/// One transfer over one connection, straight from the transport to standard output: no staging
/// file, no state directory, nothing written in DIR, no resume and no retry (bytes already
/// written cannot be taken back). The server's status is checked as for a download (2xx),
/// `--max-filesize` applies, `--header`, `--user`, the netrc file, `-U`, the timeouts, the proxy
/// and the TLS options are those of `fdl get`. Progress lines go to standard error (none with
/// `-q`), at most one a second, and a last line with the byte count. A failure is reported on
/// standard error with its hint; the exit status is 0 or 1.
struct StandardOutputTransfer {
    let settings: GetSettings

    /// How the download is named in messages.
    static let id = "-"

    func run() async throws -> ExitStatus {
        let url = settings.urls[0]
        let transports = try TransportFactory.make(settings)
        let transport: any Transport
        do {
            transport = try transports.transport(for: url)
        } catch let error as DownloadError {
            throw CLIError(.usage, "\(url.redactingPassword): \(error.message)")
        }
        let descriptor = dup(STDOUT_FILENO)
        guard descriptor >= 0 else { throw CLIError(.failure, "cannot write to standard output (errno \(errno))") }
        let id = Self.id
        let sink = TransferSink(streamingTo: descriptor, name: "standard output") { head in
            try Downloader.checkHead(head, id: id, expectedSize: nil, delegate: nil)
        }
        sink.limitLength(to: settings.maxFileSize)
        let origins = DownloadOrigins()
        origins.record(url, for: id)
        let delegate = CLIDelegate(headers: settings.headers, credentials: settings.credentials, origins: origins)
        let options = await delegate.customizeTransfer(settings.transferOptions, id: id, url: url)
        let request = TransferRequest(downloadID: id, url: url, options: options,
                                      authenticate: { await delegate.download(id, didReceive: $0) })
        let quiet = settings.quiet
        let progress = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                if !quiet, !Task.isCancelled { Terminal.writeError(Self.progressLine(sink)) }
            }
        }
        defer { progress.cancel() }
        do {
            try await transport.transfer(request, into: sink.writer)
        } catch {
            sink.seal()
            let failure = DownloadError.wrapping(error)
            Terminal.writeError(PlainLog.line(for: .failed(id: id, error: failure, resumeData: nil)) ?? failure.message)
            if let hint = EventPrinter.hint(for: failure, hasCredentials: !settings.credentials.isEmpty) {
                Terminal.writeError("\(id): \(hint)")
            }
            return .failure
        }
        sink.seal()
        if !quiet { Terminal.writeError("\(id): \(Formatting.bytes(sink.fileLength)) of \(url.redactingPassword) written to standard output") }
        return .success
    }

    /// `-: 1.2 MiB of 3.0 MiB to standard output` (without the total when the server gave none).
    static func progressLine(_ sink: TransferSink) -> String {
        let total = sink.announcedLength.map { " of \(Formatting.bytes($0))" } ?? ""
        return "\(id): \(Formatting.bytes(sink.fileLength))\(total) to standard output"
    }
}
