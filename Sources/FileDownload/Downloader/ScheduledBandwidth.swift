import Foundation

/// A ``BandwidthSchedule`` as the downloader runs it: the wall-clock date is the date given when
/// it was set, advanced by the downloader's clock since then (so a manual clock moves it too).
struct ScheduledBandwidth: Sendable {
    let schedule: BandwidthSchedule
    let calendar: Calendar
    /// The date at ``anchorClock``.
    let anchorDate: Date
    /// The downloader's clock when the schedule was set.
    let anchorClock: Duration

    /// The limit the schedule sets at `now` on the downloader's clock.
    func limit(at now: Duration) -> Int64? {
        let (seconds, attoseconds) = (now - anchorClock).components
        let date = anchorDate.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
        return schedule.limit(at: date, calendar: calendar)
    }
}
