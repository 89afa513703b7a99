// A million queued downloads on one node: what they cost in memory, how soon the first byte
// arrives after restore(), and what listing and counting cost. Not a test.
//
//   swift build -c release --product bench-queue --scratch-path .build-release
//   .build-release/release/bench-queue [count] [concurrency] [run]
//
// In order: `count` waiting downloads are written into a new SQLite store (saveAll, 10,000 a
// transaction) and the store is closed; a new store and Downloader (`concurrency` at a time) open
// the file, restore() runs, and the time to the first byte written is taken; then `run` downloads
// of 16 KiB complete (through a transport that makes bytes, no network); then countsByState(),
// downloadCount, a page of 100 waiting downloads and a lookup are timed. Peak RSS at the end.
// FDL_BENCH_NO_PAGING=1 hides the store's paging (the downloader then keeps every download in
// memory, as before paging): the figures to compare with.
// FDL_BENCH_COMPLETED=N first writes N completed downloads (their files do not exist), as a store
// that served for a while holds; FDL_BENCH_READ_ALL_FINISHED=1 makes restore() read all of them
// (and look at their files), as it did before it left them in the store.
import FileDownload
import FileDownloadSQLite
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

func peakRSSMiB() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

func ms(_ d: Duration) -> String { String(format: "%.1f ms", Double(d / .microseconds(1)) / 1000) }

/// 16 KiB of zeros for any URL; remembers when the first byte was written.
final class MakerTransport: Transport {
    let firstWrite = Mutex<ContinuousClock.Instant?>(nil)
    var capabilities: TransportCapabilities { [.resume, .expectedLength] }

    func transfer(_ request: TransferRequest, into writer: TransferWriter) async throws {
        let size = 16 * 1024
        try writer.begin(TransferHead(disposition: .resumed(at: 0), statusCode: 200,
                                    expectedLength: Int64(size)))
        let bytes = [UInt8](repeating: 0, count: size)
        try bytes.withUnsafeBytes { try writer.write($0) }
        firstWrite.withLock { if $0 == nil { $0 = .now } }
    }
}

/// The SQLite store as the run asks: without its paging (`pages` false), or paging but with
/// restore() reading every finished record (`readsAllFinished`, as before it left them in the
/// store). Forwards every requirement the downloader calls (not the segment checkpoints: these
/// 16 KiB files are never split).
struct BenchStore: DownloadStore {
    let base: SQLiteDownloadStore
    let pages: Bool
    let readsAllFinished: Bool
    var pagesWaitingDownloads: Bool { pages }
    func loadAll() async throws -> [DownloadRecord] { try await base.loadAll() }
    func save(_ record: DownloadRecord) async throws { try await base.save(record) }
    func saveAll(_ records: [DownloadRecord]) async throws { try await base.saveAll(records) }
    func checkpoint(id: String, bytes: Int64, validator: Validator?) async throws {
        try await base.checkpoint(id: id, bytes: bytes, validator: validator)
    }
    func remove(id: String) async throws { try await base.remove(id: id) }
    func loadAll(excluding states: Set<DownloadState>) async throws -> [DownloadRecord] {
        try await base.loadAll(excluding: readsAllFinished ? states.subtracting([.completed, .cancelled]) : states)
    }
    func nextWaiting(limit: Int) async throws -> [DownloadRecord] { try await base.nextWaiting(limit: limit) }
    func record(id: String) async throws -> DownloadRecord? { try await base.record(id: id) }
    func countsByState() async throws -> [DownloadState: Int] { try await base.countsByState() }
    func page(in states: Set<DownloadState>?, after position: Int64?, limit: Int) async throws -> [DownloadRecord] {
        try await base.page(in: states, after: position, limit: limit)
    }
    func lastQueueOrder() async throws -> Int64? { try await base.lastQueueOrder() }
    func waitingPartPaths() async throws -> Set<String> { try await base.waitingPartPaths() }
    func unfinishedOwner(destination: String, partPath: String) async throws -> String? {
        try await base.unfinishedOwner(destination: destination, partPath: partPath)
    }
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let count = arguments.count > 0 ? arguments[0] : 1_000_000
let concurrency = arguments.count > 1 ? arguments[1] : 64
let run = arguments.count > 2 ? arguments[2] : 10_000
let environment = ProcessInfo.processInfo.environment
let paging = environment["FDL_BENCH_NO_PAGING"] != "1"
let finishedBefore = environment["FDL_BENCH_COMPLETED"].flatMap { Int($0) } ?? 0
let readAllFinished = environment["FDL_BENCH_READ_ALL_FINISHED"] == "1"

let root = FileManager.default.temporaryDirectory.appendingPathComponent("fdl-bench-queue-\(getpid())")
try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: root) }
let path = root.appendingPathComponent("queue.sqlite").path
let downloads = root.appendingPathComponent("dl")

let clock = ContinuousClock()
var start = clock.now
do {
    let store = try await SQLiteDownloadStore(path: path, configuration: .init(durability: .processCrash))
    var batch: [DownloadRecord] = []
    for i in 0..<finishedBefore {
        let destination = downloads.appendingPathComponent("c\(i)")
        batch.append(DownloadRecord(id: "c\(i)", url: URL(string: "make://bench/c\(i)")!, destination: destination,
                                    partPath: destination.path + ".part", state: .completed, checkpointedBytes: 16 * 1024,
                                    expectedLength: 16 * 1024, options: DownloadOptions(), queueOrder: Int64(i - finishedBefore)))
        if batch.count == 10_000 || i == finishedBefore - 1 {
            try await store.saveAll(batch)
            batch.removeAll(keepingCapacity: true)
        }
    }
    for i in 0..<count {
        let destination = downloads.appendingPathComponent("f\(i)")
        batch.append(DownloadRecord(id: "d\(i)", url: URL(string: "make://bench/f\(i)")!, destination: destination,
                                    partPath: destination.path + ".part", state: .waiting,
                                    options: DownloadOptions(priority: i % 100 == 0 ? 1 : 0), queueOrder: Int64(i)))
        if batch.count == 10_000 || i == count - 1 {
            try await store.saveAll(batch)
            batch.removeAll(keepingCapacity: true)
        }
    }
    await store.close()
}
let written = clock.now - start
let rssBefore = peakRSSMiB()

let maker = MakerTransport()
var transports = TransportRegistry()
transports.register(maker, for: "make")
let sqlite = try await SQLiteDownloadStore(path: path, configuration: .init(durability: .processCrash))
let store = BenchStore(base: sqlite, pages: paging, readsAllFinished: readAllFinished)
let downloader = Downloader(
    configuration: DownloaderConfiguration(maxConcurrentDownloads: concurrency, downloadsDirectory: downloads,
                                           synchronizesFiles: false),
    transports: transports, store: store)
try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
let events = downloader.events()
start = clock.now
_ = try await downloader.restore()
let restored = clock.now - start
var completed = 0, failed = 0
for await event in events {
    if case .completed = event { completed += 1 }
    if case .failed(let id, let error, _) = event {
        print("failed \(id): \(error)")
        failed += 1
    }
    if completed + failed == run { break }
}
let ran = clock.now - start
let firstByte = maker.firstWrite.withLock { $0 }.map { $0 - start }
let rssRun = peakRSSMiB()

start = clock.now
let counts = await downloader.countsByState()
let counted = clock.now - start
start = clock.now
let total = await downloader.downloadCount
let totalled = clock.now - start
start = clock.now
let page = await downloader.downloads(in: [.waiting], limit: 100)
let paged = clock.now - start
start = clock.now
let lastState = await downloader.state(of: "d\(count - 1)")
let looked = clock.now - start
await downloader.shutdown()

print("queue: \(count) waiting downloads after \(finishedBefore) completed (\(readAllFinished ? "all read" : "left in the store")), \(concurrency) at a time, paging \(paging ? "on" : "off"); store written in \(ms(written)), peak RSS then \(String(format: "%.1f", rssBefore)) MiB")
print("restore() returned after \(ms(restored)); first byte \(firstByte.map(ms) ?? "never") after restore() began")
print("\(run) completed \(ms(ran)) after restore() began; peak RSS \(String(format: "%.1f", rssRun)) MiB")
print("countsByState \(ms(counted)) (\(counts.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))); downloadCount \(ms(totalled)) (\(total))")
print("page of 100 waiting \(ms(paged)) (\(page.downloads.count)); state(of: last) \(ms(looked)) (\(lastState.map { "\($0)" } ?? "nil"))")
