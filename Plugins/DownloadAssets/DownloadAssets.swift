import Foundation
import PackagePlugin

/// `swift package download-assets`: fetches the files listed in the package's `assets.json` that
/// are missing or whose SHA-256 is wrong, through `fdl`.
///
/// The manifest (default `assets.json` at the package root, or `--manifest FILE`):
/// ```json
/// { "assets": [ { "url": "https://example.org/model.bin",
///                 "sha256": "<64 hex digits>",
///                 "path": "Resources/model.bin" } ] }
/// ```
/// `path` is relative to the package root and must stay inside it. Files already there with the
/// right SHA-256 are not downloaded again; interrupted downloads continue where they stopped
/// (`fdl`'s state lives in the plugin's work directory, not in the package). A file is written at
/// its path only after its SHA-256 matched.
///
/// SwiftPM asks for network access and for writing to the package directory; in scripts pass
/// `--allow-network-connections all --allow-writing-to-package-directory`.
///
/// The plugin asks SwiftPM to build the `fdl` product (debug) when it runs, rather than naming `fdl`
/// as a tool dependency: a tool dependency is built a second time for the host on every
/// `swift build` of this package (all of `fdl`'s dependencies), whether or not the plugin ever runs.
@main
struct DownloadAssets: CommandPlugin {
    struct Manifest: Decodable {
        struct Asset: Decodable {
            var url: String
            var sha256: String
            var path: String
        }
        var assets: [Asset]
    }

    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let manifestName = extractor.extractOption(named: "manifest").last ?? "assets.json"
        let root = context.package.directoryURL
        let manifestURL = URL(fileURLWithPath: manifestName, relativeTo: root).standardizedFileURL
        let manifest: Manifest
        do {
            manifest = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: manifestURL))
        } catch {
            throw PluginError("cannot read the asset manifest \(manifestURL.path): \(error)")
        }
        let fdl = try buildFDL()
        // One fdl run per destination directory, URLs in manifest order.
        var groups: [(directory: URL, assets: [Manifest.Asset])] = []
        for asset in manifest.assets {
            let target = URL(fileURLWithPath: asset.path, relativeTo: root).standardizedFileURL
            guard target.path.hasPrefix(root.standardizedFileURL.path + "/") else {
                throw PluginError("the asset path '\(asset.path)' leaves the package directory")
            }
            let directory = target.deletingLastPathComponent()
            if let index = groups.firstIndex(where: { $0.directory == directory }) {
                groups[index].assets.append(asset)
            } else {
                groups.append((directory, [asset]))
            }
        }
        for (index, group) in groups.enumerated() {
            let state = context.pluginWorkDirectoryURL.appendingPathComponent("fdl-state-\(index)")
            // The manifest names these paths: a file there with a wrong SHA-256 is replaced.
            var args = ["get", "-d", group.directory.path, "--state", state.path, "--allow-overwrite"]
            for asset in group.assets {
                args += [asset.url, "--sha256", asset.sha256, "--name", URL(fileURLWithPath: asset.path).lastPathComponent]
            }
            args += extractor.remainingArguments
            let process = Process()
            process.executableURL = fdl
            process.arguments = args
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw PluginError("fdl exited with status \(process.terminationStatus) for \(group.directory.path)")
            }
        }
        print("download-assets: \(manifest.assets.count) asset(s) in place and verified")
    }
}

extension DownloadAssets {
    /// Builds the `fdl` product through SwiftPM (nothing to do when it is up to date) and returns
    /// the executable; throws with the build's log when the build fails.
    func buildFDL() throws -> URL {
        let result = try packageManager.build(.product("fdl"), parameters: .init(configuration: .debug, logging: .concise))
        guard result.succeeded,
              let fdl = result.builtArtifacts.first(where: { $0.kind == .executable && $0.url.lastPathComponent == "fdl" }) else {
            throw PluginError("building fdl failed:\n\(result.logText)")
        }
        return fdl.url
    }
}

struct PluginError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
