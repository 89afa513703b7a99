import FileDownload
import Foundation

extension DownloadRecord {
    /// A record with every field set to a value that is not its default.
    static func sample(id: String, queueOrder: Int64 = 7, state: DownloadState = .paused) -> DownloadRecord {
        DownloadRecord(
            id: id,
            url: URL(string: "https://example.com/files/\(id).bin?v=2")!,
            destination: URL(fileURLWithPath: "/srv/downloads/\(id).bin"),
            partPath: "/srv/downloads/\(id).bin.part",
            state: state,
            validator: .entityTag("W/\"etag-\(id)\""),
            checkpointedBytes: 123_456_789_012,
            expectedLength: 987_654_321_098,
            options: DownloadOptions(
                transfer: TransferOptions(
                    headers: [HeaderField(name: "Accept", value: "application/octet-stream"),
                              HeaderField(name: "X-Trace", value: "é ü 漢字")],
                    userAgent: "tests/1.0",
                    requestTimeout: .milliseconds(1500),
                    resourceTimeout: .seconds(3600),
                    connectTimeout: .seconds(7),
                    maxBytesPerSecond: 65536,
                    proxy: URL(string: "http://proxy.local:3128"),
                    extra: ["sftp.buffer": "262144", "http.version": "1.1"]
                ),
                expectedSize: 987_654_321_098,
                sha256: String(repeating: "ab", count: 32),
                priority: -3,
                retryPolicy: RetryPolicy(maxRetries: 9, initialDelay: .milliseconds(250), multiplier: 1.5,
                                         maxDelay: .seconds(60), jitter: 0.1)
            ),
            queueOrder: queueOrder,
            errorCode: "connectionLost",
            errorMessages: ["download \(id) was interrupted", "connection reset by peer"],
            attempts: 4,
            createdAt: Date(timeIntervalSinceReferenceDate: 800_000_000.123456),
            updatedAt: Date(timeIntervalSinceReferenceDate: 800_000_321.654321)
        )
    }
}
