import FileDownload
import Synchronization

/// Records the auth challenges a transport asked, in order.
final class ChallengeLog: Sendable {
    private let challenges = Mutex<[AuthChallenge]>([])
    func append(_ challenge: AuthChallenge) { challenges.withLock { $0.append(challenge) } }
    var all: [AuthChallenge] { challenges.withLock { $0 } }
}
