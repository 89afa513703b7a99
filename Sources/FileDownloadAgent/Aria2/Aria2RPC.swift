import FileDownload
import Foundation
import Hummingbird
import NIOCore

/// aria2's JSON-RPC interface on the agent's TCP listener (`fdl agent --tcp PORT --aria2-rpc`,
/// `docs/agent-api.md`, "aria2 JSON-RPC"), so that aria2's front ends and libraries can drive the
/// agent: `POST /jsonrpc` and a WebSocket at `/jsonrpc` (``Aria2WebSocket``), whose connections
/// also get aria2's notifications.
///
/// A call goes through, in order: the listener's Host and Origin checks (`WebGuardMiddleware`);
/// the token, aria2's way: the first parameter `token:TOKEN` with the agent's token
/// (`STATE/agent.token`), compared in constant time, else `Unauthorized` (only
/// `system.listMethods` and `system.listNotifications` go without it, as in aria2); the method
/// (an unknown one is aria2's `No such method: NAME`); its parameters. Adding goes through the
/// same checks and code as `POST /v1/downloads` (`AgentAPI.addOne`).
struct Aria2RPC: Sendable {
    let api: AgentAPI
    let token: AgentToken
    let gids = Aria2GIDCache()

    /// The methods served, in the order `system.listMethods` lists them.
    static let methods = [
        "aria2.addUri", "aria2.remove", "aria2.forceRemove", "aria2.pause", "aria2.forcePause", "aria2.unpause",
        "aria2.tellStatus", "aria2.tellActive", "aria2.tellWaiting", "aria2.tellStopped",
        "aria2.changeOption", "aria2.changeGlobalOption", "aria2.getGlobalStat",
        "aria2.purgeDownloadResult", "aria2.removeDownloadResult", "aria2.getVersion",
        "system.multicall", "system.listMethods", "system.listNotifications",
    ]
    /// The notifications a WebSocket connection gets.
    static let notifications = ["aria2.onDownloadStart", "aria2.onDownloadPause", "aria2.onDownloadStop",
                                "aria2.onDownloadComplete", "aria2.onDownloadError"]
    /// The most calls one body (a batch, or one `system.multicall`) may hold.
    static let maxCalls = 1000

    /// `POST /jsonrpc`: the body's call (or batch of calls) answered with `200` and
    /// `application/json-rpc`, errors included (as JSON-RPC error objects).
    func addRoute(to router: Router<AgentRequestContext>) {
        router.post("jsonrpc") { request, _ in
            var request = request
            let body: ByteBuffer
            do {
                body = try await request.collectBody(upTo: AgentAPI.maxBatchBodySize)
            } catch {
                throw AgentAPIError(.contentTooLarge, .bodyTooLarge, "the request body is larger than \(AgentAPI.maxBatchBodySize) bytes")
            }
            let answer = await answer(Data(body.readableBytesView), session: nil)
            return Response(status: .ok, headers: [.contentType: "application/json-rpc"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer)))
        }
    }

    /// The answer to a body: one response object for one call, an array of them for a batch.
    /// `session` (a WebSocket connection) is marked authenticated by a call with the right token.
    func answer(_ body: Data, session: Aria2Session?) async -> Data {
        guard let request = try? JSONDecoder().decode(Aria2JSON.self, from: body) else {
            return Self.response(id: .null, .failure(.parseError)).encoded()
        }
        guard case .array(let calls) = request else {
            return await respond(to: request, session: session).encoded()
        }
        guard !calls.isEmpty, calls.count <= Self.maxCalls else {
            return Self.response(id: .null, .failure(.invalidRequest)).encoded()
        }
        var answers: [Aria2JSON] = []
        for call in calls { answers.append(await respond(to: call, session: session)) }
        return Aria2JSON.array(answers).encoded()
    }

    /// The response object to one call: `{"id", "jsonrpc": "2.0", "result" | "error"}`.
    private func respond(to call: Aria2JSON, session: Aria2Session?) async -> Aria2JSON {
        guard case .object(let fields) = call, let method = fields["method"]?.string else {
            var id = Aria2JSON.null
            if case .object(let fields) = call { id = fields["id"] ?? .null }
            return Self.response(id: id, .failure(.invalidRequest))
        }
        let id = fields["id"] ?? .null
        let params: [Aria2JSON]
        switch fields["params"] {
        case nil: params = []
        case .array(let given)?: params = given
        default: return Self.response(id: id, .failure(.invalidRequest))
        }
        do {
            return Self.response(id: id, .success(try await invoke(method, params, session: session)))
        } catch {
            return Self.response(id: id, .failure(error))
        }
    }

    private static func response(id: Aria2JSON, _ outcome: Result<Aria2JSON, Aria2Error>) -> Aria2JSON {
        var fields: [String: Aria2JSON] = ["id": id, "jsonrpc": "2.0"]
        switch outcome {
        case .success(let result): fields["result"] = result
        case .failure(let error): fields["error"] = error.json
        }
        return .object(fields)
    }

    /// One method: the token checked (except for the two listings and the multicall, whose calls
    /// are each checked), then the method run with the parameters after the token.
    func invoke(_ method: String, _ params: [Aria2JSON], session: Aria2Session?) async throws(Aria2Error) -> Aria2JSON {
        switch method {
        case "system.listMethods": return .array(Self.methods.map(Aria2JSON.string))
        case "system.listNotifications": return .array(Self.notifications.map(Aria2JSON.string))
        case "system.multicall": return try await multicall(params, session: session)
        default: break
        }
        guard case .string(let first)? = params.first, first.hasPrefix("token:"),
              token.matches(first.dropFirst("token:".count)) else {
            throw .unauthorized
        }
        session?.authenticate()
        let params = Array(params.dropFirst())
        do {
            return try await run(method, Aria2Params(params))
        } catch let error as Aria2Error {
            throw error
        } catch let error as AgentAPIError {
            throw Aria2Error(error.message)
        } catch {
            throw Aria2Error(DownloadError.wrapping(error).message)
        }
    }

    /// `system.multicall([{"methodName", "params"}, ...])`: each call's result as a one-element
    /// array, or its error object, in order.
    private func multicall(_ params: [Aria2JSON], session: Aria2Session?) async throws(Aria2Error) -> Aria2JSON {
        guard params.count == 1, case .array(let calls) = params[0], calls.count <= Self.maxCalls else {
            throw Aria2Error("system.multicall takes one array of {\"methodName\", \"params\"} structs")
        }
        var results: [Aria2JSON] = []
        for call in calls {
            guard case .object(let fields) = call, let name = fields["methodName"]?.string, name != "system.multicall" else {
                results.append(Aria2Error("each call of system.multicall needs a methodName (not system.multicall)").json)
                continue
            }
            var inner: [Aria2JSON] = []
            if case .array(let given)? = fields["params"] { inner = given }
            do {
                results.append(.array([try await invoke(name, inner, session: session)]))
            } catch {
                results.append(error.json)
            }
        }
        return .array(results)
    }
}
