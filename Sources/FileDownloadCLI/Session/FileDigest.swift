import FileDownload

/// SHA-256 of files on disk, read in 1 MiB pieces.
public enum FileDigest {
    /// The lowercase hex SHA-256 of the file at `path`, or `nil` when it cannot be read.
    @Sendable public static func sha256(_ path: String) -> String? {
        try? FileValidation.sha256(ofFileAt: path)
    }
}
