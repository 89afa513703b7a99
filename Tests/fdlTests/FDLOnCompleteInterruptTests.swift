import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C while an `fdl get --on-complete` command runs: the command is in a process group of its
/// own (the terminal's SIGINT never reaches it), so fdl kills it and exits.
@Suite struct FDLOnCompleteInterruptTests {
    @Test("SIGINT while an --on-complete command sleeps: fdl exits at once with 130 and the command's process group is gone")
    func interruptKillsTheRunningCommand() async throws {
        try await FaultServer.withRootAndOutput { server, root, out in
            _ = try root.createFile("c.bin", contents: sampleBytes(4_000, seed: 31))
            let pidFile = out.path("pid")
            // The shell's pid is its process group's id; the sleep is its child, in the same group.
            let command = "echo $$ > \(pidFile).tmp && mv \(pidFile).tmp \(pidFile); sleep 600; true"
            let fdl = try FDLProcess(["get", server.url("c.bin").absoluteString, "-d", out.path("dl"),
                                      "--on-complete", command])
            try await poll("the --on-complete command runs", limit: .seconds(60), interval: .milliseconds(20)) {
                FileManager.default.fileExists(atPath: pidFile)
            }
            let group = try #require(pid_t(try String(contentsOfFile: pidFile, encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)))
            fdl.send(SIGINT)
            let status = try await Task { await fdl.exitStatus() }.value(within: 10, what: "fdl to exit after SIGINT")
            #expect(status == 130, "\(fdl.stderr)")
            try await poll("the command's process group is gone", limit: .seconds(10), interval: .milliseconds(20)) {
                Self.liveMembers(of: group).isEmpty
            }
        }
    }

    /// The processes of process group `group` that are not zombies (a killed grandchild may wait
    /// for init to reap it).
    static func liveMembers(of group: pid_t) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { entry in
            guard Int32(entry) != nil,
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            // After "pid (comm)": state, ppid, pgrp.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && fields[0] != "Z" && fields[2] == "\(group)"
        }
    }
}
