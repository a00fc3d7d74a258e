/// The release this library is: every stage that writes the version (a page's generator tag, a
/// feed, the manifest, a dump's spill) reads it here, and `Threadfold.version` tells it.
enum Release {
    static let version = "0.1.0"
}
