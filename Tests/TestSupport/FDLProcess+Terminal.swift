import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension FDLProcess {
    /// Gives the pseudo-terminal a new size (`TIOCSWINSZ`) and sends `fdl` SIGWINCH, as a terminal
    /// emulator does when its window is resized (the kernel does not signal `fdl` itself: the
    /// pseudo-terminal is not its controlling terminal).
    public func resize(columns: Int, rows: Int) throws {
        guard let terminalDescriptor else { throw TestFailure("fdl does not run on a pseudo-terminal") }
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        guard ioctl(terminalDescriptor, UInt(TIOCSWINSZ), &size) == 0 else {
            throw TestFailure("TIOCSWINSZ failed: errno \(errno)")
        }
        send(SIGWINCH)
    }

    /// Returns once `condition` holds for the standard output so far, checking it every 50 ms
    /// for at most `limit`; throws with `what` if it never does, or if `fdl` ends first.
    public func waitForOutput(_ what: String, limit: Duration = .seconds(120), until condition: (String) -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while !condition(stdout) {
            guard process.isRunning else {
                guard condition(stdout) else { throw TestFailure("fdl ended before \(what); stdout: \(stdout)") }
                return
            }
            guard ContinuousClock.now < deadline else { throw TestFailure("no \(what) within \(limit); stdout: \(stdout)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
