import FileDownload
import Foundation
import Testing

@Suite("BandwidthSchedule: limits by the time of day")
struct BandwidthScheduleTests {
    private var utc: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }

    private func at(_ hour: Int, _ minute: Int) -> Date {
        utc.date(from: DateComponents(year: 2026, month: 11, day: 23, hour: hour, minute: minute))!
    }

    private let schedule = BandwidthSchedule([
        .init(hour: 18, bytesPerSecond: 5_000_000),
        .init(hour: 8, bytesPerSecond: 1_000_000),
        .init(hour: 23, minute: 30, bytesPerSecond: nil),
    ])

    @Test("each entry holds from its time until the next; the last one holds past midnight")
    func limits() {
        #expect(schedule.entries.map(\.hour) == [8, 18, 23])
        #expect(schedule.limit(at: at(7, 59), calendar: utc) == nil)      // the 23:30 entry, past midnight
        #expect(schedule.limit(at: at(8, 0), calendar: utc) == 1_000_000)
        #expect(schedule.limit(at: at(17, 59), calendar: utc) == 1_000_000)
        #expect(schedule.limit(at: at(18, 0), calendar: utc) == 5_000_000)
        #expect(schedule.limit(at: at(23, 29), calendar: utc) == 5_000_000)
        #expect(schedule.limit(at: at(23, 30), calendar: utc) == nil)
        #expect(BandwidthSchedule([]).limit(at: at(12, 0), calendar: utc) == nil)
    }

    @Test("times are read in the calendar's time zone")
    func timeZone() {
        var berlin = utc
        berlin.timeZone = TimeZone(identifier: "Europe/Berlin")!
        // 07:30 UTC is 08:30 in Berlin in November.
        #expect(schedule.limit(at: at(7, 30), calendar: utc) == nil)
        #expect(schedule.limit(at: at(7, 30), calendar: berlin) == 1_000_000)
    }

    @Test("an entry of the same time replaces the earlier one; decoding puts entries in order")
    func duplicatesAndCoding() throws {
        let twice = BandwidthSchedule([.init(hour: 8, bytesPerSecond: 1), .init(hour: 8, bytesPerSecond: 2)])
        #expect(twice.entries.map(\.bytesPerSecond) == [2])
        let json = #"{"entries":[{"hour":18,"minute":0,"bytesPerSecond":5},{"hour":8,"minute":0}]}"#
        let decoded = try JSONDecoder().decode(BandwidthSchedule.self, from: Data(json.utf8))
        #expect(decoded.entries.map(\.hour) == [8, 18])
        #expect(decoded.limit(at: at(9, 0), calendar: utc) == nil)
        #expect(try JSONDecoder().decode(BandwidthSchedule.self, from: JSONEncoder().encode(schedule)) == schedule)
    }

    @Test("hostile JSON is clamped as the init clamps: hours 0-23, minutes 0-59")
    func decodingClamps() throws {
        let json = #"{"entries":[{"hour":9223372036854775807,"minute":-5,"bytesPerSecond":7},{"hour":-3,"minute":999}]}"#
        let decoded = try JSONDecoder().decode(BandwidthSchedule.self, from: Data(json.utf8))
        #expect(decoded.entries == [.init(hour: 0, minute: 59, bytesPerSecond: nil), .init(hour: 23, minute: 0, bytesPerSecond: 7)])
        #expect(decoded.limit(at: at(23, 30), calendar: utc) == 7)
    }
}
