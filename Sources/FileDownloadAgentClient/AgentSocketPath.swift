public import Foundation

/// The agent's default socket path, shared by the agent and its clients.
public enum AgentSocketPath {
    /// `$XDG_RUNTIME_DIR/fdl/agent.sock`, or, when `XDG_RUNTIME_DIR` is unset or not absolute,
    /// `$XDG_STATE_HOME/fdl/agent.sock` (`~/.local/state/fdl/agent.sock`).
    public static func `default`(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            return runtime + "/fdl/agent.sock"
        }
        return stateHome(environment: environment) + "/fdl/agent.sock"
    }

    /// `$XDG_STATE_HOME` when it is absolute, else `$HOME/.local/state`.
    public static func stateHome(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
        return home + "/.local/state"
    }
}
