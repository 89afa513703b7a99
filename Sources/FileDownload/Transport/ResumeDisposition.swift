/// What a transport did with the requested offset, reported in the ``TransferHead`` before the
/// first body byte. The ``TransferWriter`` acts on it: it keeps the bytes on disk and appends, or
/// truncates the file to zero first.
public enum ResumeDisposition: Sendable, Hashable {
    /// The body that follows starts at this offset, which must equal
    /// ``TransferRequest/offset``. At offset 0 this is a plain start.
    case resumed(at: Int64)
    /// The body that follows starts at byte zero; the bytes on disk are discarded first.
    case restarted(RestartReason)
    /// Nothing is left to send: the bytes on disk are the whole resource (HTTP 416 whose
    /// `Content-Range: */N` equals the offset). The downloader validates and completes.
    case complete
}

/// Why a transport started from zero although an offset above zero was asked for.
public enum RestartReason: String, Sendable, Hashable, Codable {
    /// The server does not support ranges, or ignored this one (HTTP 200 to a range request).
    case rangeIgnored
    /// The remote file changed since the bytes on disk were fetched (validator mismatch).
    case validatorChanged
    /// The server answered a range other than the one asked for.
    case rangeMismatch
    /// The transport cannot resume at all.
    case resumeUnsupported
    /// The segments of a download fetched over several connections disagreed: the bytes a range
    /// got for the overlap window before its start differ from those its neighbour got there, so
    /// the server sent bytes of different versions (or corrupted ones) under one validator. The
    /// download starts over on one connection.
    case segmentsDisagree
}
