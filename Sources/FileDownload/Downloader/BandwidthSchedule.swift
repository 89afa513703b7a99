public import Foundation

/// A downloader-wide bandwidth limit that changes with the time of day: "from 08:00 limit
/// 1 MB/s, from 18:00 5 MB/s, from 23:00 no limit".
///
/// ```swift
/// let schedule = BandwidthSchedule([
///     .init(hour: 8, bytesPerSecond: 1_000_000),     // office hours: 1 MB/s
///     .init(hour: 18, bytesPerSecond: 5_000_000),    // evening: 5 MB/s
///     .init(hour: 23, minute: 30, bytesPerSecond: nil),  // night: no limit
/// ])
/// await downloader.setBandwidthSchedule(schedule)
/// ```
///
/// Each entry holds from its time of day until the next entry's; the last entry of the day holds
/// past midnight until the first one. So at 03:00 the sample above has no limit, and at 12:00
/// 1 MB/s. An empty schedule sets no limit. Times are read in the calendar's time zone, so a
/// change of daylight saving time moves nothing: "08:00" stays 08:00 on the wall.
public struct BandwidthSchedule: Sendable, Hashable, Codable {
    /// From a time of day on, a limit.
    public struct Entry: Sendable, Hashable, Codable {
        /// 0-23.
        public var hour: Int
        /// 0-59.
        public var minute: Int
        /// The limit from then on in bytes per second; `nil` for none.
        public var bytesPerSecond: Int64?

        /// An entry; `hour` is clamped to 0-23 and `minute` to 0-59.
        public init(hour: Int, minute: Int = 0, bytesPerSecond: Int64?) {
            self.hour = min(23, max(0, hour))
            self.minute = min(59, max(0, minute))
            self.bytesPerSecond = bytesPerSecond
        }

        private enum CodingKeys: String, CodingKey { case hour, minute, bytesPerSecond }

        /// Decodes through ``init(hour:minute:bytesPerSecond:)``, so a stored or sent entry is
        /// clamped as one made in code (`minute` may be missing: 0).
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(hour: try c.decode(Int.self, forKey: .hour),
                      minute: try c.decodeIfPresent(Int.self, forKey: .minute) ?? 0,
                      bytesPerSecond: try c.decodeIfPresent(Int64.self, forKey: .bytesPerSecond))
        }

        /// Minutes since midnight.
        var minuteOfDay: Int { hour * 60 + minute }
    }

    /// The entries in order of their time of day (an entry given later replaces one of the
    /// same time).
    public private(set) var entries: [Entry]

    /// A schedule of `entries`, in any order.
    public init(_ entries: [Entry]) {
        var byMinute: [Int: Entry] = [:]
        for entry in entries { byMinute[entry.minuteOfDay] = entry }
        self.entries = byMinute.values.sorted { $0.minuteOfDay < $1.minuteOfDay }
    }

    private enum CodingKeys: String, CodingKey { case entries }

    /// Decodes the entries and puts them in order, as ``init(_:)`` does.
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.container(keyedBy: CodingKeys.self).decode([Entry].self, forKey: .entries))
    }

    /// The limit at `date`: the entry with the latest time of day at or before the time of
    /// `date` in `calendar`, else the day's last entry (it holds past midnight); `nil` for an
    /// empty schedule.
    public func limit(at date: Date, calendar: Calendar) -> Int64? {
        guard let last = entries.last else { return nil }
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        let minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        return (entries.last { $0.minuteOfDay <= minute } ?? last).bytesPerSecond
    }
}
