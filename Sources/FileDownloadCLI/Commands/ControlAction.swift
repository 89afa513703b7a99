/// What `fdl pause|resume|cancel ID` asks for.
public enum ControlAction: String, Sendable, Hashable, CaseIterable {
    case pause, resume, cancel

    /// `paused`, `resumed`, `cancelled`.
    var pastTense: String {
        switch self {
        case .pause: "paused"
        case .resume: "resumed"
        case .cancel: "cancelled"
        }
    }
}
