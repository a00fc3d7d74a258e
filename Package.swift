// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Threadfold",
    // Linux only: see Sources/ThreadfoldKit/Support/Platform.swift and the README.
    products: [
        .library(name: "ThreadfoldKit", targets: ["ThreadfoldKit"]),
        .executable(name: "threadfold", targets: ["threadfold"]),
    ],
    targets: [
        // cmark, from Debian's libcmark-dev.
        .systemLibrary(
            name: "Ccmark",
            path: "Sources/Ccmark",
            pkgConfig: "libcmark",
            providers: [.apt(["libcmark-dev"])]
        ),
        // Gumbo, an HTML5 parser, for bodies that arrive as HTML: they are parsed as browsers parse them.
        .systemLibrary(
            name: "Cgumbo",
            path: "Sources/Cgumbo",
            pkgConfig: "gumbo",
            providers: [.apt(["libgumbo-dev"])]
        ),
        // zstd, from Debian's libzstd-dev: Pushshift and Arctic Shift dumps (.zst, long windows).
        .systemLibrary(
            name: "Czstd",
            path: "Sources/Czstd",
            pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"])]
        ),
        // zlib, from Debian's zlib1g-dev: gzip input, and the site's .gz siblings.
        .systemLibrary(
            name: "Czlib",
            path: "Sources/Czlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // Brotli's encoder, from Debian's libbrotli-dev: the site's .br siblings (precompression).
        .systemLibrary(
            name: "Cbrotli",
            path: "Sources/Cbrotli",
            pkgConfig: "libbrotlienc",
            providers: [.apt(["libbrotli-dev"])]
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
            dependencies: ["Ccmark", "Cgumbo", "Czstd", "Czlib", "Cbrotli"],
            plugins: ["EmbedResources"]
        ),
        // Records the git commit and Gumbo's version for `threadfold --version`.
        .plugin(
            name: "BuildInfo",
            capability: .buildTool(),
            dependencies: ["embed-resources"],
            path: "Sources/BuildInfoPlugin"
        ),
        .target(name: "ThreadfoldCLI", dependencies: ["ThreadfoldKit"], plugins: ["BuildInfo"]),
        .executableTarget(name: "threadfold", dependencies: ["ThreadfoldCLI"]),
        .executableTarget(name: "threadfold-bench", dependencies: ["ThreadfoldKit"]),
        // What the web tests share: running Python with Selenium, and the W3C Nu checker.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "ThreadfoldKitTests", dependencies: ["ThreadfoldKit", "TestSupport"], exclude: ["Snapshots"]),
        .testTarget(name: "ThreadfoldCLITests", dependencies: ["ThreadfoldCLI", "threadfold", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
