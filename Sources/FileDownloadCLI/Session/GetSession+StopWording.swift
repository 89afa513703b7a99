#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension GetSession {
    /// How the last line names what stopped the run: "stopped by Ctrl-C" for SIGINT,
    /// "stopped by SIGTERM" for SIGTERM.
    static func stopWording(signal: Int32?) -> String {
        signal == SIGTERM ? "stopped by SIGTERM" : "stopped by Ctrl-C"
    }
}
