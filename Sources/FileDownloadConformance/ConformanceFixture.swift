public import FileDownload
public import Foundation

/// What ``TransportConformance`` needs from the server your transport talks to.
///
/// Start a server (nginx, sshd, your own) that serves a known file, describe it here, and run the
/// suite. Leave out what your server cannot do: the checks that need it report
/// ``ConformanceResult/Outcome/notApplicable(_:)`` with the reason.
public struct ConformanceFixture: Sendable {
    /// An existing resource of at least 256 KiB.
    public var resource: URL
    /// The bytes of ``resource`` as the server has them now (asked again after
    /// ``changeResource``).
    public var expectedContent: @Sendable () async throws -> Data
    /// A resource that does not exist on the server.
    public var missingResource: URL
    /// The bytes of ``resource`` (same content and validator) from a server that ignores
    /// range requests and always answers with the whole resource (nginx: `max_ranges 0;`). `nil`
    /// skips the check of an ignored range.
    public var rangeIgnoringResource: URL?
    /// Changes ``resource`` on the server: same size, new bytes and a new validator. `nil` skips
    /// the check of a changed remote file.
    public var changeResource: (@Sendable () async throws -> Void)?
    /// A resource whose server sends a head and some bytes, then nothing until the client goes
    /// away. `nil` skips the cancellation check.
    public var stallingResource: URL?
    /// A resource that needs this credential. `nil` skips the authentication checks.
    public var authenticatedResource: (url: URL, credential: Credential)?
    /// The bytes of ``authenticatedResource``, when known; the credential check then compares them.
    public var authenticatedContent: (@Sendable () async throws -> Data)?
    /// A writable directory for the staging files of the checks. The suite leaves its files there
    /// (named `conformance-*`) so you can look at them; remove the directory afterwards.
    public var scratchDirectory: URL

    public init(
        resource: URL,
        expectedContent: @escaping @Sendable () async throws -> Data,
        missingResource: URL,
        rangeIgnoringResource: URL? = nil,
        changeResource: (@Sendable () async throws -> Void)? = nil,
        stallingResource: URL? = nil,
        authenticatedResource: (url: URL, credential: Credential)? = nil,
        authenticatedContent: (@Sendable () async throws -> Data)? = nil,
        scratchDirectory: URL
    ) {
        self.resource = resource
        self.expectedContent = expectedContent
        self.missingResource = missingResource
        self.rangeIgnoringResource = rangeIgnoringResource
        self.changeResource = changeResource
        self.stallingResource = stallingResource
        self.authenticatedResource = authenticatedResource
        self.authenticatedContent = authenticatedContent
        self.scratchDirectory = scratchDirectory
    }
}
