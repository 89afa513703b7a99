/// The texts of one display line, column by column, before a ``FrameLayout`` aligns and fits them.
struct RowCells: Hashable {
    var name: String
    /// Draw a bar (for the total line only when the total size is known).
    var hasBar: Bool
    /// The bar's fill; `nil` draws an unknown size (`[????]`).
    var fraction: Double?
    /// `41%`, or empty when the size is unknown.
    var percent: String
    var received: String
    /// `/20.0 MiB`, or `nil` when the size is unknown.
    var expected: String?
    /// The speed for a download that runs, otherwise its state (`waiting`, `paused`, `done`, ...).
    var rate: String
    /// `ETA 0:06` when it can be known, otherwise empty.
    var eta: String

    init(_ row: DisplayRow) {
        let runs = row.state == "downloading" || row.state == "total"
        name = row.name
        hasBar = row.state != "total" || row.expectedBytes != nil
        fraction = row.fraction
        percent = row.fraction.map(Formatting.percent) ?? ""
        received = Formatting.bytes(row.receivedBytes)
        expected = row.expectedBytes.map { "/" + Formatting.bytes($0) }
        rate = runs ? Formatting.rate(row.bytesPerSecond) : Self.stateWord(row.state)
        eta = runs && row.expectedBytes != nil ? "ETA " + Formatting.eta(row.estimatedTimeRemaining) : ""
    }

    /// What a line says instead of a speed for a download that does not run.
    static func stateWord(_ state: String) -> String {
        switch state {
        case "interrupted": "retrying"
        case "completed": "done"
        case "notStarted": "waiting"
        default: state
        }
    }
}
