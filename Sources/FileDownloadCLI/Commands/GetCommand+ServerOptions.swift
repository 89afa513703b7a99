import ArgumentParser
import FileDownload
import Foundation

extension GetCommand {
    /// `-c`, `-R`, `-b`/`--cookie`, `--load-cookies` and `--spider`, checked and set on
    /// `settings`.
    ///
    /// A `-b` value with `=` is cookies themselves (`NAME=VALUE; ...`, as curl reads it): sent as
    /// a secret `Cookie` field, never stored or printed. Without `=` it is a cookie file, which
    /// must be readable now; `--load-cookies` is the same file option.
    func applyServerOptions(to settings: inout GetSettings) throws {
        settings.continuesPartialFiles = downloading.continueDownloads
        settings.keepsRemoteTime = downloading.remoteTime
        if let cookie = authentication.cookie, let loadCookies = authentication.loadCookies, cookie != loadCookies {
            throw ValidationError("-b/--cookie and --load-cookies both name the cookie file; give one")
        }
        if let cookie = authentication.cookie, cookie.contains("=") {
            // The value is never echoed: it is a secret.
            settings.headers.append(try Self.checked(option: "-b/--cookie") {
                try InputValidation.header(name: "Cookie", value: cookie, isSecret: true)
            })
        } else if let file = authentication.cookie ?? authentication.loadCookies {
            let option = authentication.cookie == nil ? "--load-cookies" : "-b/--cookie"
            if file == "-" {
                // libcurl would read the cookie file "-" from standard input.
                throw ValidationError("\(option): '-' (standard input) is not a cookie file; give a path")
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue,
                  FileManager.default.isReadableFile(atPath: file) else {
                throw ValidationError("\(option): cannot read the cookie file \(file)")
            }
            settings.cookieFile = file
        }
        if downloading.spider {
            if downloading.dryRun { throw ValidationError("--spider asks the server and --dry-run does not; give one") }
            if downloading.background { throw ValidationError("--spider asks the server now; it does not go with --background") }
            if naming.output == "-" { throw ValidationError("--spider downloads nothing; it does not go with -o -") }
            settings.spider = true
        }
    }
}
