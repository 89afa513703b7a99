extension Duration {
    /// The duration in whole milliseconds, rounded down (libcurl's `_MS` options).
    var wholeMilliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    /// The duration in whole seconds, rounded up, at least 1 (libcurl's options in seconds, where
    /// 0 would mean no bound).
    var curlSeconds: Int {
        max(1, (wholeMilliseconds + 999) / 1000)
    }
}
