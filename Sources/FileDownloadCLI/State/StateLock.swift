#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A held `flock` on `DIR/.fdl/lock`; released by ``release()``, on deinit, or by the kernel when
/// the process dies.
public final class StateLock: Sendable {
    private let fd: Int32

    init(fd: Int32) { self.fd = fd }

    deinit { close(fd) }

    /// Releases the lock now.
    public func release() { flock(fd, LOCK_UN) }
}
