// bench-sftp: downloads sftp URLs through Downloader + SFTPTransport and prints the time taken.
//
//   bench-sftp --known-hosts FILE --identity KEY [--concurrency N] [--sessions N] [--parallel-threshold BYTES|off]
//              [--buffer BYTES] [--raw] --out DIR URL... | --list FILE
//
// Prints one line: files, bytes, seconds, MB/s (10^6 bytes per second) and SSH sessions opened.
// With --raw the transport is driven directly (one TransferSink per file, N at a time), without the
// Downloader's staging, fsync and rename: the transport's own cost. --sessions bounds the SSH
// sessions (default: the transport's default, 4).
// Benchmarks/sftp.sh runs it side by side with OpenSSH's sftp and curl.
import FileDownload
import FileDownloadSFTP
import Foundation

struct Arguments {
    var knownHosts = ""
    var identity = ""
    var concurrency = 8
    var buffer = 256 * 1024
    var out = ""
    var urls: [URL] = []
    var raw = false
    var sessions: Int?
    var parallelThreshold: Int64? = SFTPTransport.Configuration().parallelThreshold

    init(_ list: [String]) throws {
        var rest = list[...]
        func value(_ name: String) throws -> String {
            guard let next = rest.popFirst() else { throw BenchError("\(name) needs a value") }
            return next
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--known-hosts": knownHosts = try value(argument)
            case "--identity": identity = try value(argument)
            case "--concurrency": concurrency = Int(try value(argument)) ?? 8
            case "--buffer": buffer = Int(try value(argument)) ?? buffer
            case "--out": out = try value(argument)
            case "--raw": raw = true
            case "--sessions": sessions = Int(try value(argument))
            case "--parallel-threshold":
                let text = try value(argument)
                parallelThreshold = text == "off" ? nil : Int64(text)
            case "--list":
                let text = try String(contentsOfFile: try value(argument), encoding: .utf8)
                urls += text.split(whereSeparator: \.isNewline).compactMap { URL(string: String($0)) }
            default:
                guard let url = URL(string: argument) else { throw BenchError("not a URL: \(argument)") }
                urls.append(url)
            }
        }
        guard !knownHosts.isEmpty, !identity.isEmpty, !out.isEmpty, !urls.isEmpty else {
            throw BenchError("usage: bench-sftp --known-hosts FILE --identity KEY [--concurrency N] [--sessions N] [--parallel-threshold BYTES|off] [--buffer BYTES] [--raw] --out DIR URL... | --list FILE")
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Downloads every URL with `transport.transfer` directly, `concurrency` at a time.
func runRaw(_ arguments: Arguments, _ transport: SFTPTransport) async throws {
    let clock = ContinuousClock()
    let start = clock.now
    let bytes = try await withThrowingTaskGroup(of: Int64.self) { group in
        var next = 0
        var total: Int64 = 0
        func add() {
            guard next < arguments.urls.count else { return }
            let index = next
            let url = arguments.urls[index]
            next += 1
            group.addTask {
                let path = arguments.out + "/\(index)-\(url.lastPathComponent)"
                let sink = try TransferSink(path: path, requestedOffset: 0)
                try await transport.transfer(TransferRequest(downloadID: "f\(index)", url: url), into: sink)
                sink.seal()
                return sink.fileLength
            }
        }
        for _ in 0..<arguments.concurrency { add() }
        while let length = try await group.next() {
            total += length
            add()
        }
        return total
    }
    let elapsed = clock.now - start
    let seconds = elapsed / .seconds(1)
    await transport.shutdown()
    print(String(format: "files=%d bytes=%lld seconds=%.3f MB/s=%.1f sessions=%d (raw transport)",
                 arguments.urls.count, bytes, seconds, Double(bytes) / seconds / 1e6, transport.sessionsOpened))
}

do {
    let arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
    let transport = SFTPTransport(configuration: .init(knownHostsFile: arguments.knownHosts,
                                                       identityFiles: [arguments.identity], useAgent: false,
                                                       maxSessionsPerHost: arguments.sessions ?? SFTPTransport.Configuration().maxSessionsPerHost,
                                                       parallelThreshold: arguments.parallelThreshold,
                                                       bufferSize: arguments.buffer))
    if arguments.raw {
        try await runRaw(arguments, transport)
        exit(0)
    }
    var transports = TransportRegistry()
    transports.register(transport, for: "sftp")
    let configuration = DownloaderConfiguration(maxConcurrentDownloads: arguments.concurrency,
                                                retryPolicy: .none,
                                                progressInterval: .seconds(1),
                                                downloadsDirectory: URL(fileURLWithPath: arguments.out))
    let downloader = Downloader(configuration: configuration, transports: transports)
    let events = downloader.events()
    let clock = ContinuousClock()
    let start = clock.now
    var destinations: [String: URL] = [:]
    for (index, url) in arguments.urls.enumerated() {
        let id = "f\(index)"
        let destination = URL(fileURLWithPath: arguments.out).appendingPathComponent("\(index)-\(url.lastPathComponent)")
        destinations[id] = try await downloader.start(id: id, url: url, destination: destination)
    }
    var remaining = Set(destinations.keys)
    var failures: [String] = []
    for await event in events {
        switch event {
        case .completed(let id, _):
            remaining.remove(id)
        case .failed(let id, let error, _):
            remaining.remove(id)
            failures.append("\(id): \(error)")
        default:
            break
        }
        if remaining.isEmpty { break }
    }
    let elapsed = clock.now - start
    let seconds = elapsed / .seconds(1)
    var bytes: Int64 = 0
    for url in destinations.values {
        bytes += (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64) ?? 0
    }
    await downloader.shutdown()
    await transport.shutdown()
    if !failures.isEmpty {
        FileHandle.standardError.write(Data(("failed:\n" + failures.joined(separator: "\n") + "\n").utf8))
        exit(1)
    }
    print(String(format: "files=%d bytes=%lld seconds=%.3f MB/s=%.1f sessions=%d",
                 destinations.count, bytes, seconds, Double(bytes) / seconds / 1e6, transport.sessionsOpened))
} catch {
    FileHandle.standardError.write(Data("bench-sftp: \(error)\n".utf8))
    exit(2)
}
