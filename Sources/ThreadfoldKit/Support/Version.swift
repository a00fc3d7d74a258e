/// The library's version, written into every page's generator tag and feed, and into the files
/// a build keeps (manifest, settings, dump table). Here, below every stage, so each may name it;
/// `Threadfold.version` is the public face of it.
package enum ThreadfoldVersion {
    package static let current = "0.1.0"
}
