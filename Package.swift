// swift-tools-version:6.1
import PackageDescription

/// Settings every target shares: Swift 6 mode and the strict upcoming features.
let strictSettings: [SwiftSetting] = [
  .swiftLanguageMode(.v6),
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
  .enableUpcomingFeature("MemberImportVisibility"),
  .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
]

let grpcCore = Target.Dependency.product(name: "GRPCCore", package: "grpc-swift-2")
let grpcProtobuf = Target.Dependency.product(name: "GRPCProtobuf", package: "grpc-swift-protobuf")
let grpcHTTP2 = Target.Dependency.product(name: "GRPCNIOTransportHTTP2", package: "grpc-swift-nio-transport")
let grpcInProcess = Target.Dependency.product(name: "GRPCInProcessTransport", package: "grpc-swift-2")
let swiftProtobuf = Target.Dependency.product(name: "SwiftProtobuf", package: "swift-protobuf")
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
let serviceLifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let unixSignals = Target.Dependency.product(name: "UnixSignals", package: "swift-service-lifecycle")
let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
let sqlKit = Target.Dependency.product(name: "SQLKit", package: "sql-kit")
let sqliteKit = Target.Dependency.product(name: "SQLiteKit", package: "sqlite-kit")
let sqliteNIO = Target.Dependency.product(name: "SQLiteNIO", package: "sqlite-nio")
let nioCore = Target.Dependency.product(name: "NIOCore", package: "swift-nio")
let nioPosix = Target.Dependency.product(name: "NIOPosix", package: "swift-nio")
let nioHTTP1 = Target.Dependency.product(name: "NIOHTTP1", package: "swift-nio")
let nioHTTP2 = Target.Dependency.product(name: "NIOHTTP2", package: "swift-nio-http2")
let nioHPACK = Target.Dependency.product(name: "NIOHPACK", package: "swift-nio-http2")
let nioExtras = Target.Dependency.product(name: "NIOExtras", package: "swift-nio-extras")
let postgresKit = Target.Dependency.product(name: "PostgresKit", package: "postgres-kit")
let postgresNIO = Target.Dependency.product(name: "PostgresNIO", package: "postgres-nio")
let prometheus = Target.Dependency.product(name: "Prometheus", package: "swift-prometheus")
let jwtKit = Target.Dependency.product(name: "JWTKit", package: "jwt-kit")
let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
let httpClient = Target.Dependency.product(name: "AsyncHTTPClient", package: "async-http-client")
let nioSSL = Target.Dependency.product(name: "NIOSSL", package: "swift-nio-ssl")
let x509 = Target.Dependency.product(name: "X509", package: "swift-certificates")
let tracing = Target.Dependency.product(name: "Tracing", package: "swift-distributed-tracing")
let otel = Target.Dependency.product(name: "OTel", package: "swift-otel")

/// A generated-code module: one per contract, so that the gateway never links a domain's types.
///
/// Release builds of generated code skip Swift's run-time exclusivity checks: protoc-gen-swift keeps
/// a large message's fields in a class, so every read of a field (a getter, each field `traverse`
/// visits while encoding, each field a copy-on-write copies) began a checked access: ~360 of the
/// ~900 a ride's Confirm made, each ~65 instructions; unchecked, that Confirm runs ~3 % fewer
/// (docs/BENCHMARKS.md, History). The accessors read or write one field and return; what our
/// code does with messages is still checked (the flag is per module), and debug builds, in which
/// every test runs, check everything.
func protos(_ name: String, dependencies: [Target.Dependency] = []) -> Target {
  .target(
    name: name,
    dependencies: [grpcCore, grpcProtobuf, swiftProtobuf] + dependencies,
    swiftSettings: strictSettings + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
  )
}

/// A deployable domain service: a thin `main.swift` and its manifest folder.
/// Linking for resident memory (the gateway and every domain service): the Swift runtime and
/// Foundation statically, so a process maps only the code it uses instead of whole shared libraries
/// (and ICU) at start; FoundationEssentials' own static dependencies are named because the driver
/// does not add them; relative relocations packed (DT_RELR, glibc 2.36+: 2.3 MiB of .rela.dyn become
/// 19 KiB, and no longer all read at start); and no dynamic symbol table of every Swift symbol
/// (nothing looks a service's symbols up at run time); and, by lld, the functions a service runs at
/// start and on its first calls laid out together (Services/link-order.txt, made by
/// scripts/generate-link-order), so it maps ~6 MiB of its machine code rather than ~20 (the
/// kernel maps 64–128 KiB around each page of code it faults in). See docs/ARCHITECTURE.md, "A small
/// process".
/// The functions without a symbol that a service runs (LLVM's `.L__unnamed_N`) are placed by section
/// (Services/link-order.ld). With INTENTMESH_LINK_MAP=1 (scripts/generate-link-order) each service's
/// link also writes its map to .build/link-maps/, which names the section of each address that ran.
func leanLinking(_ target: String) -> [LinkerSetting] {
  let map =
    Context.environment["INTENTMESH_LINK_MAP"] == "1"
    ? ["-Xlinker", "-Map=\(Context.packageDirectory)/.build/link-maps/\(target).map"] : []
  return [
    .unsafeFlags(
      [
        "-static-stdlib", "-l_FoundationCollections", "-l_FoundationCShims",
        "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
        "-Xlinker", "--no-export-dynamic",
        "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Services/link-order.txt",
        "-Xlinker", "--no-warn-symbol-ordering",
        "-Xlinker", "-T", "-Xlinker", "\(Context.packageDirectory)/Services/link-order.ld",
      ] + map,
      .when(platforms: [.linux])
    )
  ]
}

/// A domain service also uses Foundation proper (calendars and time zones, with ICU): its static
/// libraries, which the driver does not name either.
let foundationStatically: [LinkerSetting] = [
  .unsafeFlags(
    ["-lCoreFoundation", "-lFoundationInternationalization", "-l_FoundationICU", "-lFoundationEssentials"],
    .when(platforms: [.linux])
  )
]

func service(_ target: String, folder: String, dependencies: [Target.Dependency]) -> Target {
  .executableTarget(
    name: target,
    dependencies: dependencies,
    path: "Services/\(folder)",
    exclude: ["README.md"],
    resources: [.copy("Manifest")],
    swiftSettings: strictSettings,
    linkerSettings: leanLinking(target) + foundationStatically
  )
}

let package = Package(
  name: "IntentMesh",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "messaging-service", targets: ["MessagingService"]),
    .executable(name: "payments-service", targets: ["PaymentsService"]),
    .executable(name: "ridebooking-service", targets: ["RideBookingService"]),
    .executable(name: "notes-service", targets: ["ListsAndNotesService"]),
    .executable(name: "gateway", targets: ["GatewayService"]),
    .executable(name: "intentmesh", targets: ["IntentMeshCLI"]),
    .executable(name: "relay-framing-probe", targets: ["RelayFramingProbe"]),
    .library(name: "IntentsKit", targets: ["IntentsKit"]),
    .library(name: "IntentsRuntime", targets: ["IntentsRuntime"]),
    .library(name: "ServiceKit", targets: ["ServiceKit"]),
  ],
  dependencies: [
    .package(url: "https://github.com/grpc/grpc-swift-2.git", exact: "2.4.3"),
    .package(url: "https://github.com/grpc/grpc-swift-nio-transport.git", exact: "2.9.2"),
    .package(url: "https://github.com/grpc/grpc-swift-protobuf.git", exact: "2.4.1"),
    .package(url: "https://github.com/apple/swift-protobuf.git", exact: "1.39.0"),
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
    .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
    .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
    .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
    .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
    .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
    .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
    .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
    .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
    .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
    // OTLP over gRPC only: the OTLP/HTTP exporter would bring a second HTTP client.
    .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPGRPC"]),
  ],
  targets: [
    // Contracts (generated by scripts/generate-protos; committed).
    protos("IntentMeshProtos"),
    protos("MessagingProtos", dependencies: ["IntentMeshProtos"]),
    protos("PaymentsProtos", dependencies: ["IntentMeshProtos"]),
    protos("RideBookingProtos", dependencies: ["IntentMeshProtos"]),
    protos("ListsAndNotesProtos", dependencies: ["IntentMeshProtos"]),
    protos("ReflectionProtos"),

    // The values every IntentMesh module shares, domains included: errors with their gRPC status and
    // reason, the verified caller of a call, name matching, enum case names, the contracts' descriptor
    // set. No transport, no server: a domain links this instead of ServiceKit.
    .target(
      name: "IntentMeshCore",
      dependencies: ["IntentMeshProtos", grpcCore, grpcProtobuf, swiftProtobuf],
      swiftSettings: strictSettings
    ),

    // Starts a server executable as a child process, reads what it prints on a thread of its own
    // (copied to a log file if asked), waits for its serving line, stops it: `intentmesh up` and the
    // tests use the same launcher.
    .target(
      name: "ServiceLauncher",
      dependencies: ["IntentMeshCore", "CChildProcess"],
      swiftSettings: strictSettings
    ),

    // posix_spawn with every other descriptor closed in the child (a glibc extension Swift's Glibc
    // module does not declare), for `ServiceLauncher`.
    .target(name: "CChildProcess"),

    // What every server process shares, the gateway included: transport settings, health, metrics,
    // reflection, request ids, error details. No store and no Foundation (FoundationEssentials only),
    // so the gateway that links it stays small.
    .target(
      name: "ServiceKit",
      dependencies: [
        "IntentMeshCore", "IntentMeshProtos", "ReflectionProtos", grpcCore, grpcProtobuf, grpcHTTP2, swiftProtobuf,
        logging, serviceLifecycle, nioCore, nioPosix, nioHTTP1, nioHTTP2, nioHPACK, prometheus, jwtKit, crypto,
        httpClient,
        argumentParser, nioSSL, tracing, otel,
      ],
      swiftSettings: strictSettings
    ),

    // proto3 JSON ↔ protobuf binary by descriptors (`ProtoSchema`), without generated types: the
    // gateway's web side and the CLI read and write JSON with it. The domain services never link it.
    .target(
      name: "ProtoJSON",
      dependencies: ["IntentMeshCore", swiftProtobuf],
      swiftSettings: strictSettings
    ),

    // Words to intents: interaction models (sample utterances with slots), their check against the
    // intents they speak of, and the matcher the gateway's Understand runs. Plain Swift: no protos,
    // no networking, no store.
    .target(name: "Understanding", swiftSettings: strictSettings),

    // The one SQLite setting Swift cannot make itself (sqlite3_db_config is variadic).
    .target(name: "CSQLiteOptions", dependencies: [sqliteNIO]),

    // The handler API a domain is written against: intents, handlers, resolution results, parameter
    // values, views, manifests, the intent registry and the store protocol. No transport, no store
    // implementation, no command line: a domain library links this, IntentMeshCore and SQLKit.
    .target(
      name: "IntentsKit",
      dependencies: [
        "IntentMeshCore", "IntentMeshProtos", "Understanding", grpcCore, swiftProtobuf, logging, sqlKit,
      ],
      swiftSettings: strictSettings
    ),

    // What runs a domain as a process: options, configuration, the gRPC server and its dispatch of
    // intents to handlers, maintenance, and the two stores (SQLite with group commit, PostgreSQL).
    .target(
      name: "IntentsRuntime",
      dependencies: [
        "IntentsKit", "CSQLiteOptions", "ServiceKit", "IntentMeshCore", "IntentMeshProtos", "ReflectionProtos",
        "Understanding", grpcCore, grpcProtobuf,
        grpcHTTP2, swiftProtobuf, logging, serviceLifecycle, unixSignals, sqlKit, sqliteKit, sqliteNIO, postgresKit,
        postgresNIO, nioCore, nioPosix, nioHTTP1, nioSSL, argumentParser, prometheus, crypto, tracing,
      ],
      swiftSettings: strictSettings
    ),

    // What service tests share: a domain served in-process, as its executable assembles it.
    .target(
      name: "IntentsKitTesting",
      dependencies: [
        "IntentsKit", "IntentsRuntime", "ServiceKit", "IntentMeshCore", "IntentMeshProtos", grpcCore, grpcInProcess,
        grpcProtobuf, logging,
        swiftProtobuf, crypto, x509,
        .product(name: "SwiftASN1", package: "swift-asn1"),
      ],
      swiftSettings: strictSettings
    ),

    // zlib, for the compressed calls the gateway's own gRPC server takes in process (zlib's types
    // stay in the C file: grpc-swift's transport has its own module over zlib.h).
    .target(
      name: "CZlib",
      path: "Sources/CZlib",
      linkerSettings: [.linkedLibrary("z")]
    ),

    // Domains: business logic and storage, no networking.
    .systemLibrary(
      name: "CQRencode",
      path: "Sources/CQRencode",
      pkgConfig: "libqrencode",
      providers: [.apt(["libqrencode-dev"])]
    ),
    .target(
      name: "Messaging",
      dependencies: [
        "IntentsKit", "IntentMeshCore", "MessagingProtos", "IntentMeshProtos", "CQRencode", sqlKit, logging,
        swiftProtobuf,
        grpcCore,
      ],
      swiftSettings: strictSettings
    ),

    .target(
      name: "Payments",
      dependencies: [
        "IntentsKit", "IntentMeshCore", "PaymentsProtos", "IntentMeshProtos", sqlKit, logging, swiftProtobuf, grpcCore,
      ],
      swiftSettings: strictSettings
    ),

    .target(
      name: "RideBooking",
      dependencies: [
        "IntentsKit", "IntentMeshCore", "RideBookingProtos", "IntentMeshProtos", sqlKit, logging, swiftProtobuf,
        grpcCore,
      ],
      swiftSettings: strictSettings
    ),

    .target(
      name: "ListsAndNotes",
      dependencies: [
        "IntentsKit", "IntentMeshCore", "ListsAndNotesProtos", "IntentMeshProtos", sqlKit, logging, swiftProtobuf,
        grpcCore,
      ],
      swiftSettings: strictSettings
    ),

    // The gateway: routing, conversation, layout. It links no domain code, no domain types, no store.
    .target(
      name: "Gateway",
      dependencies: [
        "ServiceKit", "ProtoJSON", "IntentMeshCore", "IntentMeshProtos", "Understanding", "CZlib", grpcCore,
        grpcProtobuf, grpcHTTP2, grpcInProcess,
        swiftProtobuf, logging, serviceLifecycle,
        unixSignals, argumentParser, nioCore, nioPosix, nioHPACK, nioExtras, prometheus, nioSSL, nioHTTP1, nioHTTP2,
        tracing,
      ],
      swiftSettings: strictSettings
    ),

    // Deployable services.
    service(
      "MessagingService", folder: "Messaging",
      dependencies: ["IntentsRuntime", "ServiceKit", "Messaging", argumentParser, logging]),
    service(
      "PaymentsService", folder: "Payments",
      dependencies: ["IntentsRuntime", "ServiceKit", "Payments", argumentParser, logging]),
    service(
      "ListsAndNotesService", folder: "ListsAndNotes",
      dependencies: ["IntentsRuntime", "ServiceKit", "ListsAndNotes", argumentParser, logging]),
    service(
      "RideBookingService", folder: "RideBooking",
      dependencies: ["IntentsRuntime", "ServiceKit", "RideBooking", argumentParser, logging]
    ),

    .executableTarget(
      name: "GatewayService",
      dependencies: ["Gateway", "ServiceKit", argumentParser],
      path: "Services/Gateway",
      exclude: ["README.md"],
      swiftSettings: strictSettings,
      // The gateway's resident memory is mostly its own machine code and link-time data, so it is linked
      // for size: the Swift runtime statically (nothing in the gateway calls Foundation, ServiceKit and the
      // gateway use FoundationEssentials only, yet swift-protobuf's default traits autolink Foundation,
      // which a dynamic link would load with its ICU at start; a static link takes only what is used;
      // FoundationEssentials' own static dependencies are named because the driver does not add them);
      // relative relocations packed (DT_RELR, glibc 2.36+: 2.3 MiB of .rela.dyn become 19 KiB, and no
      // longer all read at start); and no dynamic symbol table of every Swift symbol (nothing looks
      // the gateway's symbols up at run time). Together about 12 MiB less RSS; see README "Measured".
      // swift-otel (the OTLP exporter, used only when tracing is configured) reads its environment and
      // builds its messages with Foundation proper: its static libraries are named as for the domains.
      linkerSettings: leanLinking("GatewayService") + foundationStatically
    ),

    // The command-line client for people: `intentmesh up`, `send`, `chat`, `routes`. It links no
    // domain's types: it builds and reads payloads from the descriptors the gateway's reflection serves.
    .executableTarget(
      name: "IntentMeshCLI",
      dependencies: [
        "ServiceLauncher",
        "IntentMeshProtos", "ServiceKit", "ProtoJSON", "IntentMeshCore", grpcCore, grpcHTTP2, swiftProtobuf,
        argumentParser,
      ],
      swiftSettings: strictSettings
    ),

    // A measurement instrument (scripts/bench-framing): a relay on NIOHTTP2Handler without a multiplexer.
    .executableTarget(
      name: "RelayFramingProbe", dependencies: [nioCore, nioPosix, nioHTTP2, nioHPACK],
      path: "Benchmarks/RelayFramingProbe"),

    // Tests.
    .testTarget(
      name: "IntentsKitTests",
      dependencies: [
        "IntentsKit", "IntentsRuntime", "ServiceKit", "IntentMeshCore", "IntentsKitTesting", "IntentMeshProtos",
        "ReflectionProtos",
        "MessagingProtos",
        crypto, .product(name: "CryptoExtras", package: "swift-crypto"), nioCore, nioHTTP2, nioHPACK,
        .product(name: "NIOEmbedded", package: "swift-nio"),
        grpcCore,
        grpcInProcess,
        swiftProtobuf,
        sqlKit, logging,
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "MessagingTests",
      dependencies: [
        "Messaging", "IntentsKit", "IntentsRuntime", "ServiceKit", "IntentMeshCore", "IntentsKitTesting",
        "IntentMeshProtos",
        "MessagingProtos", grpcCore,
        grpcInProcess,
        grpcProtobuf, swiftProtobuf, sqlKit, logging,
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "PaymentsTests",
      dependencies: [
        "Payments", "IntentsKit", "IntentsRuntime", "ServiceKit", "IntentMeshCore", "IntentsKitTesting",
        "IntentMeshProtos",
        "PaymentsProtos", grpcCore,
        grpcInProcess,
        grpcProtobuf, swiftProtobuf, sqlKit, logging, crypto,
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "RideBookingTests",
      dependencies: [
        "RideBooking", "IntentsKit", "IntentsRuntime", "ServiceKit", "IntentMeshCore", "IntentsKitTesting",
        "IntentMeshProtos",
        "RideBookingProtos",
        grpcCore,
        grpcInProcess, grpcHTTP2, grpcProtobuf, swiftProtobuf, sqlKit, logging,
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "ListsAndNotesTests",
      dependencies: [
        "ListsAndNotes", "IntentsKit", "IntentsRuntime", "ServiceKit", "IntentMeshCore", "IntentsKitTesting",
        "IntentMeshProtos",
        "ListsAndNotesProtos",
        grpcCore,
        grpcInProcess, grpcProtobuf, swiftProtobuf, sqlKit, logging,
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "UnderstandingTests",
      dependencies: ["Understanding"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "ProtoJSONTests",
      dependencies: ["ProtoJSON", "ServiceKit", "IntentMeshProtos", "ReflectionProtos", swiftProtobuf],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "GatewayTests",
      dependencies: [
        "ServiceLauncher",
        "ProtoJSON",
        "Gateway", "IntentsKit", "IntentsRuntime", "ServiceKit", "IntentMeshCore", "IntentsKitTesting", "Messaging",
        "IntentMeshProtos",
        "MessagingProtos",
        "ReflectionProtos", grpcCore,
        grpcHTTP2, grpcProtobuf, swiftProtobuf, logging, nioCore, nioHPACK, argumentParser, nioHTTP1, nioPosix, crypto,
        serviceLifecycle,
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "EndToEndTests",
      dependencies: [
        "ServiceLauncher",
        "IntentMeshProtos", "MessagingProtos", "PaymentsProtos", "Payments", "RideBookingProtos", "ListsAndNotesProtos",
        "Messaging", "RideBooking", "ListsAndNotes", "IntentsKit", "IntentsRuntime", "ServiceKit", "IntentMeshCore",
        "IntentsKitTesting",
        "ReflectionProtos",
        grpcCore, grpcHTTP2, grpcInProcess,
        grpcProtobuf, swiftProtobuf, sqlKit, logging,
      ],
      swiftSettings: strictSettings
    ),
  ]
)

// The fuzz targets (Fuzz/, driven by scripts/fuzz): libFuzzer supplies `main`, so the executable
// exists only in a build with INTENTMESH_FUZZ=1 and `--sanitize=fuzzer`. It reads the relay's
// internals with `@testable import`, which a debug build allows.
if Context.environment["INTENTMESH_FUZZ"] == "1" {
  package.products.append(.executable(name: "intentmesh-fuzz", targets: ["IntentMeshFuzz"]))
  package.targets.append(
    .executableTarget(
      name: "IntentMeshFuzz",
      dependencies: [
        "Gateway", "ProtoJSON", "IntentsKit", "IntentsRuntime", "IntentsKitTesting", "ServiceKit", "IntentMeshCore",
        "IntentMeshProtos",
        "MessagingProtos",
        "PaymentsProtos", "RideBookingProtos", "Messaging", "Payments", "RideBooking", "ListsAndNotes", grpcCore,
        swiftProtobuf, logging, nioCore, .product(name: "NIOEmbedded", package: "swift-nio"),
      ],
      path: "Fuzz/IntentMeshFuzz",
      swiftSettings: strictSettings + [.unsafeFlags(["-parse-as-library"])]
    )
  )
}
