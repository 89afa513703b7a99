import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl get -c` on a partial file fdl did not make, `-R`, cookie files (`-b`, `--load-cookies`)
/// and `--spider`, as a process against nginx.
@Suite struct FDLServerOptionTests {
    /// The whole seconds of `path`'s modification time.
    func modificationTime(_ path: String) throws -> Int64 {
        let date = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        return Int64(date?.timeIntervalSince1970.rounded(.down) ?? -1)
    }

    func setModificationTime(_ path: String, to date: Date) throws {
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path)
    }

    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    /// The first bytes of the server's file, with its modification time (what `curl -R` or
    /// `wget` leave): -c continues from them under the server's validator.
    @Test func continuesAPartialFileWhoseTimeIsTheServersFromItsEnd() async throws {
        try await NginxServer.withServer { server, out in
            let data = try server.serve("p.bin", sampleBytes(300_000, seed: 31))
            let served = server.root.appendingPathComponent("p.bin").path
            try setModificationTime(served, to: Date(timeIntervalSince1970: 1_600_000_000))
            try data.prefix(100_000).write(to: out.file("p.bin"))
            try setModificationTime(out.path("p.bin"), to: Date(timeIntervalSince1970: 1_600_000_000))

            let run = try await FDLProcess.run(["get", server.url("p.bin"), "-d", out.path, "-c"])
            #expect(run.status == 0, "stdout: \(run.stdout) stderr: \(run.stderr)")
            #expect(run.stdout.contains("continuing it (-c)"), "stdout: \(run.stdout)")
            #expect(try Data(contentsOf: out.file("p.bin")) == data)
            #expect(!exists(out.path("p.1.bin")), "no second copy")
            let full = server.accessLog.filter { $0.hasPrefix("200 ") && $0.contains("GET /p.bin") }
            #expect(full.isEmpty, "nothing fetched from zero: \(server.accessLog)")
            let continued = server.accessLog.filter { $0.hasPrefix("206 ") && $0.contains("range=\"bytes=100000-\"") }
            #expect(!continued.isEmpty, "a range from the partial file's end: \(server.accessLog)")
            #expect(run.stdout.contains("its Last-Modified is the partial file's time, Sun, 13 Sep 2020 12:26:40 GMT"),
                    "stdout: \(run.stdout)")
            #expect(server.accessLog.contains { $0.hasPrefix("206 ") && !$0.contains("if_range=\"\"") },
                    "the resume carries If-Range: \(server.accessLog)")
        }
    }

    /// A partial file left by the real `curl`, killed midway: its time is when curl wrote it, not
    /// the server's, but the server's file is older than the partial file's creation, so every
    /// byte of it came from this version: -c continues it under the server's validator.
    @Test func aPartialFileLeftByCurlIsContinued() async throws {
        try await NginxServer.withServer(slowRate: "64k") { server, out in
            let data = try server.serve("slow/c.bin", sampleBytes(600_000, seed: 32))
            try server.serve("c.bin", data)
            // A file the server has had for a while (both names: the one curl reads and fdl's).
            for name in ["c.bin", "slow/c.bin"] {
                try setModificationTime(server.root.appendingPathComponent(name).path, to: Date(timeIntervalSinceNow: -86_400))
            }
            let partial = out.path("c.bin")
            let curl = try ChildProcess("/usr/bin/curl", ["-s", "-o", partial, server.url("slow/c.bin")])
            try await poll("curl wrote part of the file", limit: .seconds(20)) {
                ((try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int) ?? 0) > 0
            }
            curl.kill()
            _ = try await curl.wait()
            let left = try Data(contentsOf: out.file("c.bin"))
            #expect(left.count > 0 && left.count < data.count, "curl left \(left.count) bytes")
            #expect(left == data.prefix(left.count))

            let run = try await FDLProcess.run(["get", server.url("c.bin"), "-d", out.path, "-c"])
            #expect(run.status == 0, "stdout: \(run.stdout) stderr: \(run.stderr)")
            #expect(run.stdout.contains("before the partial file was created"), "stdout: \(run.stdout)")
            #expect(try Data(contentsOf: out.file("c.bin")) == data)
            #expect(!exists(out.path("c.1.bin")), "no second copy")
            let fdlRequests = server.accessLog.filter { $0.contains("GET /c.bin") }
            #expect(!fdlRequests.contains { $0.hasPrefix("200 ") }, "nothing fetched from zero: \(fdlRequests)")
            #expect(fdlRequests.contains { $0.hasPrefix("206 ") && $0.contains("range=\"bytes=\(left.count)-\"") },
                    "one range from curl's last byte: \(fdlRequests)")
        }
    }

    /// A partial file older than the server's file: nothing shows its bytes are this version's, so
    /// fdl says why, keeps it untouched and downloads from the start under the next name.
    @Test func aPartialFileOlderThanTheServersFileIsKeptAndTheDownloadStartsOver() async throws {
        try await NginxServer.withServer { server, out in
            let data = try server.serve("o.bin", sampleBytes(300_000, seed: 38))
            let old = Data(sampleBytes(300_000, seed: 39).prefix(120_000))
            try old.write(to: out.file("o.bin"))
            // Replaced on the server after the partial file was made.
            try setModificationTime(server.root.appendingPathComponent("o.bin").path, to: Date(timeIntervalSinceNow: 86_400))

            let run = try await FDLProcess.run(["get", server.url("o.bin"), "-d", out.path, "-c"])
            #expect(run.status == 0, "stdout: \(run.stdout) stderr: \(run.stderr)")
            #expect(run.stdout.contains("o.bin: not continued (-c): the server's file was modified at"), "stdout: \(run.stdout)")
            #expect(run.stdout.contains("downloading from the start as o.1.bin"), "stdout: \(run.stdout)")
            #expect(try Data(contentsOf: out.file("o.bin")) == old, "the partial file is untouched")
            #expect(try Data(contentsOf: out.file("o.1.bin")) == data)
        }
    }

    /// `-R`: the finished file has the server's Last-Modified; without it, the time of the download.
    @Test func remoteTimeGivesTheFileTheServersModificationTime() async throws {
        try await NginxServer.withServer { server, out in
            try server.serve("r.bin", sampleBytes(40_000, seed: 33))
            try server.serve("n.bin", sampleBytes(40_000, seed: 34))
            let old = Date(timeIntervalSince1970: 1_234_567_890)
            try setModificationTime(server.root.appendingPathComponent("r.bin").path, to: old)
            try setModificationTime(server.root.appendingPathComponent("n.bin").path, to: old)

            let run = try await FDLProcess.run(["get", server.url("r.bin"), "-d", out.path, "-R"])
            #expect(run.status == 0, "stdout: \(run.stdout) stderr: \(run.stderr)")
            #expect(try modificationTime(out.path("r.bin")) == 1_234_567_890)

            let plain = try await FDLProcess.run(["get", server.url("n.bin"), "-d", out.path])
            #expect(plain.status == 0, "stdout: \(plain.stdout) stderr: \(plain.stderr)")
            #expect(try modificationTime(out.path("n.bin")) > 1_234_567_890)
        }
    }

    /// The cookies nginx received, echoed as the body of `/cookie.txt`.
    static let echoCookie = """
        location = /cookie.txt { default_type text/plain; return 200 "cookie=[$http_cookie]"; }
        """

    /// `-b FILE` and `--load-cookies FILE` (Netscape format) send the file's cookie for the host;
    /// `-b 'NAME=VALUE'` sends that cookie. The file is never written.
    @Test(arguments: ["-b", "--load-cookies"])
    func aCookieFileSendsItsCookie(option: String) async throws {
        try await NginxServer.withServer(locations: Self.echoCookie) { server, out in
            let jar = out.file("jar.txt")
            let text = "# Netscape HTTP Cookie File\n\(server.host)\tFALSE\t/\tFALSE\t0\tsession\tc00kie-value\n"
            try Data(text.utf8).write(to: jar)
            let state = try TemporaryDirectory("fdl-cookie-state")
            defer { state.remove() }

            let run = try await FDLProcess.run(["get", server.url("cookie.txt"), "-d", out.path, option, jar.path])
            #expect(run.status == 0, "stdout: \(run.stdout) stderr: \(run.stderr)")
            #expect(try String(contentsOf: out.file("cookie.txt"), encoding: .utf8) == "cookie=[session=c00kie-value]")
            #expect(try String(contentsOf: jar, encoding: .utf8) == text, "fdl writes no cookie")
            #expect(!run.stdout.contains("c00kie-value") && !run.stderr.contains("c00kie-value"))
        }
    }

    @Test func aCookieGivenAsNameAndValueIsSentAndNotStored() async throws {
        try await NginxServer.withServer(locations: Self.echoCookie) { server, out in
            let run = try await FDLProcess.run(["get", server.url("cookie.txt"), "-d", out.path, "-b", "k=v1; other=v2"])
            #expect(run.status == 0, "stdout: \(run.stdout) stderr: \(run.stderr)")
            #expect(try String(contentsOf: out.file("cookie.txt"), encoding: .utf8) == "cookie=[k=v1; other=v2]")
            let state = try Data(contentsOf: out.file(".fdl/state.sqlite"))
            #expect(state.range(of: Data("v1; other".utf8)) == nil, "the cookie is not in the state")
        }
    }

    @Test func anUnreadableCookieFileIsAUsageError() async throws {
        let run = try await FDLProcess.run(["get", "http://127.0.0.1:9/x", "-b", "/nonexistent/jar.txt"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("-b/--cookie: cannot read the cookie file /nonexistent/jar.txt"), "stderr: \(run.stderr)")
    }

    /// `--spider`: a 200 and a 404 are asked about, nothing is written (not even the state), and
    /// the exit code is the failed download's; every URL answering 2xx exits 0.
    @Test func spiderAsksTheServerAndWritesNothing() async throws {
        try await NginxServer.withServer { server, out in
            try server.serve("slow/s.bin", sampleBytes(2_000_000, seed: 35))
            // At nginx's slow rate: a body read to the end would show in the bytes sent.
            let both = try await FDLProcess.run(["get", "--spider", server.url("slow/s.bin"), server.url("missing.bin"),
                                                 "-d", out.path])
            #expect(both.status == 1, "stdout: \(both.stdout) stderr: \(both.stderr)")
            #expect(both.stdout.contains("\(server.url("slow/s.bin")): 200, "), "stdout: \(both.stdout)")
            #expect(both.stdout.contains("\(server.url("missing.bin")): failed:"), "stdout: \(both.stdout)")
            #expect(both.stdout.contains("1 of 2 URLs answered; nothing was downloaded"), "stdout: \(both.stdout)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty, "nothing written in DIR")
            #expect(try server.bodyBytesSent() < 2_000_000, "the body was not fetched")

            let one = try await FDLProcess.run(["get", "--spider", server.url("slow/s.bin"), "-d", out.path])
            #expect(one.status == 0, "stdout: \(one.stdout) stderr: \(one.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
        }
    }

    /// `-v`: each request's and answer's status line and header fields on standard error, with
    /// Authorization, Cookie and query values redacted, and no internal structures.
    @Test func verboseShowsTheExchangeWithoutSecrets() async throws {
        try await NginxServer.withServer { server, out in
            try server.serve("v.bin", sampleBytes(10_000, seed: 36))
            let run = try await FDLProcess.run(["get", server.url("v.bin") + "?X-Amz-Signature=s1gnature", "-d", out.path,
                                                "-v", "--header", "Authorization: Bearer t0ken-secret",
                                                "--header-secret", "X-Api-Key: k3y-secret", "-b", "c=c00kie-secret"])
            #expect(run.status == 0, "stdout: \(run.stdout) stderr: \(run.stderr)")
            #expect(run.stderr.contains("> GET /v.bin?X-Amz-Signature=[redacted] HTTP/1.1"), "stderr: \(run.stderr)")
            #expect(run.stderr.contains("< HTTP/1.1 200 OK"), "stderr: \(run.stderr)")
            #expect(run.stderr.contains("< Content-Length: 10000"), "stderr: \(run.stderr)")
            #expect(run.stderr.contains("> Authorization: [redacted]"), "stderr: \(run.stderr)")
            #expect(run.stderr.contains("> X-Api-Key: [redacted]"), "stderr: \(run.stderr)")
            #expect(run.stderr.contains("> Cookie: [redacted]"), "stderr: \(run.stderr)")
            for secret in ["t0ken-secret", "k3y-secret", "c00kie-secret", "s1gnature"] {
                let shown = (run.stderr + run.stdout).split(separator: "\n").filter { $0.contains(secret) }
                #expect(shown.isEmpty, "\(secret) shown: \(shown)")
            }
            #expect(!run.stderr.contains("AgentServer("), "no internal structures: \(run.stderr)")
        }
    }

    /// `-R` over SFTP: the time comes from the server's mtime (the size-and-mtime validator).
    @Test func remoteTimeOverSFTPIsTheRemoteFilesMtime() async throws {
        let server = try SSHServer()
        let out = try TemporaryDirectory("fdl-sftp-r")
        defer {
            server.stop()
            out.remove()
        }
        let path = try server.serve("m.bin", sampleBytes(30_000, seed: 37))
        try setModificationTime(path, to: Date(timeIntervalSince1970: 1_111_111_111))
        let run = try await FDLProcess.run(["get", server.address(path), "-d", out.path, "-R", "--identity", server.clientKey,
                                            "--known-hosts", server.knownHosts])
        #expect(run.status == 0, "stdout: \(run.stdout) stderr: \(run.stderr)")
        #expect(try modificationTime(out.path("m.bin")) == 1_111_111_111)
    }

    /// `-R` over FTP: the time comes from `MDTM` (the size-and-mtime validator).
    @Test func remoteTimeOverFTPIsTheMDTMTime() async throws {
        let server = try VsftpdServer()
        let out = try TemporaryDirectory("fdl-ftp-r")
        defer {
            server.stop()
            out.remove()
        }
        try server.serve("f.bin", sampleBytes(30_000, seed: 40), modified: Date(timeIntervalSince1970: 1_222_222_222))
        let run = try await FDLProcess.run(["get", server.url("f.bin").absoluteString, "-d", out.path, "-R"])
        #expect(run.status == 0, "stdout: \(run.stdout) stderr: \(run.stderr)")
        #expect(try modificationTime(out.path("f.bin")) == 1_222_222_222)
    }
}
