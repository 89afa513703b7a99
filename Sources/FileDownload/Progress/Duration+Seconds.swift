extension Duration {
    /// The duration in seconds as a `Double` (for the package's modules: rates, timeouts given
    /// to C libraries and to PostgreSQL).
    package var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
