import Logging

/// The one ordered pipeline from the downloader to the outside: store writes first, then the
/// events they justify. Keeping both in one queue means an event is never published before the
/// state it reports is stored, and events keep the order of the transitions.
final class Journal: Sendable {
    enum Item: Sendable {
        /// Flush `flush` (if any), save the record, then publish the events.
        case save(DownloadRecord, flush: TransferSink?, events: [DownloadEvent])
        /// Flush the sink, then checkpoint its length.
        case checkpoint(id: String, sink: TransferSink, validator: Validator?)
        /// Flush the file (through the sink), then checkpoint the segments (read before).
        case checkpointSegments(id: String, sink: TransferSink, segments: [SegmentCheckpoint], validator: Validator?)
        case remove(id: String)
        /// Remember `count` connections for `origin` (``DownloadStore/rememberConnections(_:forOrigin:)``).
        case rememberConnections(origin: String, count: Int)
        case publish([DownloadEvent])
        case barrier(CheckedContinuation<Void, Never>)
        /// Runs `work` once everything posted before it is done (answers outcome waits).
        case perform(@Sendable () -> Void)
    }

    private let queue = JournalQueue()
    private let task: Task<Void, Never>

    init(store: (any DownloadStore)?, hub: EventHub, logger: Logger) {
        task = Task { [queue] in
            while let batch = await queue.next() {
                var saves: [(record: DownloadRecord, flush: TransferSink?, events: [DownloadEvent])] = []
                for (index, item) in batch.enumerated() {
                    switch item {
                    case .save(let record, let flush, let events):
                        // Saves that queued up together go to the store as one saveAll, after
                        // their flushes; their events follow, in order.
                        saves.append((record, flush, events))
                        if index + 1 < batch.count, case .save = batch[index + 1] { continue }
                        await Self.save(saves, store: store, hub: hub, logger: logger)
                        saves.removeAll(keepingCapacity: true)
                    case .checkpoint(let id, let sink, let validator):
                        guard let store else { continue }
                        let bytes = sink.fileLength
                        do {
                            try await BlockingFileWork.shared.run { try sink.synchronize() }
                            try await store.checkpoint(id: id, bytes: bytes, validator: validator)
                        } catch {
                            logger.warning("checkpoint failed", metadata: ["id": "\(id)", "error": "\(error)"])
                        }
                    case .checkpointSegments(let id, let sink, let segments, let validator):
                        guard let store else { continue }
                        do {
                            try await BlockingFileWork.shared.run { try sink.synchronize() }
                            try await store.checkpoint(id: id, segments: segments, validator: validator)
                        } catch {
                            logger.warning("checkpoint failed", metadata: ["id": "\(id)", "error": "\(error)"])
                        }
                    case .remove(let id):
                        if let store {
                            do { try await store.remove(id: id) } catch {
                                logger.error("the store could not remove a download", metadata: ["id": "\(id)", "error": "\(error)"])
                            }
                        }
                    case .rememberConnections(let origin, let count):
                        do { try await store?.rememberConnections(count, forOrigin: origin) } catch {
                            logger.warning("the store could not remember connections", metadata: ["origin": "\(origin)", "error": "\(error)"])
                        }
                    case .publish(let events):
                        hub.publish(events)
                    case .barrier(let continuation):
                        continuation.resume()
                    case .perform(let work):
                        work()
                    }
                }
            }
        }
    }

    /// Flushes each save's sink, stores the records (one ``DownloadStore/saveAll(_:)``; when that
    /// fails, one ``DownloadStore/save(_:)`` each, so one bad record does not cost the others),
    /// then publishes their events in order.
    private static func save(_ saves: [(record: DownloadRecord, flush: TransferSink?, events: [DownloadEvent])],
                             store: (any DownloadStore)?, hub: EventHub, logger: Logger) async {
        for save in saves {
            guard let flush = save.flush else { continue }
            do { try await BlockingFileWork.shared.run { try flush.synchronize() } } catch {
                logger.warning("flush before saving failed", metadata: ["id": "\(save.record.id)", "error": "\(error)"])
            }
        }
        if let store {
            do {
                try await store.saveAll(saves.map(\.record))
            } catch {
                for save in saves {
                    do { try await store.save(save.record) } catch {
                        logger.error("the store could not save a download", metadata: ["id": "\(save.record.id)", "error": "\(error)"])
                    }
                }
            }
        }
        for save in saves { hub.publish(save.events) }
    }

    deinit {
        queue.finish()  // a downloader dropped without shutdown() lets the consumer end
    }

    func post(_ item: Item) {
        queue.post(item)
    }

    /// Returns when everything posted before has been handled.
    func drain() async {
        await withCheckedContinuation { continuation in
            queue.post(.barrier(continuation))
        }
    }

    /// Handles what was posted, then ends the consumer.
    func finish() async {
        queue.finish()
        await task.value
    }
}
