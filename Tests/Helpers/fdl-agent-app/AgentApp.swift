// An "app" that uses the download agent through DownloadAgentClient and exits, for the tests of
// Tests/FileDownloadAgentTests:
//
//   fdl-agent-app SOCKET CURSOR start ID URL DEST [ID URL DEST ...]
//       starts each download, follows the events after the sequence number saved in CURSOR (0 when
//       the file is absent) until it saw each download added, saves the last one it handled, exits.
//   fdl-agent-app SOCKET CURSOR attach UNTIL_ID
//       follows the events after CURSOR until download UNTIL_ID is added, printing each journalled
//       event as "SEQUENCE JSON", saves the last one it handled, exits.
import FileDownload
import FileDownloadAgentClient
import Foundation

@main
struct AgentApp {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count >= 4 else { fail("usage: fdl-agent-app SOCKET CURSOR start|attach ...") }
        let client = DownloadAgentClient(socketPath: arguments[0])
        let cursor = AgentCursorFile(path: arguments[1])
        do {
            var handled = try cursor.load() ?? 0
            var awaited: Set<String>
            var printing = false
            switch arguments[2] {
            case "start":
                let triples = arguments[3...].map { $0 }
                guard triples.count % 3 == 0 else { fail("start takes ID URL DEST triples") }
                awaited = []
                for i in stride(from: 0, to: triples.count, by: 3) {
                    guard let url = URL(string: triples[i + 1]) else { fail("bad URL \(triples[i + 1])") }
                    try await client.start(id: triples[i], url: url, destination: URL(fileURLWithPath: triples[i + 2]))
                    awaited.insert(triples[i])
                }
            case "attach":
                awaited = [arguments[3]]
                printing = true
            default:
                fail("unknown command \(arguments[2])")
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            for try await item in client.events(since: handled, includeProgress: false) {
                guard let sequence = item.sequence else { continue }
                if printing {
                    print("\(sequence) \(String(decoding: try encoder.encode(item.event), as: UTF8.self))")
                }
                if case .stateChanged(let id, .notStarted) = item.event { awaited.remove(id) }
                handled = sequence
                try cursor.save(handled)
                if awaited.isEmpty { break }
            }
        } catch {
            fail("\(error)")
        }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("fdl-agent-app: \(message)\n".utf8))
        exit(1)
    }
}
