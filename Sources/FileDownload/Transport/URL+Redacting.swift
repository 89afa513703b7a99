public import Foundation

extension URL {
    /// The URL as text with any password replaced by `***`: safe to log or store.
    public var redactingPassword: String {
        guard password != nil, var components = URLComponents(url: self, resolvingAgainstBaseURL: false) else {
            return absoluteString
        }
        components.password = "***"
        return components.string ?? absoluteString
    }

    /// The URL without user and password: what the downloader persists.
    public var removingCredentials: URL {
        guard user != nil || password != nil,
              var components = URLComponents(url: self, resolvingAgainstBaseURL: false) else { return self }
        components.password = nil
        return components.url ?? self
    }
}
