import Hummingbird
import HTTPTypes

/// Wraps the TCP listener's responder and adds to every answer (errors included) the headers
/// that keep a browser from running foreign script in the page or showing it in a frame:
/// `Content-Security-Policy: default-src 'self'; frame-ancestors 'none'; base-uri 'none';
/// form-action 'self'`, `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY`,
/// `Referrer-Policy: no-referrer`, and `Cache-Control: no-store` unless the route set one.
struct SecurityHeadersResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context == AgentRequestContext {
    typealias Context = AgentRequestContext

    static var contentSecurityPolicy: String {
        "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    }

    let inner: Inner

    func respond(to request: Request, context: Context) async throws -> Response {
        var response = try await inner.respond(to: request, context: context)
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        if response.headers[.cacheControl] == nil {
            response.headers[.cacheControl] = "no-store"
        }
        return response
    }
}
