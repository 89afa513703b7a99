public import FileDownload

extension RestartReason {
    /// A few words for a person: why the bytes on disk were discarded.
    public var explanation: String {
        switch self {
        case .rangeIgnored: "the server does not resume"
        case .validatorChanged: "the file changed on the server"
        case .rangeMismatch: "the server answered another range"
        case .resumeUnsupported: "the protocol cannot resume"
        case .segmentsDisagree: "the server sent different bytes to different connections; starting over on one connection"
        }
    }
}
