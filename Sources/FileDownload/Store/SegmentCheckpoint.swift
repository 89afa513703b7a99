/// What is on disk of one segment of a download fetched over several connections: the segment
/// covers the bytes `start ..< end` of the file, and its first `done` bytes (`start ..< start + done`)
/// were flushed to the staging file when the checkpoint was taken.
///
/// A ``DownloadRecord`` with segments continues each of them from its own bytes after a restart;
/// the bytes between `start + done` and `end` are fetched again. Values are kept consistent by
/// ``init(start:end:done:)``: `start <= end` and `0 <= done <= end - start`.
public struct SegmentCheckpoint: Sendable, Hashable, Codable {
    /// The first byte of the segment.
    public var start: Int64
    /// The end of the segment (exclusive).
    public var end: Int64
    /// Bytes from ``start`` known to be on disk.
    public var done: Int64

    /// A segment covering `start ..< end` with its first `done` bytes on disk. Out-of-range values
    /// are clamped: `end` to at least `start`, `done` to `0 ... end - start`.
    public init(start: Int64, end: Int64, done: Int64) {
        let start = max(0, start)
        let end = max(start, end)
        self.start = start
        self.end = end
        self.done = min(max(0, done), end - start)
    }

    /// Where the segment continues: `start + done`.
    public var next: Int64 { start + done }
    /// Bytes of the segment still missing.
    public var remaining: Int64 { end - start - done }
    /// Whether every byte of the segment is on disk.
    public var isComplete: Bool { remaining == 0 }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(start: try c.decode(Int64.self, forKey: .start), end: try c.decode(Int64.self, forKey: .end),
                  done: try c.decode(Int64.self, forKey: .done))
    }
}
