/// The id a worker's local `Downloader` knows a claimed download by: the claim number, a colon,
/// and the queue's id (`"3:iso"`). A new claim of the same download is a new local download, so
/// what a worker kept of an earlier claim never mixes with the new one, and every write carries
/// the claim number it was made under.
struct LocalID: Hashable, Sendable {
    var queueID: String
    var claim: Int

    var rawValue: String { "\(claim):\(queueID)" }

    /// The most characters the claim number and its colon take (an `Int` has at most 19 digits):
    /// the queue keeps this much of the id's maximum length free.
    static let claimPrefixRoom = 20

    init(queueID: String, claim: Int) {
        self.queueID = queueID
        self.claim = claim
    }

    init?(_ raw: String) {
        guard let colon = raw.firstIndex(of: ":"), let claim = Int(raw[..<colon]) else { return nil }
        self.queueID = String(raw[raw.index(after: colon)...])
        self.claim = claim
    }
}
