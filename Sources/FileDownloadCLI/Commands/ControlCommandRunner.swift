import ArgumentParser
import FileDownload
import FileDownloadAgentClient
import FileDownloadSQLite
import Foundation

/// What `fdl pause|resume|cancel ID` share: ask the `fdl get` that holds the state directory
/// over its socket (`StateDirectory/socketPath`, the agent's API), or, when none runs, apply the
/// library's rule to the stored download (`DownloadStore.apply(_:toStored:)`: the state machine
/// a running `fdl` applies, not an edit of the row); with `--agent`, ask the download agent instead.
enum ControlCommandRunner {
    /// Applies `action` to download `id` in `state`.
    ///
    /// - Returns: `nil` when the request was handled (printed), or the record to run in the
    ///   foreground (resume with no running `fdl`); the state lock is released by then.
    static func perform(_ action: ControlAction, id: String, state: StateDirectory) async throws -> DownloadRecord? {
        if try await askRunning(action, id: id, state: state) { return nil }
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
        switch action {
        case .resume:
            if record.state.isTerminal {
                throw fail(.failure, "the download '\(id)' is \(record.state) and cannot be resumed")
            }
            return record
        case .pause:
            let paused = try await applyStored(.pause, id: id, state: state)
            Terminal.write("\(id): paused at \(Formatting.bytes(paused.bytesDone)); `fdl resume \(id)` continues it\n")
        case .cancel:
            _ = try await applyStored(.cancel, id: id, state: state)
            Terminal.write("\(id): cancelled; its partial bytes were deleted\n")
        }
        return nil
    }

    /// Pauses or cancels stored download `id` with the library's rule (the state machine a
    /// running `fdl` applies: `DownloadStore.apply(_:toStored:)`), the state lock held.
    private static func applyStored(_ control: StoredControl, id: String, state: StateDirectory) async throws -> DownloadRecord {
        let store: SQLiteDownloadStore
        do {
            store = try await state.openStore()
        } catch let error as DownloadError {
            throw fail(.stateUnavailable, error.message)
        }
        do {
            let record = try await store.apply(control, toStored: id)
            await store.close()
            return record
        } catch let error as DownloadError {
            await store.close()
            if error.code == .invalidState || error.code == .fileSystem {
                throw fail(.failure, "cannot \(control == .pause ? "pause" : "cancel") '\(id)': \(error.message)")
            }
            throw fail(.stateUnavailable, error.message)
        }
    }

    /// Asks the `fdl` that holds `state` over its socket, waiting (at most 10 s) for a run that
    /// holds the lock and has not bound its socket yet.
    static func ask(_ action: ControlAction, id: String, state: StateDirectory) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            if try await askRunning(action, id: id, state: state) { return }
            guard ContinuousClock.now < deadline else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let holder = state.lockHolder.map { "pid \($0)" } ?? "another process"
        throw fail(.stateUnavailable, "the fdl that holds \(state.outputDirectory.path) (\(holder)) does not answer on \(state.socketPath)")
    }

    /// Sends `action` to the `fdl get` serving `state`'s socket, if one does.
    ///
    /// - Returns: `false` when no process accepts connections on the socket; `true` when the
    ///   running `fdl` did it (printed).
    /// - Throws: the exit code (after printing why) when the running `fdl` refused.
    static func askRunning(_ action: ControlAction, id: String, state: StateDirectory) async throws -> Bool {
        let holder = state.lockHolder.map { "pid \($0)" } ?? "another process"
        let info: DownloadInfo
        do {
            info = try await send(action, id: id, to: DownloadAgentClient(socketPath: state.socketPath))
        } catch let error as DownloadAgentClientError {
            switch (error.status, error.code) {
            case (0, _):
                return false
            case (404, .unknownID):
                throw fail(.usage, "the fdl running on \(state.outputDirectory.path) (\(holder)) has no download '\(id)' in its run; "
                           + "\(action.rawValue) it after that run ends (`fdl list -d \(state.outputDirectory.path)` shows the stored ones)")
            case (403, _):
                throw fail(.stateUnavailable, "the fdl running on \(state.outputDirectory.path) refused: \(error.message)")
            default:
                throw fail(.failure, "the fdl running on \(state.outputDirectory.path) (\(holder)) cannot \(action.rawValue) '\(id)': \(error.message)")
            }
        }
        Terminal.write("\(id): asked the running fdl (\(holder)) to \(action.rawValue) it; it is \(info.state.rawValue) now\n")
        return true
    }

    /// Applies `action` to download `id` of the agent at `socketPath`.
    static func performOnAgent(_ action: ControlAction, id: String, socketPath: String) async throws {
        do {
            let info = try await send(action, id: id, to: DownloadAgentClient(socketPath: socketPath))
            Terminal.write("\(id): \(info.state.rawValue) (download agent at \(socketPath))\n")
        } catch let error as DownloadAgentClientError {
            throw agentFailure(error, socketPath: socketPath)
        }
    }

    /// An agent's refusal (or absence) as an exit code, after printing it.
    static func agentFailure(_ error: DownloadAgentClientError, socketPath: String) -> ExitCode {
        switch error.status {
        case 0: fail(.stateUnavailable, "no download agent answers at \(socketPath); `fdl add URL` starts one, or run `fdl agent`")
        case 404: fail(.usage, "\(error.message); `fdl list --agent` shows the agent's downloads")
        case 403: fail(.stateUnavailable, "the download agent at \(socketPath) refused: \(error.message)")
        default: fail(.failure, error.message)
        }
    }

    private static func send(_ action: ControlAction, id: String, to client: DownloadAgentClient) async throws -> DownloadInfo {
        switch action {
        case .pause: try await client.pause(id)
        case .resume: try await client.resume(id)
        case .cancel: try await client.cancel(id)
        }
    }

    static func fail(_ status: ExitStatus, _ message: String) -> ExitCode {
        Terminal.writeError("fdl: \(message)")
        return ExitCode(status.rawValue)
    }
}
