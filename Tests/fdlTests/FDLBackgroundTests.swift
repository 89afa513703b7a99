import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `fdl add` hands downloads to the user's download agent, starting one when none runs, and
/// returns; `fdl list|watch --agent` see them finish.
@Suite struct FDLBackgroundTests {
    @Test("fdl add starts an agent, returns at once; the files complete byte-exact, list --agent and watch --agent see them")
    func addStartsAnAgent() async throws {
        let home = try BackgroundAgentHome()
        var agentPID: pid_t?
        do {
            // a.bin takes at least 40 s (4 MB at 100 KB/s, below the segment threshold): `fdl add`
            // returns well before, and `list` sees it running even on a busy machine.
            try await NginxServer.withServer(slowRate: "100k") { server, out in
                let a = try server.serve("slow/a.bin", sampleBytes(4_000_000, seed: 31))
                let b = try server.serve("slow/b.bin", sampleBytes(300_000, seed: 32))
                #expect(!FileManager.default.fileExists(atPath: home.socket))
                let add = try await FDLProcess.run(["add", server.url("slow/a.bin"), server.url("slow/b.bin"), "-d", out.path],
                                                   environment: home.environment)
                agentPID = BackgroundAgentHome.startedPID(in: add.stdout)
                #expect(add.status == 0, "stdout: \(add.stdout) stderr: \(add.stderr)")
                #expect(agentPID != nil, "\(add.stdout)")
                #expect(add.stdout.contains("a.bin: handed to the download agent -> \(out.path("a.bin"))"), "\(add.stdout)")
                #expect(add.stdout.contains("b.bin: handed to the download agent"), "\(add.stdout)")
                // It returned while the (slow) downloads still run.
                let listed = try await FDLProcess.run(["list", "--agent"], environment: home.environment)
                #expect(listed.status == 0, "\(listed.stderr)")
                #expect(listed.stdout.split(separator: "\n").contains { $0.hasPrefix("a.bin") && !$0.contains("completed") },
                        "\(listed.stdout)")

                let watch = try await FDLProcess.run(["watch", "--agent", "a.bin", "b.bin"], environment: home.environment)
                #expect(watch.status == 0, "stdout: \(watch.stdout) stderr: \(watch.stderr)")
                #expect(watch.stdout.contains("a.bin: done -> \(out.path("a.bin"))"), "\(watch.stdout)")
                #expect(watch.stdout.contains("b.bin: done ->"), "\(watch.stdout)")
                #expect(try Data(contentsOf: out.file("a.bin")) == a)
                #expect(try Data(contentsOf: out.file("b.bin")) == b)

                let list = try await FDLProcess.run(["list", "--agent"], environment: home.environment)
                let rows = list.stdout.split(separator: "\n")
                #expect(rows.contains { $0.hasPrefix("a.bin") && $0.contains("completed") }, "\(list.stdout)")
                #expect(rows.contains { $0.hasPrefix("b.bin") && $0.contains("completed") }, "\(list.stdout)")
                // Watching finished downloads reports them and ends.
                let again = try await FDLProcess.run(["watch", "--agent", "a.bin", "--json"], environment: home.environment)
                #expect(again.status == 0 && again.stdout.contains("\"type\":\"completed\""), "\(again.stdout)")
                // A download that failed (404): watched by name it is reported at once (exit 1);
                // a watch of everything unfinished leaves it out and ends.
                let gone = try await FDLProcess.run(["get", "--background", server.url("missing.bin"), "-d", out.path],
                                                    environment: home.environment)
                #expect(gone.status == 0, "\(gone.stderr)")
                let failed = try await FDLProcess.run(["watch", "--agent", "missing.bin"], environment: home.environment)
                #expect(failed.status == 1 && (failed.stdout + failed.stderr).contains("missing.bin: FAILED (notFound)"),
                        "\(failed.status) \(failed.stdout) \(failed.stderr)")
                let everything = try await FDLProcess.run(["watch", "--agent"], environment: home.environment)
                #expect(everything.status == 0 && everything.stdout.contains("nothing to watch"), "\(everything.stdout) \(everything.stderr)")
                // An id the agent does not hold: a usage error naming it and some that it holds.
                let unknown = try await FDLProcess.run(["watch", "--agent", "a.bin", "nope"], environment: home.environment)
                #expect(unknown.status == 64 && unknown.stderr.contains("no download has the id 'nope' there (known: a.bin, b.bin, missing.bin)"),
                        "\(unknown.status) \(unknown.stderr)")

                // The same URL again: the running agent already has it; no second agent.
                let repeated = try await FDLProcess.run(["get", "--background", server.url("slow/a.bin"), "-d", out.path],
                                                        environment: home.environment)
                #expect(repeated.status == 0, "\(repeated.stderr)")
                #expect(repeated.stdout.contains("a.bin: the download agent already has it (completed)"), "\(repeated.stdout)")
                #expect(!repeated.stdout.contains("started the download agent"))
                var info = stat()
                #expect(stat(home.socket, &info) == 0 && info.st_mode & 0o777 == 0o600)
                #expect(FileManager.default.fileExists(atPath: home.log))
            }
        } catch {
            await home.stopAgent(pid: agentPID)
            throw error
        }
        await home.stopAgent(pid: agentPID)
    }

    @Test("a stopped agent (SIGSTOP) makes fdl add fail saying it does not answer, instead of starting a second one")
    func stoppedAgent() async throws {
        let home = try BackgroundAgentHome()
        var agentPID: pid_t?
        do {
            try await NginxServer.withServer { server, out in
                _ = try server.serve("one.bin", sampleBytes(1_000, seed: 33))
                _ = try server.serve("two.bin", sampleBytes(1_000, seed: 34))
                let first = try await FDLProcess.run(["add", server.url("one.bin"), "-d", out.path], environment: home.environment)
                agentPID = BackgroundAgentHome.startedPID(in: first.stdout)
                #expect(first.status == 0, "\(first.stderr)")
                let pid = try #require(agentPID, "\(first.stdout)")
                kill(pid, SIGSTOP)
                defer { kill(pid, SIGCONT) }
                // The health check's answer bound (10 s) ends it; before, a 2-minute wait, then a
                // second agent that exited at once, and "exited" after about four minutes.
                let second = try await FDLProcess.run(["add", server.url("two.bin"), "-d", out.path], environment: home.environment)
                #expect(second.status != 0, "\(second.stdout)")
                #expect(second.stderr.contains("does not answer (stopped?"), "\(second.stderr)")
                #expect(!second.stdout.contains("started the download agent"), "\(second.stdout)")
            }
        } catch {
            if let agentPID { kill(agentPID, SIGCONT) }
            await home.stopAgent(pid: agentPID)
            throw error
        }
        await home.stopAgent(pid: agentPID)
    }

    @Test("fdl add --mirror hands the mirror to the agent: a dead URL with a good mirror completes byte-exact")
    func addWithMirror() async throws {
        let home = try BackgroundAgentHome()
        let refusing = try RefusingPort()
        var agentPID: pid_t?
        do {
            try await NginxServer.withServer { server, out in
                let data = try server.serve("m/c.bin", sampleBytes(200_000, seed: 33))
                let add = try await FDLProcess.run(["add", "http://127.0.0.1:\(refusing.port)/c.bin", "--mirror", server.url("m/c.bin"),
                                                    "-d", out.path], environment: home.environment)
                agentPID = BackgroundAgentHome.startedPID(in: add.stdout)
                #expect(add.status == 0, "stdout: \(add.stdout) stderr: \(add.stderr)")
                let watch = try await FDLProcess.run(["watch", "--agent", "c.bin"], environment: home.environment)
                #expect(watch.status == 0 && watch.stdout.contains("c.bin: done"), "\(watch.stdout) \(watch.stderr)")
                #expect(try Data(contentsOf: out.file("c.bin")) == data)
            }
        } catch {
            await home.stopAgent(pid: agentPID)
            throw error
        }
        await home.stopAgent(pid: agentPID)
        withExtendedLifetime(refusing) {}
    }

    @Test("options the agent cannot apply are refused before anything starts")
    func refusedOptions() async throws {
        let home = try BackgroundAgentHome()
        defer { home.directory.remove() }
        let add = try await FDLProcess.run(["add", "http://127.0.0.1:9/x", "--limit-rate", "1M"], environment: home.environment)
        #expect(add.status == 64, "\(add.stderr)")
        #expect(add.stderr.contains("--limit-rate cannot go to the download agent"), "\(add.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.socket), "no agent was started")
    }

    @Test("get -k --background: the warning, then a refusal naming -k (exit 64); no agent is started, nothing stored")
    func insecureIsRefused() async throws {
        let home = try BackgroundAgentHome()
        defer { home.directory.remove() }
        for arguments in [["get", "-k", "--background", "https://127.0.0.1:9/x"], ["add", "--insecure", "https://127.0.0.1:9/x"]] {
            let run = try await FDLProcess.run(arguments, environment: home.environment)
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("fdl: warning: -k/--insecure: HTTPS and FTPS servers are not verified"), "\(run.stderr)")
            #expect(run.stderr.contains("-k/--insecure (the agent verifies every server it downloads from) cannot go to the download agent"),
                    "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: home.socket), "no agent was started")
        }
    }
}
