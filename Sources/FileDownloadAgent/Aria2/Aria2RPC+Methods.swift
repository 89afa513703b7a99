import FileDownload
import FileDownloadAgentClient
import Foundation

/// The aria2 methods, each on the agent's downloader as its own API would do it.
extension Aria2RPC {
    /// The most downloads one listing (`tellWaiting`, `tellStopped`, `tellActive`) looks at.
    static let maxListed = 10_000

    private var downloader: Downloader { api.downloader }

    /// Runs `method` (the token already checked) with `p`, the parameters after the token.
    func run(_ method: String, _ p: Aria2Params) async throws -> Aria2JSON {
        switch method {
        case "aria2.addUri":
            return .string(try await addUri(p))
        case "aria2.tellStatus":
            let (_, id) = try await resolve(try p.gid())
            return Aria2Status.of(try await api.info(of: id), keys: try p.keys(1))
        case "aria2.tellActive":
            let keys = try p.keys(0)
            return .array(await infos(in: [.downloading]).map { Aria2Status.of($0, keys: keys) })
        case "aria2.tellWaiting":
            return try await window(p, of: Aria2Status.waitingStates)
        case "aria2.tellStopped":
            return try await window(p, of: Aria2Status.stoppedStates)
        case "aria2.pause", "aria2.forcePause":
            let (gid, id) = try await resolve(try p.gid())
            _ = try await api.library { try await downloader.pause(id) }
            return .string(gid)
        case "aria2.unpause":
            let (gid, id) = try await resolve(try p.gid())
            try await api.library { try await downloader.resume(id) }
            return .string(gid)
        case "aria2.remove", "aria2.forceRemove":
            let (gid, id) = try await resolve(try p.gid())
            try await api.library { try await downloader.cancel(id) }
            return .string(gid)
        case "aria2.removeDownloadResult":
            let (gid, id) = try await resolve(try p.gid())
            guard let state = await downloader.state(of: id), Aria2Status.stoppedStates.contains(state) else {
                throw Aria2Error("Could not remove download result of GID#\(gid)")
            }
            try await forget(id)
            return "OK"
        case "aria2.purgeDownloadResult":
            for info in await infos(in: Aria2Status.stoppedStates) { try await forget(info.id) }
            return "OK"
        case "aria2.getGlobalStat":
            return await globalStat()
        case "aria2.changeGlobalOption":
            try await changeGlobalOption(try p.object(0))
            return "OK"
        case "aria2.changeOption":
            _ = try await resolve(try p.gid())
            // Nothing can be changed once added: not even max-download-limit=0, which would answer OK
            // and leave a limit given to addUri in place.
            if let name = try p.object(1).keys.first {
                throw Aria2Error("the agent cannot change \(name) of a download once added (set max-download-limit with aria2.addUri, the overall limit with aria2.changeGlobalOption)")
            }
            return "OK"
        case "aria2.getVersion":
            return .object(["version": "1.37.0", "enabledFeatures": .array(["HTTPS", "Message Digest", "SFTP"])])
        default:
            throw Aria2Error.noSuchMethod(method)
        }
    }

    /// `aria2.addUri([secret], uris[, options[, position]])`: the options mapped by
    /// ``Aria2AddOptions``, then added as `POST /v1/downloads` adds (`AgentAPI.addOne`); the GID
    /// (a new random one, or the `gid` option, refused when a download already has that GID) is
    /// the download's id. `position` is accepted and
    /// not used (the agent queues by priority, then order).
    private func addUri(_ p: Aria2Params) async throws -> String {
        let uris = try p.strings(0)
        let options = try Aria2AddOptions(try p.object(1))
        // A GID in use is refused, as aria2 does: also one that is another download's hashed GID.
        if let chosen = options.gid, (try? await resolve(chosen)) != nil {
            throw Aria2Error("GID \(chosen) is not unique")
        }
        var gid = options.gid ?? Aria2GID.random()
        while options.gid == nil, await downloader.info(of: gid) != nil { gid = Aria2GID.random() }
        let request = try options.request(id: gid, uris: uris, downloads: downloader.configuration.downloadsDirectory)
        _ = try await api.addOne(request, maxBytesPerSecond: options.maxBytesPerSecond)
        await downloader.settle()
        return gid
    }

    /// `tellWaiting`/`tellStopped(offset, num[, keys])`: `num` downloads from `offset` in queue
    /// order; a negative offset counts from the end, and the list is then in reverse (aria2's rule).
    private func window(_ p: Aria2Params, of states: Set<DownloadState>) async throws -> Aria2JSON {
        let offset = try p.integer(0)
        let count = Int(clamping: max(0, try p.integer(1)))
        let keys = try p.keys(2)
        let all = await infos(in: states)
        let selected = offset >= 0
            ? Array(all.dropFirst(Int(clamping: offset)).prefix(count))
            : Array(all.reversed().dropFirst(Int(clamping: -(offset + 1))).prefix(count))
        return .array(selected.map { Aria2Status.of($0, keys: keys) })
    }

    /// The downloads in `states` in queue order (at most ``maxListed``).
    private func infos(in states: Set<DownloadState>) async -> [DownloadInfo] {
        var result: [DownloadInfo] = []
        var after: Int64?
        repeat {
            let page = await downloader.downloads(in: states, after: after, limit: 1000)
            result += page.downloads
            after = page.next
        } while after != nil && result.count < Self.maxListed
        return Array(result.prefix(Self.maxListed))
    }

    /// The GID given and the id of its download (see ``Aria2GID``); `GID ... is not found`
    /// otherwise.
    private func resolve(_ given: String) async throws(Aria2Error) -> (gid: String, id: String) {
        let gid = given.lowercased()
        if Aria2GID.isGID(gid), await downloader.info(of: gid) != nil { return (gid, gid) }
        if let id = gids.id(for: gid), await downloader.info(of: id) != nil { return (gid, id) }
        var after: Int64?
        repeat {
            let page = await downloader.downloads(after: after, limit: 1000)
            gids.remember(page.downloads.map(\.id))
            if let found = page.downloads.first(where: { Aria2GID.of($0.id) == gid }) { return (gid, found.id) }
            after = page.next
        } while after != nil
        throw Aria2Error("GID \(given) is not found")
    }

    /// Forgets a stopped download as `DELETE /v1/downloads/{id}` does (``AgentAPI/forget(_:)``).
    private func forget(_ id: String) async throws {
        try await api.forget(id)
    }

    /// `getGlobalStat`: the overall speed and the counts of aria2's three lists.
    private func globalStat() async -> Aria2JSON {
        let counts = await downloader.countsByState()
        func count(_ states: Set<DownloadState>) -> Int { states.reduce(0) { $0 + (counts[$1] ?? 0) } }
        let speed = await infos(in: [.downloading]).reduce(0.0) { $0 + $1.progress.bytesPerSecond }
        let stopped = count(Aria2Status.stoppedStates)
        return .object([
            "downloadSpeed": .number(Int64(speed.rounded())), "uploadSpeed": "0",
            "numActive": .number(count([.downloading])), "numWaiting": .number(count(Aria2Status.waitingStates)),
            "numStopped": .number(stopped), "numStoppedTotal": .number(stopped),
        ])
    }

    /// `changeGlobalOption`: `max-overall-download-limit` (`0`: none) is the downloader's overall
    /// limit, as `PUT /v1/limit` sets it; any other option is refused.
    private func changeGlobalOption(_ options: [String: Aria2JSON]) async throws {
        for (name, value) in options {
            guard name == "max-overall-download-limit", let text = value.string ?? value.integer.map(String.init) else {
                throw Aria2Error("the agent cannot change the global option \(name) (only max-overall-download-limit)")
            }
            let limit = try Aria2Rate.parse(text)
            guard limit <= AgentLimit.maxBytesPerSecond else {
                throw Aria2Error("max-overall-download-limit \(text) is above \(AgentLimit.maxBytesPerSecond) bytes per second")
            }
            await downloader.setBandwidthLimit(limit == 0 ? nil : limit)
        }
    }
}
