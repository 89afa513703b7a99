import FileDownload

extension ResumeDisposition {
    /// Whether the body starts at zero.
    var isRestart: Bool {
        if case .restarted = self { return true }
        return false
    }
}
