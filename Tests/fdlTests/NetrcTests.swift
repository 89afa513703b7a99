@testable import FileDownloadCLI
import Foundation
import Testing

/// `.netrc` as curl reads it: machines, default, quoted tokens, comments, macros.
@Suite struct NetrcTests {
    @Test func machinesDefaultQuotesCommentsAndMacros() throws {
        let text = """
            # my hosts
            machine a.example login alice password "pa ss\\"word"
            macdef init
            cd /pub
            ls

            machine b.example
              login bob
              password b0b # trailing comment
            machine b.example login carol password c4rol
            default login anonymous password guest@
            """
        let netrc = try Netrc(parsing: text, source: "netrc")
        #expect(netrc.login(for: "a.example")! == ("alice", "pa ss\"word"))
        #expect(netrc.login(for: "B.EXAMPLE")! == ("bob", "b0b"))
        #expect(netrc.login(for: "b.example", user: "carol")! == ("carol", "c4rol"))
        #expect(netrc.login(for: "elsewhere")! == ("anonymous", "guest@"))
        #expect(netrc.login(for: "a.example", user: "mallory") == nil)
        #expect(!netrc.description.contains("b0b"))
    }

    @Test(arguments: [("machine", "netrc:1: 'machine' needs a value"),
                      ("login x", "netrc:1: 'login' before any 'machine' or 'default'"),
                      ("machine m password \"open", "netrc:1: a quoted value is not closed")])
    func errorsNameTheLineNotThePassword(text: String, message: String) {
        #expect { try Netrc(parsing: text, source: "netrc") } throws: { "\($0)" == message }
    }

    @Test func theCommandLineUserWinsThenTheURLThenNetrc() throws {
        let netrc = try Netrc(parsing: "machine h login n password np", source: "netrc")
        let both = CredentialSource(login: ("u", "up"), netrc: netrc)
        #expect(both.credential(for: URL(string: "http://h/x")!)! == ("u", "up"))
        let fromFile = CredentialSource(netrc: netrc)
        #expect(fromFile.credential(for: URL(string: "http://h/x")!)! == ("n", "np"))
        #expect(fromFile.credential(for: URL(string: "http://x:y@h/x")!) == nil, "the URL's own password is used")
        #expect(fromFile.credential(for: URL(string: "http://other/x")!) == nil)
    }
}
