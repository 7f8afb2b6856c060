// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "latchkey",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "latchkey", targets: ["latchkey"]),
        // The device half alone: what an app embeds to be a device of a Latchkey server.
        .library(name: "LatchkeyDevice", targets: ["LatchkeyDevice", "LatchkeyContract"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        // Callbacks' HTTP(S) client (TLS through swift-nio-ssl); only the executable links it.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.100.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
    ],
    targets: [
        // The only C boundary: jansson, with shims for the macros Swift cannot import.
        .systemLibrary(
            name: "CJansson",
            pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"]), .brew(["jansson"])]
        ),
        // JSON values, parsed and written through jansson. The only importer of CJansson.
        .target(name: "LatchkeyJSON", dependencies: ["CJansson"]),
        // Framing, JSON-RPC 2.0 messages, batching and the wire error codes.
        .target(name: "LatchkeyRPC", dependencies: ["LatchkeyJSON"]),
        // What both halves agree on: methods, purposes, error reasons, the signed payload, key and
        // signature encodings, the server operations a device calls; time and randomness.
        .target(
            name: "LatchkeyContract",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                // RS256 passkey keys (COSEKey).
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The device half: keys, masking, payloads, local state behind a storage protocol, and
        // the server reached through a connection protocol. No JSON, no store.
        .target(
            name: "LatchkeyDevice",
            dependencies: [
                "LatchkeyContract",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // What a store is: transactions, rows coded per record type, the reads a transaction states.
        // The domain writes through it; the SQLite and PostgreSQL stores implement it and know nothing else of the domain.
        .target(name: "LatchkeyStorage", dependencies: ["LatchkeyContract"]),
        // A WebAuthn Relying Party's checks (registration and assertion, L3 §7.1 and §7.2) and the options and
        // credentials they speak of: pure functions over bytes, no store.
        .target(
            name: "LatchkeyRelyingParty",
            dependencies: ["LatchkeyContract", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // The server half, the domain. Knows nothing of JSON, SQL or the wire.
        .target(
            name: "LatchkeyCore",
            dependencies: [
                "LatchkeyStorage", "LatchkeyRelyingParty", "LatchkeyContract",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Simulated phones: LatchkeyDevice over an in-process connection to the server half, their
        // state in the store's device tables.
        // The simulated phone's platform authenticator (its passkeys) and the RFC 6979 signer seeded runs sign with: tools for tests,
        // demos and replayable transcripts, kept out of the LatchkeyDevice product (which signs with swift-crypto alone).
        .target(
            name: "LatchkeyPlatformAuthenticator",
            dependencies: ["LatchkeyDevice", "LatchkeyContract", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(name: "LatchkeySimulator", dependencies: ["LatchkeyCore", "LatchkeyDevice", "LatchkeyContract"]),
        // SQLite through GRDB: migrations and one record mapping per table.
        .target(
            name: "LatchkeyStore",
            dependencies: [
                "LatchkeyStorage", "CSQLiteTuning", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // sqlite3_config, which Swift cannot call (variadic), wrapped for the settings made before the first connection.
        .systemLibrary(name: "CSQLiteTuning", providers: [.apt(["libsqlite3-dev"])]),
        // glibc's posix_spawn_file_actions_addclosefrom_np, which Swift's Glibc module does not declare.
        .systemLibrary(name: "CSpawn"),
        // libpq, PostgreSQL's C client (synchronous, like the stdio loop), with shims for its macros;
        // loaded with dlopen on first use, so a SQLite start does not load it (see shim.h).
        .systemLibrary(name: "CLibpq", providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
        // PostgreSQL through libpq: the same Store, for many processes on many machines.
        .target(
            name: "LatchkeyPostgres",
            dependencies: [
                "LatchkeyStorage", "CLibpq", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // How values look on the wire: codecs, JSON Schema, objects written (results) and params read (decoding generated by
        // `make regen` from each params type's declaration).
        .target(name: "LatchkeyWire", dependencies: ["LatchkeyJSON", "LatchkeyRPC", "LatchkeyContract"]),
        // The method table: contract name → params → Core call → result or error. Knows no phone.
        .target(
            name: "LatchkeyServer",
            dependencies: [
                "LatchkeyWire", "LatchkeyCore", "LatchkeyRPC", "LatchkeyJSON", "LatchkeyContract", "CSpawn",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The methods that drive a simulated phone (device/…, the device side of activation, authentication, recovery, onboarding,
        // passkeys) and its browser half: a tool for tests and demos, composed with the server's methods by the executable.
        .target(
            name: "LatchkeyPhoneMethods",
            dependencies: [
                "LatchkeyServer", "LatchkeyWire", "LatchkeySimulator", "LatchkeyDevice", "LatchkeyPlatformAuthenticator", "LatchkeyCore",
                "LatchkeyRPC", "LatchkeyJSON",
                "LatchkeyContract",
            ]
        ),
        // Callback delivery: the worker that sends each event over HTTP(S), signed as Standard Webhooks says. Only the executable
        // links it (the fuzz build, the server layer and their tests carry no HTTP client).
        .target(
            name: "LatchkeyCallbacks",
            dependencies: [
                "LatchkeyCore", "LatchkeyContract", "LatchkeyJSON",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "latchkey",
            dependencies: [
                "LatchkeyServer", "LatchkeyPhoneMethods", "LatchkeyPlatformAuthenticator", "LatchkeyRPC", "LatchkeyStore", "LatchkeyCore",
                "LatchkeyContract", "LatchkeyPostgres", "LatchkeyCallbacks",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // libFuzzer target over framing + parse + dispatch (`make fuzz`); without -DFUZZING it
        // replays corpus files.
        .target(name: "CFuzzSupport"),
        .executableTarget(
            name: "LatchkeyFuzz",
            dependencies: [
                "LatchkeyServer", "LatchkeyPhoneMethods", "LatchkeyPlatformAuthenticator", "LatchkeyRPC", "LatchkeyJSON", "LatchkeyStore",
                "LatchkeyCore", "LatchkeyContract", "CFuzzSupport",
            ]
        ),
        // Domain benchmarks: crypto floor, authentication and recovery on a file store (`make bench`).
        .executableTarget(
            name: "LatchkeyBench",
            dependencies: [
                "LatchkeyCore", "LatchkeyStore", "LatchkeyContract", "LatchkeyDevice", "LatchkeySimulator",
                "LatchkeyServer", "LatchkeyJSON", "LatchkeyRPC",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .testTarget(name: "LatchkeyJSONTests", dependencies: ["LatchkeyJSON"]),
        .testTarget(
            name: "LatchkeyCallbacksTests",
            dependencies: [
                "LatchkeyCallbacks", "LatchkeyCore", "LatchkeyContract",
                .product(name: "AsyncHTTPClient", package: "async-http-client"), .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "LatchkeyRPCTests", dependencies: ["LatchkeyRPC", "LatchkeyJSON"]),
        .testTarget(
            name: "LatchkeyContractTests",
            dependencies: [
                "LatchkeyContract", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .testTarget(name: "LatchkeyDeviceTests", dependencies: ["LatchkeyDevice", "LatchkeyContract"]),
        .testTarget(
            name: "LatchkeyPlatformAuthenticatorTests",
            dependencies: ["LatchkeyPlatformAuthenticator", "LatchkeyDevice", "LatchkeyContract", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // What the suites that drive both halves share: a system on a manual clock and its simulated phones.
        .target(
            name: "LatchkeyTestSupport",
            dependencies: [
                "LatchkeySimulator", "LatchkeyDevice", "LatchkeyCore", "LatchkeyStore", "LatchkeyContract",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/LatchkeyTestSupport"
        ),
        .testTarget(
            name: "LatchkeySimulatorTests",
            dependencies: ["LatchkeySimulator", "LatchkeyDevice", "LatchkeyCore", "LatchkeyStore", "LatchkeyContract", "LatchkeyTestSupport"]
        ),
        .testTarget(
            name: "LatchkeyRelyingPartyTests",
            dependencies: [
                "LatchkeyRelyingParty", "LatchkeyContract", "LatchkeyDevice", "LatchkeyPlatformAuthenticator",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "LatchkeyCoreTests",
            dependencies: [
                "LatchkeyCore", "LatchkeyStore", "LatchkeyContract", "LatchkeyDevice", "LatchkeySimulator", "LatchkeyPlatformAuthenticator",
                "LatchkeyTestSupport",
            ]
        ),
        .testTarget(
            name: "LatchkeyStoreTests",
            dependencies: [
                "LatchkeyStore", "LatchkeyCore", "LatchkeyContract", "LatchkeySimulator", "LatchkeyPostgres", "LatchkeyTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "LatchkeyServerTests",
            dependencies: [
                "LatchkeyServer", "LatchkeyPhoneMethods", "LatchkeyWire", "LatchkeyStore", "LatchkeyCore", "LatchkeyContract", "LatchkeyJSON",
                "LatchkeyRPC", "LatchkeyDevice", "LatchkeyStorage", "LatchkeyTestSupport", .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
