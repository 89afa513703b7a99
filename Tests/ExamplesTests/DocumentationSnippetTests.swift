import Foundation
import Testing

/// Every Swift code block in docs/, the README and the DocC catalogs is an excerpt of a
/// `// snippet:` region of a Swift file that the package builds (Examples/, Sources/, Tests/), so
/// every code sample a reader copies compiles. Blank lines, indentation and `import` lines are
/// not compared (a sample's imports stand at the top of the file that compiles it).
@Suite struct DocumentationSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Markdown files that may hold code samples.
    static func documents() -> [URL] {
        var result: [URL] = []
        for folder in ["docs", "Sources"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where url.pathExtension == "md" { result.append(url) }
        }
        let readme = root.appendingPathComponent("README.md")
        if FileManager.default.fileExists(atPath: readme.path) { result.append(readme) }
        return result.sorted { $0.path < $1.path }
    }

    /// The normalised lines (trimmed, blank lines dropped) of every snippet region.
    static func snippets() throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        for folder in ["Examples", "Sources", "Tests"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where url.pathExtension == "swift" {
                var name: String?
                var lines: [String] = []
                for line in try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n") {
                    let trimmed = line.trimmingCharacters(in: .whitespaces)
                    if trimmed.hasPrefix("// snippet:") {
                        name = "\(url.lastPathComponent):" + trimmed.dropFirst("// snippet:".count).trimmingCharacters(in: .whitespaces)
                        lines = []
                    } else if trimmed == "// end-snippet", let current = name {
                        result[current] = lines
                        name = nil
                    } else if name != nil, !trimmed.isEmpty {
                        lines.append(trimmed)
                    }
                }
            }
        }
        return result
    }

    /// The Swift code blocks of a markdown file, normalised, with their first line number.
    static func codeBlocks(in url: URL) throws -> [(line: Int, lines: [String])] {
        var blocks: [(Int, [String])] = []
        var current: [String]?
        var start = 0
        for (index, line) in try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
                start = index + 1
            } else if current != nil, trimmed == "```" {
                blocks.append((start, current!))
                current = nil
            } else if current != nil, !trimmed.isEmpty, !trimmed.hasPrefix("import ") {
                current!.append(trimmed)
            }
        }
        return blocks
    }

    static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }

    @Test func everySwiftCodeBlockIsAnExcerptOfCompiledCode() throws {
        let snippets = try Self.snippets()
        var checked = 0
        for document in Self.documents() {
            for block in try Self.codeBlocks(in: document) {
                checked += 1
                let found = snippets.values.contains { Self.contains($0, block.lines) }
                #expect(found, "\(document.lastPathComponent):\(block.line): this Swift sample is not in any `// snippet:` region of a built Swift file")
            }
        }
        #expect(checked >= 8, "expected the guides to hold code samples; found \(checked)")
    }
}
