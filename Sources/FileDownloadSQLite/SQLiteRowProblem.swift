/// A row of the `downloads` table that does not map back to a `DownloadRecord`
/// (a NULL where a value must be, an unknown state, options that are not valid JSON).
struct SQLiteRowProblem: Error, Sendable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
