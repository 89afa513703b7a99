/// The outcome of one check of ``TransportConformance``.
public struct ConformanceResult: Sendable, CustomStringConvertible {
    /// How a check ended.
    public enum Outcome: Sendable, Hashable {
        /// The transport did what the contract says.
        case passed
        /// It did not; the message says what was expected and what happened.
        case failed(String)
        /// The check did not run: the fixture lacks what it needs, or the transport's capabilities
        /// exclude it. The message says which.
        case notApplicable(String)
    }

    /// A short name for the check, stable across versions (`"resume at half"`).
    public var name: String
    public var outcome: Outcome

    public init(name: String, outcome: Outcome) {
        self.name = name
        self.outcome = outcome
    }

    /// Whether the outcome is ``Outcome/failed(_:)``.
    public var isFailure: Bool {
        if case .failed = outcome { return true }
        return false
    }

    public var description: String {
        switch outcome {
        case .passed: "PASS  \(name)"
        case .failed(let message): "FAIL  \(name): \(message)"
        case .notApplicable(let reason): "N/A   \(name): \(reason)"
        }
    }
}
