import FileDownload
import FileDownloadAgent
import Foundation

/// `--on-complete CMD`: the command runs once for each file the session completes, one run after
/// the other in the order the files completed (`CompletionCommand`, `CompletionEnvironment`),
/// beside the downloads; the session waits for the last run before it reports and exits. A run
/// longer than `--on-complete-timeout` (30 s) is killed with its whole process group. A run that
/// does not exit 0 (or was killed) is reported on standard error (in terminal mode above the live
/// frame); it does not change the exit status. SIGINT or SIGTERM cancels every run: a queued one
/// never starts, a running one is killed with its process group.
extension GetSession {
    /// Queues the command for download `id`, completed at `file`.
    func runOnComplete(id: String, file: URL) {
        guard let command = settings.onComplete else { return }
        let timeout = settings.onCompleteTimeout
        guard !interruptedBySignal else { return }
        let previous = onCompleteRuns
        let run = Task {
            await previous?.value
            // Cancelled by SIGINT/SIGTERM while queued: never started.
            guard !Task.isCancelled else { return }
            let environment = CompletionEnvironment.variables(id: id, state: .completed, path: file.path, sequence: nil)
            let outcome = await CompletionCommand(command, timeout: timeout).run(environment: environment)
            if !outcome.succeeded { self.reportOnComplete(id: id, outcome: outcome) }
        }
        onCompleteRuns = run
        onCompleteQueue.append(run)
    }

    /// Cancels every queued run (it does not start) and the running one (its process group is
    /// killed with SIGKILL); the session's wait for them then ends at once.
    func cancelOnCompleteRuns() {
        for run in onCompleteQueue { run.cancel() }
    }

    /// On standard error (in terminal mode above the live frame, as the other messages).
    private func reportOnComplete(id: String, outcome: CompletionCommand.Outcome) {
        let message = "\(id): --on-complete \(outcome)"
        if printer.mode == .terminal, !printer.quiet {
            printer.log(message)
        } else {
            Terminal.writeError("fdl: " + message)
        }
    }

    /// Waits until every queued run has ended.
    func finishOnCompleteRuns() async {
        await onCompleteRuns?.value
    }
}
