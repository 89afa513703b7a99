extension ControlRequest.Action {
    /// `paused`, `resumed`, `cancelled`.
    var pastTense: String {
        switch self {
        case .pause: "paused"
        case .resume: "resumed"
        case .cancel: "cancelled"
        }
    }
}
