import FileDownload
import Foundation
import Testing

/// docs/states.md's failure table ("What a failure means") against the library's
/// (`FailurePolicy.table`), row by row: the same kinds in the same order, each with the same
/// class, and a reason given for each.
@Suite("The failure table in docs/states.md")
struct FailureTableDocTests {
    struct DocRow: Sendable, CustomStringConvertible {
        let kind: String
        let failureClass: String
        let why: String
        var description: String { "\(kind) → \(failureClass)" }
    }

    /// The rows of the table under "## What a failure means": the first code span of the first
    /// column, the code span of the second, the third column.
    static func docRows() throws -> [DocRow] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/states.md"), encoding: .utf8)
        guard let start = text.range(of: "\n## What a failure means\n") else { return [] }
        let body = String(text[start.upperBound...]).components(separatedBy: "\n## ").first ?? ""
        var rows: [DocRow] = []
        for line in body.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 5 else { continue }
            rows.append(DocRow(kind: codeSpan(cells[1]), failureClass: codeSpan(cells[2]), why: cells[3]))
        }
        return rows
    }

    /// The text of the first `code span` in `cell`.
    static func codeSpan(_ cell: String) -> String {
        let parts = cell.split(separator: "`", omittingEmptySubsequences: false)
        return parts.count >= 2 ? String(parts[1]) : ""
    }

    @Test("the docs list every kind of the library's table, in its order")
    func sameKinds() throws {
        let rows = try Self.docRows()
        #expect(rows.map(\.kind) == FailurePolicy.table.map(\.kind.rawValue))
    }

    @Test("each row of the docs has the library's class and says why", arguments: FailurePolicy.table)
    func row(_ rule: FailurePolicy.Rule) throws {
        let rows = try Self.docRows()
        let row = rows.first { $0.kind == rule.kind.rawValue }
        #expect(row?.failureClass == rule.failureClass.rawValue, "docs/states.md: \(rule.kind)")
        #expect((row?.why.count ?? 0) > 20, "docs/states.md gives a reason for \(rule.kind)")
    }
}
