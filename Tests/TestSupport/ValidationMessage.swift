import FileDownload
import Testing

/// What the library's `InputValidation` says about the input `check` refuses: the message every
/// front end (fdl, the agent's API, `fdl add --postgres`) must give for the same input. An
/// accepted input is recorded as an issue and gives `"(accepted)"`.
public enum ValidationMessage {
    public static func of(_ check: () throws -> Void) -> String {
        do {
            try check()
        } catch let error as DownloadError {
            return error.message
        } catch {}
        Issue.record("the input was accepted")
        return "(accepted)"
    }
}
