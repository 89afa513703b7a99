import FileDownload
import Foundation

extension GetSession {
    /// `-c`: continues a partial file fdl did not make (left by curl or wget at the name the
    /// planner kept, ``PlannedDownload/keptFile``) when the server shows it is the same file;
    /// returns the plan unchanged otherwise, with ``PlannedDownload/notContinued`` saying why.
    ///
    /// The server is asked before the file is touched (`RemoteFileCheck.head`): the range after
    /// the file's bytes with `If-Range` carrying the file's modification time as an HTTP date, as
    /// a resume sends its validator. Only a 206 from that offset (or a 416 saying the file is
    /// already whole) shows the same file: the server's `Last-Modified` is that very time (the
    /// file was saved with `curl -R`, `wget`, or had its time set so) and it takes ranges. Then
    /// the file is moved to its staging name (never over anything) and the download continues it
    /// through the library (`ResumeData` with the server's strong validator, else that date),
    /// under the file's own name. Otherwise nothing of it is changed: the download starts from
    /// zero under the name the planner chose (`NAME.1.EXT`), as without `-c`.
    func continuingPartialFile(_ plan: PlannedDownload, options: DownloadOptions, stagingSuffix: String) async -> PlannedDownload {
        guard settings.continuesPartialFiles, let kept = plan.keptFile, plan.resume == nil, !plan.alreadyComplete else {
            return plan
        }
        var plan = plan
        let path = kept.path, name = kept.lastPathComponent
        let staging = path + stagingSuffix
        guard let size = DownloadPlanner.itemSize(path), size > 0, DownloadPlanner.itemSize(staging) == nil,
              let modified = RemoteTime.modificationDate(ofFileAt: path) else {
            return plan  // not a file with bytes, or its staging name is taken: nothing to continue
        }
        let why = "\(name): not continued (-c): "
        let after = "; downloading from the start as \(plan.destination.lastPathComponent), \(path) is kept as it is"
        guard ["http", "https"].contains(plan.url.scheme?.lowercased() ?? "") else {
            plan.notContinued = why + "fdl continues a file it did not make over HTTP(S) only (If-Range)" + after
            return plan
        }
        let date = RemoteTime.httpDate(modified)
        let asked = Validator.lastModified(date)
        origins.record(plan.url, for: name)
        let delegate = CLIDelegate(headers: settings.headers, credentials: settings.credentials, origins: origins)
        let head: TransferHead
        do {
            head = try await RemoteFileCheck.head(
                url: plan.url, offset: size, validator: asked, options: settings.transferOptions,
                transport: try transports.transport(for: plan.url), scratchDirectory: URL(fileURLWithPath: state.path),
                authenticate: { await delegate.download(name, didReceive: $0) })
        } catch {
            plan.notContinued = why + "the server could not be asked (\(DownloadError.wrapping(error).message))" + after
            return plan
        }
        switch head.disposition {
        case .resumed(at: size), .complete:
            break
        case .restarted(.rangeIgnored), .restarted(.resumeUnsupported):
            plan.notContinued = why + "the server does not send ranges" + after
            return plan
        default:
            let server = head.modificationDate.map { "was modified at \(RemoteTime.httpDate($0))" } ?? "sends no Last-Modified"
            plan.notContinued = why + "the server's file \(server), the partial file at \(date): "
                + "nothing shows they are the same file" + after
            return plan
        }
        do {
            guard try FileValidation.moveWithoutReplacing(from: path, to: staging) else { return plan }
        } catch {
            plan.notContinued = why + DownloadError.wrapping(error).message + after
            return plan
        }
        let validator = head.validator.flatMap { $0.isStrong ? $0 : nil } ?? asked
        var own = options
        own.sha256 = plan.sha256
        plan.id = name
        plan.destination = kept
        plan.keptFile = nil
        plan.resume = ResumeData(id: name, url: plan.url, destination: kept, partPath: staging, bytesOnDisk: size,
                                 validator: validator, expectedLength: head.expectedLength, options: own)
        printer.log("\(name): the server shows \(path) is its file (If-Range: \(date)); continuing it (-c)")
        return plan
    }
}
