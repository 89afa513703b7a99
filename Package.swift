// swift-tools-version:6.1
import PackageDescription

let strictSwift: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "swift-file-download",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "FileDownload", targets: ["FileDownload"]),
        .library(name: "FileDownloadMock", targets: ["FileDownloadMock"]),
        .library(name: "FileDownloadConformance", targets: ["FileDownloadConformance"]),
        // MARK: products of the HTTP transport
        .library(name: "FileDownloadHTTP", targets: ["FileDownloadHTTP"]),
        // MARK: products of the SFTP transport
        .library(name: "FileDownloadSFTP", targets: ["FileDownloadSFTP"]),
        // MARK: products of the SQLite store
        .library(name: "FileDownloadSQLite", targets: ["FileDownloadSQLite"]),
        // MARK: products of the PostgreSQL fleet queue
        .library(name: "FileDownloadPostgres", targets: ["FileDownloadPostgres"]),
        // MARK: products of the command line
        .executable(name: "fdl", targets: ["fdl"]),
        // MARK: products of the agent
        .library(name: "FileDownloadAgent", targets: ["FileDownloadAgent"]),
        .library(name: "FileDownloadAgentClient", targets: ["FileDownloadAgentClient"]),
        .plugin(name: "DownloadAssets", targets: ["DownloadAssets"]),
    ],
    // MARK: traits: what a package that depends on this one builds beyond the core and the transports
    // (docs/consumers.md). All are on by default; `.package(url: ..., traits: [])` resolves, fetches
    // and compiles only swift-crypto, swift-asn1 and swift-log with FileDownload and the transports.
    traits: [
        .trait(name: "AgentClient", description: "FileDownloadAgentClient (swift-nio)"),
        .trait(name: "Agent", description: "FileDownloadAgent (Hummingbird, swift-nio, service-lifecycle)",
               enabledTraits: ["AgentClient"]),
        .trait(name: "Fleet", description: "FileDownloadPostgres, the PostgreSQL fleet queue (postgres-nio)"),
        .trait(name: "CLI", description: "the fdl command (swift-argument-parser, the agent and the fleet queue)",
               enabledTraits: ["Agent", "Fleet"]),
        .default(enabledTraits: ["CLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // MARK: dependencies of the command line
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // MARK: documentation (`swift package generate-documentation`)
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // MARK: dependencies of the agent
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // MARK: dependencies of the PostgreSQL fleet queue
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // MARK: core
        .target(
            name: "FileDownload",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift
        ),
        .target(
            name: "FileDownloadMock",
            dependencies: [
                "FileDownload",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSwift
        ),
        .target(
            name: "FileDownloadConformance",
            dependencies: ["FileDownload"],
            swiftSettings: strictSwift
        ),
        .target(
            name: "FileDownloadTestSupport",
            dependencies: ["FileDownload", .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "Logging", package: "swift-log")],
            path: "Tests/TestSupport",
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "FileDownloadTests",
            dependencies: ["FileDownload", "FileDownloadMock", "FileDownloadConformance", "FileDownloadTestSupport"],
            exclude: ["Corpus"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "FileDownloadMockTests",
            dependencies: ["FileDownload", "FileDownloadMock", "FileDownloadConformance", "FileDownloadTestSupport"],
            swiftSettings: strictSwift
        ),

        // MARK: HTTP transport (CCurl, FileDownloadHTTP, FileDownloadHTTPTests)
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(
            name: "FileDownloadHTTP",
            dependencies: ["FileDownload", "CCurl"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "FileDownloadHTTPTests",
            dependencies: ["FileDownloadTestSupport", 
                "FileDownload", "FileDownloadHTTP", "FileDownloadConformance", "FileDownloadMock",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["Servers"],
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "bench-http",
            dependencies: ["FileDownload", "FileDownloadHTTP"],
            path: "Benchmarks/bench-http",
            swiftSettings: strictSwift
        ),

        // MARK: SFTP transport (CSSH2, FileDownloadSFTP, FileDownloadSFTPTests)
        .systemLibrary(
            name: "CSSH2",
            pkgConfig: "libssh2",
            providers: [.apt(["libssh2-1-dev"])]
        ),
        .target(
            name: "FileDownloadSFTP",
            dependencies: [
                "FileDownload",
                "CSSH2",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "FileDownloadSFTPTests",
            dependencies: ["FileDownloadTestSupport", "FileDownload", "FileDownloadSFTP", "FileDownloadConformance"],
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "bench-sftp",
            dependencies: ["FileDownload", "FileDownloadSFTP"],
            path: "Benchmarks/bench-sftp",
            swiftSettings: strictSwift
        ),

        // MARK: SQLite store (FileDownloadSQLite, FileDownloadSQLiteTests)
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "FileDownloadSQLite",
            dependencies: ["FileDownload", "CSQLite"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "FileDownloadSQLiteTests",
            dependencies: ["FileDownloadTestSupport", 
                "FileDownloadSQLite", "FileDownload", "FileDownloadMock", "CSQLite", "fdl-crash-helper",
            ],
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "fdl-crash-helper",
            dependencies: ["FileDownload", "FileDownloadHTTP", "FileDownloadSQLite"],
            path: "Tests/Helpers/fdl-crash-helper",
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "bench-store",
            dependencies: ["FileDownloadSQLite", "FileDownload"],
            path: "Benchmarks/bench-store",
            swiftSettings: strictSwift
        ),

        // MARK: PostgreSQL fleet queue (FileDownloadPostgres, FileDownloadPostgresTests: the queue and `fdl worker`)
        .target(
            name: "FileDownloadPostgres",
            dependencies: [
                "FileDownload",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Fleet"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "FileDownloadPostgresTests",
            dependencies: ["FileDownloadTestSupport", "FileDownload", "FileDownloadPostgres", "FileDownloadMock", "fdl"],
            swiftSettings: strictSwift
        ),

        // MARK: agent (FileDownloadAgent, FileDownloadAgentClient, their tests: routes in-process, `fdl agent` as a process)
        .target(
            name: "FileDownloadAgent",
            dependencies: [
                "FileDownload",
                "FileDownloadHTTP",
                "FileDownloadSFTP",
                "FileDownloadSQLite",
                "FileDownloadAgentClient",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Agent"])),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket", condition: .when(traits: ["Agent"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Agent"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Agent"])),
            ],
            swiftSettings: strictSwift
        ),
        .target(
            name: "FileDownloadAgentClient",
            dependencies: [
                "FileDownload",
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["AgentClient"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["AgentClient"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["AgentClient"])),
            ],
            swiftSettings: strictSwift
        ),

        .testTarget(
            name: "FileDownloadAgentTests",
            dependencies: ["FileDownloadTestSupport", "FileDownload", "FileDownloadAgent", "FileDownloadAgentClient",
                           "FileDownloadSQLite", "FileDownloadMock", "fdl", "fdl-agent-app",
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Agent"])),
                           .product(name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Agent"])),
                           .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Agent"])),
                           .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Agent"])),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Agent"])),
                           .product(name: "Logging", package: "swift-log")],
            exclude: ["Web/drive_page.py", "Web/attack_page.py"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "FileDownloadAgentClientTests",
            dependencies: ["FileDownloadTestSupport", "FileDownload", "FileDownloadAgentClient"],
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "fdl-agent-app",
            dependencies: ["FileDownload", "FileDownloadAgentClient"],
            path: "Tests/Helpers/fdl-agent-app",
            swiftSettings: strictSwift
        ),

        // MARK: command line (fdl, fdlTests); FileDownloadCLI is the executable's internals, not a product
        .target(
            name: "FileDownloadCLI",
            dependencies: [
                "FileDownload",
                "FileDownloadHTTP",
                "FileDownloadSFTP",
                "FileDownloadSQLite",
                "FileDownloadAgent",
                "FileDownloadAgentClient",
                "FileDownloadPostgres",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["CLI"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["CLI"])),
            ],
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "fdl",
            dependencies: ["FileDownloadCLI"],
            swiftSettings: strictSwift
        ),
        .plugin(
            name: "DownloadAssets",
            capability: .command(
                intent: .custom(verb: "download-assets",
                                description: "Fetch the files listed in assets.json that are missing or wrong"),
                permissions: [
                    .allowNetworkConnections(scope: .all(), reason: "Downloads the assets listed in assets.json"),
                    .writeToPackageDirectory(reason: "Puts the downloaded assets at the paths assets.json names"),
                ]
            )
        ),
        .testTarget(
            name: "fdlTests",
            dependencies: ["FileDownloadTestSupport", "FileDownloadCLI", "FileDownload", "fdl",
                           .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["CLI"])),
                           .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSwift
        ),

        // MARK: examples
        .executableTarget(
            name: "CustomTransportExample",
            dependencies: ["FileDownload"],
            path: "Examples/CustomTransport",
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "EmbeddingExample",
            dependencies: ["FileDownload", "FileDownloadHTTP"],
            path: "Examples/Embedding",
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "QuickStartExample",
            dependencies: ["FileDownload", "FileDownloadHTTP"],
            path: "Examples/QuickStart",
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "TestingWithMockExample",
            dependencies: ["FileDownload", "FileDownloadMock"],
            path: "Examples/TestingWithMock",
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "ExamplesTests",
            dependencies: ["CustomTransportExample", "TestingWithMockExample", "EmbeddingExample", "QuickStartExample",
                           "FileDownloadTestSupport", "FileDownload",
                           "FileDownloadConformance", "FileDownloadMock", "FileDownloadHTTP", "FileDownloadSFTP",
                           "FileDownloadSQLite"],
            swiftSettings: strictSwift
        ),

        // MARK: benchmarks
        .executableTarget(
            name: "bench-core",
            dependencies: ["FileDownload", "FileDownloadMock"],
            path: "Benchmarks/bench-core",
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "bench-queue",
            dependencies: ["FileDownload", "FileDownloadSQLite"],
            path: "Benchmarks/bench-queue",
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "bench-agent",
            dependencies: ["FileDownload", "FileDownloadHTTP", "FileDownloadSQLite", "FileDownloadAgentClient"],
            path: "Benchmarks/bench-agent",
            swiftSettings: strictSwift
        ),
    ],
    swiftLanguageModes: [.v6]
)
