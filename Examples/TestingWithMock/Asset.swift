import Foundation

/// A file the app needs: where to get it and what it must hash to.
public struct Asset: Sendable, Hashable {
    public var name: String
    public var url: URL
    public var sha256: String

    public init(name: String, url: URL, sha256: String) {
        self.name = name
        self.url = url
        self.sha256 = sha256
    }
}
