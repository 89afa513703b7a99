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

    /// The URL without its password (the user name stays: SFTP needs it): what the downloader
    /// persists and logs.
    public var removingCredentials: URL {
        guard user != nil || password != nil,
              var components = URLComponents(url: self, resolvingAgainstBaseURL: false) else { return self }
        components.password = nil
        return components.url ?? self
    }
}
