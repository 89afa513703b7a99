import Foundation
import Testing

/// Every Swift code block in docs/, the README, the DocC catalogs and the doc comments of Sources/
/// is an excerpt of a `// snippet:` region of a Swift file that the package builds (Examples/,
/// Sources/, Tests/), so every code sample a reader copies compiles; the README's quick start is
/// a whole program, word for word. Blank lines, indentation and `import` lines are
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

    /// Swift files under Sources/, whose doc comments may hold code samples.
    static func sourceFiles() -> [URL] {
        let base = root.appendingPathComponent("Sources")
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }.sorted { $0.path < $1.path }
    }

    /// The Swift code blocks of a markdown file, or of the `///` doc comments of a Swift file,
    /// normalised, with their first line number.
    static func codeBlocks(in url: URL) throws -> [(line: Int, lines: [String])] {
        var blocks: [(Int, [String])] = []
        var current: [String]?
        var start = 0
        let isSwift = url.pathExtension == "swift"
        for (index, line) in try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n").enumerated() {
            var trimmed = line.trimmingCharacters(in: .whitespaces)
            if isSwift {
                // Only doc comments: a block ends with its comment.
                guard trimmed.hasPrefix("///") else {
                    current = nil
                    continue
                }
                trimmed = String(trimmed.dropFirst(3)).trimmingCharacters(in: .whitespaces)
            }
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

    /// Checks every Swift code block of `files` against the snippet regions; returns how many
    /// blocks there were.
    static func checkBlocks(of files: [URL], hint: String) throws -> Int {
        let snippets = try snippets()
        var checked = 0
        for file in files {
            for block in try codeBlocks(in: file) {
                checked += 1
                let found = snippets.values.contains { contains($0, block.lines) }
                #expect(found, "\(file.lastPathComponent):\(block.line): this Swift sample is not in any `// snippet:` region of a built Swift file\(hint)")
            }
        }
        return checked
    }

    @Test func everySwiftCodeBlockIsAnExcerptOfCompiledCode() throws {
        let checked = try Self.checkBlocks(of: Self.documents(), hint: "")
        #expect(checked >= 8, "expected the guides to hold code samples; found \(checked)")
    }

    @Test func everySwiftSampleOfADocCommentIsAnExcerptOfCompiledCode() throws {
        let checked = try Self.checkBlocks(of: Self.sourceFiles(), hint: " (Tests/ExamplesTests/DocCommentSamples.swift holds those of doc comments)")
        #expect(checked >= 10, "expected the doc comments to hold code samples; found \(checked)")
    }

    @Test func scriptsTestBuildsTheDocumentationOfEveryCatalog() throws {
        let script = try String(contentsOf: Self.root.appendingPathComponent("scripts/test.sh"), encoding: .utf8)
        let sources = Self.root.appendingPathComponent("Sources")
        let modules = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter {
            FileManager.default.fileExists(atPath: sources.appendingPathComponent("\($0)/\($0).docc").path)
        }
        #expect(modules.count >= 7)
        #expect(script.contains("generate-documentation --warnings-as-errors"))
        for module in modules {
            #expect(script.contains("--target \(module) ") || script.contains("--target \(module)\n"),
                    "scripts/test.sh does not build the DocC catalog of \(module)")
        }
    }

    /// The lines of `text` with blank lines dropped and each trimmed, imports included.
    static func normalised(_ text: some StringProtocol) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    @Test func theReadmeQuickStartIsTheWholeQuickStartProgram() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let program = try String(contentsOf: Self.root.appendingPathComponent("Examples/QuickStart/main.swift"), encoding: .utf8)
        let quickStart = try #require(readme.components(separatedBy: "## Quick start").dropFirst().first)
        let block = try #require(quickStart.components(separatedBy: "```swift\n").dropFirst().first?
            .components(separatedBy: "\n```").first)
        let region = try #require(program.components(separatedBy: "// snippet: readme-quick-start\n").dropFirst().first?
            .components(separatedBy: "// end-snippet").first)
        #expect(Self.normalised(block) == Self.normalised(region),
                "the README's quick start must be Examples/QuickStart/main.swift, imports included, word for word")
    }
}
