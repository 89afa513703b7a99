/// Every result of one ``TransportConformance/run()``, in the suite's fixed order.
///
/// Assert on it from any test framework:
/// ```swift
/// #expect(report.passed, "\(report)")           // Swift Testing
/// XCTAssertTrue(report.passed, "\(report)")     // XCTest
/// ```
public struct ConformanceReport: Sendable, CustomStringConvertible {
    /// All results, in the order the checks ran.
    public var results: [ConformanceResult]

    public init(results: [ConformanceResult]) { self.results = results }

    /// The results that failed.
    public var failures: [ConformanceResult] { results.filter(\.isFailure) }

    /// The results that did not run, with their reasons.
    public var notApplicable: [ConformanceResult] {
        results.filter { if case .notApplicable = $0.outcome { true } else { false } }
    }

    /// Whether no check failed (checks that did not apply do not count as failures).
    public var passed: Bool { failures.isEmpty }

    /// The result of the check called `name`, if the suite has one.
    public subscript(name: String) -> ConformanceResult? { results.first { $0.name == name } }

    /// One line per check, then a summary line.
    public var description: String {
        let summary = "\(results.count - failures.count - notApplicable.count) passed, "
            + "\(failures.count) failed, \(notApplicable.count) not applicable"
        return (results.map(\.description) + [summary]).joined(separator: "\n")
    }
}
