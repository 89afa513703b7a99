extension FixedWidthInteger {
    /// The next value, or this one when it is the largest: counters and orders read from a store can
    /// hold any value, and adding one to the largest would trap.
    var successorSaturating: Self { self == .max ? self : self + 1 }

    /// The sum, or the largest (smallest) value when it would overflow: lengths announced by a
    /// server or read from a store can be anything, and a plain `+` of two of them would trap.
    func addingSaturating(_ other: Self) -> Self {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }
}
