public import Foundation

/// The one set of rules for what a person or a program hands the library: download ids, URLs
/// (ports included), request header fields and SHA-256 digests.
///
/// Every front end checks its input with these functions (fdl, the download agent's API, the
/// fleet's queue), and ``Downloader/add(id:url:destination:options:)`` applies the same rules, so
/// the same bad input gets the same ``DownloadError`` with the same message wherever it is given.
/// Each check throws a ``DownloadError`` whose code says what is wrong:
///
/// | Input | Code | Rule |
/// |---|---|---|
/// | id | ``DownloadError/Code/invalidIdentifier`` | 1 to 256 Unicode scalars; no control character (C0, DEL, C1), no line or paragraph separator |
/// | URL | ``DownloadError/Code/invalidURL`` | absolute (a scheme); a host (a `file` URL: a path); a port, when given, of 1 to 65535 |
/// | header field | ``DownloadError/Code/invalidHeader`` | the name an RFC 9110 token; the value without a control character but tab (no CR, LF or NUL) |
/// | SHA-256 | ``DownloadError/Code/invalidChecksum`` | 64 hexadecimal digits; a checksum type `sha-256` (or `sha256`) |
///
/// Messages show the input with control characters escaped (`\u{0A}`) and at most 80
/// characters of it; they never show a URL's password or a header field's value.
public enum InputValidation {
    /// The most Unicode scalars (code points, as JSON Schema's `maxLength` counts them) an id
    /// may have.
    public static let maximumIdentifierLength = 256

    /// The message of every refused id.
    static let identifierRule = "an id must be 1 to \(maximumIdentifierLength) characters without control characters or line breaks"

    /// Checks a download's id: 1 to ``maximumIdentifierLength`` Unicode scalars, none a control
    /// character (`Cc`: NUL, TAB, CR, LF, ESC, DEL, NEL, ...) or a line or paragraph separator
    /// (U+2028, U+2029). Each scalar is checked, so nothing hides in a grapheme.
    ///
    /// - Throws: ``DownloadError`` with code ``DownloadError/Code/invalidIdentifier``.
    public static func checkIdentifier(_ id: String) throws(DownloadError) {
        var count = 0
        for scalar in id.unicodeScalars {
            count += 1
            guard count <= maximumIdentifierLength, !isLineBreakOrControl(scalar) else {
                throw DownloadError(.invalidIdentifier, "\(identifierRule) (not '\(shown(id))')")
            }
        }
        guard count > 0 else { throw DownloadError(.invalidIdentifier, "\(identifierRule) (this one is empty)") }
    }

    /// Parses `text` as a URL and checks it as a front end does (``checkURL(_:allowsOpaque:)``).
    ///
    /// - Returns: the URL.
    /// - Throws: ``DownloadError`` with code ``DownloadError/Code/invalidURL``.
    public static func url(_ text: String) throws(DownloadError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty else {
            throw DownloadError(.invalidURL, "'\(shown(redactingPassword(text)))' is not an absolute URL; write it with its scheme, like https://host/file")
        }
        try checkURL(url)
        return url
    }

    /// Checks a URL: it has a scheme; it has a host (a `file` URL, which has none, a path); a
    /// port given in its authority is 1 to 65535 (`:` with no digits means the scheme's default).
    ///
    /// - Parameter url: the URL to check.
    /// - Parameter allowsOpaque: when `true` (the `Downloader`'s own check, which serves custom
    ///   transports), a URL written without an authority (`data:...`, `magnet:?...`, `urn:...`)
    ///   needs no host unless its scheme is one of ``hostSchemes``. Front ends leave it `false`:
    ///   there, `user:password@host/x` is a mistyped URL, not an opaque one.
    ///
    /// - Throws: ``DownloadError`` with code ``DownloadError/Code/invalidURL``; the message shows
    ///   the URL without its password.
    public static func checkURL(_ url: URL, allowsOpaque: Bool = false) throws(DownloadError) {
        guard let scheme = url.scheme, !scheme.isEmpty else {
            throw DownloadError(.invalidURL, "'\(shown(url: url))' is not an absolute URL; write it with its scheme, like https://host/file")
        }
        let text = url.absoluteString
        let lowercased = scheme.lowercased(), withAuthority = hasAuthority(text, scheme: scheme)
        if lowercased == "file" {
            guard !url.path.isEmpty else { throw DownloadError(.invalidURL, "the URL \(shown(url: url)) names no file") }
        } else if !allowsOpaque || withAuthority || hostSchemes.contains(lowercased) {
            guard let host = url.host, !host.isEmpty else {
                throw DownloadError(.invalidURL, "the URL \(shown(url: url)) has no host")
            }
        }
        if withAuthority, let port = portText(of: text) {
            guard port.isEmpty || (port.allSatisfy { $0.isASCII && $0.isWholeNumber } && Int(port).map(validPorts.contains) == true) else {
                throw DownloadError(.invalidURL, "the URL \(shown(url: url)) has port \(shown(port)); a port is 1 to 65535")
            }
        }
    }

    /// The schemes whose URLs always name a host, even when written without `//`.
    public static let hostSchemes: Set<String> = ["http", "https", "ftp", "ftps", "sftp"]

    /// Whether `text` continues its scheme with `://`: the URL has an authority (a host, maybe
    /// a user and a port).
    static func hasAuthority(_ text: String, scheme: String) -> Bool {
        text.utf8.count > scheme.utf8.count + 2
            && text.utf8.dropFirst(scheme.utf8.count).starts(with: "://".utf8)
    }

    /// The ports a URL may name.
    public static let validPorts = 1...65535

    /// Checks a header field: its name an RFC 9110 token (letters, digits and
    /// ``tokenSymbols``), its value free of control characters but tab (a CR or LF would end the
    /// field and start another one; a NUL would cut it).
    ///
    /// - Returns: the field, `isSecret` as given.
    /// - Throws: ``DownloadError`` with code ``DownloadError/Code/invalidHeader``. The message
    ///   names the field, never its value.
    public static func header(name: String, value: String, isSecret: Bool = false) throws(DownloadError) -> HeaderField {
        let field = HeaderField(name: name, value: value, isSecret: isSecret)
        try checkHeader(field)
        return field
    }

    /// Checks a header field as ``header(name:value:isSecret:)`` does.
    ///
    /// - Throws: ``DownloadError`` with code ``DownloadError/Code/invalidHeader``.
    public static func checkHeader(_ field: HeaderField) throws(DownloadError) {
        guard !field.name.isEmpty, field.name.unicodeScalars.allSatisfy(isTokenCharacter) else {
            throw DownloadError(.invalidHeader, "the header field name '\(shown(field.name))' is not a token: use letters, digits and \(tokenSymbols)")
        }
        guard !field.value.unicodeScalars.contains(where: { $0 != "\t" && $0.properties.generalCategory == .control }) else {
            throw DownloadError(.invalidHeader, "the value of the header field '\(field.name)' contains a line break, NUL or another control character")
        }
    }

    /// The symbols an RFC 9110 token (a header field's name) may have besides letters and digits.
    public static let tokenSymbols = "!#$%&'*+-.^_`|~"

    /// Checks a SHA-256 digest: 64 hexadecimal digits, either case.
    ///
    /// - Returns: the digest in lowercase.
    /// - Throws: ``DownloadError`` with code ``DownloadError/Code/invalidChecksum``.
    public static func sha256(_ text: String) throws(DownloadError) -> String {
        guard text.utf8.count == 64, text.utf8.allSatisfy(isHexDigit) else {
            throw DownloadError(.invalidChecksum, "the SHA-256 '\(shown(text))' is not 64 hexadecimal digits")
        }
        return text.lowercased()
    }

    /// Checks the name of a checksum's type (an input file's `checksum=TYPE=DIGEST`): `sha-256`
    /// or `sha256`, either case, the only one the library verifies.
    ///
    /// - Throws: ``DownloadError`` with code ``DownloadError/Code/invalidChecksum``.
    public static func checkChecksumType(_ name: String) throws(DownloadError) {
        guard ["sha-256", "sha256"].contains(name.lowercased()) else {
            throw DownloadError(.invalidChecksum, "checksum type '\(shown(name))' is not supported; only sha-256 is checked")
        }
    }

    /// Checks everything ``Downloader/add(id:url:destination:options:)`` is given, in this order:
    /// the id, the URL, the mirrors, the header fields (in their order), the SHA-256.
    ///
    /// - Throws: the first ``DownloadError`` one of the checks above throws.
    public static func checkDownload(id: String, url: URL, options: DownloadOptions?,
                                     allowsOpaque: Bool = false) throws(DownloadError) {
        try checkIdentifier(id)
        try checkURL(url, allowsOpaque: allowsOpaque)
        guard let options else { return }
        for mirror in options.mirrors { try checkURL(mirror, allowsOpaque: allowsOpaque) }
        for field in options.transfer.headers { try checkHeader(field) }
        if let sha256 = options.sha256 { _ = try Self.sha256(sha256) }
    }

    // MARK: helpers

    /// Whether `scalar` is refused in an id: a control character (`Cc`) or U+2028/U+2029.
    static func isLineBreakOrControl(_ scalar: Unicode.Scalar) -> Bool {
        // ASCII without the Unicode tables (every id a Downloader is given is checked): its
        // control characters are C0 and DEL.
        if scalar.isASCII { return scalar.value < 0x20 || scalar.value == 0x7F }
        return scalar.properties.generalCategory == .control || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    /// Whether `scalar` may appear in an HTTP field name (RFC 9110 `tchar`).
    static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return false }
        return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            || tokenSymbols.unicodeScalars.contains(scalar)
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// The port part of a URL's authority (after the host, without the `:`), or `nil` when it
    /// names none. Read from the text: Foundation gives no port for one too large for an `Int`.
    ///
    /// It reads the UTF-8 bytes (every delimiter is ASCII, and no byte of another character's
    /// UTF-8 is): `Downloader.add` checks every URL with it, and Foundation's `range(of:)` cost
    /// microseconds a download.
    static func portText(of text: String) -> Substring? {
        let bytes = text.utf8
        var from = bytes.startIndex
        var start: String.Index?
        while start == nil, let colon = bytes[from...].firstIndex(of: UInt8(ascii: ":")) {
            if bytes[colon...].starts(with: "://".utf8) { start = bytes.index(colon, offsetBy: 3) }
            from = bytes.index(after: colon)
        }
        guard let start else { return nil }
        let end = bytes[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
        var authority = bytes[start..<(end ?? bytes.endIndex)]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[bytes.index(after: at)...] }
        if authority.first == UInt8(ascii: "["), let close = authority.firstIndex(of: UInt8(ascii: "]")) {
            authority = authority[bytes.index(after: close)...]
        }
        guard let colon = authority.lastIndex(of: UInt8(ascii: ":")) else { return nil }
        return text[bytes.index(after: colon)..<authority.endIndex]
    }

    /// `url` for a message, without its password: also one that Foundation reads as another
    /// scheme's (`user:password@host/x` has the scheme `user`).
    static func shown(url: URL) -> String {
        shown(redactingPassword(url.redactingPassword))
    }

    /// `text` for a message: control characters as `\u{XX}`, at most 80 characters (then `...`).
    static func shown(_ text: some StringProtocol) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == 80 { result += "..."; break }
            count += 1
            if isLineBreakOrControl(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `text` with the password of its `user:password@host` part (after `scheme://`, or at the
    /// start) replaced by `***`: for text that is not a well-formed URL (also fdl's messages).
    package static func redactingPassword(_ text: String) -> String {
        let start = text.range(of: "://")?.upperBound ?? text.startIndex
        let authority = text[start...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return text }
        return String(text[..<text.index(after: colon)]) + "***" + String(text[at...])
    }
}
