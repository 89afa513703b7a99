import FileDownload

extension CompletionChecks {
    /// How `fdl` tells what confirmed a completed file, after its path: "verified" only when the
    /// SHA-256, the expected size or the length the server announced matched.
    var wording: String {
        if contains(.sha256) { return "completed and verified: SHA-256" }
        if contains(.expectedSize) { return "completed and verified: the expected size" }
        if contains(.announcedLength) { return "completed and verified: the length the server announced" }
        return "completed; length not confirmed by the server"
    }
}
