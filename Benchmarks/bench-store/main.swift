// bench-store: the cost of persisting downloads. Not a test.
//
//   swift run -c release bench-store [--count N] [--directory DIR]
//
// For each store (in memory, SQLite with durability .processCrash, SQLite with .powerLoss) in one
// run: N records saved one call each, then N checkpoints one call each, then loadAll, and for
// SQLite a cold restore (a new store opened on the file, then loadAll). Prints a Markdown table.

import FileDownload
import FileDownloadSQLite
import Foundation

struct Figures {
    var name: String
    var saveSeconds: Double
    var checkpointSeconds: Double
    var loadSeconds: Double
    var restoreSeconds: Double
}

func seconds(_ duration: Duration) -> Double {
    duration / .seconds(1)
}

func measure(_ body: () async throws -> Void) async rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try await body()
    return seconds(clock.now - start)
}

func records(_ count: Int) -> [DownloadRecord] {
    let options = DownloadOptions(transfer: TransferOptions(headers: [HeaderField(name: "Accept", value: "*/*")]),
                                  expectedSize: 10_485_760)
    return (0..<count).map { i in
        DownloadRecord(id: "download-\(i)", url: URL(string: "https://mirror.example.com/files/\(i).bin")!,
                       destination: URL(fileURLWithPath: "/var/tmp/downloads/\(i).bin"),
                       partPath: "/var/tmp/downloads/\(i).bin.part", state: .waiting,
                       validator: .entityTag("\"\(i)-5f3a\""), expectedLength: 10_485_760,
                       options: options, queueOrder: Int64(i))
    }
}

func run(_ name: String, _ store: any DownloadStore, _ input: [DownloadRecord],
         reopen: (() async throws -> any DownloadStore)?) async throws -> Figures {
    let save = try await measure { for record in input { try await store.save(record) } }
    let checkpoint = try await measure {
        for (i, record) in input.enumerated() {
            try await store.checkpoint(id: record.id, bytes: Int64(i) * 4096, validator: record.validator)
        }
    }
    var loaded = 0
    let load = try await measure { loaded = try await store.loadAll().count }
    precondition(loaded == input.count, "\(name) loaded \(loaded) of \(input.count)")
    var restore = load
    if let reopen {
        restore = try await measure {
            let fresh = try await reopen()
            loaded = try await fresh.loadAll().count
        }
        precondition(loaded == input.count, "\(name) restored \(loaded) of \(input.count)")
    }
    return Figures(name: name, saveSeconds: save, checkpointSeconds: checkpoint, loadSeconds: load,
                   restoreSeconds: restore)
}

var count = 10_000
var base = FileManager.default.temporaryDirectory
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--count": count = Int(arguments.next() ?? "") ?? count
    case "--directory": base = URL(fileURLWithPath: arguments.next() ?? base.path)
    default:
        print("usage: bench-store [--count N] [--directory DIR]")
        exit(2)
    }
}

let directory = base.appending(path: "bench-store-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let input = records(count)

var results: [Figures] = []
results.append(try await run("InMemoryDownloadStore", InMemoryDownloadStore(), input, reopen: nil))
for (label, durability) in [("processCrash", SQLiteDownloadStore.Durability.processCrash),
                            ("powerLoss", .powerLoss)] {
    let path = directory.appending(path: "\(label).sqlite").path
    let configuration = SQLiteDownloadStore.Configuration(durability: durability)
    let store = try await SQLiteDownloadStore(path: path, configuration: configuration)
    results.append(try await run("SQLiteDownloadStore .\(label)", store, input, reopen: {
        await store.close()
        return try await SQLiteDownloadStore(path: path, configuration: configuration)
    }))
}

func rate(_ seconds: Double, _ count: Int) -> String { String(format: "%.0f", Double(count) / seconds) }
func ms(_ seconds: Double) -> String { String(format: "%.1f", seconds * 1000) }
func ratio(_ value: Double, _ reference: Double) -> String { String(format: "%.2fx", value / reference) }

let memory = results[0]
print("\(count) records, \(ProcessInfo.processInfo.activeProcessorCount) cores, files in \(base.path)\n")
print("| store | saves/s | checkpoints/s | loadAll ms | restore ms (open + loadAll) | save cost vs memory | restore vs memory |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for r in results {
    print("| \(r.name) | \(rate(r.saveSeconds, count)) | \(rate(r.checkpointSeconds, count)) | \(ms(r.loadSeconds)) | "
        + "\(ms(r.restoreSeconds)) | \(ratio(r.saveSeconds, memory.saveSeconds)) | "
        + "\(ratio(r.restoreSeconds, memory.restoreSeconds)) |")
}
