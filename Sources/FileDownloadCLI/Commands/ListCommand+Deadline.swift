
extension ListCommand {
    /// How long `fdl list` waits for the answer of the `fdl get` running on DIR before it shows
    /// the stored rows instead.
    static let runningAnswerDeadline: Duration = .seconds(2)
}
