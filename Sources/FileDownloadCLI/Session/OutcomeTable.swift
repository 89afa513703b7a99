/// The final outcome of each download of a session, by id, with the questions the session asks
/// after every event answered in constant time: is this id one of ours, and has every one of ours
/// an outcome? (With 2,000 downloads and eight events each, scanning the ids per event cost more
/// than the downloads.)
struct OutcomeTable {
    private var outcomes: [String: SessionOutcome] = [:]
    private var members: Set<String> = []
    /// How many members have an outcome.
    private var settled = 0

    /// Makes `id` one of the session's downloads; registering it again changes nothing.
    mutating func register(_ id: String) {
        guard members.insert(id).inserted else { return }
        if outcomes[id] != nil { settled += 1 }
    }

    /// Whether `id` was registered.
    func contains(_ id: String) -> Bool { members.contains(id) }

    /// Whether every registered download has an outcome (true when none is registered).
    var allSettled: Bool { settled == members.count }

    /// The outcome of `id`; setting `nil` makes it unsettled again (a resumed download).
    subscript(id: String) -> SessionOutcome? {
        get { outcomes[id] }
        set {
            let before: SessionOutcome?
            if let newValue { before = outcomes.updateValue(newValue, forKey: id) } else { before = outcomes.removeValue(forKey: id) }
            guard members.contains(id) else { return }
            settled += (newValue == nil ? 0 : 1) - (before == nil ? 0 : 1)
        }
    }
}
