import FileDownload

/// Answers auth challenges from a list, recording each challenge.
actor AnswerQueue {
    private var answers: [AuthDisposition]
    private(set) var asked: [AuthChallenge] = []

    init(_ answers: [AuthDisposition]) { self.answers = answers }

    nonisolated var answer: @Sendable (AuthChallenge) async -> AuthDisposition {
        { challenge in await self.next(challenge) }
    }

    private func next(_ challenge: AuthChallenge) -> AuthDisposition {
        asked.append(challenge)
        return answers.isEmpty ? .reject : answers.removeFirst()
    }
}
