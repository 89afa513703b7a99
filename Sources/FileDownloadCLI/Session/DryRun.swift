import FileDownload
import FileDownloadSQLite
import Foundation

/// `fdl get --dry-run`: plans the downloads exactly as a run would (names, files kept, what an
/// earlier run left) and prints the plan, changing nothing: no directory, state, lock or file is
/// created, and the network is not used.
///
/// The state is read from a copy of `state.sqlite` in a temporary directory (opening the file
/// itself could write to it), or from an older `state.json` without importing it. The plan is
/// what a run starting now would do: another `fdl` working in the directory may change it.
struct DryRun {
    let settings: GetSettings

    /// Prints one line per URL and a summary line to standard output; returns ``ExitStatus/success``.
    ///
    /// - Throws: ``CLIError`` with ``ExitStatus/usage`` for a URL no transport fetches, and with
    ///   ``ExitStatus/stateUnavailable`` when the state cannot be read.
    func run() async throws -> ExitStatus {
        // Checks the schemes as a run does; creates nothing.
        _ = try GetSession(settings: settings)
        let state = StateDirectory(outputDirectory: settings.outputDirectory, path: settings.stateDirectory)
        let stored: StoredRecords
        do {
            stored = StoredRecords(try await Self.readRecords(of: state), outputDirectory: state.outputDirectory)
        } catch let error as DownloadError {
            throw CLIError(.stateUnavailable, error.message)
        }
        stored.warnAboutRefused()
        let planner = DownloadPlanner(outputDirectory: state.outputDirectory, allowsOverwrite: settings.allowOverwrite)
        let options = DownloadOptions(transfer: settings.transferOptions, retryPolicy: settings.retryPolicy)
        let plans = planner.plan(urls: settings.urls, sha256: settings.sha256, names: settings.names,
                                 records: stored.trusted, options: options)
        var counts = (fresh: 0, continuing: 0, complete: 0)
        for plan in plans {
            Terminal.write(Self.line(for: plan) + "\n")
            if plan.alreadyComplete {
                counts.complete += 1
            } else if let resume = plan.resume, resume.bytesOnDisk > 0 {
                counts.continuing += 1
            } else {
                counts.fresh += 1
            }
        }
        Terminal.write("dry run: \(counts.fresh) to download, \(counts.continuing) to continue, "
                       + "\(counts.complete) already complete; nothing was changed\n")
        return .success
    }

    /// `NAME: download URL -> PATH`, `NAME: continue from 1.0 MiB ...`, `NAME: already complete at PATH`.
    static func line(for plan: PlannedDownload) -> String {
        let kept = plan.keptFile.map { " (keeping \($0.path), which fdl did not download)" } ?? ""
        if plan.alreadyComplete { return "\(plan.id): already complete at \(plan.destination.path)" }
        if let resume = plan.resume, resume.bytesOnDisk > 0 {
            return "\(plan.id): continue from \(Formatting.bytes(resume.bytesDone)): \(plan.url.redactingPassword) -> "
                + "\(plan.destination.path)\(kept)"
        }
        return "\(plan.id): download \(plan.url.redactingPassword) -> \(plan.destination.path)\(kept)"
    }

    /// The stored downloads, read without writing anything in the state directory.
    static func readRecords(of state: StateDirectory) async throws -> [DownloadRecord] {
        let manager = FileManager.default
        if manager.fileExists(atPath: state.storePath) {
            let copy = manager.temporaryDirectory.appendingPathComponent("fdl-dry-run-\(UUID().uuidString)")
            try? manager.createDirectory(at: copy, withIntermediateDirectories: true)
            defer { try? manager.removeItem(at: copy) }
            let copied = copy.appendingPathComponent("state.sqlite").path
            do {
                for suffix in ["", "-wal"] where manager.fileExists(atPath: state.storePath + suffix) {
                    try manager.copyItem(atPath: state.storePath + suffix, toPath: copied + suffix)
                }
            } catch {
                throw DownloadError(.store, "cannot read \(state.storePath): \(error.localizedDescription)")
            }
            let store = try await SQLiteDownloadStore(path: copied, configuration: StateDirectory.storeConfiguration)
            let records = try await store.loadAll()
            await store.close()
            return records
        }
        if manager.fileExists(atPath: state.legacyStorePath) { return try LegacyStateFile.records(at: state.legacyStorePath) }
        return []
    }
}
