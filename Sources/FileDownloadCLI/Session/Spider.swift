import FileDownload
import Foundation

/// `fdl get --spider`: asks the server for each URL as a download's first attempt would
/// (`RemoteFileCheck.head`: HTTP a `GET` stopped before its body, with the command's header
/// fields, credentials, proxy and TLS settings) and downloads nothing. No file, directory, state
/// or lock is created in DIR; one attempt per URL, no retry.
///
/// One line per URL on standard output: `URL: 200, 10.0 MiB, modified DATE` for an answer a
/// download would take (2xx), else `URL: failed: MESSAGE` (a 404: "not found"). Exit status
/// ``ExitStatus/success`` when every URL answered 2xx, else ``ExitStatus/failure``, the code a
/// failed download gives.
struct Spider {
    let settings: GetSettings

    /// Asks about every URL in turn; returns the exit status.
    ///
    /// - Throws: ``CLIError`` with ``ExitStatus/usage`` for a URL no transport fetches, with
    ///   ``ExitStatus/failure`` when no scratch directory can be made.
    func run() async throws -> ExitStatus {
        let transports = try TransportFactory.make(settings)
        let manager = FileManager.default
        // The transports write nothing of the body; their scratch file lives outside DIR.
        let scratch = manager.temporaryDirectory.appendingPathComponent("fdl-spider-\(UUID().uuidString)")
        do {
            try manager.createDirectory(at: scratch, withIntermediateDirectories: true,
                                        attributes: [.posixPermissions: 0o700])
        } catch {
            throw CLIError(.failure, "cannot make a scratch directory in \(manager.temporaryDirectory.path): \(error.localizedDescription)")
        }
        defer { try? manager.removeItem(at: scratch) }
        let origins = DownloadOrigins()
        let delegate = CLIDelegate(headers: settings.headers, credentials: settings.credentials, origins: origins)
        var failed = 0
        for (index, url) in settings.urls.enumerated() {
            let id = "spider-\(index)"
            origins.record(url, for: id)
            let shown = url.redactingPassword
            do {
                let transport: any Transport
                do {
                    transport = try transports.transport(for: url)
                } catch let error as DownloadError {
                    throw CLIError(.usage, "\(shown): \(error.message)")
                }
                let head = try await RemoteFileCheck.head(
                    url: url, options: settings.transferOptions, transport: transport, scratchDirectory: scratch,
                    authenticate: { await delegate.download(id, didReceive: $0) })
                Terminal.write("\(shown): \(Self.describe(head))\n")
            } catch let error as CLIError {
                throw error
            } catch {
                failed += 1
                Terminal.write("\(shown): failed: \(DownloadError.wrapping(error).message)\n")
            }
        }
        let total = settings.urls.count
        Terminal.write("spider: \(total - failed) of \(total) URL\(total == 1 ? "" : "s") answered; nothing was downloaded\n")
        return failed == 0 ? .success : .failure
    }

    /// `200, 10.0 MiB, modified Sat, 28 Nov 2026 01:00:00 GMT` (the parts the server told).
    static func describe(_ head: TransferHead) -> String {
        var parts = [head.statusCode.map(String.init) ?? "found"]
        parts.append(head.expectedLength.map { Formatting.bytes($0) } ?? "size unknown")
        if let date = RemoteTime.date(of: head) { parts.append("modified \(RemoteTime.httpDate(date))") }
        if let name = head.suggestedFilename { parts.append("named \(FileNameSanitizer.sanitize(name))") }
        return parts.joined(separator: ", ")
    }
}
