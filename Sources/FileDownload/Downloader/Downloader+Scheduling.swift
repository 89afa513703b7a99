extension Downloader {
    // The scheduling part's state, as the extension files of the actor used it before it was a
    // part of its own (``Scheduler``). Each accessor yields the scheduler's own storage: no copy.

    /// The waiting queue (``Scheduler/queue``).
    var queue: WaitingQueue {
        get { scheduler.queue }
        _modify { yield &scheduler.queue }
    }

    /// Waiting downloads left in a paging store (``Scheduler/pages``).
    var pages: WaitingPages {
        get { scheduler.pages }
        _modify { yield &scheduler.pages }
    }

    /// The connections open to each origin (``Scheduler/hosts``).
    var hosts: HostConnections {
        get { scheduler.hosts }
        _modify { yield &scheduler.hosts }
    }

    /// Ids with an attempt running (``Scheduler/running``).
    var running: Set<String> {
        get { scheduler.running }
        _modify { yield &scheduler.running }
    }

    /// The origin each running attempt counts against (``Scheduler/attemptOrigins``).
    var attemptOrigins: [String: (origin: String, bytes: Int64)] { scheduler.attemptOrigins }

    /// The extra connections of each segmented attempt (``Scheduler/segmentExtras``).
    var segmentExtras: [String: Int] {
        get { scheduler.segmentExtras }
        _modify { yield &scheduler.segmentExtras }
    }
}
