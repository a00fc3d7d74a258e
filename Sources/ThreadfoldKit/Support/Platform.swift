// Threadfold is built and tested on Linux only: the site writer relies on Linux calls
// (renameat2, syncfs, st_mtim, descriptor-relative calls from Glibc), and nothing is tested
// elsewhere. Say so at compile time rather than fail in some call.
#if !os(Linux)
    #error("Threadfold builds on Linux only (Debian 12 with Swift 6 is what it is tested on); see README.md")
#endif
