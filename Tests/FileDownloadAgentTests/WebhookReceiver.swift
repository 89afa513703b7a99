import FileDownloadTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A webhook receiver for the delivery tests: a Hummingbird server on 127.0.0.1 that records
/// every POST to `/hook` (its `Idempotency-Key`, `X-FDL-Signature` and body) and answers it with
/// the status it is set to. Started on a given port (one a ``RefusingPort`` held while the
/// receiver was "down") or on port 0.
final class WebhookReceiver: Sendable {
    struct Call: Sendable {
        var key: String?
        var signature: String?
        var body: Data
        var status: Int
    }

    private final class Book: Sendable {
        let state = Mutex<(status: Int, calls: [Call])>((200, []))
    }

    let port: Int
    private let book: Book
    private let task: Task<Void, any Error>

    private let group: ServiceGroup

    private init(port: Int, book: Book, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.book = book
        self.group = group
        self.task = task
    }

    /// Starts a receiver answering `status`, on `port` (0: any free one), once it accepts connections.
    static func start(port: Int = 0, status: Int) async throws -> WebhookReceiver {
        let book = Book()
        book.state.withLock { $0.status = status }
        let router = Router()
        router.post("hook") { request, _ -> Response in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            let call = Call(key: request.headers[HTTPField.Name("Idempotency-Key")!],
                            signature: request.headers[HTTPField.Name("X-FDL-Signature")!],
                            body: Data(body.readableBytesView), status: 0)
            let status = book.state.withLock { state -> Int in
                var call = call
                call.status = state.status
                state.calls.append(call)
                return state.status
            }
            return Response(status: HTTPResponse.Status(code: status))
        }
        let (ports, listening) = AsyncStream<Int>.makeStream()
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
                              onServerRunning: { channel in
                                  listening.yield(channel.localAddress?.port ?? -1)
                                  listening.finish()
                              })
        let group = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "webhook-receiver")))
        // A failed bind never calls onServerRunning: the stream ends when the group does, so the
        // wait below reaches the guard instead of waiting for ever.
        let task = Task {
            defer { listening.finish() }
            try await group.run()
        }
        var bound: Int?
        for await given in ports { bound = given }
        guard let bound, bound > 0 else {
            await group.triggerGracefulShutdown()
            throw TestFailure("the webhook receiver did not start on port \(port)")
        }
        return WebhookReceiver(port: bound, book: book, group: group, task: task)
    }

    var url: String { "http://127.0.0.1:\(port)/hook" }

    /// Answers every later call with `status`.
    func answer(_ status: Int) { book.state.withLock { $0.status = status } }

    var calls: [Call] { book.state.withLock { $0.calls } }

    /// The keys answered 2xx.
    var acknowledgedKeys: [String] { calls.filter { (200..<300).contains($0.status) }.compactMap(\.key) }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }
}
