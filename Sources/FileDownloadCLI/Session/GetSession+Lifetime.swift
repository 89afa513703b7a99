import FileDownload
import Foundation

/// What ends a run, besides every download reaching an outcome (see `docs/cli.md`, "What ends a
/// run"): a paused download has none, so it keeps the session running, waiting for
/// `fdl resume ID` (or `fdl cancel ID`) from another terminal, as aria2c keeps running with paused
/// downloads; Ctrl-C or SIGTERM ends it at any time.
extension GetSession {
    /// Records that `id` was paused and tells the person how to go on.
    func notePaused(_ id: String) {
        outcomes[id] = nil
        paused.insert(id)
        printer.log("\(id): `\(resumeCommand(for: id))` from another terminal continues it; "
                    + "this run waits for it (Ctrl-C ends the run, the bytes are kept)")
    }

    /// The command that continues download `id` from another terminal, with this run's directory
    /// (and state directory, when it is not the default).
    func resumeCommand(for id: String) -> String {
        var words = ["fdl", "resume", id, "-d", state.outputDirectory.path]
        if state.path != StateDirectory(outputDirectory: state.outputDirectory).path { words += ["--state", state.path] }
        return words.map(Self.shellQuoted).joined(separator: " ")
    }

    /// `word` as a shell reads it back: as it is when it has only safe characters, otherwise in
    /// single quotes.
    static func shellQuoted(_ word: String) -> String {
        let safe = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-:@%+=,")
        guard !word.isEmpty, word.unicodeScalars.allSatisfy(safe.contains) else {
            return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
        return word
    }

    /// Ends the live display (a late SIGWINCH draws nothing under the summary) and gives the
    /// downloads still paused, which only a signal leaves, the outcome `stopped`.
    func finishRun() {
        printer.closeFrame()
        for id in paused { outcomes[id] = .stopped }
    }
}
