import ArgumentParser
import FileDownload
import Foundation

/// What `fdl pause|resume|cancel ID` share: find the download, then either ask the `fdl` that
/// holds the state directory to act, or act on the stored state directly when none runs.
enum ControlCommandRunner {
    /// Applies `action` to download `id` in `state`.
    ///
    /// - Returns: `nil` when the request was handled (printed), or the record to run in the
    ///   foreground (resume with no running `fdl`); the state lock is released by then.
    static func perform(_ action: ControlRequest.Action, id: String, state: StateDirectory) async throws -> DownloadRecord? {
        let stored: StoredRecords
        do {
            stored = try await state.loadRecords()
        } catch let error as DownloadError {
            throw fail(.stateUnavailable, error.message)
        }
        guard let record = stored.all.first(where: { $0.id == id }) else {
            let known = stored.all.map(\.id).sorted().prefix(10).joined(separator: ", ")
            throw fail(.usage, "no download has the id '\(id)' in \(state.outputDirectory.path)"
                       + (known.isEmpty ? "" : " (known: \(known))") + "; `fdl list` shows them")
        }
        if let problem = stored.refused[id] {
            throw fail(.stateUnavailable, StoredRecords.refusal(id: id, problem: problem))
        }
        let lock: StateLock?
        do {
            try state.create()
            lock = try state.tryLock()
        } catch let error as DownloadError {
            throw fail(.stateUnavailable, error.message)
        }
        guard let lock else {
            try await ask(action, id: id, state: state)
            return nil
        }
        defer { lock.release() }
        switch (action, record.state) {
        case (_, .completed), (_, .cancelled):
            throw fail(.failure, "the download '\(id)' is \(record.state) and cannot be \(action.pastTense)")
        case (.resume, _):
            return record
        case (.pause, _):
            var paused = record
            paused.state = .paused
            try await save(paused, state: state)
            Terminal.write("\(id): paused at \(Formatting.bytes(record.checkpointedBytes)); `fdl resume \(id)` continues it\n")
        case (.cancel, _):
            do {
                try StagingFile.removeFile(record.partPath)
            } catch let error as DownloadError {
                throw fail(.failure, "cannot cancel '\(id)': \(error.message)")
            }
            var cancelled = record
            cancelled.state = .cancelled
            cancelled.checkpointedBytes = 0
            cancelled.validator = nil
            try await save(cancelled, state: state)
            Terminal.write("\(id): cancelled; its partial bytes were deleted\n")
        }
        return nil
    }

    /// Leaves a request for the running `fdl` and waits (at most 10 s) until it took it.
    static func ask(_ action: ControlRequest.Action, id: String, state: StateDirectory) async throws {
        let path: String
        do {
            path = try ControlRequest(action: action, id: id).post(to: state)
        } catch let error as DownloadError {
            throw fail(.stateUnavailable, error.message)
        }
        let holder = state.lockHolder.map { "pid \($0)" } ?? "another process"
        let deadline = ContinuousClock.now + .seconds(10)
        while FileManager.default.fileExists(atPath: path), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        if FileManager.default.fileExists(atPath: path) {
            _ = try? StagingFile.removeFile(path)
            throw fail(.stateUnavailable, "the fdl that holds \(state.outputDirectory.path) (\(holder)) did not take the request within 10 s")
        }
        Terminal.write("\(id): asked the running fdl (\(holder)) to \(action.rawValue) it\n")
    }

    static func save(_ record: DownloadRecord, state: StateDirectory) async throws {
        do {
            let store = try await state.openStore()
            try await store.save(record)
            await store.close()
        } catch let error as DownloadError {
            throw fail(.stateUnavailable, error.message)
        }
    }

    static func fail(_ status: ExitStatus, _ message: String) -> ExitCode {
        Terminal.writeError("fdl: \(message)")
        return ExitCode(status.rawValue)
    }
}
