import FileDownload
import Foundation

extension GetSession {
    /// `-c`: continues a partial file fdl did not make (left by curl or wget at the name the
    /// planner kept, ``PlannedDownload/keptFile``) when the server shows it is the same file;
    /// returns the plan unchanged otherwise, with ``PlannedDownload/notContinued`` saying why.
    ///
    /// The server is asked before the file is touched (`RemoteFileCheck.head`): the range after
    /// the file's bytes (`Range: bytes=SIZE-`, stopped before its body). Its 206 must start there
    /// (the server takes ranges) and its `Last-Modified` must show the same file
    /// (``sameFile(serverTime:modified:created:)``): the partial file's modification time (saved by
    /// wget, `curl -R`, `fdl -R`), or a time before the partial file was created (curl or wget
    /// killed midway). Then the file is moved to its staging name (never over anything) and the
    /// download continues it through the library: `ResumeData` under the server's strong
    /// validator (its `ETag`), else that `Last-Modified`, which the resume sends in `If-Range`, so
    /// a change on the server since restarts from zero. Otherwise nothing of the file is changed:
    /// the download starts from zero under the name the planner chose (`NAME.1.EXT`), as without
    /// `-c`, and ``PlannedDownload/notContinued`` says why.
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
            plan.notContinued = why + "fdl continues a file it did not make over HTTP(S) only" + after
            return plan
        }
        origins.record(plan.url, for: name)
        let delegate = CLIDelegate(headers: settings.headers, credentials: settings.credentials, origins: origins)
        let head: TransferHead
        do {
            head = try await RemoteFileCheck.head(
                url: plan.url, offset: size, options: settings.transferOptions,
                transport: try transports.transport(for: plan.url), scratchDirectory: URL(fileURLWithPath: state.path),
                authenticate: { await delegate.download(name, didReceive: $0) })
        } catch {
            plan.notContinued = why + "the server could not be asked (\(DownloadError.wrapping(error).message))" + after
            return plan
        }
        var serverTime = head.modificationDate
        switch head.disposition {
        case .resumed(at: size):
            break
        case .complete where serverTime == nil && size > 1:
            // A 416 saying the file has SIZE bytes seldom has a Last-Modified: the last byte's 206 has.
            let last = try? await RemoteFileCheck.head(
                url: plan.url, offset: size - 1, options: settings.transferOptions,
                transport: try transports.transport(for: plan.url), scratchDirectory: URL(fileURLWithPath: state.path),
                authenticate: { await delegate.download(name, didReceive: $0) })
            if case .resumed(at: size - 1) = last?.disposition { serverTime = last?.modificationDate }
        case .complete:
            break
        default:
            plan.notContinued = why + "the server does not send ranges" + after
            return plan
        }
        let created = (try? FileManager.default.attributesOfItem(atPath: path)[.creationDate]) as? Date
        guard let serverTime,
              let how = Self.sameFile(serverTime: serverTime, modified: modified, created: created) else {
            let server = head.modificationDate.map { "was modified at \(RemoteTime.httpDate($0))" } ?? "has no Last-Modified"
            let made = created.map { "created at \(RemoteTime.httpDate($0)), " } ?? ""
            plan.notContinued = why + "the server's file \(server), the partial file \(made)modified at "
                + "\(RemoteTime.httpDate(modified)): nothing shows its bytes are this file's" + after
            return plan
        }
        if head.disposition == .complete {
            return complete(plan, kept: kept, how: how, why: why, after: after)
        }
        let used = head.validator.flatMap { $0.isStrong ? $0 : nil } ?? Validator.lastModified(RemoteTime.httpDate(serverTime))
        do {
            guard try FileValidation.moveWithoutReplacing(from: path, to: staging) else { return plan }
        } catch {
            plan.notContinued = why + DownloadError.wrapping(error).message + after
            return plan
        }
        var own = options
        own.sha256 = plan.sha256
        plan.id = name
        plan.destination = kept
        plan.keptFile = nil
        plan.resume = ResumeData(id: name, url: plan.url, destination: kept, partPath: staging, bytesOnDisk: size,
                                 validator: used, expectedLength: head.expectedLength, options: own)
        printer.log("\(name): the server shows \(path) is its file (\(how)); continuing it (-c)")
        if how.hasPrefix(Self.birthTimeRule) {
            printer.log("\(name): continued by the birth-time rule only (the partial file's creation time, which a copy or "
                        + "restore resets): --sha256 HASH checks the result")
        }
        return plan
    }

    /// A partial file that is the server's whole file (its 416 says it has SIZE bytes, and its
    /// time shows the same file): kept where it is, reported complete, nothing downloaded. With
    /// `--sha256` its digest must match too.
    private func complete(_ plan: PlannedDownload, kept: URL, how: String, why: String, after: String) -> PlannedDownload {
        var plan = plan
        if let sha256 = plan.sha256, FileDigest.sha256(kept.path) != sha256.lowercased() {
            plan.notContinued = why + "it is as long as the server's file, but its SHA-256 is not --sha256's" + after
            return plan
        }
        let name = kept.lastPathComponent
        printer.log("\(name): the server shows \(kept.path) is its whole file (\(how)); nothing to download (-c)")
        plan.id = name
        plan.destination = kept
        plan.keptFile = nil
        plan.alreadyComplete = true
        plan.upToDate = plan.sha256 == nil
        return plan
    }

    /// How ``sameFile(serverTime:modified:created:)``'s answer for the birth-time rule begins.
    static let birthTimeRule = "birth-time rule: "

    /// Why the bytes of a partial file modified at `modified` and created at `created` are those
    /// of the server's file last modified at `serverTime` (whole seconds), or `nil` when nothing
    /// shows it: its time is the server's (saved by wget, `curl -R`, `fdl -R`), or the server's
    /// file is older than the partial file's creation (every byte was written while the server
    /// had this version: curl or wget killed midway).
    static func sameFile(serverTime: Date, modified: Date, created: Date?) -> String? {
        let server = serverTime.timeIntervalSince1970.rounded(.down)
        if server == modified.timeIntervalSince1970.rounded(.down) {
            return "its Last-Modified is the partial file's time, \(RemoteTime.httpDate(serverTime))"
        }
        guard let created, server + 1 <= created.timeIntervalSince1970.rounded(.down) else { return nil }
        return birthTimeRule + "modified at \(RemoteTime.httpDate(serverTime)), before the partial file was created at "
            + "\(RemoteTime.httpDate(created))"
    }
}
