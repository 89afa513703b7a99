import Crypto
public import FileDownload
import Foundation

/// The environment a completion command runs with (`docs/agent-api.md`, "Completions delivered
/// until acknowledged"; `fdl get --on-complete`).
///
/// | variable | value |
/// | --- | --- |
/// | `FDL_ID` | the download's id |
/// | `FDL_PATH` | the file's path (a failed download: its destination, where nothing may be) |
/// | `FDL_SIZE` | the file's size in bytes (a failed download: empty) |
/// | `FDL_SHA256` | the file's SHA-256, 64 lowercase hexadecimal digits, read from the file (a failed download: empty) |
/// | `FDL_STATE` | `completed` or `failed` |
/// | `FDL_SEQUENCE` | the event's sequence number in the agent's journal: the delivery's idempotency key (`fdl get`: empty) |
/// | `FDL_ERROR` | a failed download's error, in words (a completed one: empty) |
public enum CompletionEnvironment {
    /// The variables for a download `id` that ended in `state` with its file at `path`. For a
    /// completed download the file is read to its end for `FDL_SHA256` (a file that cannot be
    /// read leaves `FDL_SIZE` and `FDL_SHA256` empty).
    public static func variables(id: String, state: DownloadState, path: String, sequence: Int64?,
                                 error: String? = nil) -> [String: String] {
        var size = ""
        var digest = ""
        if state == .completed, let (bytes, hex) = try? sizeAndSHA256(of: path) {
            size = String(bytes)
            digest = hex
        }
        return ["FDL_ID": id, "FDL_PATH": path, "FDL_SIZE": size, "FDL_SHA256": digest,
                "FDL_STATE": state.rawValue, "FDL_SEQUENCE": sequence.map(String.init) ?? "",
                "FDL_ERROR": error ?? ""]
    }

    /// The size and SHA-256 of the file at `path`, read 1 MiB at a time.
    static func sizeAndSHA256(of path: String) throws -> (Int64, String) {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
            size += Int64(chunk.count)
        }
        return (size, hasher.finalize().map { String(format: "%02x", $0) }.joined())
    }
}
