/// What the cancellation check saw first while waiting for the stalling resource's head.
enum CancellationEvent: Sendable {
    case head
    case ended(TransferEnding)
    case timedOut
}
