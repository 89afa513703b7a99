extension FixedWidthInteger {
    /// The next value, or this one when it is the largest: counters and orders read from a store can
    /// hold any value, and adding one to the largest would trap.
    var successorSaturating: Self { self == .max ? self : self + 1 }
}
