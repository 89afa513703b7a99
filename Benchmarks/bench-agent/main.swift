// bench-agent: the download agent's costs, measured by Benchmarks/agent.sh. Not a test.
//
//   bench-agent submit SOCKET COUNT URL-PREFIX DIR start|add [batch]
//                                                                -> seconds to submit COUNT downloads
//   bench-agent inprocess COUNT URL-PREFIX DIR start|add         -> the same with an in-process Downloader
//   bench-agent latency SOCKET COUNT URL DIR                     -> add-to-event times through the agent
//   bench-agent inprocess-latency COUNT URL DIR                  -> the same in-process
//   bench-agent throughput SOCKET URL-PREFIX FILES BYTES CLIENTS LISTS DIR TAG
//                                                                -> bytes/s of FILES downloads with CLIENTS
//                                                                   streaming clients, each listing LISTS times
//
// Submitting: download i is URL-PREFIX + i into DIR/i, `start` (started at once; the queue runs
// the configured number) or `add` (`"start": false` / `Downloader.add`). Through the agent, 8
// requests at a time, each answered once the store has it, or with `batch` in batches of 1,000
// (`POST /v1/downloads` with an array, one after the other, each answered once the store has all
// of it); in-process, the calls one after the other, then `settle()` (every store write done).
// Both use SQLite stores with the same defaults.
//
// Event latency: the time from the call that adds a download (not started) to the arrival of its
// `stateChanged notStarted` event at the same caller, which follows the event stream: through the
// agent a POST and a server-sent event on two Unix-socket connections; in-process the `add` call
// and `Downloader.events()`. One at a time; prints the median and the 99th percentile.
//
// Throughput: the FILES downloads URL-PREFIX + 0..FILES-1 (BYTES each) started together; the time
// from the first start to the last completion, while CLIENTS other connections follow the event
// stream with live progress and each looks at the list LISTS times (one after the other) as the
// web page does: `GET /v1/summary` and the first page (100) of `GET /v1/downloads`.

import FileDownload
import FileDownloadAgentClient
import FileDownloadHTTP
import FileDownloadSQLite
import Foundation
#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("bench-agent: \(message)\n".utf8))
    exit(1)
}

func seconds(_ duration: Duration) -> Double {
    duration / .seconds(1)
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

/// `GET /v1/health`'s `eventStreams`, over a plain Unix socket (the client has no call for it).
func eventStreams(_ socket: String) -> Int {
    let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { fail("socket: \(errno)") }
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (i, byte) in socket.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
    }
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard connected == 0 else { fail("connect \(socket): \(errno)") }
    let request = "GET /v1/health HTTP/1.1\r\nHost: agent\r\nConnection: close\r\n\r\n"
    _ = request.withCString { write(fd, $0, strlen($0)) }
    var answer = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = read(fd, &buffer, buffer.count)
        if n <= 0 { break }
        answer += buffer[0..<n]
    }
    let text = String(decoding: answer, as: UTF8.self)
    guard let range = text.range(of: "\"eventStreams\":") else { fail("health: \(text)") }
    return Int(text[range.upperBound...].prefix { $0.isNumber }) ?? 0
}

func waitForStreams(_ socket: String, _ count: Int) async throws {
    let deadline = ContinuousClock.now + .seconds(60)
    while eventStreams(socket) < count {
        guard ContinuousClock.now < deadline else { fail("only \(eventStreams(socket)) of \(count) event streams connected") }
        try await Task.sleep(for: .milliseconds(20))
    }
}

func inProcessDownloader(_ directory: String, concurrency: Int) async throws -> Downloader {
    var transports = TransportRegistry()
    transports.register(try HTTPTransport(), for: "http", "https")
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let store = try await SQLiteDownloadStore(path: directory + "/store.sqlite")
    let downloader = Downloader(configuration: DownloaderConfiguration(maxConcurrentDownloads: concurrency,
                                                                       downloadsDirectory: URL(fileURLWithPath: directory)),
                                transports: transports, store: store)
    _ = try await downloader.restore()
    return downloader
}

/// Submits `count` downloads through the agent, 8 requests at a time, or in batches of 1,000.
func submit(socket: String, count: Int, prefix: String, directory: String, start: Bool, batch: Bool) async throws -> Double {
    let client = DownloadAgentClient(socketPath: socket)
    let began = ContinuousClock.now
    if batch {
        let results = try await client.submit((0..<count).map {
            AgentDownloadRequest(id: "d\($0)", url: prefix + String($0), destination: directory + "/d\($0)", start: start)
        })
        if let refused = results.first(where: { $0.status != 201 }) { fail("\(refused.id): \(refused.message ?? "")") }
        return seconds(ContinuousClock.now - began)
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
        for lane in 0..<8 {
            group.addTask {
                for i in stride(from: lane, to: count, by: 8) {
                    _ = try await client.submit(AgentDownloadRequest(id: "d\(i)", url: prefix + String(i),
                                                                     destination: directory + "/d\(i)", start: start))
                }
            }
        }
        try await group.waitForAll()
    }
    return seconds(ContinuousClock.now - began)
}

/// The same with a `Downloader` in this process.
func submitInProcess(count: Int, prefix: String, directory: String, start: Bool) async throws -> Double {
    let downloader = try await inProcessDownloader(directory + "/.state", concurrency: 4)
    let began = ContinuousClock.now
    for i in 0..<count {
        let url = URL(string: prefix + String(i))!, destination = URL(fileURLWithPath: directory + "/d\(i)")
        if start {
            try await downloader.start(id: "d\(i)", url: url, destination: destination)
        } else {
            try await downloader.add(id: "d\(i)", url: url, destination: destination)
        }
    }
    await downloader.settle()
    return seconds(ContinuousClock.now - began)
}

/// Add-to-event times, one add at a time: `add` adds download `id` and returns when its request
/// is answered; `ids` gives the id of every `notStarted` event as it arrives (both the agent's
/// stream and the in-process one go through such a relay, so the hop costs both the same).
func latencies(_ count: Int, ids: AsyncStream<String>, add: (String) async throws -> Void) async throws -> [Double] {
    var iterator = ids.makeAsyncIterator()
    var samples: [Double] = []
    for i in 0...count {
        let name = "lat\(i)"
        let began = ContinuousClock.now
        try await add(name)
        while true {
            guard let id = await iterator.next() else { fail("the event stream ended") }
            if id == name { break }
        }
        if i > 0 { samples.append(seconds(ContinuousClock.now - began)) }   // the first one warms up
    }
    return samples
}

/// Relays the ids of `notStarted` events of `events` into a stream, from a task of its own.
func relay<S: AsyncSequence & Sendable>(_ events: S, _ id: @escaping @Sendable (S.Element) -> String?) -> (AsyncStream<String>, Task<Void, any Error>) {
    let (stream, continuation) = AsyncStream.makeStream(of: String.self)
    let task = Task {
        for try await event in events {
            if let id = id(event) { continuation.yield(id) }
        }
        continuation.finish()
    }
    return (stream, task)
}

func notStartedID(_ event: DownloadEvent) -> String? {
    if case .stateChanged(let id, .notStarted) = event { return id }
    return nil
}

func printLatency(_ samples: [Double]) {
    print(String(format: "latency median %.6f p99 %.6f n %d", percentile(samples, 0.5), percentile(samples, 0.99), samples.count))
}

/// The throughput of `files` downloads while `clients` clients stream and list.
func throughput(socket: String, prefix: String, files: Int, bytes: Int, clients: Int, lists: Int,
                directory: String, tag: String) async throws -> Double {
    let client = DownloadAgentClient(socketPath: socket)
    let baseline = eventStreams(socket)
    let followers = (0..<clients).map { _ in
        Task {
            var count = 0
            for try await _ in client.events(since: nil, includeProgress: true) { count += 1 }
            return count
        }
    }
    let ids = (0..<files).map { "\(tag)-\($0)" }
    let watcher = Task {
        var left = Set(ids)
        for try await event in client.events(since: nil, includeProgress: false) {
            if case .completed(let id, _) = event.event { left.remove(id) }
            if case .failed(let id, let error, _) = event.event, left.contains(id) { fail("\(id) failed: \(error)") }
            if left.isEmpty { return }
        }
    }
    try await waitForStreams(socket, baseline + clients + 1)
    let began = ContinuousClock.now
    for (i, id) in ids.enumerated() {
        _ = try await client.start(id: id, url: URL(string: prefix + String(i))!, destination: URL(fileURLWithPath: directory + "/\(id)"))
    }
    let listers = (0..<(lists > 0 ? clients : 0)).map { _ in
        Task {
            for _ in 0..<lists {
                _ = try await client.summary()
                _ = try await client.page(limit: 100)
            }
        }
    }
    try await watcher.value
    let elapsed = seconds(ContinuousClock.now - began)
    for lister in listers { try await lister.value }
    followers.forEach { $0.cancel() }
    for id in ids {
        try await client.remove(id)
        try? FileManager.default.removeItem(atPath: directory + "/\(id)")
    }
    return Double(files * bytes) / elapsed
}

let arguments = CommandLine.arguments
func argument(_ i: Int) -> String {
    guard arguments.count > i else { fail("missing arguments; see the head of Benchmarks/bench-agent/main.swift") }
    return arguments[i]
}

switch arguments.count > 1 ? arguments[1] : "" {
case "submit":
    let time = try await submit(socket: argument(2), count: Int(argument(3)) ?? 0, prefix: argument(4),
                                directory: argument(5), start: argument(6) == "start",
                                batch: arguments.count > 7 && arguments[7] == "batch")
    print(String(format: "seconds %.6f", time))
case "inprocess":
    let time = try await submitInProcess(count: Int(argument(2)) ?? 0, prefix: argument(3), directory: argument(4),
                                         start: argument(5) == "start")
    print(String(format: "seconds %.6f", time))
case "latency":
    let socket = argument(2), url = URL(string: argument(4))!, directory = argument(5)
    let client = DownloadAgentClient(socketPath: socket)
    let baseline = eventStreams(socket)
    let (ids, task) = relay(client.events(since: nil, includeProgress: false)) { notStartedID($0.event) }
    try await waitForStreams(socket, baseline + 1)
    let samples = try await latencies(Int(argument(3)) ?? 0, ids: ids) { name in
        _ = try await client.add(id: name, url: url, destination: URL(fileURLWithPath: directory + "/" + name))
    }
    task.cancel()
    printLatency(samples)
case "inprocess-latency":
    let url = URL(string: argument(3))!, directory = argument(4)
    let downloader = try await inProcessDownloader(directory + "/.state", concurrency: 4)
    let (ids, task) = relay(downloader.events(), notStartedID)
    let samples = try await latencies(Int(argument(2)) ?? 0, ids: ids) { name in
        try await downloader.add(id: name, url: url, destination: URL(fileURLWithPath: directory + "/" + name))
    }
    task.cancel()
    printLatency(samples)
case "throughput":
    let rate = try await throughput(socket: argument(2), prefix: argument(3), files: Int(argument(4)) ?? 0,
                                    bytes: Int(argument(5)) ?? 0, clients: Int(argument(6)) ?? 0,
                                    lists: Int(argument(7)) ?? 0, directory: argument(8), tag: argument(9))
    print(String(format: "bytes_per_second %.0f", rate))
default:
    fail("usage: see the head of Benchmarks/bench-agent/main.swift")
}
