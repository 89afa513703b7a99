import FileDownload

/// One download a worker holds the lease on: what the queue knew of it at the moment of the claim.
struct ClaimedDownload: Sendable {
    var id: String
    /// How many times the download was claimed, this claim included: the fencing token every
    /// write under this lease carries.
    var claim: Int
    var destination: String
    /// The stored record (its state, checkpoint and validator are those of the previous holder).
    var record: DownloadRecord
    /// Where the previous holder kept its bytes, if it wrote any.
    var node: String?
    var stagingPath: String?
    var stagingShared: Bool
}
