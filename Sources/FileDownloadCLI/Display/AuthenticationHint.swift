import FileDownload

/// What to tell a person whose download failed with ``FileDownload/DownloadError/Code/authenticationFailed``.
enum AuthenticationHint {
    /// For an HTTP 401: how to give credentials (or, when some were given, that they were
    /// refused); for a 407: the proxy's; for SSH: how to give a key or a password; for S3: the
    /// AWS variables and profile.
    static func hint(for error: DownloadError, hasCredentials: Bool) -> String {
        switch error.statusCode {
        case _ where error.messages.contains(where: { $0.contains("s3://") || $0.contains("AWS credentials") || $0.contains("AWS profile") }):
            // The S3 transport's messages: refused keys, no keys, a profile in neither file.
            "check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, or the keys of the profile "
                + "(--profile NAME, AWS_PROFILE) in ~/.aws/credentials; the region (--region) and endpoint (--endpoint-url) must be the bucket's"
        case 401:
            hasCredentials
                ? "the server refused the credentials given (--user or the netrc file); check them"
                : "the server wants credentials: pass --user USER (the password is asked), --netrc "
                    + "(~/.netrc), or --header-secret 'Authorization: ...'"
        case 407:
            "the proxy wants credentials: put them in the proxy URL (http://USER:PASS@HOST:PORT)"
        default:
            // The SFTP transport's message: "authentication as USER on HOST:PORT failed: ...".
            error.messages.contains { $0.hasPrefix("authentication as ") }
                ? "the SSH server accepted no key or password: pass --identity FILE (a private key it accepts), "
                    + "run ssh-agent, or give --user USER for password authentication"
                : "check the credentials (--user, --netrc, the URL's user:password@)"
        }
    }
}
