/// What ``AssetUpdater/update(_:)`` achieved.
struct AssetReport: Sendable, Hashable {
    /// Names of the assets now in place and verified.
    var ready: Set<String> = []
    /// Names of the assets that could not be fetched, with the error code.
    var failed: [String: String] = [:]
    /// How many automatic retries happened on the way.
    var retries = 0

    init(ready: Set<String> = [], failed: [String: String] = [:], retries: Int = 0) {
        self.ready = ready
        self.failed = failed
        self.retries = retries
    }
}
