extension NginxServer {
    /// The one user of `www/private/`.
    public static let basicUser = "fdl-user"
    /// Its password (nginx's `{PLAIN}` scheme: a test needs no hashing tool).
    public static let basicPassword = "pw-3f9c1e-secret"
    /// The `auth_basic_user_file` of `www/private/`.
    public static var htpasswd: String { "\(basicUser):{PLAIN}\(basicPassword)\n" }
}
