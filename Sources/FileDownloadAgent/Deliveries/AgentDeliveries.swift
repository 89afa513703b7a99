import FileDownload
import FileDownloadAgentClient
import FileDownloadHTTP
import Foundation
import Logging

/// Delivers each journalled `completed` and `failed` event to the download's webhook and command
/// until it is acknowledged (`docs/agent-api.md`, "Completions delivered until acknowledged").
///
/// **The journal is the outbox.** ``scan()`` (called after each batch the agent journals, and at
/// start) reads the journal after the cursor of `STATE/deliveries.json`, makes a ``Delivery`` for
/// each such event and each of its targets, and saves them with the new cursor in one atomic
/// replace; a SIGKILL before that leaves the cursor behind, so the next start makes them.
///
/// **In order per download**: the deliveries of one download to one kind of target (its webhook,
/// its command) form a lane, tried one at a time in sequence order; a later one waits until the
/// one before is acknowledged or dead. Lanes run side by side, at most
/// `configuration.maxConcurrentTries` tries at once (the others wait their turn, first come first served).
///
/// **Until acknowledged, for a bounded time**: a try that fails is repeated after a wait that
/// doubles from `firstRetryDelay` to at most `maxRetryDelay` (each drawn between half and all of
/// it), cut to what is left of the lifetime; when the lifetime has passed after a failed try, the
/// delivery moves to the dead letters (``dead``), which ``retry(_:)`` puts back (with a new
/// lifetime) and ``drop(_:)`` forgets. An acknowledged delivery is removed from the file at once.
actor AgentDeliveries {
    private struct Lane: Hashable {
        var downloadID: String
        var kind: Delivery.Kind
    }

    private let path: String
    private let configuration: DeliveryConfiguration
    private let log: AgentEventLog
    private let downloader: Downloader
    private let logger: Logger
    private var file: DeliveryFile
    /// The cursor last saved: the file is saved at least every ``cursorSaveInterval`` events even
    /// when none of them is delivered, so a restart does not read a long stretch again.
    private var savedCursor: Int64
    private let cursorSaveInterval: Int64 = 1000
    private var lanes: [Lane: Task<Void, Never>] = [:]
    /// The environment of each pending command delivery, made at its first try: the file is read
    /// for its SHA-256 once, not at every try.
    private var environments: [String: [String: String]] = [:]
    private var isScanning = false
    private var scanAgain = false
    private var isClosed = false
    /// The number of the last ``setTargets(_:of:)`` of each id (in this process), and the last
    /// number given.
    private var settings: [String: UInt64] = [:]
    private var lastSetting: UInt64 = 0
    /// The tries running now (at most `configuration.maxConcurrentTries`), and the lanes waiting
    /// for one of them to end, first come first served.
    private var runningTries = 0
    private var waitingForTry: [CheckedContinuation<Void, Never>] = []

    /// Opens `STATE/deliveries.json` at `path`, or starts one whose cursor is the journal's last
    /// sequence number (events journalled before deliveries existed are not delivered).
    init(path: String, configuration: DeliveryConfiguration, log: AgentEventLog, downloader: Downloader,
         logger: Logger) async throws {
        self.path = path
        self.configuration = configuration
        self.log = log
        self.downloader = downloader
        self.logger = logger
        if var loaded = try DeliveryFile.load(from: path) {
            let last = await log.lastSequence
            if loaded.cursor > last {
                // The journal is not the one the cursor counted in (a new agent.sqlite): its events
                // are looked at from the start, under a new instance so that their keys are new.
                logger.warning("deliveries: the cursor \(loaded.cursor) of \(path) is ahead of the journal's last event \(last) (a new journal?): looking at the journal from its start, with new idempotency keys")
                loaded.cursor = 0
                loaded.instance = nil
            }
            if loaded.instance == nil {
                loaded.instance = DeliveryFile.newInstance()
                try loaded.save(to: path)
            }
            file = loaded
        } else {
            file = DeliveryFile(cursor: await log.lastSequence)
            try file.save(to: path)
        }
        savedCursor = file.cursor
    }

    // MARK: targets

    /// Keeps the webhook and command download `id` names (before it starts, so its first event
    /// finds them); saved before it returns. Returns the setting's number, with which
    /// ``clearTargets(of:setting:)`` undoes this setting only.
    @discardableResult
    func setTargets(_ notify: AgentNotify, of id: String) throws -> UInt64 {
        file.targets[id] = notify
        try file.save(to: path)
        lastSetting += 1
        settings[id] = lastSetting
        return lastSetting
    }

    /// Forgets what download `id` named (it was forgotten).
    func clearTargets(of id: String) {
        settings[id] = nil
        guard file.targets.removeValue(forKey: id) != nil else { return }
        save()
    }

    /// Forgets what download `id` named if it is still what the ``setTargets(_:of:)`` numbered
    /// `setting` kept (its add was refused): an add of the same id that set them since keeps its.
    func clearTargets(of id: String, setting: UInt64) {
        guard settings[id] == setting else { return }
        clearTargets(of: id)
    }

    /// The targets of download `id`'s deliveries: its own, else the defaults.
    private func targets(of id: String) -> [(Delivery.Kind, String)] {
        let own = file.targets[id]
        var result: [(Delivery.Kind, String)] = []
        if let webhook = own?.webhook ?? configuration.webhook?.absoluteString { result.append((.webhook, webhook)) }
        if let command = own?.command ?? configuration.command { result.append((.command, command)) }
        return result
    }

    // MARK: the outbox

    /// Makes the deliveries of the events journalled after the cursor, saves them, and starts
    /// their lanes. A call while one runs makes that one look again when it is done.
    func scan() async {
        guard !isClosed else { return }
        if isScanning {
            scanAgain = true
            return
        }
        isScanning = true
        repeat {
            scanAgain = false
            await scanOnce()
        } while scanAgain && !isClosed
        isScanning = false
    }

    private func scanOnce() async {
        let pageSize = 1000
        var made = false
        while true {
            let page: AgentEventLog.Page
            do {
                page = try await log.entries(after: file.cursor, limit: pageSize)
            } catch {
                logger.error("deliveries: cannot read the journal after \(file.cursor) (looked at again after the next event): \(error)")
                break
            }
            if let resumesAt = page.gapResumesAt {
                guard resumesAt - 1 != file.cursor else { break }
                if resumesAt - 1 > file.cursor {
                    logger.error("deliveries: the events \(file.cursor + 1)...\(resumesAt - 1) left the journal before they were looked at; their completions are not delivered")
                }
                file.cursor = resumesAt - 1
                made = true
                continue
            }
            for entry in page.entries {
                file.cursor = entry.sequence
                let id: String
                switch entry.event {
                case .completed(let completed, _)?: id = completed
                case .failed(let failed, _, _)?: id = failed
                default: continue
                }
                for (kind, target) in targets(of: id) {
                    file.pending.append(Delivery(sequence: entry.sequence, downloadID: id, kind: kind, target: target,
                                                 event: String(decoding: entry.json, as: UTF8.self), createdAt: Date(),
                                                 instance: file.instance))
                    made = true
                }
            }
            if page.entries.count < pageSize { break }
        }
        if made || file.cursor - savedCursor >= cursorSaveInterval { save() }
        startLanes()
    }

    /// Starts a lane for each that has pending deliveries and none running.
    private func startLanes() {
        guard !isClosed else { return }
        for delivery in file.pending {
            let lane = Lane(downloadID: delivery.downloadID, kind: delivery.kind)
            guard lanes[lane] == nil else { continue }
            lanes[lane] = Task { await self.run(lane) }
        }
    }

    private func run(_ lane: Lane) async {
        while let delivery = next(in: lane) {
            await acquireTry()
            guard !isClosed, !Task.isCancelled else {
                releaseTry()
                break
            }
            var environment: [String: String] = [:]
            if delivery.kind == .command {
                if let made = environments[delivery.key] {
                    environment = made
                } else {
                    environment = await Self.environment(of: delivery, downloader: downloader)
                    environments[delivery.key] = environment
                }
            }
            let problem = await Self.attempt(delivery, environment: environment, configuration: configuration)
            releaseTry()
            if Task.isCancelled { break }
            guard let wait = settle(delivery, problem: problem) else { continue }
            do {
                try await Task.sleep(for: wait)
            } catch {
                break
            }
        }
    }

    /// Waits until fewer than `configuration.maxConcurrentTries` tries run, and counts this one.
    private func acquireTry() async {
        if runningTries < max(configuration.maxConcurrentTries, 1) || isClosed {
            runningTries += 1
            return
        }
        await withCheckedContinuation { waitingForTry.append($0) }
    }

    /// Ends a try: hands its place to the first lane waiting, if any.
    private func releaseTry() {
        if waitingForTry.isEmpty {
            runningTries -= 1
        } else {
            waitingForTry.removeFirst().resume()
        }
    }

    /// The lane's first pending delivery in sequence order; `nil` (and the lane ends) when none.
    private func next(in lane: Lane) -> Delivery? {
        let first = file.pending.filter { $0.downloadID == lane.downloadID && $0.kind == lane.kind }
            .min { $0.sequence < $1.sequence }
        if first == nil || isClosed { lanes[lane] = nil }
        return isClosed ? nil : first
    }

    /// Records a try: acknowledged (`problem` nil) removes it; otherwise it is counted and either
    /// waits (the returned duration) or, its lifetime over, moves to the dead letters.
    private func settle(_ delivery: Delivery, problem: String?) -> Duration? {
        guard let index = file.pending.firstIndex(where: { $0.key == delivery.key }) else { return nil }
        guard let problem else {
            environments[delivery.key] = nil
            file.pending.remove(at: index)
            logger.info("deliveries: \(delivery.kind.rawValue) acknowledged event \(delivery.sequence) of '\(delivery.downloadID)'")
            save()
            return nil
        }
        file.pending[index].attempts += 1
        file.pending[index].lastError = problem
        let attempts = file.pending[index].attempts
        let age = Date().timeIntervalSince(file.pending[index].createdAt)
        let lifetime = configuration.lifetime
        let left = lifetime - .seconds(age)
        if left <= .zero {
            var dead = file.pending.remove(at: index)
            environments[delivery.key] = nil
            dead.deadAt = Date()
            file.dead.append(dead)
            if file.dead.count > max(configuration.maxDeadLetters, 1) {
                let excess = file.dead.count - max(configuration.maxDeadLetters, 1)
                let dropped = file.dead.prefix(excess)
                file.dead.removeFirst(excess)
                logger.warning("deliveries: more than \(configuration.maxDeadLetters) dead letters; the oldest, \(dropped.map(\.key).joined(separator: ", ")), forgotten")
            }
            logger.warning("deliveries: \(delivery.kind.rawValue) for event \(delivery.sequence) of '\(delivery.downloadID)' moved to the dead letters after \(attempts) tries in \(lifetime): \(problem)")
            save()
            return nil
        }
        logger.info("deliveries: \(delivery.kind.rawValue) for event \(delivery.sequence) of '\(delivery.downloadID)' failed (try \(attempts)): \(problem)")
        save()
        return min(Self.retryDelay(after: attempts, configuration: configuration), left)
    }

    /// The wait after `attempts` failed tries: `firstRetryDelay` doubled `attempts - 1` times, at
    /// most `maxRetryDelay`, drawn at random between half of it and all of it.
    static func retryDelay(after attempts: Int, configuration: DeliveryConfiguration) -> Duration {
        let doublings = min(max(attempts - 1, 0), 40)
        let full = min(configuration.firstRetryDelay * (1 << doublings), configuration.maxRetryDelay)
        return full * Double.random(in: 0.5...1.0)
    }

    /// The environment of a command delivery (``CompletionEnvironment``); empty when the event is
    /// neither a completion nor a failure.
    private static func environment(of delivery: Delivery, downloader: Downloader) async -> [String: String] {
        switch try? JSONDecoder().decode(DownloadEvent.self, from: Data(delivery.event.utf8)) {
        case .completed(let id, let file)?:
            // Reading the whole file for its SHA-256 blocks: on a thread of its own, not the
            // shared pool every task runs on.
            let sequence = delivery.sequence
            return await withCheckedContinuation { continuation in
                Thread {
                    continuation.resume(returning: CompletionEnvironment.variables(id: id, state: .completed, path: file.path,
                                                                                   sequence: sequence))
                }.start()
            }
        case .failed(let id, let error, _)?:
            let destination = await downloader.info(of: id)?.destination.path ?? ""
            return CompletionEnvironment.variables(id: id, state: .failed, path: destination, sequence: delivery.sequence,
                                                   error: error.message)
        default:
            return [:]
        }
    }

    /// One try; `nil` when acknowledged, else what went wrong in words.
    private static func attempt(_ delivery: Delivery, environment: [String: String],
                                configuration: DeliveryConfiguration) async -> String? {
        switch delivery.kind {
        case .webhook:
            guard let url = URL(string: delivery.target) else { return "the webhook \"\(delivery.target)\" is not a URL" }
            let body = Data(delivery.event.utf8)
            let key = delivery.idempotencyKey
            var headers = [(name: "Content-Type", value: "application/json"), (name: "Idempotency-Key", value: key)]
            if let secret = configuration.secret {
                headers.append((WebhookSignature.headerName, WebhookSignature.value(key: key, body: body, secret: secret)))
            }
            let poster = WebhookPoster(configuration: .init(caBundlePath: configuration.caBundlePath,
                                                            caDirectoryPath: configuration.caDirectoryPath,
                                                            connectTimeout: configuration.connectTimeout,
                                                            timeout: configuration.timeout))
            do {
                let status = try await poster.post(to: url, body: body, headers: headers)
                switch status {
                case 200..<300: return nil
                case 300..<400: return "the webhook answered \(status) (redirects are not followed: give the URL it points to)"
                default: return "the webhook answered \(status)"
                }
            } catch {
                return "\(error)"
            }
        case .command:
            guard !environment.isEmpty else { return "the event \(delivery.sequence) is neither completed nor failed" }
            let outcome = await CompletionCommand(delivery.target, timeout: configuration.timeout).run(environment: environment)
            return outcome.succeeded ? nil : "the command \(outcome)"
        }
    }

    // MARK: the dead letters

    /// The deliveries whose lifetime ended unacknowledged, oldest first.
    var dead: [Delivery] { file.dead }

    /// Puts the dead delivery `key` back, with a new lifetime and no tries counted, and starts its
    /// lane; `nil` when there is none by that key.
    func retry(_ key: String) -> Delivery? {
        guard let index = file.dead.firstIndex(where: { $0.key == key }) else { return nil }
        var delivery = file.dead.remove(at: index)
        delivery.deadAt = nil
        delivery.attempts = 0
        delivery.createdAt = Date()
        file.pending.append(delivery)
        save()
        startLanes()
        return delivery
    }

    /// Forgets the dead delivery `key`; whether there was one.
    func drop(_ key: String) -> Bool {
        guard let index = file.dead.firstIndex(where: { $0.key == key }) else { return false }
        file.dead.remove(at: index)
        save()
        return true
    }

    // MARK: saving and closing

    private func save() {
        do {
            try file.save(to: path)
            savedCursor = file.cursor
        } catch {
            logger.error("deliveries: cannot save \(path) (kept in memory, saved with the next change): \(error)")
        }
    }

    /// Stops every lane (a running command is killed, a webhook call closed) and waits for them;
    /// what is pending stays in the file for the next start.
    func close() async {
        isClosed = true
        let running = Array(lanes.values)
        lanes.removeAll()
        let waiting = waitingForTry
        waitingForTry.removeAll()
        runningTries += waiting.count
        for waiter in waiting { waiter.resume() }
        for task in running { task.cancel() }
        for task in running { await task.value }
    }
}
