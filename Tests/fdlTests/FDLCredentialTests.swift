import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `--user`, `--netrc` and `--netrc-file` against nginx's HTTP Basic authentication, and the hint
/// after a 401.
@Suite struct FDLCredentialTests {
    let netrcLine = "machine 127.0.0.1 login \(NginxServer.basicUser) password \(NginxServer.basicPassword)\n"

    @Test func aMissingCredentialGetsAHintHowToGiveOne() async throws {
        try await NginxServer.withServer { server, out in
            try server.serve("private/a.bin", sampleBytes(10_000, seed: 60))
            let result = try await FDLProcess.run(["get", server.url("private/a.bin"), "-d", out.path])
            #expect(result.status == 1)
            #expect(result.stdout.contains("a.bin: FAILED (authenticationFailed)"), "\(result.stdout)")
            #expect(result.stdout.contains("a.bin: the server wants credentials: pass --user USER (the password is asked), "
                                           + "--netrc (~/.netrc), or --header-secret 'Authorization: ...'"), "\(result.stdout)")
            let wrong = try await FDLProcess.run(["get", server.url("private/a.bin"), "-d", out.path, "--user", "\(NginxServer.basicUser):nope"])
            #expect(wrong.status == 1)
            #expect(wrong.stdout.contains("refused the credentials given"), "\(wrong.stdout)")
        }
    }

    @Test func userGivesTheCredential() async throws {
        try await NginxServer.withServer { server, out in
            let data = try server.serve("private/u.bin", sampleBytes(20_000, seed: 61))
            let result = try await FDLProcess.run(["get", server.url("private/u.bin"), "-d", out.path,
                                                   "--user", "\(NginxServer.basicUser):\(NginxServer.basicPassword)"])
            #expect(result.status == 0, "stdout: \(result.stdout)")
            #expect(try Data(contentsOf: out.file("u.bin")) == data)
            #expect(server.accessLog.contains { $0.hasPrefix("200 ") && $0.contains("user=\"\(NginxServer.basicUser)\"") })
            #expect(!result.stdout.contains(NginxServer.basicPassword))
        }
    }

    @Test func timestampingCheckAnswersTheServerWithUser() async throws {
        try await NginxServer.withServer { server, out in
            try server.serve("private/t.bin", sampleBytes(20_000, seed: 64))
            let arguments = ["get", server.url("private/t.bin"), "-d", out.path, "-N",
                             "--user", "\(NginxServer.basicUser):\(NginxServer.basicPassword)"]
            let first = try await FDLProcess.run(arguments)
            #expect(first.status == 0, "stdout: \(first.stdout) stderr: \(first.stderr)")
            let again = try await FDLProcess.run(arguments)
            #expect(again.status == 0, "stdout: \(again.stdout) stderr: \(again.stderr)")
            #expect(again.stdout.contains("up to date"), "the -N check used --user: \(again.stdout)")
            let checks = server.accessLog.filter { $0.contains("GET /private/t.bin") && $0.contains("range=\"bytes=19999-\"") }
            #expect(checks.contains { $0.contains("user=\"\(NginxServer.basicUser)\"") }, "\(server.accessLog)")
        }
    }

    @Test func netrcInHomeGivesTheCredential() async throws {
        try await NginxServer.withServer { server, out in
            let data = try server.serve("private/n.bin", sampleBytes(20_000, seed: 62))
            let home = out.file("home").path
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            try netrcLine.write(toFile: home + "/.netrc", atomically: true, encoding: .utf8)
            chmod(home + "/.netrc", 0o600)
            let result = try await FDLProcess.run(["get", server.url("private/n.bin"), "-d", out.path + "/files", "--netrc"],
                                                  environment: ["HOME": home])
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(result.stderr.isEmpty, "no warning for a private file: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("files/n.bin")) == data)
        }
    }

    @Test func netrcFileGivesTheCredentialAndAReadableOneIsWarnedAbout() async throws {
        try await NginxServer.withServer { server, out in
            let data = try server.serve("private/f.bin", sampleBytes(20_000, seed: 63))
            let file = out.file("my-netrc").path
            try netrcLine.write(toFile: file, atomically: true, encoding: .utf8)
            chmod(file, 0o644)
            let result = try await FDLProcess.run(["get", server.url("private/f.bin"), "-d", out.path, "--netrc-file", file])
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("f.bin")) == data)
            #expect(result.stderr.contains("warning: \(file) holds passwords and other users may read it"), "\(result.stderr)")
        }
    }
}
