import Crypto
import FileDownloadAgentClient
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension StateDirectory {
    /// The longest socket path the kernel takes (`sun_path` is 108 bytes with its NUL).
    static let maxSocketPathLength = 107

    /// Where a running `fdl get` serves the agent's API (`docs/agent-api.md`) for
    /// `fdl pause|resume|cancel|watch`: `STATE/fdl.sock`; when that path is too long for a Unix
    /// socket, `$XDG_RUNTIME_DIR/fdl/get-HASH.sock` (else `/tmp/fdl-UID/get-HASH.sock`), HASH
    /// being derived from the state directory's path, so every `fdl` finds the same one.
    public var socketPath: String {
        let own = path + "/fdl.sock"
        if own.utf8.count <= Self.maxSocketPathLength { return own }
        let digest = SHA256.hash(data: Data(path.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
        return socketFallbackDirectory + "/get-\(digest).sock"
    }

    /// The directory of the socket when `STATE/fdl.sock` is too long.
    var socketFallbackDirectory: String {
        if let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"),
           runtime.utf8.count < 40 {
            return runtime + "/fdl"
        }
        return "/tmp/fdl-\(getuid())"
    }
}
