// swift-tools-version: 6.0
// An example package that uses Threadfold as a library (docs/library.md). `make test` builds and
// runs it, so the public face it uses keeps working.
import PackageDescription

let package = Package(
    name: "threadfold-example",
    dependencies: [.package(name: "Threadfold", path: "../..")],
    targets: [
        .executableTarget(name: "threadfold-example", dependencies: [.product(name: "ThreadfoldKit", package: "Threadfold")])
    ],
    swiftLanguageModes: [.v6]
)
