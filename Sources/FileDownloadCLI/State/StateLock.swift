#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The held `flock`s on `STATE/lock` and on the download directory `DIR` (see
/// ``StateDirectory/tryLock()``); released by ``release()``, on deinit, or by the kernel when the
/// process dies.
public final class StateLock: Sendable {
    private let stateFD: Int32
    private let directoryFD: Int32

    init(stateFD: Int32, directoryFD: Int32) {
        self.stateFD = stateFD
        self.directoryFD = directoryFD
    }

    deinit {
        close(directoryFD)
        close(stateFD)
    }

    /// Releases both locks now: the directory first, then the state.
    public func release() {
        flock(directoryFD, LOCK_UN)
        flock(stateFD, LOCK_UN)
    }
}
