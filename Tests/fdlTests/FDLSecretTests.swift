import FileDownloadTestSupport
import Foundation
import Testing

/// What a user types that is a secret stays one: a URL's password and the value of a
/// `--header-secret` field are sent, but never printed (log lines, errors, `--json`) nor stored in
/// the state directory; a header field with a line break is refused before anything happens.
@Suite struct FDLSecretTests {
    @Test(arguments: [
        ["--header", "X-Note: a\r\nX-Injected: 1"], ["--header", "X-Note: a\nX-Injected: 1"],
        ["--header-secret", "X-Api-Key: k\r\nX-Injected: 1"], ["--header", "X-Note: a\r"],
        ["--header", "Bad Name: a"], ["--header-secret", "X(1): a"],
    ])
    func aHeaderWithALineBreakOrABadNameIsAUsageError(option: [String]) async throws {
        let result = try await FDLProcess.getInEmptyDirectory(option)
        #expect(result.status == 64, "\(option): status \(result.status), stderr: \(result.stderr)")
        #expect(result.stderr.contains(option[0]), "the message names the option: \(result.stderr)")
        #expect(!result.stderr.contains("X-Injected"), "the message never repeats the value: \(result.stderr)")
        #expect(result.created.isEmpty)
    }

    @Test func passwordsAndSecretHeadersAreSentButNeverPrintedOrStored() async throws {
        try await NginxServer.withServer { server, out in
            let password = "pw-7f3a9c-secret", key = "key-51e0b2-secret", token = "token-a81d4e-secret"
            let data = try server.serve("s.bin", sampleBytes(30_000, seed: 41))
            func withPassword(_ path: String) -> String {
                server.url(path).replacingOccurrences(of: "http://", with: "http://alice:\(password)@")
            }
            let secrets = ["--header-secret", "X-Api-Key: \(key)", "--header", "Authorization: Bearer \(token)"]
            var printed = ""
            for json in [false, true] {
                // One that completes, one the server does not have, one that cannot connect.
                let result = try await FDLProcess.run(
                    ["get", withPassword("s.bin"), withPassword("missing.bin"),
                     "http://alice:\(password)@127.0.0.1:9/refused.bin", "-d", out.path, "--retry", "0"]
                        + secrets + (json ? ["--json"] : []))
                #expect(result.status == 1, "stdout: \(result.stdout) stderr: \(result.stderr)")
                printed += result.stdout + result.stderr
            }
            // URLs without a scheme or a host, and the commands that read the state.
            for url in ["alice:\(password)@127.0.0.1/x", "http://alice:\(password)@/x"] {
                let result = try await FDLProcess.run(["get", url, "-d", out.path])
                #expect(result.status == 64, "\(url): \(result.stderr)")
                printed += result.stdout + result.stderr
            }
            for list in [["list"], ["list", "--json"]] {
                let result = try await FDLProcess.run(list + ["-d", out.path])
                printed += result.stdout + result.stderr
            }
            #expect(try Data(contentsOf: out.file("s.bin")) == data)
            #expect(server.accessLog.contains { $0.hasPrefix("200 ") && $0.contains("api_key=\"\(key)\"") },
                    "the secret field was sent: \(server.accessLog)")
            #expect(printed.contains("missing.bin") && printed.contains("refused.bin"))
            let stored = try Self.contents(of: out.url)
            #expect(stored.contains("s.bin"), "the state was read")
            for secret in [password, key, token] {
                #expect(!printed.contains(secret), "\(secret) printed: \(printed)")
                #expect(!stored.contains(secret), "\(secret) stored in \(out.path)")
            }
        }
    }

    /// Everything in the files under `directory` (the state directory included), as text.
    static func contents(of directory: URL) throws -> String {
        var text = ""
        let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        while let file = walker?.nextObject() as? URL {
            if let data = try? Data(contentsOf: file) { text += String(decoding: data, as: UTF8.self) }
        }
        return text
    }
}
