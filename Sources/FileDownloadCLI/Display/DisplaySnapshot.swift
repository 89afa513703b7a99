/// Everything one frame of the live display shows: the downloads of the run and the total.
public struct DisplaySnapshot: Sendable, Hashable {
    /// The downloads of the run in start order, each with its state (`downloading`, `interrupted`,
    /// `waiting`, `paused`, `completed`, `failed`, `cancelled`). The renderer lists the active ones
    /// first, then the paused ones, and sums up the waiting ones (and whatever does not fit) in
    /// one line; finished ones are counted, not listed.
    public var rows: [DisplayRow]
    /// The total line. Its ``DisplayRow/expectedBytes`` is `nil` unless the size of every download
    /// of the run is known: then the line shows no bar, no percentage and no ETA, only the bytes
    /// received so far, the speed and how many files are done.
    public var total: DisplayRow
    public var completedCount: Int
    public var failedCount: Int
    /// The number of downloads of the run (the `40` of `12/40 files done`); at least the number of
    /// rows.
    public var fileCount: Int

    public init(rows: [DisplayRow], total: DisplayRow, completedCount: Int = 0, failedCount: Int = 0,
                fileCount: Int? = nil) {
        self.rows = rows
        self.total = total
        self.completedCount = completedCount
        self.failedCount = failedCount
        self.fileCount = max(fileCount ?? rows.count, rows.count)
    }
}
