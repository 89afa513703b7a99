@testable import FileDownloadCLI
import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl` run as a process: mistakes on the command line get exit code 64 and a message that
/// says what to do, and nothing is downloaded or created.
@Suite struct FDLUsageTests {
    @Test(arguments: [
        (["get"], "give at least one URL"),
        (["get", "http://127.0.0.1:9/x", "--sha256", "1234"], "is not 64 hexadecimal digits"),
        (["get", "127.0.0.1/file"], "is not an absolute URL"),
        (["get", "http://127.0.0.1:9/x", "--bogus"], "unknown option '--bogus'"),
        (["get", "gopher://127.0.0.1/x"], "no transport is registered for the scheme 'gopher'"),
        (["frobnicate"], "Unexpected argument 'frobnicate'"),
    ])
    func usageErrorsExitWith64AndSayWhatIsWrong(arguments: [String], message: String) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let result = try await FDLProcess.run(arguments + ["-d", dir.path].filter { _ in arguments.first == "get" })
        #expect(result.status == 64, "stderr: \(result.stderr)")
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// `fdl --help` lists exactly the codes of `ExitStatus` (the one source every command exits
    /// through), and docs/cli.md's table the same codes.
    @Test func helpListsTheExitCodesTheCodeHas() async throws {
        let result = try await FDLProcess.run(["--help"])
        #expect(result.status == 0)
        // The list as printed (wrapped at the width), its words in order.
        let words = { (text: String) in text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let listed = result.stdout.components(separatedBy: "Exit codes:").last?.components(separatedBy: "USAGE:").first ?? ""
        #expect(words(listed) == words(ExitStatus.allCases.map { "\($0.rawValue) \($0.summary)" }.joined(separator: " ")),
                "\(result.stdout)")
        #expect(!result.stdout.contains("paused or cancelled"))
        let table = try String(contentsOfFile: FDLInstallTests.packageRoot + "/docs/cli.md", encoding: .utf8)
            .components(separatedBy: "## Exit codes")[1].components(separatedBy: "\n## ")[0]
        let documented = table.components(separatedBy: "\n").compactMap { line -> Int32? in
            guard line.hasPrefix("| ") else { return nil }
            return Int32(line.dropFirst(2).prefix { $0.isNumber })
        }
        #expect(documented == ExitStatus.allCases.map(\.rawValue))
    }

    /// `fdl get --help` (and `fdl help get`) lists the options in sections a person looks in,
    /// each option where it is looked for, and ends with examples that use only real options.
    @Test(arguments: [["get", "--help"], ["help", "get"], ["get", "-d", ".", "-h"]])
    func getHelpIsGroupedAndEndsWithExamples(arguments: [String]) async throws {
        let result = try await FDLProcess.run(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        let help = result.stdout
        let titles = ["DOWNLOADING:", "NAMING:", "CONNECTIONS:", "NETWORK:", "AUTHENTICATION:", "OUTPUT:", "OPTIONS:", "EXAMPLES:"]
        let starts = titles.map { help.range(of: "\n\($0)\n")?.lowerBound }
        #expect(starts.allSatisfy { $0 != nil } && starts.compactMap { $0 } == starts.compactMap { $0 }.sorted(), "\(help)")
        func section(_ title: String) -> String {
            help.components(separatedBy: "\n\(title)\n").last?.components(separatedBy: "\n\n").first ?? ""
        }
        for (title, options) in [("DOWNLOADING:", ["-i, --input-file", "--sha256", "--retry", "-c, --continue", "--max-filesize"]),
                                 ("NAMING:", ["-d, --dir", "-o, --output", "--name", "-P, --directory-prefix", "--no-clobber, -nc"]),
                                 ("CONNECTIONS:", ["-j, --jobs", "-x, --max-connections", "--limit-rate"]),
                                 ("NETWORK:", ["--timeout", "--proxy", "--cacert", "-k, --insecure", "--header "]),
                                 ("AUTHENTICATION:", ["--user", "--netrc", "--identity", "--header-secret"]),
                                 ("OUTPUT:", ["--json", "-q, --quiet", "-v, --verbose"])] {
            for option in options { #expect(section(title).contains("  \(option)"), "\(option) under \(title): \(section(title))") }
        }
        #expect(help.hasSuffix(GetCommand.examplesSection), "\(help)")
        for example in GetCommand.examples {
            let words = example.command.components(separatedBy: " | ")[0].split(separator: " ").map(String.init)
            #expect(words.first == "fdl" && UnknownOptionCheck.mistake(in: Array(words.dropFirst())) == nil, "\(example.command)")
        }
    }

    @Test func controlCommandsOnAnUnknownIdSayHowToFindTheIds() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let list = try await FDLProcess.run(["list", "-d", dir.path])
        #expect(list.status == 0)
        #expect(list.stdout.contains("no downloads in"))
        let pause = try await FDLProcess.run(["pause", "nope", "-d", dir.path])
        #expect(pause.status == 64)
        #expect(pause.stderr.contains("no download has the id 'nope'"))
        #expect(pause.stderr.contains("fdl list"))
    }
}
