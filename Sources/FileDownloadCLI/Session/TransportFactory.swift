import FileDownload

/// The transports `fdl` registers, configured from the command line.
enum TransportFactory {
    /// A registry with every transport this build of `fdl` has.
    static func make(_ settings: GetSettings) throws -> TransportRegistry {
        let registry = TransportRegistry()
        return registry
    }
}
