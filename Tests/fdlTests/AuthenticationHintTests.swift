import FileDownload
@testable import FileDownloadCLI
import Testing

/// The hint after `authenticationFailed` fits what failed.
@Suite struct AuthenticationHintTests {
    @Test func theHintFitsTheFailure() {
        let missing = DownloadError(.authenticationFailed, "the server for http://h/a asked for credentials (401): no credentials were given",
                                    isRetryable: false, statusCode: 401)
        #expect(AuthenticationHint.hint(for: missing, hasCredentials: false).contains("--user USER"))
        #expect(AuthenticationHint.hint(for: missing, hasCredentials: true).contains("refused the credentials"))
        let ssh = DownloadError(.authenticationFailed, "authentication as me on h:22 failed: tried publickey /k", isRetryable: false)
        #expect(AuthenticationHint.hint(for: ssh, hasCredentials: false).contains("--identity FILE"))
        let curl = DownloadError(.authenticationFailed, "authentication failed for http://h/a", isRetryable: false)
        #expect(!AuthenticationHint.hint(for: curl, hasCredentials: false).contains("--identity"))
    }
}
