#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ConnectionFailure {
    /// What a failed `connect(2)`'s `errno` says of the way to the server; `nil` when it says
    /// nothing (``FailurePolicy`` then counts the failure as a retry). Every transport that
    /// connects a socket itself, or learns the `errno` of its library's connect, maps it here.
    package init?(connectErrno errno: Int32) {
        switch errno {
        case ECONNREFUSED: self = .refused
        case ENETUNREACH, EHOSTUNREACH, ENETDOWN, EHOSTDOWN: self = .unreachable
        case ETIMEDOUT: self = .timedOut
        default: return nil
        }
    }
}
