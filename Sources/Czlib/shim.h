// zlib for Swift, from Debian's zlib1g-dev: gzip streams in (inflate) and out (deflate).
#include <zlib.h>
