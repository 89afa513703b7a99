public import Foundation

extension Downloader {
    /// The limit on the bytes per second of all downloads together now; `nil` for none.
    public nonisolated var bandwidthLimit: Int64? { bandwidth.bytesPerSecond }

    /// Sets one limit for all downloads together, in bytes per second (`nil` or below 1: none),
    /// and ends a schedule set with ``setBandwidthSchedule(_:calendar:startingAt:)``.
    ///
    /// It takes effect at once, also for the transfers running now: all attempts draw from one
    /// ``BandwidthLimiter`` on the downloader's clock (each ``TransferWriter`` takes the bytes it
    /// writes from it), and a transport listing ``TransportCapabilities/rateLimit`` waits
    /// ``TransferWriter/pacingDelay`` before it reads more. Inside it, a download's own
    /// ``TransferOptions/maxBytesPerSecond`` is a budget of its own that all the download's
    /// connections share (a ``BandwidthLimiter`` made ``BandwidthLimiter/init(bytesPerSecond:burst:within:)``
    /// this one): the stricter of the two wins. Over any
    /// window of `t` seconds all downloads move at most `limit × t` bytes plus a burst of 0.1 s
    /// worth and one chunk per transfer. A transport without `.rateLimit` is not held back, and
    /// its bytes are not counted (they would put the others into debt).
    public func setBandwidthLimit(_ bytesPerSecond: Int64?) {
        bandwidthSchedule = nil
        bandwidth.bytesPerSecond = bytesPerSecond
    }

    /// Lets `schedule` set the overall limit by the time of day, from now on; `nil` ends the
    /// schedule and keeps the limit it set last (``setBandwidthLimit(_:)`` changes it).
    ///
    /// The schedule is evaluated now and at every tick while downloads run (every
    /// ``DownloaderConfiguration/progressInterval``), at the date `date` advanced by the
    /// downloader's clock since this call, in `calendar`'s time zone: a test on a manual clock
    /// moves through the day by advancing the clock.
    ///
    /// - Parameters:
    ///   - schedule: the limits by time of day.
    ///   - calendar: the calendar (and time zone) the times of day are read in.
    ///   - date: the wall-clock date now; the default is the system's.
    public func setBandwidthSchedule(_ schedule: BandwidthSchedule?, calendar: Calendar = .current,
                                     startingAt date: Date = Date()) {
        bandwidthSchedule = schedule.map {
            ScheduledBandwidth(schedule: $0, calendar: calendar, anchorDate: date, anchorClock: clock.now())
        }
        applyBandwidthSchedule(at: clock.now())
    }

    /// Sets the overall limit from the schedule, when one is set. Called by the tick.
    func applyBandwidthSchedule(at now: Duration) {
        guard let scheduled = bandwidthSchedule else { return }
        let limit = scheduled.limit(at: now)
        if bandwidth.bytesPerSecond != limit { bandwidth.bytesPerSecond = limit }
    }
}
