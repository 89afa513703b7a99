@testable import FileDownloadCLI
import FileDownloadTestSupport
import Foundation
import Testing

/// `-i FILE`: one file a line, mirrors after TABs, indented options, comments; every error names
/// its line.
@Suite struct InputFileTests {
    let hex = String(repeating: "AB", count: 32)

    @Test func urlsMirrorsOptionsCommentsAndBlankLines() throws {
        let text = "# downloads\r\nhttps://a.example/x.iso\n\n  # an indented comment\n"
            + "https://b.example/y.iso\thttps://c.example/y.iso\t\n\tout=why.iso\n  checksum=sha-256=\(hex)\n"
            + "sftp://d.example/z\n    sha256=\(hex.lowercased())\n"
        let file = try InputFile(parsing: text, source: "list.txt")
        #expect(file.entries.map(\.urls) == [["https://a.example/x.iso"], ["https://b.example/y.iso", "https://c.example/y.iso"],
                                             ["sftp://d.example/z"]])
        #expect(file.entries.map(\.name) == [nil, "why.iso", nil])
        #expect(file.entries.map(\.sha256) == [nil, hex.lowercased(), hex.lowercased()])
        #expect(file.entries.map(\.line) == [2, 5, 8])
    }

    @Test(arguments: [
        ("  out=x\nhttps://a/x", "list.txt:1: an option line (indented) before any URL"),
        ("https://a/x\n  dir=/tmp", "list.txt:2: dir= is not supported"),
        ("https://a/x\n  out=a\n  out=b", "list.txt:3: a second out="),
        ("https://a/x\n  checksum=md5=abc", "list.txt:2: checksum type 'md5' is not supported"),
        ("https://a/x\n  checksum=sha-256=12", "list.txt:2: the SHA-256 '12' is not 64 hexadecimal digits"),
        ("https://a/x\n  split=4", "list.txt:2: unknown option 'split='"),
        ("https://a/x\n  nonsense", "list.txt:2: 'nonsense' is not an option"),
        ("https://a/x https://b/x", "list.txt:1: 'https://a/x https://b/x' contains a space"),
    ])
    func errorsNameTheLine(text: String, message: String) {
        #expect {
            _ = try InputFile(parsing: text, source: "list.txt")
        } throws: { error in
            "\(error)".hasPrefix(message)
        }
    }

    @Test func argumentsComeFirstAndOptionsFillWhatTheInputFileLeft() throws {
        let list = try TemporaryInputFile("https://h/one\n  out=uno\nhttps://h/two\thttps://m/two\n")
        defer { list.remove() }
        var command = try GetCommand.parse(["https://h/zero", "-i", list.path, "--name", "cero", "--sha256", hex])
        try command.validate()
        let s = try command.settings()
        #expect(s.urls.map(\.absoluteString) == ["https://h/zero", "https://h/one", "https://h/two"])
        #expect(s.names == ["cero", "uno"])
        #expect(s.sha256 == [hex.lowercased()])
        #expect(s.mirrors.map { $0.map(\.absoluteString) } == [[], [], ["https://m/two"]])

        let clash = try GetCommand.parse(["-i", list.path, "--name", "x"])
        #expect { try clash.settings() } throws: { "\($0)".contains("\(list.path):1: out= and a --name value") }
        let badURL = try TemporaryInputFile("https://h/ok\nnot a url\n")
        defer { badURL.remove() }
        #expect { try GetCommand.parse(["-i", badURL.path]).settings() } throws: { "\($0)".hasPrefix("\(badURL.path):2:") }
    }

    /// `-i <(grep ... list)` hands fdl a pipe (`/dev/fd/N`): it is read like a file.
    @Test func aPipeIsReadLikeAFile() throws {
        let directory = try TemporaryDirectory("fdl-input-pipe")
        let fifo = directory.path("list")
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread {
            // Opening a FIFO for writing waits for the reader: the load below.
            if let handle = FileHandle(forWritingAtPath: fifo) {
                try? handle.write(contentsOf: Data("https://a.example/x.iso\n".utf8))
                try? handle.close()
            }
        }
        writer.start()
        let file = try InputFile.load(fifo)
        #expect(file.entries.map(\.urls) == [["https://a.example/x.iso"]])
        #expect(throws: CLIError.self) { try InputFile.load(directory.path("missing")) }
    }

    @Test func twoThousandURLsParseAndCombineInOnePass() throws {
        let text = (0..<2_500).map { "https://h/file\($0).bin\n  out=f\($0)" }.joined(separator: "\n")
        let list = try TemporaryInputFile(text)
        defer { list.remove() }
        let s = try GetCommand.parse(["-i", list.path]).settings()
        #expect(s.urls.count == 2_500)
        #expect(Set(s.names.compactMap { $0 }).count == 2_500)
    }
}
