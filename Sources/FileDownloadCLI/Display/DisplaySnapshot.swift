/// Everything one frame of the live display shows: the active downloads and the total.
public struct DisplaySnapshot: Sendable, Hashable {
    /// Downloads waiting or downloading (or interrupted and about to retry), in start order.
    public var rows: [DisplayRow]
    /// The total line: bytes over all downloads of this session, known sizes only for the bar.
    public var total: DisplayRow
    public var completedCount: Int
    public var failedCount: Int

    public init(rows: [DisplayRow], total: DisplayRow, completedCount: Int = 0, failedCount: Int = 0) {
        self.rows = rows
        self.total = total
        self.completedCount = completedCount
        self.failedCount = failedCount
    }
}
