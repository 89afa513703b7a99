/// Ends the check as failed with `message` unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw CheckFailure(message()) }
}
