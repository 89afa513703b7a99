import FileDownload
@testable import FileDownloadAgent
import FileDownloadMock
import FileDownloadSQLite
import FileDownloadTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// aria2's JSON-RPC at `POST /jsonrpc`, in-process (Hummingbird's router test framework over a
/// `MockTransport`-backed downloader), behind the TCP listener's guard as the agent serves it:
/// each method's answer in aria2's form, what it did to the downloader, and the errors (no token,
/// a wrong one, a foreign Origin, another Host, an unknown method, a body that is not a call).
@Suite("aria2 JSON-RPC in-process")
struct Aria2RPCTests {
    static let host = "127.0.0.1:4242"

    /// The API of ``AgentRouteTests/withAPI(_:)`` with the RPC's route on the guarded router, as
    /// `AgentWebServer` builds it; `body` gets a caller of the RPC.
    func withRPC(_ body: @escaping @Sendable (Caller, AgentAPI, MockTransport, TemporaryDirectory) async throws -> Void) async throws {
        try await AgentRouteTests().withAPI { api, mock, directory in
            let token = try AgentToken.loadOrCreate(in: directory.path)
            try await Application(router: Self.router(api, token: token, authority: Self.host)).test(.router) { client in
                try await body(Caller(client: client, token: token.value), api, mock, directory)
            }
        }
    }

    /// The TCP listener's router with the RPC's route, as `AgentWebServer` builds it; requests
    /// come for `authority` (`nil`: the test framework's own, not the listener's).
    static func router(_ api: AgentAPI, token: AgentToken, authority: String?) -> Router<AgentRequestContext> {
        let port = WebPort()
        port.set(4242)
        var site = WebGuardMiddleware(token: token, port: port)
        site.tokenInBody = ["/jsonrpc"]
        let router = authority.map { api.router(guardedBy: AgentRouteTests.Authority(authority: $0, inner: site)) }
            ?? api.router(guardedBy: site)
        Aria2RPC(api: api, token: token).addRoute(to: router)
        return router
    }

    /// Sends calls as aria2's clients do: `{"jsonrpc": "2.0", "id", "method", "params"}`, the
    /// token first unless told otherwise.
    struct Caller: Sendable {
        let client: any TestClientProtocol
        let token: String

        func post(_ body: String, headers: HTTPFields = [:]) async throws -> TestResponse {
            try await client.execute(uri: "/jsonrpc", method: .post, headers: headers, body: ByteBuffer(string: body))
        }

        /// The answer object of one call.
        func answer(_ method: String, _ params: [Any] = [], token: String? = nil) async throws -> [String: Any] {
            let all: [Any] = [(token ?? "token:" + self.token)] + params
            let call: [String: Any] = ["jsonrpc": "2.0", "id": "t", "method": method, "params": token == "" ? params : all]
            let response = try await post(String(decoding: try JSONSerialization.data(withJSONObject: call), as: UTF8.self))
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json-rpc")
            return try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
        }

        /// The result of a call that must succeed.
        func result(_ method: String, _ params: [Any] = []) async throws -> Any {
            let answer = try await answer(method, params)
            #expect(answer["error"] == nil, "\(method): \(answer)")
            return try #require(answer["result"], "\(method): \(answer)")
        }

        /// The error of a call that must fail: its code and message.
        func error(_ method: String, _ params: [Any] = [], token: String? = nil) async throws -> (code: Int, message: String) {
            let answer = try await answer(method, params, token: token)
            let error = try #require(answer["error"] as? [String: Any], "\(method) did not fail: \(answer)")
            return (try #require(error["code"] as? Int), try #require(error["message"] as? String))
        }

        func status(_ gid: String) async throws -> [String: Any] {
            try #require(try await result("aria2.tellStatus", [gid]) as? [String: Any])
        }
    }

    @Test("addUri with dir, out, split and checksum adds as POST /v1/downloads does; tellStatus answers in aria2's form")
    func addAndTell() async throws {
        try await withRPC { rpc, api, _, directory in
            let digest = String(repeating: "ab", count: 32)
            let gid = try #require(try await rpc.result("aria2.addUri", [
                ["mock://files/a.bin", "mock://mirror/a.bin"],
                ["dir": directory.path("into"), "out": "a.bin", "split": "3", "checksum": "sha-256=\(digest)", "pause": "true",
                 "max-download-limit": "100K", "header": ["X-Token: t"]],
            ]) as? String)
            #expect(Aria2GID.isGID(gid))
            // The options as the download keeps them (the store the downloader wrote).
            let store = try await SQLiteDownloadStore(path: directory.path("agent.sqlite"))
            let options = try #require(try await store.record(id: gid)).options
            await store.close()
            #expect(options.maxConnections == 3)
            #expect(options.sha256 == digest)
            #expect(options.transfer.maxBytesPerSecond == Int64(100 * 1024))
            #expect(options.transfer.headers.contains { $0.name == "X-Token" && $0.value == "t" })
            // The GID is the download's id; the agent's own add made it.
            let info = try #require(await api.downloader.info(of: gid))
            #expect(info.destination.path == directory.path("into/a.bin"))
            #expect(info.mirrors.map(\.absoluteString) == ["mock://mirror/a.bin"])
            #expect(info.state == .notStarted)
            let status = try await rpc.status(gid)
            #expect(status["gid"] as? String == gid)
            #expect(status["status"] as? String == "paused")
            #expect(status["totalLength"] as? String == "0")
            #expect(status["completedLength"] as? String == "0")
            #expect(status["dir"] as? String == directory.path("into"))
            let file = try #require((status["files"] as? [[String: Any]])?.first)
            #expect(file["path"] as? String == directory.path("into/a.bin"))
            #expect((file["uris"] as? [[String: Any]])?.compactMap { $0["uri"] as? String } == ["mock://files/a.bin", "mock://mirror/a.bin"])
            // Only the keys asked for.
            let some = try #require(try await rpc.result("aria2.tellStatus", [gid, ["gid", "status"]]) as? [String: Any])
            #expect(Set(some.keys) == ["gid", "status"])
            // The paused (not started) download is in the waiting list, not in the active one.
            #expect((try await rpc.result("aria2.tellWaiting", [0, 10]) as? [[String: Any]])?.map { $0["gid"] as? String } == [gid])
            #expect((try await rpc.result("aria2.tellActive") as? [Any])?.isEmpty == true)
        }
    }

    @Test("addUri refuses what the agent's add refuses, with its message: a bad out, a relative dir, a bad digest, too many connections, a per-download limit, an unknown option")
    func addRefusals() async throws {
        try await withRPC { rpc, api, _, directory in
            let url = ["mock://files/a.bin"]
            #expect(try await rpc.error("aria2.addUri", [url, ["out": "../escape.bin"]]).message.contains("starts with a dot"))
            #expect(try await rpc.error("aria2.addUri", [url, ["dir": "relative/dir"]]).message.contains("not an absolute path"))
            #expect(try await rpc.error("aria2.addUri", [url, ["checksum": "sha-256=xyz"]]).code == 1)
            #expect(try await rpc.error("aria2.addUri", [url, ["checksum": "md5=abc"]]).message.contains("sha-256"))
            #expect(try await rpc.error("aria2.addUri", [url, ["split": "99"]]).message.contains("maxConnections"))
            #expect(try await rpc.error("aria2.addUri", [url, ["max-download-limit": "fast"]]).message.contains("not a speed"))
            #expect(try await rpc.error("aria2.addUri", [url, ["bt-tracker": "x"]]).message.contains("bt-tracker"))
            #expect(try await rpc.error("aria2.addUri", [["not a url"]]).code == 1)
            #expect(try await rpc.error("aria2.addUri", [[String]()]).message.contains("at least one URI"))
            #expect(await api.downloader.downloadCount == 0)
            // A file already at the destination is kept: the download takes the next free name.
            try Data("kept".utf8).write(to: directory.file("taken.bin"))
            let gid = try #require(try await rpc.result("aria2.addUri", [url, ["dir": directory.path, "out": "taken.bin", "pause": "true"]]) as? String)
            #expect(await api.downloader.info(of: gid)?.destination.lastPathComponent == "taken.1.bin")
        }
    }

    @Test("a download runs to the end: complete with its lengths, in tellStopped and getGlobalStat; removeDownloadResult forgets it")
    func complete() async throws {
        try await withRPC { rpc, api, mock, directory in
            mock.serve(URL(string: "mock://files/done.bin")!, MockResource(.seeded(seed: 3, size: 100_000)))
            let gid = try #require(try await rpc.result("aria2.addUri", [["mock://files/done.bin"], ["dir": directory.path]]) as? String)
            _ = try await api.downloader.outcome(of: gid)
            let status = try await rpc.status(gid)
            #expect(status["status"] as? String == "complete")
            #expect(status["totalLength"] as? String == "100000")
            #expect(status["completedLength"] as? String == "100000")
            #expect(status["errorCode"] as? String == "0")
            #expect((try await rpc.result("aria2.tellStopped", [0, 10]) as? [[String: Any]])?.map { $0["gid"] as? String } == [gid])
            let stat = try #require(try await rpc.result("aria2.getGlobalStat") as? [String: String])
            #expect(stat["numStopped"] == "1" && stat["numActive"] == "0" && stat["numWaiting"] == "0")
            // Not stopped: no result to remove; stopped: forgotten, its GID then unknown.
            #expect(try await rpc.result("aria2.removeDownloadResult", [gid]) as? String == "OK")
            #expect(await api.downloader.info(of: gid) == nil)
            #expect(try await rpc.error("aria2.tellStatus", [gid]).message == "GID \(gid) is not found")
        }
    }

    @Test("pause, unpause, remove and purgeDownloadResult act on the downloader; the caller's own ids have GIDs too")
    func control() async throws {
        try await withRPC { rpc, api, mock, directory in
            let slow = URL(string: "mock://files/slow.bin")!
            mock.serve(slow, MockResource(.seeded(seed: 5, size: 50_000_000), chunkSize: 1000, chunkDelay: .milliseconds(20)))
            // Added through the agent's own API with an id of the caller's choosing.
            _ = try await api.downloader.start(id: "my own id", url: slow, destination: directory.file("slow.bin"))
            let gid = Aria2GID.of("my own id")
            #expect(Aria2GID.isGID(gid) && gid != "my own id")
            try await poll("the download runs", limit: .seconds(30), interval: .milliseconds(20)) {
                (try? await rpc.status(gid))?["status"] as? String == "active"
            }
            #expect(try await rpc.result("aria2.pause", [gid]) as? String == gid)
            #expect(await api.downloader.state(of: "my own id") == .paused)
            #expect(try await rpc.status(gid)["status"] as? String == "paused")
            #expect(try await rpc.result("aria2.unpause", [gid]) as? String == gid)
            #expect(await api.downloader.state(of: "my own id").map { [.waiting, .downloading].contains($0) } == true)
            #expect(try await rpc.result("aria2.forceRemove", [gid]) as? String == gid)
            #expect(await api.downloader.state(of: "my own id") == .cancelled)
            #expect(try await rpc.status(gid)["status"] as? String == "removed")
            #expect(try await rpc.result("aria2.purgeDownloadResult") as? String == "OK")
            #expect(await api.downloader.info(of: "my own id") == nil)
            #expect(try await rpc.error("aria2.pause", ["0123456789abcdef"]).message == "GID 0123456789abcdef is not found")
        }
    }

    @Test("changeGlobalOption sets and clears the overall limit; changeOption refuses a per-download limit, 0 too; getVersion, listMethods, multicall")
    func options() async throws {
        try await withRPC { rpc, api, _, _ in
            #expect(try await rpc.result("aria2.changeGlobalOption", [["max-overall-download-limit": "2M"]]) as? String == "OK")
            let limit = api.downloader.bandwidthLimit
            #expect(limit == Int64(2 * 1024 * 1024), "the overall limit is \(String(describing: limit))")
            #expect(try await rpc.result("aria2.changeGlobalOption", [["max-overall-download-limit": "0"]]) as? String == "OK")
            #expect(api.downloader.bandwidthLimit == nil)
            #expect(try await rpc.error("aria2.changeGlobalOption", [["max-concurrent-downloads": "3"]]).message.contains("max-concurrent-downloads"))
            let gid = try #require(try await rpc.result("aria2.addUri", [["mock://files/x.bin"], ["pause": "true"]]) as? String)
            // 0 too: it would answer OK and leave a limit given to addUri in place.
            #expect(try await rpc.error("aria2.changeOption", [gid, ["max-download-limit": "0"]]).message.contains("once added"))
            #expect(try await rpc.error("aria2.changeOption", [gid, ["max-download-limit": "100K"]]).message.contains("once added"))
            let version = try #require(try await rpc.result("aria2.getVersion") as? [String: Any])
            #expect(version["version"] is String && version["enabledFeatures"] is [String])
            // The listings need no token, as in aria2.
            let methods = try await rpc.answer("system.listMethods", [], token: "")
            #expect((methods["result"] as? [String])?.contains("aria2.tellStatus") == true)
            // A multicall: each call checked for its token; results in one-element arrays, errors as structs.
            let calls: [[String: Any]] = [
                ["methodName": "aria2.tellStatus", "params": ["token:" + rpc.token, gid, ["status"]]],
                ["methodName": "aria2.getGlobalStat", "params": ["token:wrong"]],
                ["methodName": "aria2.nothing", "params": ["token:" + rpc.token]],
            ]
            let results = try #require(try await rpc.answer("system.multicall", [calls], token: "")["result"] as? [Any])
            #expect(((results[0] as? [Any])?.first as? [String: String]) == ["status": "paused"])
            #expect((results[1] as? [String: Any])?["message"] as? String == "Unauthorized")
            #expect((results[2] as? [String: Any])?["message"] as? String == "No such method: aria2.nothing")
        }
    }

    @Test("errors: no token, a wrong token, an unknown method, a body that is not a call; a foreign Origin and another Host never reach the RPC")
    func errors() async throws {
        try await withRPC { rpc, api, _, _ in
            let noToken = try await rpc.error("aria2.addUri", [["mock://files/a.bin"]], token: "")
            #expect(noToken.code == 1 && noToken.message == "Unauthorized")
            #expect(try await rpc.error("aria2.tellActive", [], token: "token:" + String(repeating: "0", count: 64)).message == "Unauthorized")
            #expect(try await rpc.error("aria2.tellActive", [], token: rpc.token).message == "Unauthorized")  // without "token:"
            // Without the token, an unknown method tells nothing either; with it, aria2's error.
            #expect(try await rpc.error("aria2.addTorrent", ["e30="], token: "").message == "Unauthorized")
            #expect(try await rpc.error("aria2.addTorrent", ["e30="]) == (1, "No such method: aria2.addTorrent"))
            #expect(try await rpc.error("aria2.shutdown") == (1, "No such method: aria2.shutdown"))
            #expect(await api.downloader.downloadCount == 0)
            // Not JSON, not a call, a batch.
            let parse = try await rpc.post("{nope")
            #expect(String(buffer: parse.body).contains("\"code\":-32700"))
            let invalid = try await rpc.post("{\"jsonrpc\":\"2.0\",\"id\":1}")
            #expect(String(buffer: invalid.body).contains("\"code\":-32600"))
            let batch = try await rpc.post("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"aria2.getVersion\",\"params\":[\"token:\(rpc.token)\"]},{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"aria2.getVersion\"}]")
            let answers = try #require(try JSONSerialization.jsonObject(with: Data(buffer: batch.body)) as? [[String: Any]])
            #expect(answers.count == 2 && answers[0]["result"] != nil && answers[1]["error"] != nil)
            // The listener's own checks come first: a page of another origin gets a 403, not an answer.
            let foreign = try await rpc.post("{}", headers: [.origin: "http://evil.example"])
            #expect(foreign.status == .forbidden)
            #expect(String(buffer: foreign.body).contains("foreign-origin"))
        }
        // Another Host (the guard without the test's authority): refused before the RPC.
        try await AgentRouteTests().withAPI { api, _, directory in
            let token = try AgentToken.loadOrCreate(in: directory.path)
            try await Application(router: Self.router(api, token: token, authority: nil)).test(.router) { client in
                let response = try await client.execute(uri: "/jsonrpc", method: .post, body: ByteBuffer(string: "{}"))
                #expect(response.status == .forbidden)
                #expect(String(buffer: response.body).contains("bad-host"))
            }
        }
    }

    @Test("the notifications: start, pause, complete, error and stop (remove) as aria2 sends them; nothing for the other events")
    func notifications() throws {
        func method(_ event: DownloadEvent) throws -> String? {
            guard let text = Aria2WebSocket.notification(for: event) else { return nil }
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect(object["jsonrpc"] as? String == "2.0" && object["id"] == nil)
            #expect(((object["params"] as? [[String: String]])?.first?["gid"]) == Aria2GID.of("d"))
            return object["method"] as? String
        }
        #expect(try method(.stateChanged(id: "d", state: .downloading)) == "aria2.onDownloadStart")
        #expect(try method(.stateChanged(id: "d", state: .paused)) == "aria2.onDownloadPause")
        #expect(try method(.stateChanged(id: "d", state: .completed)) == "aria2.onDownloadComplete")
        #expect(try method(.stateChanged(id: "d", state: .failed)) == "aria2.onDownloadError")
        #expect(try method(.stateChanged(id: "d", state: .cancelled)) == "aria2.onDownloadStop")
        #expect(try method(.stateChanged(id: "d", state: .waiting)) == nil)
        #expect(try method(.resumed(id: "d")) == nil)
    }

    @Test("GIDs: an id of 16 hex digits is its own GID; any other id has a stable hash of 16 hex digits")
    func gids() {
        #expect(Aria2GID.of("0123456789abcdef") == "0123456789abcdef")
        #expect(Aria2GID.of("my file") == Aria2GID.of("my file"))
        #expect(Aria2GID.of("my file") != Aria2GID.of("my file 2"))
        #expect(Aria2GID.isGID(Aria2GID.of("0123456789ABCDEF")))
        #expect(Aria2GID.isGID(Aria2GID.random()))
        #expect(!Aria2GID.isGID("0123456789abcdeg") && !Aria2GID.isGID("abc"))
    }

    @Test("addUri refuses a gid already in use: another download's own, or the hash of another download's id")
    func gidInUse() async throws {
        try await withRPC { rpc, api, _, directory in
            _ = try await api.downloader.add(id: "named by the caller", url: URL(string: "mock://files/a.bin")!,
                                             destination: directory.file("a.bin"))
            let hashed = Aria2GID.of("named by the caller")
            #expect(try await rpc.error("aria2.addUri", [["mock://files/b.bin"], ["gid": hashed, "pause": "true"]]).message
                    == "GID \(hashed) is not unique")
            #expect(await api.downloader.info(of: hashed) == nil, "no second download under that GID")
            let own = try #require(try await rpc.result("aria2.addUri", [["mock://files/c.bin"], ["gid": "00000000000000c0", "pause": "true"]]) as? String)
            #expect(try await rpc.error("aria2.addUri", [["mock://files/d.bin"], ["gid": own, "pause": "true"]]).message
                    == "GID \(own) is not unique")
        }
    }
}
