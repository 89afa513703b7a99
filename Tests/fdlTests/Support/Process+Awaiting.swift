import Foundation

extension Process {
    /// Starts the process and returns a stream that yields its exit status once it ends.
    ///
    /// Tests await this instead of calling `waitUntilExit()`: a blocked thread of the small
    /// cooperative pool can starve the dispatch queue Foundation reaps children on, and then no
    /// child is ever seen to end.
    func start() throws -> AsyncStream<Int32> {
        let (exits, exited) = AsyncStream.makeStream(of: Int32.self)
        terminationHandler = { ended in
            exited.yield(ended.terminationStatus)
            exited.finish()
        }
        try run()
        return exits
    }

    /// Runs the process to its end and returns its exit status.
    func runToEnd() async throws -> Int32 {
        var status: Int32 = -1
        for await code in try start() { status = code }
        return status
    }
}
