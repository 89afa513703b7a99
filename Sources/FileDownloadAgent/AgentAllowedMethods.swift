import Hummingbird
import HTTPTypes

/// The methods each path of the API answers, read from a router's routes, so that a request for a
/// path the API has, with a method it does not answer there, gets 405 and `Allow` (RFC 9110
/// §15.5.6) instead of the 404 of a path it does not have.
struct AgentAllowedMethods: Sendable {
    private let routes: [(path: RouterPath, methods: [HTTPRequest.Method])]

    init(_ routes: [Router<AgentRequestContext>.RouteDescription]) {
        var byPath: [String: (path: RouterPath, methods: [HTTPRequest.Method])] = [:]
        for route in routes {
            byPath[route.path.description, default: (route.path, [])].methods.append(route.method)
        }
        self.routes = byPath.values.map { ($0.path, $0.methods.sorted { $0.rawValue < $1.rawValue }) }
    }

    /// The methods of the route `path` matches (each of its segments matched as the router
    /// matches it: a `{id}` segment takes any one), or `nil` when no route has this path.
    func methods(for path: String) -> [HTTPRequest.Method]? {
        let segments = path.split(separator: "/")
        return routes.first { route in
            route.path.components.count == segments.count
                && zip(route.path.components, segments).allSatisfy { element, segment in element ~= segment }
        }?.methods
    }
}
