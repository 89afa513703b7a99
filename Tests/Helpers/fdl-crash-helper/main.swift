// fdl-crash-helper: a real process for the crash and disk tests of FileDownloadRecoveryTests.
//
//   fdl-crash-helper --store PATH --base URL --dir DIR [--file NAME[@DIR]]... [--concurrency N]
//                    [--checkpoint-ms N] [--fsize-limit BYTES] [--kill-after-ms N]
//                    [--max-connections N] [--segment-threshold BYTES] [--minimum-segment-size BYTES]
//                    [--settle-before-events]
//
// Opens the SQLite store at PATH, restores the downloads it holds, adds every --file not yet
// known (URL = base + NAME, destination = DIR/NAME, or the directory after @), resumes every
// download that is not completed, and runs until each is settled: completed, failed, or
// interrupted with no retry due. Then prints one line per download and exits 0:
//
//   RESULT <id> <state> <error code or -> <bytes in the .part file or -1> <error message or ->
//
// --fsize-limit sets RLIMIT_FSIZE (and ignores SIGXFSZ) so that writes past BYTES fail with EFBIG.
// --kill-after-ms makes the process SIGKILL itself N ms after it started: the crash test's random
// moments, timed by this process's own clock, so a busy test runner (whose sleeps can overshoot by
// seconds when every test runs at once) cannot give a run more time than its moment.
// --settle-before-events waits for every download's outcome before it reads any event: the run in
// which everything settled before the event loop started, made certain (the error then comes from
// the download's info, as it must when the events were missed).

import FileDownload
import FileDownloadHTTP
import FileDownloadSQLite
import Foundation

struct Arguments {
    var store = ""
    var base = URL(string: "http://127.0.0.1/")!
    var directory = URL(fileURLWithPath: ".")
    var files: [(name: String, directory: URL?)] = []
    var concurrency = 4
    var checkpointInterval = Duration.milliseconds(250)
    var fileSizeLimit: UInt64?
    var killAfter: Int?
    var maxConnections: Int?
    var segmentThreshold: Int64?
    var minimumSegmentSize: Int64?
    var settleBeforeEvents = false

    init(_ list: [String]) {
        var it = list.makeIterator()
        func value(_ flag: String) -> String {
            guard let v = it.next() else { fail("\(flag) needs a value") }
            return v
        }
        while let flag = it.next() {
            switch flag {
            case "--store": store = value(flag)
            case "--base": base = URL(string: value(flag))!
            case "--dir": directory = URL(fileURLWithPath: value(flag))
            case "--file":
                let parts = value(flag).split(separator: "@", maxSplits: 1).map(String.init)
                files.append((parts[0], parts.count > 1 ? URL(fileURLWithPath: parts[1]) : nil))
            case "--concurrency": concurrency = Int(value(flag)) ?? concurrency
            case "--checkpoint-ms": checkpointInterval = .milliseconds(Int(value(flag)) ?? 250)
            case "--fsize-limit": fileSizeLimit = UInt64(value(flag))
            case "--kill-after-ms": killAfter = Int(value(flag))
            case "--max-connections": maxConnections = Int(value(flag))
            case "--segment-threshold": segmentThreshold = Int64(value(flag))
            case "--minimum-segment-size": minimumSegmentSize = Int64(value(flag))
            case "--settle-before-events": settleBeforeEvents = true
            default: fail("unknown argument \(flag)")
            }
        }
        if store.isEmpty { fail("--store is required") }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("fdl-crash-helper: \(message)\n".utf8))
    exit(2)
}

/// Whether a download needs nothing more from this run.
func isSettled(_ state: DownloadState?, retryDue: Bool) -> Bool {
    switch state {
    case .completed?, .failed?, .cancelled?: true
    case .interrupted?: !retryDue
    default: false
    }
}

let arguments = Arguments(Array(CommandLine.arguments.dropFirst()))
if let milliseconds = arguments.killAfter {
    let thread = Thread {
        usleep(useconds_t(milliseconds) * 1000)  // the moment of the crash, not a wait for an event
        kill(getpid(), SIGKILL)
    }
    thread.start()
}
if let limit = arguments.fileSizeLimit {
    signal(SIGXFSZ, SIG_IGN)
    var rl = rlimit(rlim_cur: rlim_t(limit), rlim_max: rlim_t(limit))
    guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &rl) == 0 else { fail("setrlimit failed: errno \(errno)") }
}

let store = try await SQLiteDownloadStore(path: arguments.store, configuration: .init(durability: .processCrash))
var transports = TransportRegistry()
transports.register(try HTTPTransport(), for: "http", "https")
var configuration = DownloaderConfiguration(
    maxConcurrentDownloads: arguments.concurrency,
    retryPolicy: RetryPolicy(maxRetries: 3, initialDelay: .milliseconds(100), maxDelay: .seconds(1)),
    checkpointInterval: arguments.checkpointInterval,
    downloadsDirectory: arguments.directory,
    resumeInterruptedOnRestore: true,
    // A full disk or a lost server ends the run (interrupted or failed) instead of waiting: the
    // disk tests check that the next run continues from the kept bytes.
    waitsForSpace: false,
    waitsForNetwork: false
)
if let threshold = arguments.segmentThreshold { configuration.segmentThreshold = threshold }
if let minimum = arguments.minimumSegmentSize { configuration.minimumSegmentSize = minimum }
let downloader = Downloader(configuration: configuration, transports: transports, store: store)
let events = downloader.events()
try await downloader.restore()

var ids: [String] = []
for file in arguments.files {
    let id = file.name
    ids.append(id)
    if await downloader.state(of: id) == nil {
        let destination = (file.directory ?? arguments.directory).appending(path: file.name)
        try await downloader.start(id: id, url: arguments.base.appending(path: file.name), destination: destination,
                                   options: DownloadOptions(maxConnections: arguments.maxConnections))
    } else if let state = await downloader.state(of: id), [.notStarted, .paused, .failed, .interrupted].contains(state) {
        try await downloader.resume(id)
    }
}

var retryDue: Set<String> = []
var errors: [String: DownloadError] = [:]
func allSettled(_ ids: [String], retryDue: Set<String>, in downloader: Downloader) async -> Bool {
    for id in ids where !isSettled(await downloader.state(of: id), retryDue: retryDue.contains(id)) {
        return false
    }
    return true
}

if arguments.settleBeforeEvents {
    for id in ids { _ = try? await downloader.outcome(of: id) }
}

// A state change is stored (and visible through state(of:)) before its event is published, so
// look again only after the event that ends an attempt, which carries the error.
if !(await allSettled(ids, retryDue: retryDue, in: downloader)) {
    for await event in events {
        switch event {
        case .interrupted(let id, let error, let retryIn):
            errors[id] = error
            if retryIn == nil { retryDue.remove(id) } else { retryDue.insert(id) }
        case .failed(let id, let error, _):
            errors[id] = error
            retryDue.remove(id)
        case .completed(let id, _), .cancelled(let id):
            retryDue.remove(id)
        default:
            continue
        }
        if await allSettled(ids, retryDue: retryDue, in: downloader) { break }
    }
}
await downloader.settle()

for id in ids {
    let info = await downloader.info(of: id)
    let state = info?.state.rawValue ?? "unknown"
    let partPath = (info?.destination.path ?? "") + configuration.stagingSuffix
    let part = (try? FileManager.default.attributesOfItem(atPath: partPath)[.size] as? Int64) ?? -1
    // When every download settled before the loop above read an event, `errors` is empty: the
    // download's info holds the same last error (its code, and its description as the message).
    let code = errors[id]?.code.rawValue ?? info?.lastErrorCode?.rawValue ?? "-"
    let message = errors[id]?.description ?? info?.lastError ?? "-"
    print("RESULT \(id) \(state) \(code) \(part) \(message)")
}
await downloader.shutdown()
await store.close()
