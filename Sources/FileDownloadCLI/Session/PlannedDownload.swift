public import FileDownload
public import Foundation

/// One download `fdl get` will run, after matching the command line against the state directory.
public struct PlannedDownload: Sendable, Hashable {
    /// The id: the file name, chosen by ``DownloadPlanner`` (unique within the directory).
    public var id: String
    public var url: URL
    public var destination: URL
    public var sha256: String?
    /// Set when the bytes of an earlier run can be continued.
    public var resume: ResumeData?
    /// The destination already holds the file (it matches the SHA-256 given, or an earlier run
    /// completed it): nothing to download.
    public var alreadyComplete: Bool
    /// The first destination passed over because something fdl did not download is there (or
    /// at its staging name): kept as it is; `nil` when the first name was taken or free.
    public var keptFile: URL?
    /// The stored download that completed the file, when ``alreadyComplete`` comes from it (what
    /// `-N` checks against the server).
    public var completedRecord: DownloadRecord? = nil
    /// `-N` found the server's file unchanged.
    public var upToDate = false
    /// Why `-c` did not continue ``keptFile`` (one line for the log), when it was asked to.
    public var notContinued: String? = nil

    public init(id: String, url: URL, destination: URL, sha256: String?, resume: ResumeData?, alreadyComplete: Bool,
                keptFile: URL? = nil) {
        self.keptFile = keptFile
        self.id = id
        self.url = url
        self.destination = destination
        self.sha256 = sha256
        self.resume = resume
        self.alreadyComplete = alreadyComplete
    }
}
