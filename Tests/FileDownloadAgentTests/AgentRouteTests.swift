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

/// The agent's routes in the test process, through Hummingbird's router test framework (no socket,
/// no `fdl agent` process): the answers' status and JSON shape for health, unknown paths and
/// methods, unknown ids, bad bodies, a missing token; and an add then a list over a
/// `MockTransport`-backed `Downloader`. The process tests beside these drive the same routes over
/// the Unix socket.
@Suite("agent routes in-process")
struct AgentRouteTests {
    /// Lets every request through: the socket's peer check needs a Unix socket.
    struct OpenAccess: RouterMiddleware {
        typealias Context = AgentRequestContext
        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            try await next(request, context)
        }
    }

    /// A store, an event log and a downloader whose `mock` scheme is served by `mock`, in a fresh
    /// directory; `body` gets the API over them and the directory.
    func withAPI(_ body: (AgentAPI, MockTransport, TemporaryDirectory) async throws -> Void) async throws {
        let directory = try TemporaryDirectory("agent-routes")
        defer { directory.remove() }
        let store = try await SQLiteDownloadStore(path: directory.path("agent.sqlite"))
        let log = try await AgentEventLog(store: store)
        let mock = MockTransport()
        var transports = TransportRegistry()
        transports.register(mock, for: "mock")
        let downloader = Downloader(configuration: DownloaderConfiguration(downloadsDirectory: directory.url),
                                    transports: transports, store: store)
        do {
            try await body(AgentAPI(downloader: downloader, log: log), mock, directory)
        } catch {
            await downloader.shutdown()
            throw error
        }
        await downloader.shutdown()
    }

    /// The JSON object of a response body.
    func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any],
                     "\(String(buffer: response.body))")
    }

    @Test("GET /v1/health answers 200 with the API version and no downloads")
    func health() async throws {
        try await withAPI { api, _, _ in
            try await Application(router: api.router(guardedBy: OpenAccess())).test(.router) { client in
                let response = try await client.execute(uri: "/v1/health", method: .get)
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                let object = try json(response)
                #expect(object["status"] as? String == "ok")
                #expect(object["api"] as? String == "v1")
                #expect(object["downloads"] as? Int == 0)
            }
        }
    }

    @Test("an unknown path is a JSON 404; a known path with another method a 405 naming the allowed ones")
    func unknownPathsAndMethods() async throws {
        try await withAPI { api, _, _ in
            try await Application(router: api.router(guardedBy: OpenAccess())).test(.router) { client in
                let missing = try await client.execute(uri: "/v1/nothing-here", method: .get)
                #expect(missing.status == .notFound)
                #expect(try json(missing)["error"] as? String == "http-404")
                let wrong = try await client.execute(uri: "/v1/health", method: .delete)
                #expect(wrong.status == .methodNotAllowed)
                #expect(try json(wrong)["error"] as? String == "http-405")
                #expect(wrong.headers[.allow]?.contains("GET") == true, "\(wrong.headers)")
            }
        }
    }

    @Test("an unknown id is a 404 unknown-id with a message, for reading and for control")
    func unknownID() async throws {
        try await withAPI { api, _, _ in
            try await Application(router: api.router(guardedBy: OpenAccess())).test(.router) { client in
                for (uri, method) in [("/v1/downloads/nope", HTTPRequest.Method.get), ("/v1/downloads/nope/pause", .post)] {
                    let response = try await client.execute(uri: uri, method: method)
                    #expect(response.status == .notFound, "\(method) \(uri)")
                    let object = try json(response)
                    #expect(object["error"] as? String == "unknown-id", "\(object)")
                    #expect((object["message"] as? String)?.isEmpty == false)
                }
            }
        }
    }

    @Test("a body that is not JSON, and a download without a URL, are 400s with their codes; nothing is added")
    func badBodies() async throws {
        try await withAPI { api, _, _ in
            try await Application(router: api.router(guardedBy: OpenAccess())).test(.router) { client in
                let notJSON = try await client.execute(uri: "/v1/downloads", method: .post,
                                                       headers: [.contentType: "application/json"], body: ByteBuffer(string: "{not json"))
                #expect(notJSON.status == .badRequest)
                #expect(try json(notJSON)["error"] as? String == "bad-json")
                let badURL = try await client.execute(uri: "/v1/downloads", method: .post,
                                                      headers: [.contentType: "application/json"],
                                                      body: ByteBuffer(string: #"{"id":"a","url":"no scheme here"}"#))
                #expect(badURL.status == .badRequest)
                #expect(try json(badURL)["error"] as? String == "bad-url")
                let health = try await client.execute(uri: "/v1/health", method: .get)
                #expect(try json(health)["downloads"] as? Int == 0)
            }
        }
    }

    @Test("an added download (not started) is in the list and can be read back by its id")
    func addThenList() async throws {
        try await withAPI { api, mock, directory in
            let url = URL(string: "mock://files.test/a.bin")!
            mock.serve(url, MockResource(.bytes(Data(repeating: 7, count: 1000))))
            let request = #"{"id":"a","url":"\#(url.absoluteString)","destination":"\#(directory.path("a.bin"))","start":false}"#
            try await Application(router: api.router(guardedBy: OpenAccess())).test(.router) { client in
                let added = try await client.execute(uri: "/v1/downloads", method: .post,
                                                     headers: [.contentType: "application/json"], body: ByteBuffer(string: request))
                #expect(added.status == .created, "\(String(buffer: added.body))")
                #expect(try json(added)["id"] as? String == "a")
                let list = try await client.execute(uri: "/v1/downloads", method: .get)
                #expect(list.status == .ok)
                let downloads = try json(list)["downloads"] as? [[String: Any]] ?? []
                #expect(downloads.map { $0["id"] as? String } == ["a"], "\(String(buffer: list.body))")
                let one = try await client.execute(uri: "/v1/downloads/a", method: .get)
                #expect(one.status == .ok)
                #expect(try json(one)["url"] as? String == url.absoluteString)
                let again = try await client.execute(uri: "/v1/downloads", method: .post,
                                                     headers: [.contentType: "application/json"], body: ByteBuffer(string: request))
                #expect(again.status == .conflict)
                #expect(try json(again)["error"] as? String == "duplicate-id")
            }
        }
    }

    @Test("downloads not started yet with one file name get NAME.1.EXT, in a batch and one by one, not a 400 bad-destination")
    func sameNameNotStarted() async throws {
        try await withAPI { api, mock, directory in
            for path in ["v1/model.bin", "v2/model.bin", "v3/model.bin", "v4/model.bin"] {
                mock.serve(URL(string: "mock://files.test/\(path)")!, MockResource(.bytes(Data(repeating: 7, count: 100))))
            }
            try await Application(router: api.router(guardedBy: OpenAccess())).test(.router) { client in
                let batch = #"[{"id":"a","url":"mock://files.test/v1/model.bin","start":false},{"id":"b","url":"mock://files.test/v2/model.bin","start":false}]"#
                let added = try await client.execute(uri: "/v1/downloads", method: .post,
                                                     headers: [.contentType: "application/json"], body: ByteBuffer(string: batch))
                #expect(added.status == .ok)
                let results = try json(added)["results"] as? [[String: Any]] ?? []
                #expect(results.map { $0["status"] as? Int } == [201, 201], "\(String(buffer: added.body))")
                #expect(results.map { ($0["download"] as? [String: Any])?["destination"] as? String }
                    == [directory.path("model.bin"), directory.path("model.1.bin")], "\(String(buffer: added.body))")
                for (id, expected) in [("c", "model.2.bin"), ("d", "model.3.bin")] {
                    let one = #"{"id":"\#(id)","url":"mock://files.test/v3/model.bin","start":false}"#
                    let response = try await client.execute(uri: "/v1/downloads", method: .post,
                                                            headers: [.contentType: "application/json"], body: ByteBuffer(string: one))
                    #expect(response.status == .created, "\(String(buffer: response.body))")
                    #expect(try json(response)["destination"] as? String == directory.path(expected), "\(String(buffer: response.body))")
                }
                // A destination given by the request walks the same names.
                let given = #"{"id":"e","url":"mock://files.test/v4/model.bin","destination":"\#(directory.path("model.bin"))","start":false}"#
                let response = try await client.execute(uri: "/v1/downloads", method: .post,
                                                        headers: [.contentType: "application/json"], body: ByteBuffer(string: given))
                #expect(response.status == .created, "\(String(buffer: response.body))")
                #expect(try json(response)["destination"] as? String == directory.path("model.4.bin"))
            }
        }
    }

    /// Gives each request the authority `authority` (Hummingbird's router test client always sends
    /// `localhost`), then hands it to `inner`.
    struct Authority<Inner: RouterMiddleware>: RouterMiddleware where Inner.Context == AgentRequestContext {
        typealias Context = AgentRequestContext
        let authority: String
        let inner: Inner
        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            var head = request.head
            head.authority = authority
            return try await inner.handle(Request(head: head, body: request.body), context: context, next: next)
        }
    }

    @Test("the TCP guard: a request for another host is a 403 bad-host; without the token a 401 unauthorized; with it, it passes")
    func tokenGuard() async throws {
        try await withAPI { api, _, directory in
            let token = try AgentToken.loadOrCreate(in: directory.path)
            let port = WebPort()
            port.set(4242)
            let guardOnly = WebGuardMiddleware(token: token, port: port)
            try await Application(router: api.router(guardedBy: guardOnly)).test(.router) { client in
                let otherHost = try await client.execute(uri: "/v1/health", method: .get)
                #expect(otherHost.status == .forbidden)
                #expect(try json(otherHost)["error"] as? String == "bad-host")
            }
            let guarded = api.router(guardedBy: Authority(authority: "127.0.0.1:4242", inner: guardOnly))
            try await Application(router: guarded).test(.router) { client in
                let refused = try await client.execute(uri: "/v1/health", method: .get)
                #expect(refused.status == .unauthorized)
                #expect(try json(refused)["error"] as? String == "unauthorized")
                let allowed = try await client.execute(uri: "/v1/health", method: .get,
                                                       headers: [.authorization: "Bearer \(token.value)"])
                #expect(allowed.status == .ok)
            }
        }
    }
}
