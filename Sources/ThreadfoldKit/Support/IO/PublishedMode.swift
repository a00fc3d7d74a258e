#if canImport(Glibc)
    import Glibc
#endif

/// The mode of every file Threadfold publishes (a page, a feed, a sidecar, a built-in asset):
/// anyone may read it, its owner write it. The umask may narrow it, and a theme's asset keeps
/// narrower bits of its own. It sits in Support, not Site, because Render, which gives pages
/// and assets their modes, comes before Site and names it too.
package let publishedMode: mode_t = 0o644
