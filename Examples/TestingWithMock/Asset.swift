import Foundation

/// A file the app needs: where to get it and what it must hash to.
struct Asset: Sendable, Hashable {
    var name: String
    var url: URL
    var sha256: String

    init(name: String, url: URL, sha256: String) {
        self.name = name
        self.url = url
        self.sha256 = sha256
    }
}
