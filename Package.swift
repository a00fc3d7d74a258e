// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Threadfold",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "ThreadfoldKit", targets: ["ThreadfoldKit"]),
        .executable(name: "threadfold", targets: ["threadfold"]),
    ],
    targets: [
        // The one C library: cmark, from Debian's libcmark-dev.
        .systemLibrary(
            name: "Ccmark",
            path: "Sources/Ccmark",
            pkgConfig: "libcmark",
            providers: [.apt(["libcmark-dev"])]
        ),
        // Build-time tool and plugin that embed Templates/, Public/ and the example thread
        // into the library, so the installed binary needs no source tree.
        .executableTarget(name: "embed-resources", path: "Sources/embed-resources"),
        .plugin(
            name: "EmbedResources",
            capability: .buildTool(),
            dependencies: ["embed-resources"],
            path: "Sources/EmbedResourcesPlugin"
        ),
        .target(
            name: "ThreadfoldKit",
            dependencies: ["Ccmark"],
            plugins: ["EmbedResources"]
        ),
        .target(name: "ThreadfoldCLI", dependencies: ["ThreadfoldKit"]),
        .executableTarget(name: "threadfold", dependencies: ["ThreadfoldCLI"]),
        .executableTarget(name: "threadfold-bench", dependencies: ["ThreadfoldKit"]),
        .testTarget(name: "ThreadfoldKitTests", dependencies: ["ThreadfoldKit"], exclude: ["Snapshots"]),
        .testTarget(name: "ThreadfoldCLITests", dependencies: ["ThreadfoldCLI", "threadfold"]),
    ],
    swiftLanguageModes: [.v6]
)
