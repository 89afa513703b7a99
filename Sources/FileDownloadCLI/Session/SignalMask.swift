#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's signal mask, as far as `fdl` cares.
enum SignalMask {
    /// Unblocks SIGINT and SIGTERM in the calling thread (the mask is per thread), which a parent
    /// may have left blocked (a child spawned from a libdispatch thread inherits that thread's
    /// mask). ``SignalWatcher`` calls it in the thread that waits for the signals, so Ctrl-C and
    /// `kill` always reach fdl's handler.
    static func unblockTermination() {
        unblock([SIGINT, SIGTERM])
    }

    /// Unblocks `signals` in the calling thread.
    static func unblock(_ signals: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        sigprocmask(SIG_UNBLOCK, &set, nil)
    }
}
