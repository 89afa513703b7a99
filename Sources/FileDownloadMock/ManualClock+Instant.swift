extension ManualClock {
    /// A point in a ``ManualClock``'s time: a duration since the clock's zero.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The time since ``zero``.
        public var offset: Swift.Duration

        /// Creates the instant `offset` after ``zero``.
        public init(offset: Swift.Duration) { self.offset = offset }

        /// Where every ``ManualClock`` starts.
        public static let zero = Instant(offset: .zero)

        public func advanced(by duration: Swift.Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        public func duration(to other: Instant) -> Swift.Duration {
            other.offset - offset
        }

        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }

        public var description: String { "t+\(offset)" }
    }
}
