import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns SIGINT, SIGTERM and SIGWINCH (the terminal was resized) into calls of a Swift closure,
/// on a thread of its own.
///
/// The signal handler only writes the signal number to a pipe (async-signal-safe); the watcher
/// thread reads it and calls the closure. This works whatever the threads' signal masks are,
/// unlike signalfd-based dispatch sources, and never lets the default action kill the process.
enum SignalWatcher {
    nonisolated(unsafe) private static var writeEnd: Int32 = -1
    /// The signals the watcher turns into calls.
    static let watched: [Int32] = [SIGINT, SIGTERM, SIGWINCH]

    /// Installs the handler for SIGINT, SIGTERM and SIGWINCH (once per process) and calls
    /// `onSignal` with each signal number received, in the order received.
    static func install(_ onSignal: @escaping @Sendable (Int32) -> Void) {
        var ends: [Int32] = [-1, -1]
        guard writeEnd < 0, pipe(&ends) == 0 else { return }
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
        writeEnd = ends[1]
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signalNumber in
            // The interrupted thread may be about to read errno: keep it (SIGWINCH comes often).
            let savedErrno = errno
            var byte = UInt8(truncatingIfNeeded: signalNumber)
            _ = write(SignalWatcher.writeEnd, &byte, 1)
            errno = savedErrno
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        for signal in watched { sigaction(signal, &action, nil) }
        SignalMask.unblock(watched)
        let readEnd = ends[0]
        Thread {
            // This thread lives as long as the process and waits in read(): unblocked here, the
            // signals always have a thread to land on. A thread inherits the mask of the thread
            // that starts it, and the cooperative pool's threads (libdispatch's) block every
            // signal: with no thread of its own, whether Ctrl-C reached fdl depended on which
            // pool threads happened to be alive, and a busy machine lost it.
            SignalMask.unblock(watched)
            var byte: UInt8 = 0
            while true {
                let n = read(readEnd, &byte, 1)
                if n == 1 { onSignal(Int32(byte)) } else if n < 0, errno == EINTR { continue } else {
                    // Nothing can reach fdl's handler any more: say so rather than lose Ctrl-C silently.
                    Terminal.writeError("fdl: the signal watcher stopped (read returned \(n), errno \(errno)); Ctrl-C now ends fdl at once")
                    for watchedSignal in watched { signal(watchedSignal, SIG_DFL) }
                    return
                }
            }
        }.start()
    }
}
