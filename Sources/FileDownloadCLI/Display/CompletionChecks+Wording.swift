import FileDownload

extension CompletionChecks {
    /// How `fdl` tells what confirmed a completed file, after its path: "verified" only when the
    /// SHA-256 (the one given, or the server's digest), the expected size or the length the
    /// server announced matched.
    var wording: String {
        if contains(.sha256) { return "completed and verified: SHA-256" }
        if contains(.serverDigest) { return "completed and verified: the SHA-256 digest the server announced" }
        if contains(.expectedSize) { return "completed and verified: the expected size" }
        if contains(.announcedLength) { return "completed and verified: the length the server announced" }
        return "completed; length not confirmed by the server"
    }

    /// The digest that confirmed the file's bytes, as `fdl --json` names it (`verifiedBy`):
    /// `sha256` (the one given), `serverDigest` (the server's), or `nil`.
    var digestName: String? {
        if contains(.sha256) { return "sha256" }
        if contains(.serverDigest) { return "serverDigest" }
        return nil
    }
}
