import FileDownloadPostgres
import Foundation
import Testing

/// Which queue URLs are reached without TLS: only loopback IP literals, `localhost` and Unix
/// sockets; a host name that merely starts with `127.` is resolved by DNS and gets verified TLS.
@Suite struct PostgresQueueSettingsTests {
    @Test(arguments: ["127.0.0.1", "127.8.9.10", "[::1]", "localhost"])
    func loopbackLiteralsGoWithoutTLS(host: String) throws {
        let settings = try PostgresQueueSettings(url: URL(string: "postgres://fdl@\(host):5432/q")!, password: nil)
        #expect(settings.tls == .disable)
    }

    @Test(arguments: ["127.db.example.com", "127.0.0.1.example.com", "127.1", "localhost.example.com",
                      "128.0.0.1", "[::2]", "db.example.com"])
    func everyOtherHostNeedsVerifiedTLS(host: String) throws {
        let settings = try PostgresQueueSettings(url: URL(string: "postgres://fdl@\(host)/q")!, password: nil)
        #expect(settings.tls == .verifyFull, "\(host)")
    }

    @Test func aUnixSocketGoesWithoutTLSAndSslmodeIsObeyed() throws {
        let socket = try PostgresQueueSettings(url: URL(string: "postgres://fdl@/q?host=/run/postgresql")!, password: nil)
        #expect(socket.tls == .disable)
        let forced = try PostgresQueueSettings(url: URL(string: "postgres://fdl@127.0.0.1/q?sslmode=verify-full")!, password: nil)
        #expect(forced.tls == .verifyFull)
    }
}
